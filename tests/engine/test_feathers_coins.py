"""The feathers variant coins: Extra feather, Reverse, Skip, Swap and Guess, and the
coins' restrictions (each coin once a round, one coin a turn, none with two players).

Rules: ``shared/rules/coyote.md``, "Variant coins (optional advanced rules)"; rulings where the
texts are silent: the docstring of :mod:`engine.coyote.specials`. States come from
:func:`tests.engine.specials_helpers.make`.
"""

from __future__ import annotations

import pytest

from tests.engine.specials_helpers import (
    CALL,
    GAME,
    bid,
    coin,
    guess,
    lost,
    make,
    play,
    rejects,
    showdown,
    specials_in,
    types,
)

# --- feathers: Extra feather ------------------------------------------------------------------

def test_extra_feather_face_up_counts_and_must_bid():
    state = make("feathers", ["5", "10", "3"], top=("7", "2"))  # 18 + 7
    new, events = play(state, (0, coin("extra")))
    assert new["face_up"] == [["7"], [], []]
    assert new["coins"] == ["reverse", "skip", "swap", "guess"]
    assert new["turn"] == 0 and new["must_bid"] is True and new["coin_turn"] == 0
    assert events[0].data == {"seat": 0, "special": "extra", "card": "7"}
    for seat in (None, 0, 1, 2):
        assert GAME.view(new, seat)["face_up"] == [["7"], [], []]
    assert GAME.view(new, 0)["must_bid"] is True
    new, _ = play(new, (0, bid(3)))
    assert new["must_bid"] is False and new["turn"] == 1
    new, events = play(new, (1, bid(25)), (2, CALL))
    sd = showdown(events)
    assert sd["total"] == 25 and sd["loser"] == 2
    assert sd["owners"] == [0, 0, 1, 2]


def test_extra_feather_then_call_is_refused():
    state, _ = play(make("feathers", ["5", "10", "3"]), (0, bid(4)), (1, coin("extra")))
    rejects(state, 1, CALL, "must_bid")
    legal = GAME.legal_actions(state, 1)
    assert legal and all(a.kind == "bid" and a.special is None for a in legal)
    assert GAME.view(state, 1)["can_call"] is False


# --- feathers: Reverse, Skip ------------------------------------------------------------------

def test_reverse_coin_then_must_bid_and_play_goes_back():
    state, _ = play(make("feathers", ["5", "10", "3", "4"]), (0, bid(4)))
    new, _ = play(state, (1, coin("reverse")))
    assert new["direction"] == -1 and new["turn"] == 1 and new["must_bid"] is True
    rejects(new, 1, CALL, "must_bid")
    new, _ = play(new, (1, bid(5)))
    assert new["turn"] == 0
    new, _ = play(new, (0, bid(6)))
    assert new["turn"] == 3
    new, _ = play(new, (3, CALL))
    assert new["round"] == 2 and new["direction"] == 1
    assert new["coins"] == ["extra", "reverse", "skip", "swap", "guess"]


def test_skip_coin_moves_turn_on_without_bid():
    state, _ = play(make("feathers", ["5", "10", "3", "4"]), (0, bid(4)))
    new, events = play(state, (1, coin("skip")))
    assert new["turn"] == 2 and new["bids"] == [[0, 4]]
    assert new["must_bid"] is False and new["coin_turn"] is None
    assert events[0].data == {"seat": 1, "special": "skip"}
    assert CALL in GAME.legal_actions(new, 2)


def test_skip_before_any_bid():
    state, _ = play(make("feathers", ["5", "10", "3"]), (0, coin("skip")))
    assert state["turn"] == 1 and state["bids"] == []
    rejects(state, 1, CALL, "no_bid_to_call")


# --- feathers: Swap ---------------------------------------------------------------------------

def test_swap_replaces_own_card_and_old_one_no_longer_counts():
    state = make("feathers", ["20", "10", "3"], top=("1", "2"))
    new, events = play(state, (0, coin("swap")))
    assert new["hands"] == ["1", "10", "3"]
    assert new["void"] == [["20"], [], []]
    assert new["must_bid"] is True and new["turn"] == 0
    assert events[0].data == {"seat": 0, "special": "swap"}  # no card in the event
    rejects(new, 0, CALL, "no_bid_to_call")
    new, _ = play(new, (0, bid(14)))
    new, events = play(new, (1, CALL))  # total 1 + 10 + 3 = 14
    sd = showdown(events)
    assert sd["total"] == 14 and sd["loser"] == 1
    assert [c["card"] for c in sd["cards"]] == ["1", "10", "3"]
    assert sd["void"] == [["20"], [], []]
    assert "20" in new["discard"]


