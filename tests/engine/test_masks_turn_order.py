"""The classic masks that move the turn: Pass, Reverse, Shot and Change (the last bidder
re-bids, then the turn returns), and the one-mask-per-player-per-round rule.

Rules: ``shared/rules/coyote.md``, "Mask actions (optional "special game")"; rulings where the
texts are silent: the docstring of :mod:`engine.coyote.specials`. States come from
:func:`tests.engine.specials_helpers.make`.
"""

from __future__ import annotations

import pytest

from tests.engine.specials_helpers import (
    CALL,
    GAME,
    bid,
    make,
    mask,
    play,
    rejects,
    showdown,
    specials_in,
    types,
)

# --- Pass -------------------------------------------------------------------------------------

def test_pass_moves_turn_on_without_a_bid():
    state, _ = play(make("classic", ["5", "10", "3", "4"]), (0, bid(4)))
    new, events = play(state, (1, mask("pass")))
    assert new["turn"] == 2
    assert new["bids"] == [[0, 4]]
    assert new["masks"] == [True, False, True, True]
    assert new["pass_blocked"] is True
    assert types(events) == ["special_used"]
    assert events[0].data == {"seat": 1, "special": "pass"}
    # the next player may call the bid before the pass
    after, events = play(new, (2, CALL))
    assert showdown(events)["bidder"] == 0 and showdown(events)["caller"] == 2


def test_next_player_may_not_pass():
    state, _ = play(make("classic", ["5", "10", "3", "4"]), (0, bid(4)), (1, mask("pass")))
    rejects(state, 2, mask("pass"), "pass_blocked")
    assert "pass" not in specials_in(GAME.legal_actions(state, 2))
    assert GAME.view(state, 2)["pass_blocked"] is True


def test_bid_clears_pass_block():
    state, _ = play(make("classic", ["5", "10", "3", "4"]), (0, bid(4)), (1, mask("pass")),
                    (2, bid(5)))
    assert state["pass_blocked"] is False
    assert "pass" in specials_in(GAME.legal_actions(state, 3))
    state, _ = play(state, (3, mask("pass")))
    assert state["turn"] == 0


def test_pass_before_any_bid_leaves_next_player_to_open():
    state, _ = play(make("classic", ["5", "10", "3"]), (0, mask("pass")))
    assert state["turn"] == 1 and state["bids"] == []
    rejects(state, 1, CALL, "no_bid_to_call")
    rejects(state, 1, mask("pass"), "pass_blocked")
    state, _ = play(state, (1, bid(1)))
    assert state["bids"] == [[1, 1]] and state["turn"] == 2


def test_pass_skips_dead_seats():
    state = make("classic", ["5", None, "10", "3"], lives=[3, 0, 3, 3])
    assert state["masks"] == [True, False, True, True]
    state, _ = play(state, (0, bid(2)), (2, mask("pass")))
    assert state["turn"] == 3


# --- Reverse ----------------------------------------------------------------------------------

def test_reverse_keeps_turn_and_reverses_direction():
    state, _ = play(make("classic", ["5", "10", "3", "4"]), (0, bid(4)))
    new, events = play(state, (1, mask("reverse")))
    assert new["turn"] == 1 and new["direction"] == -1
    assert new["masks"][1] is False and new["bids"] == [[0, 4]]
    assert events[0].data == {"seat": 1, "special": "reverse"}
    assert GAME.view(new, None)["direction"] == -1
    # then bid or call as usual; play goes the other way
    after, _ = play(new, (1, bid(5)))
    assert after["turn"] == 0
    after, _ = play(after, (0, bid(6)))
    assert after["turn"] == 3
    after, _ = play(after, (3, bid(7)))
    assert after["turn"] == 2


def test_reverse_then_call():
    state, _ = play(make("classic", ["5", "10", "3"]), (0, bid(30)), (1, mask("reverse")))
    assert CALL in GAME.legal_actions(state, 1)
    new, events = play(state, (1, CALL))
    assert showdown(events)["loser"] == 0


