"""Coyote to the letter: the turn structure (bids, showdown, the deal, ``?`` on empty piles)."""

from __future__ import annotations

from collections import Counter

import pytest

from engine.core import Action, RuleError
from engine.coyote import get_edition
from tests.engine.coyote_game_helpers import play
from tests.engine.coyote_rulings_helpers import (
    CALL,
    GAME,
    all_cards,
    bid,
    make,
    rule_error,
    showdown,
)


@pytest.mark.parametrize("action", [Action("bid", 0), Action("bid", -3), Action("bid", 1.5),
                                    Action("bid", True), CALL])
def test_opening_must_be_a_whole_bid_of_at_least_one(action):
    state = make("classic", ["5", "10", "3"], turn=0)
    with pytest.raises(RuleError):
        GAME.apply(state, 0, action)


def test_bids_strictly_increase_and_own_bid_cannot_be_called():
    state = make("classic", ["5", "10", "3"], turn=0)
    state, _ = play(state, (0, bid(5)))
    assert rule_error(state, 1, bid(5)) == "bid_too_low"
    state, _ = play(state, (1, bid(6)))
    assert state["turn"] == 2  # clockwise = seat order


def test_the_only_maximum_bid_is_the_house_limit():
    """Turn structure 2: "There is no maximum bid." The house limit (``MAX_BID``, 11 digits:
    a chat button's data carries at most 12) is far past any bid a table makes, and the
    README says so; at it, the next player may only call."""
    from engine.coyote.editions import MAX_BID

    state = make("classic", ["5", "10", "3"], turn=0)
    new, _ = GAME.apply(state, 0, bid(MAX_BID))
    assert new["bids"][-1] == [0, MAX_BID]
    with pytest.raises(RuleError, match="bid_too_high"):
        GAME.apply(state, 0, bid(MAX_BID + 1))


def test_showdown_deals_only_survivors_and_eliminates_at_zero():
    state = make("classic", ["5", "10", "3"], turn=0, lives=[3, 1, 3])
    new, events = play(state, (0, bid(18)), (1, CALL))  # caller 1 loses, at 0 lives
    assert new["lives"] == [3, 0, 3]
    assert new["out"] == [1]
    assert new["hands"][1] is None
    assert any(e.type == "player_eliminated" and e.data["seat"] == 1 for e in events)


def test_deal_reshuffles_discard_when_draw_pile_short():
    state = make("classic", ["5", "10", "3"], turn=0)
    rest = state["draw"]
    state["draw"], state["discard"] = rest[:2], rest[2:]
    new, events = play(state, (0, bid(18)), (1, CALL))
    assert any(e.type == "reshuffled" for e in events)
    assert all(h is not None for h in new["hands"])
    assert all_cards(new) == Counter(get_edition("classic").deck)


def test_question_mark_with_empty_draw_pile_shuffles_discard_first():
    """Classic scoring 1: "If the draw pile is empty, shuffle the discard pile into it first"."""
    state = make("classic", ["?", "4", "5"], turn=0)
    state["draw"], state["discard"] = [], ["10"]  # one discarded card: the draw is known
    _, events = play(state, (0, bid(19)), (1, CALL))
    assert showdown(events)["total"] == 19
    assert showdown(events)["loser"] == 1


def test_question_mark_with_both_piles_empty_counts_zero():
    state = make("classic", ["?", "4", "5"], turn=0)
    state["draw"], state["discard"] = [], []
    _, events = play(state, (0, bid(9)), (1, CALL))
    assert showdown(events)["total"] == 9
    assert showdown(events)["loser"] == 1
