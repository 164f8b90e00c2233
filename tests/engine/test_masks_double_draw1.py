"""The classic masks that change the stakes or the cards: Double (two lives on the next
player's call) and Draw 1 (a hidden extra card for a target).

Rules: ``shared/rules/coyote.md``, "Mask actions (optional "special game")"; rulings where the
texts are silent: the docstring of :mod:`engine.coyote.specials`. States come from
:func:`tests.engine.specials_helpers.make`.
"""

from __future__ import annotations

import pytest

from engine.core import Action
from tests.engine.specials_helpers import (
    CALL,
    GAME,
    bid,
    lost,
    make,
    mask,
    play,
    rejects,
    showdown,
    specials_in,
    types,
)

# --- Double -----------------------------------------------------------------------------------

def test_double_next_player_calls_bidder_loses_two_lives():
    state = make("classic", ["5", "10", "3"])  # total 18
    state, _ = play(state, (0, bid(19, "double")))
    assert state["double"] == 0 and state["masks"][0] is False
    new, events = play(state, (1, CALL))
    [called] = [e.data for e in events if e.type == "coyote_called"]
    assert called["double"] is True
    sd = showdown(events)
    assert sd["total"] == 18 and sd["loser"] == 0 and sd["lives_lost"] == 2
    assert lost(events) == [{"seat": 0, "lives": 1, "amount": 2}]
    assert new["lives"] == [1, 3, 3]


def test_double_next_player_calls_caller_loses_two_lives():
    state = make("classic", ["5", "10", "3"])  # total 18
    new, events = play(state, (0, bid(18, "double")), (1, CALL))
    sd = showdown(events)
    assert sd["loser"] == 1 and sd["lives_lost"] == 2
    assert new["lives"] == [3, 1, 3]


def test_double_can_eliminate_from_two_lives():
    state = make("classic", ["5", "10", "3"], lives=[3, 2, 3])
    new, events = play(state, (0, bid(18, "double")), (1, CALL))
    assert new["lives"] == [3, 0, 3]
    assert new["out"] == [1]
    assert "player_eliminated" in types(events)


def test_double_void_when_next_player_bids():
    state = make("classic", ["5", "10", "3"])  # total 18
    state, _ = play(state, (0, bid(17, "double")), (1, bid(19)))
    assert state["double"] is None
    new, events = play(state, (2, CALL))
    assert showdown(events)["loser"] == 1 and showdown(events)["lives_lost"] == 1
    assert new["lives"] == [3, 2, 3]


def test_double_void_when_call_comes_later():
    # the next player bids; a later call (on a later bid) costs one life
    state = make("classic", ["5", "10", "3", "1"])  # total 19
    state, _ = play(state, (0, bid(17, "double")), (1, bid(18)), (2, bid(25)))
    new, events = play(state, (3, CALL))
    assert showdown(events)["loser"] == 2 and showdown(events)["lives_lost"] == 1
    assert new["lives"] == [3, 3, 2, 3]


def test_double_void_after_a_pass():
    # specials.py ruling: Double counts only when the next player calls on that bid.
    state = make("classic", ["5", "10", "3"])
    state, _ = play(state, (0, bid(30, "double")), (1, mask("pass")))
    assert state["double"] is None
    caller = state["turn"]
    new, events = play(state, (caller, CALL))
    assert showdown(events)["loser"] == 0 and showdown(events)["lives_lost"] == 1
    assert new["lives"][0] == 2


def test_double_holds_when_the_next_player_reverses_then_calls():
    # coyote.md: Reverse — "reverse the direction of play, then bid or call as usual"; the
    # next player still calls Coyote on the doubled bid.
    state = make("classic", ["5", "10", "3"])
    state, _ = play(state, (0, bid(30, "double")), (1, mask("reverse")))
    assert state["double"] == 0
    new, events = play(state, (1, CALL))
    assert showdown(events)["loser"] == 0 and showdown(events)["lives_lost"] == 2
    assert new["lives"][0] == 1


def test_double_is_per_bid_latest_wins():
    state = make("classic", ["5", "10", "3"])  # total 18
    state, _ = play(state, (0, bid(17, "double")), (1, bid(20, "double")))
    assert state["double"] == 1
    new, events = play(state, (2, CALL))
    assert showdown(events)["loser"] == 1 and new["lives"] == [3, 1, 3]


