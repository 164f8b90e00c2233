"""Random whole games through the real bot (:mod:`tests.e2e.fuzz`): every invariant checked
after each step and at the end. :data:`tests.e2e.fuzz.QUICK_SEEDS` by default, one short
game of each kind; ``FUZZ_SEEDS`` (``1,5,9`` or ``100-199``, with ``-n 2``) sweeps others,
``FUZZ_TRACE=1`` prints each game's steps. About 480 games were swept so (seeds 0–460, every
kind): what they found is fixed, with its own tests (test_unreachable_players.py,
test_comebacks.py, test_settle.py)."""

from __future__ import annotations

import pytest

from tests.e2e.fuzz import play, sweep_seeds


@pytest.mark.parametrize("seed", sweep_seeds())
async def test_fuzz_sweep_random_games(sqlite_url, caplog, seed) -> None:
    """The driver's broad sweep: a random game a seed (:func:`plan`: the kind is
    ``KINDS[seed % 6]``), every invariant checked after each step and at the end. By
    default a handful of quick seeds; ``FUZZ_SEEDS=0-400`` (with ``-n 2``) sweeps."""
    fuzz = await play(sqlite_url, seed, caplog)
    assert not fuzz.faults, "\n".join(fuzz.faults[:20] + ["trace:"] + fuzz.trace[-40:])
