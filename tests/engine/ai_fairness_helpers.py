"""Coyote and Koira games played by computer players at given seats, for the fairness tests."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, settings

from engine.core import Action
from engine.coyote import CoyoteGame
from engine.coyote.ai_levels import choose as coyote_choose
from engine.koira import KoiraGame
from engine.koira.ai_levels import choose as koira_choose

COYOTE = CoyoteGame()
KOIRA = KoiraGame()
LEVELS = ["easy", "normal", "hard"]
SETTINGS = settings(max_examples=25, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


def coyote_random_legal(state: dict, seat: int, rng: random.Random) -> Action:
    """Any legal action, specials included (they create Change, Draw 1, Swap, Guess …)."""
    legal = COYOTE.legal_actions(state, seat)
    calls = [a for a in legal if a.kind == "call"]
    if calls and (len(state["bids"]) > 6 or rng.random() < 0.3):
        return calls[0]
    specials = [a for a in legal if a.special is not None]
    if specials and rng.random() < 0.35:
        return rng.choice(specials)
    return rng.choice([a for a in legal if a.kind == "bid"][:3])


def play_coyote(edition: str, seats: int, specials: bool, seed: int, policies: list,
                check, max_steps: int = 400) -> dict:
    """Play (at most ``max_steps`` moves); ``policies[seat]``: a level or ``None`` (random
    legal moves); ``check(state, seat, view, action, level)`` at each computer decision."""
    state = COYOTE.new_state(seats, seed, {"edition": edition, "specials": specials})
    return _play(COYOTE, state, coyote_choose, coyote_random_legal, seed, policies, check,
                 max_steps)


def _play(game, state: dict, choose, random_legal, seed: int, policies: list, check,
          max_steps: int) -> dict:
    """The loop of :func:`play_coyote` and :func:`play_koira`, for either game."""
    rng = random.Random(seed)
    for _ in range(max_steps):
        if state["over"]:
            break
        seat = state["turn"]
        level = policies[seat]
        if level is None:
            action = random_legal(state, seat, rng)
        else:
            view = game.view(state, seat)
            action = choose(view, random.Random(rng.random()), level)
            check(state, seat, view, action, level)
        state, _ = game.apply(state, seat, action)
    return state


def play_koira(seats: int, seed: int, options: dict, policies: list, check,
               max_steps: int = 3000) -> dict:
    state, _ = KOIRA.new_game(seats, seed, options)
    return _play(KOIRA, state, koira_choose,
                 lambda state, seat, rng: rng.choice(KOIRA.legal_actions(state, seat)),
                 seed, policies, check, max_steps)
