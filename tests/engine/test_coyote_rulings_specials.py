"""Coyote to the letter: each classic mask's and feathers coin's limits and effects."""

from __future__ import annotations

from tests.engine.coyote_game_helpers import play
from tests.engine.coyote_rulings_helpers import (
    CALL,
    GAME,
    bid,
    lives_lost,
    make,
    rule_error,
    showdown,
    special,
)

# --- masks ------------------------------------------------------------------------------------

def test_double_called_by_next_player_costs_two_lives():
    state = make("classic", ["5", "10", "3"], turn=0, specials=True)
    _, events = play(state, (0, bid(30, "double")), (1, CALL))
    assert lives_lost(events) == {0: 2}
    _, events = play(state, (0, bid(2, "double")), (1, CALL))
    assert lives_lost(events) == {1: 2}


def test_double_void_if_next_player_bids():
    state = make("classic", ["5", "10", "3"], turn=0, specials=True)
    _, events = play(state, (0, bid(2, "double")), (1, bid(30)), (2, CALL))
    assert lives_lost(events) == {1: 1}


def test_one_mask_per_player_per_round_and_it_comes_back():
    state = make("classic", ["5", "10", "3"], turn=0, specials=True)
    state, _ = play(state, (0, bid(2, "double")), (1, bid(3)), (2, bid(4)))
    assert rule_error(state, 0, special("reverse")) == "mask_used"
    state, _ = play(state, (0, bid(5)), (1, CALL))
    assert state["masks"] == [True, True, True]


def test_pass_then_next_may_not_pass():
    state = make("classic", ["5", "10", "3"], turn=0, specials=True)
    state, _ = play(state, (0, bid(2)), (1, special("pass")))
    assert state["turn"] == 2
    assert rule_error(state, 2, special("pass")) == "pass_blocked"


def test_reverse_then_bid_or_call():
    state = make("classic", ["5", "10", "3", "1"], turn=0, specials=True)
    state, _ = play(state, (0, bid(2)), (1, special("reverse")))
    assert state["turn"] == 1
    state, _ = play(state, (1, bid(3)))
    assert state["turn"] == 0


def test_draw1_one_per_round_counts_and_hidden_from_holder():
    state = make("classic", ["5", "10", "3", "1"], top=("4",), turn=0, specials=True)
    state, _ = play(state, (0, bid(2, "draw1", 2)))
    assert state["extra"][2] == ["4"]
    assert GAME.view(state, 2)["extra"][2] == [None]
    assert GAME.view(state, 0)["extra"][2] == ["4"]
    assert rule_error(state, 1, bid(3, "draw1", 0)) == "draw1_used"
    _, events = play(state, (1, CALL))
    assert showdown(events)["total"] == 23


def test_change_previous_player_rebids_higher_then_turn_returns():
    state = make("classic", ["5", "10", "3", "1"], turn=0, specials=True)
    state, _ = play(state, (0, bid(2)), (1, bid(5)), (2, special("change")))
    assert state["turn"] == 1
    assert rule_error(state, 1, bid(5)) == "bid_too_low"
    state, _ = play(state, (1, bid(7)))
    assert state["bids"][-1] == [1, 7]
    assert state["turn"] == 2


def test_change_answer_may_call_bid_before_theirs():
    state = make("classic", ["5", "10", "3", "1"], turn=0, specials=True)
    state, _ = play(state, (0, bid(30)), (1, bid(31)), (2, special("change")))
    _, events = play(state, (1, CALL))
    data = showdown(events)
    assert data["bid"] == 30 and data["bidder"] == 0 and data["loser"] == 0


def test_shot_chooses_next_then_current_direction():
    state = make("classic", ["5", "10", "3", "1", "2"], turn=0, specials=True)
    state, _ = play(state, (0, bid(2, "shot", 3)))
    assert state["turn"] == 3
    state, _ = play(state, (3, bid(3)))
    assert state["turn"] == 4


# --- coins ------------------------------------------------------------------------------------

def test_each_coin_once_per_round_shared_and_back_next_round():
    state = make("feathers", ["5", "10", "3", "1"], turn=0, specials=True)
    state, _ = play(state, (0, bid(2)), (1, special("skip")))
    assert rule_error(state, 2, special("skip")) == "coin_used"
    state, _ = play(state, (2, bid(3)), (3, CALL))
    assert sorted(state["coins"]) == sorted(["extra", "reverse", "skip", "swap", "guess"])


def test_no_coins_with_two_players_left():
    state = make("feathers", ["5", "10", None], turn=0, specials=True, lives=[3, 3, 0])
    assert rule_error(state, 0, special("skip")) == "coins_two_players"


def test_extra_feather_counts_and_is_seen_by_all():
    state = make("feathers", ["5", "10", "3"], top=("7",), turn=0, specials=True)
    state, _ = play(state, (0, special("extra")))
    assert GAME.view(state, 0)["face_up"][0] == ["7"]
    assert rule_error(state, 0, CALL) in ("must_bid", "no_bid_to_call")
    _, events = play(state, (0, bid(25)), (1, CALL))
    assert showdown(events)["total"] == 25


def test_swap_old_feather_does_not_count_but_0b_still_reshuffles():
    state = make("feathers", ["0b", "10", "3"], top=("7",), turn=0, specials=True)
    state, _ = play(state, (0, special("swap")))
    assert state["hands"][0] == "7"
    assert GAME.view(state, 0)["cards"][0] is None
    new, events = play(state, (0, bid(20)), (1, CALL))
    assert showdown(events)["total"] == 20
    assert any(e.type == "reshuffled" for e in events)
    assert new["discard"] == []


def test_guess_right_safe_skipped_still_counts():
    state = make("feathers", ["5", "10", "3", "1"], turn=0, specials=True)
    state, _ = play(state, (0, special("guess", "5")))
    assert state["safe"][0]
    state, _ = play(state, (1, bid(10)), (2, bid(11)), (3, bid(12)))
    assert state["turn"] == 1  # seat 0 skipped
    _, events = play(state, (1, CALL))
    assert showdown(events)["total"] == 19


def test_guess_wrong_loses_life_round_ends_guesser_starts():
    state = make("feathers", ["5", "10", "3", "1"], turn=0, specials=True)
    state, _ = play(state, (0, bid(4)), (1, special("guess", "7")))
    assert state["lives"][1] == 2
    assert state["round"] == 2
    assert state["starter"] == 1 and state["turn"] == 1
