"""Coyote to the letter: next starter, elimination, end of game, lives and player counts."""

from __future__ import annotations

import pytest

from engine.core import RuleError
from tests.engine.coyote_game_helpers import play
from tests.engine.coyote_rulings_helpers import CALL, GAME, bid, lives_lost, make


def test_classic_eliminated_loser_winner_starts():
    state = make("classic", ["5", "10", "3", "1"], turn=2, lives=[3, 3, 1, 3])
    # seat 2 bids 100, seat 3 calls: bidder 2 loses its last life; winner 3 starts
    new, _ = play(state, (2, bid(100)), (3, CALL))
    assert new["lives"][2] == 0
    assert new["starter"] == 3 and new["turn"] == 3


def test_classic_eliminated_loser_option_next_surviving_player_after_loser():
    """"If the loser was eliminated, the winner of the showdown starts *(option: the next
    surviving player after the loser)*"."""
    state = make("classic", ["5", "10", "3", "1"], turn=2, lives=[3, 3, 3, 1],
                 options={"after_elimination": "next"})
    new, _ = play(state, (2, bid(1)), (3, CALL))  # the bid holds: caller 3 loses its last life
    assert new["lives"][3] == 0
    assert new["starter"] == 0  # after seat 3 comes seat 0, not the winner (seat 2)


def test_classic_double_eliminates_caller_winner_starts():
    state = make("classic", ["5", "10", "3", "1"], turn=0, lives=[3, 2, 3, 3], specials=True)
    new, events = play(state, (0, bid(2, "double")), (1, CALL))
    assert lives_lost(events) == {1: 2}
    assert new["lives"][1] == 0 and new["out"] == [1]
    assert new["starter"] == 0


def test_feathers_more_lives_limits_players():
    assert GAME.player_limits({"edition": "feathers", "lives": 4}) == (3, 4)
    assert GAME.player_limits({"edition": "classic", "lives": 5}) == (3, 10)


def test_feathers_winner_starts_even_if_caller_lost():
    state = make("feathers", ["5", "10", "3"], turn=0)
    new, _ = play(state, (0, bid(18)), (1, CALL))  # 18 == 18: caller 1 loses
    assert new["starter"] == 0


def test_classic_last_player_with_lives_wins_and_placements():
    state = make("classic", ["5", "10", "3"], turn=0, lives=[1, 1, 1])
    state, _ = play(state, (0, bid(100)), (1, CALL))  # seat 0 out first
    assert state["out"] == [0]
    assert not state["over"]
    s = state["turn"]
    assert s == 1  # the winner starts after the loser's elimination
    state["hands"] = [None, "5", "5"]
    state, events = play(state, (1, bid(1)), (2, CALL))  # caller 2 loses, out
    assert state["over"]
    assert GAME.placements(state) == [3, 1, 2]
    assert any(e.type == "game_over" for e in events)


def test_poker_fourth_penalty_ends_game_with_one_loser():
    state = make("poker-deck", ["A", "2", "3", "4"], turn=0, lives=[4, 1, 4, 4])
    new, _ = play(state, (0, bid(1)), (1, CALL))  # total 10 > 1: caller 1 takes the 4th
    assert new["over"]
    assert GAME.placements(new) == [1, 4, 1, 1]


def test_poker_only_four_penalties():
    assert GAME.new_state(3, 1, {"edition": "poker-deck"})["lives"] == [4, 4, 4]
    for lives in (3, 5):
        with pytest.raises(RuleError):
            GAME.new_state(3, 1, {"edition": "poker-deck", "lives": lives})


@pytest.mark.parametrize(("edition", "seats", "lives", "ok"), [
    ("classic", 3, 2, True), ("classic", 10, 5, True), ("classic", 3, 1, False),
    ("classic", 3, 6, False), ("classic", 3, None, True),
    ("feathers", 4, 4, True), ("feathers", 4, 5, True), ("feathers", 5, 4, False),
    ("feathers", 10, 5, False), ("feathers", 3, 2, False), ("feathers", 10, 3, True),
])
def test_lives_ranges_and_more_lives_player_limit(edition, seats, lives, ok):
    opts = {"edition": edition} if lives is None else {"edition": edition, "lives": lives}
    if ok:
        state = GAME.new_state(seats, 1, opts)
        assert state["lives"] == [lives or 3] * seats
    else:
        with pytest.raises(RuleError):
            GAME.new_state(seats, 1, opts)


@pytest.mark.parametrize(("edition", "low", "high"), [
    ("classic", 3, 10), ("feathers", 3, 10), ("poker-deck", 3, 8)])
def test_player_counts(edition, low, high):
    assert GAME.player_limits({"edition": edition}) == (low, high)
