"""Coyote to the letter: ``view`` never shows a player their own card, in random games."""

from __future__ import annotations

import random

import pytest

from tests.engine.coyote_rulings_helpers import GAME


def _check_views(state: dict) -> None:
    for seat in range(state["seats"]):
        v = GAME.view(state, seat)
        if not state["revealed"][seat]:
            assert v["cards"][seat] is None
        assert all(c is None for c in v["extra"][seat])
        assert all(c is None for c in v["void"][seat])
        assert "draw" not in v and "hands" not in v
    pub = GAME.view(state, None)
    assert all(c is None or state["revealed"][s] for s, c in enumerate(pub["cards"]))


@pytest.mark.parametrize(("edition", "specials", "seed"), [
    ("classic", True, 1), ("classic", False, 2), ("feathers", True, 3), ("feathers", True, 4),
    ("poker-deck", False, 5),
])
def test_view_never_shows_own_card_random_play(edition, specials, seed):
    rng = random.Random(seed)
    opts = {"edition": edition}
    if specials:
        opts["specials"] = True
    state = GAME.new_state(5, seed, opts)
    for _ in range(150):
        if state["over"]:
            break
        _check_views(state)
        seat = state["turn"]
        actions = GAME.legal_actions(state, seat)
        calls = [a for a in actions if a.kind == "call"]
        pick = calls[0] if calls and rng.random() < 0.35 else rng.choice(actions)
        state, _ = GAME.apply(state, seat, pick)
    _check_views(state)