def test_reverse_twice_restores_direction():
    state, _ = play(make("classic", ["5", "10", "3", "4"]), (0, mask("reverse")), (0, bid(2)),
                    (3, mask("reverse")), (3, bid(3)))
    assert state["direction"] == 1 and state["turn"] == 0


def test_direction_resets_next_round():
    state, _ = play(make("classic", ["5", "10", "3", "4"]), (0, mask("reverse")), (0, bid(30)))
    assert state["direction"] == -1 and state["turn"] == 3
    new, _ = play(state, (3, CALL))
    assert new["round"] == 2 and new["direction"] == 1
    assert new["turn"] == 0  # the loser (bidder) starts
    new, _ = play(new, (0, bid(1)))
    assert new["turn"] == 1


# --- Change -----------------------------------------------------------------------------------

def test_change_needs_a_bid():
    state = make("classic", ["5", "10", "3"])
    rejects(state, 0, mask("change"), "nothing_to_change")
    assert "change" not in specials_in(GAME.legal_actions(state, 0))


def test_change_not_on_own_bid():
    # two players left: seat 1 passes, so seat 0 is the last bidder on their own turn
    state = make("classic", ["5", "10", None], lives=[3, 3, 0])
    state, _ = play(state, (0, bid(4)), (1, mask("pass")))
    assert state["turn"] == 0
    rejects(state, 0, mask("change"), "nothing_to_change")
    assert "change" not in specials_in(GAME.legal_actions(state, 0))


def test_change_makes_last_bidder_rebid_then_turn_returns():
    state, _ = play(make("classic", ["5", "10", "3", "4"]), (0, bid(4)), (1, bid(6)))
    new, events = play(state, (2, mask("change")))
    assert new["change"] == {"by": 2, "target": 1}
    assert new["turn"] == 1 and new["masks"][2] is False
    # the event tells whom it targets and whether they may call on the bid before theirs
    assert events[0].data == {"seat": 2, "special": "change", "target": 1, "may_call": True}
    rejects(new, 1, bid(6), "bid_too_low")
    after, events = play(new, (1, bid(9)))
    assert after["bids"] == [[0, 4], [1, 9]]  # replaced, not appended
    assert after["change"] is None and after["turn"] == 2
    assert types(events) == ["bid_changed"]
    assert events[0].data == {"seat": 1, "amount": 9}
    # the changer then bids or calls as usual (their mask is gone)
    assert CALL in GAME.legal_actions(after, 2)
    rejects(after, 2, mask("pass"), "mask_used")
    final, _ = play(after, (2, bid(10)))
    assert final["turn"] == 3


def test_change_target_may_call_the_bid_before_theirs():
    state = make("classic", ["5", "10", "3", "4"])  # total 22
    state, _ = play(state, (0, bid(23)), (1, bid(24)), (2, mask("change")))
    assert CALL in GAME.legal_actions(state, 1)
    new, events = play(state, (1, CALL))
    [called] = [e.data for e in events if e.type == "coyote_called"]
    assert called == {"seat": 1, "bidder": 0, "bid": 23, "double": False}
    sd = showdown(events)
    assert (sd["caller"], sd["bidder"], sd["bid"], sd["loser"]) == (1, 0, 23, 0)
    assert new["lives"] == [2, 3, 3, 3]


def test_change_target_with_single_bid_must_rebid():
    state, _ = play(make("classic", ["5", "10", "3"]), (0, bid(4)))
    state, events = play(state, (1, mask("change")))
    assert events[0].data == {"seat": 1, "special": "change", "target": 0, "may_call": False}
    assert state["turn"] == 0
    rejects(state, 0, CALL, "no_bid_to_call")
    legal = GAME.legal_actions(state, 0)
    assert legal and all(a.kind == "bid" and a.special is None for a in legal)
    assert legal[0] == bid(5)
    state, _ = play(state, (0, bid(5)))
    assert state["bids"] == [[0, 5]] and state["turn"] == 1


