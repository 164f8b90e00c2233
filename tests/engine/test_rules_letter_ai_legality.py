"""The engine to the letter of ``shared/rules/coyote.md`` and ``shared/rules/koira.md``:
the computer players of every registered game, level and option never choosing an illegal
action.
"""

from __future__ import annotations

import json
import random

import pytest

from engine import GAMES
from engine.core import RuleError

# =============================================================================================
# Computer players of every registered game never choose an illegal action
# =============================================================================================

AI_CASES = [("coyote", {"edition": e, "specials": s}) for e, s in (
    ("classic", False), ("classic", True), ("feathers", False), ("feathers", True),
    ("poker-deck", False))] + [
    ("koira", {"tie_split": t, "trump_ends_trick": c, "pickup_single": p, "min_sequence": m})
    for t, c, p, m in ((False, False, False, 2), (True, True, True, 3), (False, True, False, 3),
                       (True, False, True, 2))]


@pytest.mark.parametrize(("name", "options"), AI_CASES,
                         ids=[f"{n}-{json.dumps(o, sort_keys=True)}" for n, o in AI_CASES])
def test_computer_players_only_choose_legal_actions(name: str, options: dict) -> None:
    """Whole games played by the computer at every level (its own seat's view, and as the
    stand-in for an absent human): each action is one ``legal_actions`` lists, or, for a
    Coyote bid above the listed window (coyote.md:21 "There is no maximum bid"), one ``apply``
    accepts."""
    game = GAMES[name]
    for level in game.ai_levels:
        for seed in range(8):
            seats = 3 + (seed * 2 + len(level)) % 6
            if name == "coyote" and options["edition"] == "poker-deck":
                seats = min(seats, 8)
            state, _ = game.new_game(seats, seed, options)
            for step in range(3000):
                if game.is_over(state):
                    break
                seat = game.current_seat(state)
                rng = random.Random(seed * 10_007 + step)
                if step % 3 == 2:
                    action = game.stand_in_action(state, seat, rng, level)
                else:
                    action = game.ai_action(game.view(state, seat), rng, level)
                legal = game.legal_actions(state, seat)
                if action not in legal:
                    assert name == "coyote" and action.kind == "bid", (level, seed, action)
                try:
                    state, _ = game.apply(state, seat, action)
                except RuleError as err:  # pragma: no cover - a finding
                    pytest.fail(f"{name} {level} seed {seed}: illegal {action}: {err}")
            assert game.is_over(state), (level, seed)
