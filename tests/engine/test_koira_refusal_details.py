"""What a Koira refusal carries for its text: ``bad_sequence`` says whether this game's
``trump_ends_trick`` option (R17) is why a run of one suit is refused, so the bot's refusal
can name the option rather than only what a sequence is (which the run is)."""

from __future__ import annotations

import pytest

from engine.core import RuleError
from tests.engine.koira_helpers import phase2, play


def test_r17_a_run_not_from_a_two_is_refused_as_the_option_refuses_it() -> None:
    """R17 ``trump_ends_trick``: sequences of any suit are valid only if their lowest card is
    a 2. 5♠ 6♠ is refused with ``from_two`` in its detail. Before the fix the detail held
    only ``min`` (2), and the refusal read "a sequence is 2 or more cards of one suit in a
    row", which 5♠ 6♠ is."""
    state = phase2([["5S", "6S", "KH"], ["9H", "4C"], ["6H"]], trump="S",
                   trump_ends_trick=True)
    with pytest.raises(RuleError) as refused:
        play(state, 0, "5S", "6S")
    assert refused.value.code == "bad_sequence"
    assert refused.value.detail == {"min": 2, "from_two": True}
    # without the option, a run that is no sequence says only the minimum's rule
    state = phase2([["5S", "7S", "KH"], ["9H", "4C"], ["6H"]], trump="S")
    with pytest.raises(RuleError) as refused:
        play(state, 0, "5S", "7S")
    assert refused.value.detail == {"min": 2, "from_two": False}