@pytest.mark.parametrize("action", [mask("pass"), mask("reverse"), mask("change"),
                                    bid(9, "double"), bid(9, "shot", 2), bid(9, "draw1", 2)])
def test_change_target_must_answer(action):
    state, _ = play(make("classic", ["5", "10", "3"]), (0, bid(4)), (1, bid(6)),
                    (2, mask("change")))
    rejects(state, 1, action, "must_answer_change")
    legal = GAME.legal_actions(state, 1)
    assert specials_in(legal) == set()
    assert {a.kind for a in legal} == {"bid", "call"}


def test_change_after_a_pass_clears_pass_block():
    state, _ = play(make("classic", ["5", "10", "3", "4"]), (0, bid(4)), (1, mask("pass")),
                    (2, mask("change")))
    assert state["pass_blocked"] is False and state["turn"] == 0
    state, _ = play(state, (0, bid(5)))
    assert state["turn"] == 2


def test_change_voids_double_and_answer_call_costs_one_life():
    state = make("classic", ["5", "10", "3", "4"])  # total 22
    state, _ = play(state, (0, bid(30)), (1, bid(31, "double")), (2, mask("change")))
    assert state["double"] is None
    new, events = play(state, (1, CALL))
    assert showdown(events)["loser"] == 0 and showdown(events)["lives_lost"] == 1


# --- Shot -------------------------------------------------------------------------------------

def test_shot_chooses_next_player_then_play_continues_from_them():
    state = make("classic", ["5", "10", "3", "4", "1"])
    state, events = play(state, (0, bid(3, "shot", 3)))
    assert state["turn"] == 3 and state["masks"][0] is False
    assert events[0].data == {"seat": 0, "amount": 3, "special": "shot", "target": 3}
    state, _ = play(state, (3, bid(4)))
    assert state["turn"] == 4
    state, _ = play(state, (4, bid(5)))
    assert state["turn"] == 0


def test_shot_in_reversed_direction():
    state = make("classic", ["5", "10", "3", "4", "1"])
    state, _ = play(state, (0, mask("reverse")), (0, bid(3)), (4, bid(4, "shot", 2)))
    assert state["turn"] == 2
    state, _ = play(state, (2, bid(5)))
    assert state["turn"] == 1


def test_shot_target_may_call():
    state = make("classic", ["5", "10", "3", "4"])
    state, _ = play(state, (0, bid(40, "shot", 2)), (2, CALL))
    assert state["lives"] == [2, 3, 3, 3]


# --- one mask per round -----------------------------------------------------------------------

@pytest.mark.parametrize("second", [mask("pass"), mask("reverse"), mask("change"),
                                    bid(9, "double"), bid(9, "draw1", 2), bid(9, "shot", 2)])
def test_one_mask_per_player_per_round(second):
    state = make("classic", ["5", "10", "3"])
    state, _ = play(state, (0, mask("reverse")), (0, bid(2)), (2, bid(4)), (1, bid(6)))
    assert state["turn"] == 0
    rejects(state, 0, second, "mask_used")
    assert specials_in(GAME.legal_actions(state, 0)) == set()
    assert GAME.view(state, 1)["masks"] == [False, True, True]


def test_masks_return_next_round():
    state = make("classic", ["5", "10", "3"])
    state, _ = play(state, (0, bid(2, "double")), (1, mask("reverse")), (1, bid(3)),
                    (0, CALL))
    assert state["round"] == 2
    assert state["masks"] == [True, True, True]


def test_eliminated_player_has_no_mask_next_round():
    state = make("classic", ["5", "10", "3"], lives=[3, 1, 3])
    state, _ = play(state, (0, bid(30)), (1, bid(40)), (2, CALL))
    assert state["lives"] == [3, 0, 3]
    assert state["masks"] == [True, False, True]
