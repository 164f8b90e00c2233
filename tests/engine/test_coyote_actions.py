"""Coyote bids, calls and malformed actions through ``apply``, and ``apply``'s purity."""

from __future__ import annotations

import copy
import json

import pytest

from engine.core import Action, RuleError
from tests.engine.coyote_game_helpers import CALL, GAME, bid, event_types, make_state, play


@pytest.mark.parametrize("amount", [0, -1, -100])
def test_opening_bid_must_be_at_least_one(amount):
    state = make_state("classic", ["5", "10", "3"])
    with pytest.raises(RuleError) as exc:
        GAME.apply(state, 0, bid(amount))
    assert exc.value.code == "bid_too_low"
    assert exc.value.detail == {"min_bid": 1}


def test_opening_bid_of_one_is_legal():
    state = make_state("classic", ["5", "10", "3"])
    new, events = GAME.apply(state, 0, bid(1))
    assert new["bids"] == [[0, 1]]
    assert new["turn"] == 1
    assert event_types(events) == ["bid_placed"]
    assert events[0].data == {"seat": 0, "amount": 1}


def test_bids_must_strictly_increase():
    state, _ = play(make_state("classic", ["5", "10", "3"]), (0, bid(5)))
    for amount in (5, 4, -2):
        with pytest.raises(RuleError) as exc:
            GAME.apply(state, 1, bid(amount))
        assert exc.value.code == "bid_too_low"
        assert exc.value.detail == {"min_bid": 6}
    new, _ = GAME.apply(state, 1, bid(6))
    assert new["bids"] == [[0, 5], [1, 6]]
    # there is no maximum bid
    new, _ = GAME.apply(new, 2, bid(10**9))
    assert new["bids"][-1] == [2, 10**9]


def test_calling_before_any_bid():
    state = make_state("classic", ["5", "10", "3"])
    with pytest.raises(RuleError) as exc:
        GAME.apply(state, 0, CALL)
    assert exc.value.code == "no_bid_to_call"


@pytest.mark.parametrize("action", [bid(3), CALL])
def test_wrong_seat(action):
    state, _ = play(make_state("classic", ["5", "10", "3"]), (0, bid(2)))
    for seat in (0, 2):
        with pytest.raises(RuleError) as exc:
            GAME.apply(state, seat, action)
        assert exc.value.code == "not_your_turn"


@pytest.mark.parametrize("action", [
    Action("bid", 2.5), Action("bid", "3"), Action("bid", None), Action("bid", True),
    Action("bid", False), Action("fold"), Action("pass", 3), Action("CALL"), Action(""),
])
def test_bad_action(action):
    state, _ = play(make_state("classic", ["5", "10", "3"]), (0, bid(2)))
    with pytest.raises(RuleError) as exc:
        GAME.apply(state, 1, action)
    assert exc.value.code == "bad_action"


@pytest.mark.parametrize("data", [
    {"kind": "bid", "amount": True}, {"kind": "bid", "amount": 1.5}, {"kind": 3}, {}, [],
    {"kind": "bid", "amount": "4"},
])
def test_action_from_json_rejects_bad_data(data):
    with pytest.raises(RuleError) as exc:
        Action.from_json(data)
    assert exc.value.code == "bad_action"


def test_action_json_round_trip():
    for action in (bid(4), CALL):
        assert Action.from_json(json.loads(json.dumps(action.to_json()))) == action
    assert CALL.to_json() == {"kind": "call"}


def test_legal_actions():
    state = make_state("classic", ["5", "10", "3"])
    acts = GAME.legal_actions(state, 0)
    assert Action("call") not in acts
    assert acts[0] == bid(1)
    assert GAME.legal_actions(state, 1) == []
    state, _ = play(state, (0, bid(7)))
    acts = GAME.legal_actions(state, 1)
    assert acts[0] == CALL
    assert acts[1] == bid(8)
    assert all(a.amount > 7 for a in acts if a.kind == "bid")
    for action in acts:
        GAME.apply(state, 1, action)  # every listed action is legal


# --- purity -----------------------------------------------------------------------------------

@pytest.mark.parametrize("moves", [
    [(0, bid(3))],
    [(0, bid(18)), (1, CALL)],
    [(0, bid(19)), (1, CALL)],
])
def test_apply_leaves_input_unchanged(moves):
    state = make_state("classic", ["5", "10", "3"])
    for seat, action in moves:
        before = copy.deepcopy(state)
        new, _ = GAME.apply(state, seat, action)
        assert state == before
        assert new is not state
        state = new


def test_apply_result_shares_no_mutable_parts_with_input():
    state, _ = play(make_state("classic", ["5", "10", "3"]), (0, bid(4)))
    before = copy.deepcopy(state)
    new, _ = GAME.apply(state, 1, CALL)
    # mutate every list in the new state; the old one must not notice
    for value in new.values():
        if isinstance(value, list):
            value.append("junk")
    assert state == before


@pytest.mark.parametrize(("seat", "action"), [
    (0, bid(0)), (1, bid(3)), (0, CALL), (0, Action("bid", 1.5)), (0, Action("fold")),
])
def test_rule_error_changes_nothing(seat, action):
    state = make_state("classic", ["5", "10", "3"])
    before = copy.deepcopy(state)
    with pytest.raises(RuleError):
        GAME.apply(state, seat, action)
    assert state == before
