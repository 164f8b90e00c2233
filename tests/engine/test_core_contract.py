"""The parts of :mod:`engine.core` that keep the league game-neutral: ``Action.cards``, the
event names, option specs, and Coyote's stand-in (moved from the league's plan_replies)."""

from __future__ import annotations

import random

import pytest

from engine import GAMES, TURN_ENDING_EVENTS
from engine.core import GAME_OVER, PLAYER_REMOVED, ROUND_OVER, TRICK_OVER, Action, RuleError


def test_action_cards_round_trip() -> None:
    action = Action("play", cards=("5C", "6C"))
    assert action.to_json() == {"kind": "play", "cards": ["5C", "6C"]}
    assert Action.from_json(action.to_json()) == action
    assert Action("bid", 3).to_json() == {"kind": "bid", "amount": 3}  # unchanged for Coyote
    assert Action.from_json({"kind": "bid", "amount": 3}) == Action("bid", 3)


@pytest.mark.parametrize("data", [{"kind": "play", "cards": "5C"},
                                  {"kind": "play", "cards": [5]},
                                  {"kind": "play", "cards": {"a": 1}}])
def test_action_bad_cards(data: dict) -> None:
    with pytest.raises(RuleError) as err:
        Action.from_json(data)
    assert err.value.code == "bad_action"


def test_event_names_are_the_games_own() -> None:
    assert {ROUND_OVER, TRICK_OVER, GAME_OVER} <= TURN_ENDING_EVENTS
    for game in GAMES.values():  # each game's own turn-ending events extend the neutral ones
        assert TURN_ENDING_EVENTS <= game.turn_ending_events
    coyote = GAMES["coyote"]
    state, _ = coyote.new_game(3, 1)
    state, events = coyote.apply(state, 1, Action("resign"))
    assert events[0].type == PLAYER_REMOVED


def test_coyote_stand_in_leaves_the_mask_alone() -> None:
    """The computer playing for an absent human never uses their mask (a Change would hand
    their turn to another player and back, unfinished): plan_replies' rule, in the engine."""
    coyote = GAMES["coyote"]
    used = 0
    for seed in range(60):
        state, _ = coyote.new_game(4, seed, {"edition": "classic", "specials": True})
        rng = random.Random(seed)
        for _ in range(6):
            if coyote.is_over(state):
                break
            seat = coyote.current_seat(state)
            stand_in = coyote.stand_in_action(state, seat, random.Random(seed))
            assert stand_in.special is None
            coyote.apply(state, seat, stand_in)  # legal (bids past the listed window too)
            own = coyote.ai_action(coyote.view(state, seat), random.Random(seed))
            used += own.special is not None
            state, _ = coyote.apply(state, seat, rng.choice([own, stand_in]))
    assert used > 0, "the AI never used a mask here: the test shows nothing"


def test_progress_markers() -> None:
    assert GAMES["coyote"].progress(GAMES["coyote"].new_game(3, 1)[0]) == {"round": 1}
    assert GAMES["koira"].progress(GAMES["koira"].new_game(3, 1)[0]) == {"phase": 1,
                                                                          "trick": 1}