def test_swap_must_bid_after_a_bid_exists():
    state, _ = play(make("feathers", ["20", "10", "3"]), (0, bid(4)), (1, coin("swap")))
    rejects(state, 1, CALL, "must_bid")


def test_swap_views():
    state = make("feathers", ["20", "10", "3"], top=("1",))
    state, _ = play(state, (0, coin("swap")))
    own = GAME.view(state, 0)
    assert own["void"] == [[None], [], []]
    assert own["cards"][0] is None
    for seat in (1, 2):
        view = GAME.view(state, seat)
        assert view["void"] == [["20"], [], []]
        assert view["cards"][0] == "1"
    public = GAME.view(state, None)
    assert public["void"] == [[None], [], []]
    assert public["cards"] == [None, None, None]


def test_swapped_away_0b_still_reshuffles_everything():
    state = make("feathers", ["0b", "10", "3"], top=("1",))
    state, _ = play(state, (0, coin("swap")), (0, bid(20)))
    new, events = play(state, (1, CALL))
    sd = showdown(events)
    assert sd["total"] == 14 and sd["reshuffle_all"] is False and sd["loser"] == 0
    assert any(e.type == "reshuffled" for e in events)
    assert new["discard"] == []
    assert len(new["draw"]) == 30 - 3


def test_swap_then_0b_in_hand_counts_zero():
    state = make("feathers", ["5", "10", "3"], top=("0b",))
    state, _ = play(state, (0, coin("swap")), (0, bid(13)))
    new, events = play(state, (1, CALL))
    assert showdown(events)["total"] == 13
    assert new["discard"] == []


# --- feathers: Guess --------------------------------------------------------------------------

def test_right_guess_reveals_card_and_skips_player():
    state = make("feathers", ["5", "10", "3", "4"])  # total 22
    state, _ = play(state, (0, bid(4)))
    new, events = play(state, (1, guess("10")))
    assert events[0].data == {"seat": 1, "special": "guess", "guess": "10", "right": True,
                              "card": "10"}
    assert new["revealed"] == [False, True, False, False]
    assert new["safe"] == [False, True, False, False]
    assert new["turn"] == 2 and new["lives"] == [3, 3, 3, 3]
    for seat in (None, 0, 1, 2, 3):
        assert GAME.view(new, seat)["cards"][1] == "10"
    assert GAME.view(new, None)["cards"] == [None, "10", None, None]
    assert GAME.view(new, 0)["safe"] == [False, True, False, False]
    # skipped for the rest of the round
    new, _ = play(new, (2, bid(5)), (3, bid(6)), (0, bid(7)))
    assert new["turn"] == 2
    new, _ = play(new, (2, bid(22)))
    assert new["turn"] == 3
    new, events = play(new, (3, CALL))
    sd = showdown(events)
    assert sd["total"] == 22 and sd["loser"] == 3  # the guessed card still counts
    assert new["revealed"] == [False] * 4 and new["safe"] == [False] * 4


def test_right_guess_with_reversed_direction_is_skipped():
    state = make("feathers", ["5", "10", "3", "4"])
    state, _ = play(state, (0, guess("5")), (1, coin("reverse")), (1, bid(3)))
    assert state["turn"] == 3  # seat 0 is safe
    state, _ = play(state, (3, bid(4)), (2, bid(5)))
    assert state["turn"] == 1


def test_wrong_guess_loses_life_ends_round_and_guesser_starts():
    state = make("feathers", ["5", "10", "3", "4"])
    state, _ = play(state, (0, bid(4)))
    new, events = play(state, (1, guess("9")))
    assert types(events)[:3] == ["special_used", "round_ended", "life_lost"]
    assert "showdown" not in types(events)
    assert events[0].data["right"] is False
    assert events[1].data == {"reason": "wrong_guess", "seat": 1,
                              "cards": ["5", "10", "3", "4"]}
    assert lost(events) == [{"seat": 1, "lives": 2, "amount": 1}]
    assert new["lives"] == [3, 2, 3, 3]
    assert new["round"] == 2 and new["turn"] == 1 and new["starter"] == 1
    assert new["bids"] == [] and new["coins"] == ["extra", "reverse", "skip", "swap", "guess"]
    for card in ("5", "10", "3", "4"):
        assert card in new["discard"]