# --- Draw 1 -----------------------------------------------------------------------------------

def test_draw1_gives_target_the_top_card():
    state = make("classic", ["5", "10", "3", "1"], top=("4", "2"))
    new, events = play(state, (0, bid(3, "draw1", 2)))
    assert new["extra"] == [[], [], ["4"], []]
    assert new["draw"][0] == "2"
    assert new["draw1_used"] is True and new["masks"][0] is False
    assert new["turn"] == 1 and new["bids"] == [[0, 3]]
    assert types(events) == ["bid_placed", "card_drawn"]
    assert events[0].data == {"seat": 0, "amount": 3, "special": "draw1", "target": 2}
    assert events[1].data == {"seat": 2, "by": 0}  # no card in the event


def test_draw1_card_counts_in_showdown():
    state = make("classic", ["5", "10", "3"], top=("4",))  # 18 + 4
    state, _ = play(state, (0, bid(22, "draw1", 1)))
    new, events = play(state, (1, CALL))
    sd = showdown(events)
    assert [c["card"] for c in sd["cards"]] == ["5", "10", "4", "3"]
    assert sd["owners"] == [0, 1, 1, 2]
    assert sd["total"] == 22 and sd["loser"] == 1
    assert "4" in new["discard"] and new["extra"] == [[], [], []]


def test_draw1_special_card_takes_effect():
    state = make("classic", ["5", "10", "3"], top=("x2",))
    state, _ = play(state, (0, bid(36, "draw1", 2)))
    new, events = play(state, (1, CALL))
    assert showdown(events)["total"] == 36 and showdown(events)["loser"] == 1


def test_draw1_card_hidden_from_its_holder_only():
    state = make("classic", ["5", "10", "3", "1"], top=("4",))
    state, _ = play(state, (0, bid(3, "draw1", 2)))
    for seat in (0, 1, 3):
        assert GAME.view(state, seat)["extra"] == [[], [], ["4"], []]
    assert GAME.view(state, 2)["extra"] == [[], [], [None], []]
    assert GAME.view(state, None)["extra"] == [[], [], [None], []]
    assert GAME.view(state, 2)["cards"][2] is None


def test_only_one_draw1_per_round():
    state = make("classic", ["5", "10", "3", "1"])
    state, _ = play(state, (0, bid(3, "draw1", 2)))
    rejects(state, 1, bid(4, "draw1", 0), "draw1_used")
    legal = GAME.legal_actions(state, 1)
    assert "draw1" not in specials_in(legal)
    assert {"double", "shot", "pass", "reverse", "change"} <= specials_in(legal)
    assert GAME.view(state, 3)["draw1_used"] is True


def test_draw1_returns_next_round():
    state = make("classic", ["5", "10", "3"])
    state, _ = play(state, (0, bid(3, "draw1", 2)), (1, CALL))
    assert state["round"] == 2 and state["draw1_used"] is False
    seat = state["turn"]
    target = (seat + 1) % 3
    state, _ = play(state, (seat, bid(3, "draw1", target)))
    assert len(state["extra"][target]) == 1


@pytest.mark.parametrize("special", ["draw1", "shot"])
@pytest.mark.parametrize("target", [0, 1, -1, 4, 99, None, True])
def test_bad_targets(special, target):
    state = make("classic", ["5", None, "10", "3"], lives=[3, 0, 3, 3])
    err = rejects(state, 0, Action("bid", 3, special=special, target=target), "bad_target")
    assert err.code == "bad_target"


def test_draw1_reshuffles_discard_when_draw_is_empty():
    state = make("classic", ["5", "10", "3"])
    state["discard"], state["draw"] = state["draw"], []
    new, events = play(state, (0, bid(3, "draw1", 1)))
    assert len(new["extra"][1]) == 1
    assert "reshuffled" in types(events)
    assert new["discard"] == []


def test_draw1_with_no_card_anywhere():
    # artificial: park the rest of the deck in face_up (unused by classic) so both piles are empty
    state = make("classic", ["5", "10", "3"])
    state["face_up"][2], state["draw"] = state["draw"], []
    rejects(state, 0, bid(3, "draw1", 1), "no_card_to_draw")
