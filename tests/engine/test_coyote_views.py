"""Coyote views and events: one's own card and the draw pile stay hidden."""

from __future__ import annotations

import json

import pytest

from engine.core import RuleError
from tests.engine.coyote_game_helpers import CALL, GAME, bid, make_state, play


def test_view_hides_own_card_and_shows_others():
    state = make_state("classic", ["5", "10", "3"])
    for seat in range(3):
        cards = GAME.view(state, seat)["cards"]
        assert cards[seat] is None
        assert [c for s, c in enumerate(cards) if s != seat] == [
            c for s, c in enumerate(state["hands"]) if s != seat]
    public = GAME.view(state, None)
    assert public["cards"] == [None, None, None]
    assert public["draw_count"] == len(state["draw"])
    assert "draw" not in public and "hands" not in public and "seed" not in public


@pytest.mark.parametrize("seat", [-1, 3, 10])
def test_view_bad_seat(seat):
    state = make_state("classic", ["5", "10", "3"])
    with pytest.raises(RuleError) as exc:
        GAME.view(state, seat)
    assert exc.value.code == "bad_seat"


def test_events_carry_no_hidden_card():
    state = make_state("classic", ["5", "10", "3"])
    _, events = play(state, (0, bid(18)), (1, CALL))
    for ev in events:
        if ev.type != "showdown":
            blob = json.dumps(ev.to_json())
            assert "hands" not in blob and "draw\"" not in blob
    dealt = [e for e in events if e.type == "round_dealt"]
    assert dealt and set(dealt[0].data) == {"round", "starter", "seats"}
