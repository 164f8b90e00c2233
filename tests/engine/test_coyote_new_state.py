"""A new Coyote game: player counts, lives, editions, defaults and the classic-only option."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from engine.core import RuleError
from engine.coyote import get_edition
from tests.engine.coyote_game_helpers import GAME


@pytest.mark.parametrize(("edition", "seats"), [
    ("classic", 2), ("classic", 11), ("classic", 0), ("feathers", 2), ("feathers", 11),
    ("poker-deck", 2), ("poker-deck", 9),
])
def test_bad_player_count(edition, seats):
    with pytest.raises(RuleError) as exc:
        GAME.new_state(seats, 1, {"edition": edition})
    assert exc.value.code == "bad_player_count"


@pytest.mark.parametrize(("edition", "lives"), [
    ("classic", 1), ("classic", 6), ("classic", 0), ("classic", "3"), ("classic", True),
    ("classic", 3.0), ("feathers", 2), ("feathers", 6), ("poker-deck", 3), ("poker-deck", 5),
])
def test_bad_lives(edition, lives):
    with pytest.raises(RuleError) as exc:
        GAME.new_state(4, 1, {"edition": edition, "lives": lives})
    assert exc.value.code == "bad_lives"


def test_feathers_more_coins_only_at_small_tables():
    """coyote.md, "Edition feathers": "3 eliminate *(option: 4 or 5 with 3–4 players)*"."""
    for seats in (3, 4):
        assert GAME.new_state(seats, 1, {"edition": "feathers", "lives": 5})["lives"] == \
            [5] * seats
    with pytest.raises(RuleError) as exc:
        GAME.new_state(5, 1, {"edition": "feathers", "lives": 4})
    assert exc.value.code == "lives_need_fewer_players"
    assert exc.value.detail == {"lives": 4, "max": 4}
    assert GAME.new_state(10, 1, {"edition": "feathers", "lives": 3})["lives"] == [3] * 10
    assert GAME.new_state(10, 1, {"edition": "classic", "lives": 5})["lives"] == [5] * 10


def test_unknown_edition():
    with pytest.raises(RuleError) as exc:
        GAME.new_state(4, 1, {"edition": "nope"})
    assert exc.value.code == "unknown_edition"


@pytest.mark.parametrize(("edition", "lives"), [("classic", 3), ("feathers", 3),
                                                ("poker-deck", 4)])
def test_new_state_defaults(edition, lives):
    state = GAME.new_state(5, 42, {"edition": edition})
    assert state["lives"] == [lives] * 5
    assert state["edition"] == edition
    assert state["round"] == 1
    assert state["bids"] == [] and state["out"] == [] and state["over"] is False
    assert all(c is not None for c in state["hands"])
    assert Counter(state["hands"] + state["draw"] + state["discard"]) == Counter(
        get_edition(edition).deck)
    assert GAME.current_seat(state) == state["starter"]
    assert json.loads(json.dumps(state)) == state


def test_new_state_defaults_to_classic_and_is_deterministic():
    a = GAME.new_state(4, 123)
    assert a["edition"] == "classic"
    assert GAME.new_state(4, 123) == a
    assert GAME.new_state(4, 123, {"lives": 5})["lives"] == [5] * 4


def test_new_state_does_not_mutate_options():
    options = {"edition": "feathers", "lives": 4}
    GAME.new_state(3, 1, options)
    assert options == {"edition": "feathers", "lives": 4}


def test_after_elimination_is_a_classic_option_only():
    with pytest.raises(RuleError) as err:
        GAME.new_state(4, 7, {"edition": "poker-deck", "after_elimination": "next"})
    assert err.value.code == "bad_option"
    assert "after_elimination" in GAME.option_choices({"edition": "classic"})
    assert "after_elimination" not in GAME.option_choices({"edition": "feathers"})