def test_wrong_guess_eliminating_guesser_next_seat_starts():
    state = make("feathers", ["5", "10", "3", "4"], lives=[3, 1, 3, 3])
    state, _ = play(state, (0, bid(4)))
    new, events = play(state, (1, guess("9")))
    assert new["lives"] == [3, 0, 3, 3] and new["out"] == [1]
    assert new["hands"][1] is None
    assert new["turn"] == 2


def test_wrong_guess_with_0b_in_play_reshuffles():
    state = make("feathers", ["5", "0b", "3", "4"])
    new, events = play(state, (0, guess("6")))
    assert new["discard"] == []
    assert "reshuffled" in types(events)


@pytest.mark.parametrize("card", ["0", "night", "11", "-1", "", None, "A"])
def test_guess_of_a_card_not_in_the_edition(card):
    state = make("feathers", ["5", "10", "3", "4"])
    rejects(state, 0, guess(card), "bad_action")


def test_guess_not_allowed_when_fewer_than_two_others_remain_active():
    # four players, one out, one already safe: the pool here holds a second Guess coin
    # (the pool is data; the box has 8 coins)
    state = make("feathers", ["5", "10", "3", None], lives=[3, 3, 3, 0])
    state["coins"].append("guess")
    state, _ = play(state, (0, guess("5")))
    assert state["safe"] == [True, False, False, False]
    assert state["coins"] == ["extra", "reverse", "skip", "swap", "guess"]
    rejects(state, 1, guess("10"), "guess_not_allowed")
    assert "guess" not in specials_in(GAME.legal_actions(state, 1))


def test_guess_allowed_with_exactly_two_others_active():
    state = make("feathers", ["5", "10", "3"])
    new, _ = play(state, (0, guess("5")))
    assert new["safe"] == [True, False, False]
    new, _ = play(new, (1, bid(3)))
    assert new["turn"] == 2
    new, _ = play(new, (2, bid(4)))
    assert new["turn"] == 1


# --- feathers: coin restrictions --------------------------------------------------------------

@pytest.mark.parametrize("name", ["extra", "reverse", "skip", "swap"])
def test_each_coin_once_per_round(name):
    state = make("feathers", ["5", "10", "3", "4"])
    state, _ = play(state, (0, coin(name)))
    if state["turn"] == 0:
        state, _ = play(state, (0, bid(2)))
    seat = state["turn"]
    rejects(state, seat, coin(name), "coin_used")
    assert name not in specials_in(GAME.legal_actions(state, seat))
    assert name not in GAME.view(state, None)["coins"]


def test_guess_coin_once_per_round():
    state = make("feathers", ["5", "10", "3", "4", "1"])
    state, _ = play(state, (0, guess("5")))
    rejects(state, 1, guess("10"), "coin_used")


@pytest.mark.parametrize("first", ["extra", "reverse", "swap"])
@pytest.mark.parametrize("second", ["extra", "reverse", "skip", "swap"])
def test_one_coin_per_turn(first, second):
    state = make("feathers", ["5", "10", "3", "4"])
    state, _ = play(state, (0, coin(first)))
    code = "coin_used" if first == second else "one_coin_per_turn"
    rejects(state, 0, coin(second), code)
    rejects(state, 0, guess("5"), "one_coin_per_turn")
    assert specials_in(GAME.legal_actions(state, 0)) == set()


def test_no_coins_with_two_players():
    state = make("feathers", ["5", "10", None], lives=[3, 3, 0])
    for action in (coin("extra"), coin("reverse"), coin("skip"), coin("swap"), guess("5")):
        rejects(state, 0, action, "coins_two_players")
    assert specials_in(GAME.legal_actions(state, 0)) == set()


def test_coins_pool_comes_back_next_round():
    state = make("feathers", ["5", "10", "3", "4"])
    state, _ = play(state, (0, coin("skip")), (1, coin("extra")), (1, bid(2)),
                    (2, coin("reverse")), (2, bid(3)), (1, CALL))
    assert state["round"] == 2
    assert state["coins"] == ["extra", "reverse", "skip", "swap", "guess"]
    assert state["face_up"] == [[], [], [], []]


def test_extra_and_swap_need_a_card():
    state = make("feathers", ["5", "10", "3"])
    state["void"][2], state["draw"] = state["draw"], []  # artificial: both piles empty
    rejects(state, 0, coin("extra"), "no_card_to_draw")
    rejects(state, 0, coin("swap"), "no_card_to_draw")
