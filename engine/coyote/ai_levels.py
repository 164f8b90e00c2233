"""The Coyote computer player at three levels, for the lobby's computer seats and the stand-in
for a timed-out human: a table chooses how strong its computer players are.

- ``"easy"``: :mod:`engine.coyote.ai_easy` (a beginner's mistakes);
- ``"normal"``: :mod:`engine.coyote.ai` (the AI as it was before levels, unchanged);
- ``"hard"``: :mod:`engine.coyote.ai_hard` (reads the others' bids with a model of them).

Each is a function ``(view, rng) -> Action`` of one seat's view only, deterministic for a seed,
and always legal.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from engine.core import Action
from engine.coyote.ai import choose_action
from engine.coyote.ai_easy import easy_action
from engine.coyote.ai_hard import hard_action

Policy = Callable[[dict[str, Any], random.Random], Action]

LEVELS: dict[str, Policy] = {"easy": easy_action, "normal": choose_action, "hard": hard_action}
"""The levels by name, in order of strength."""
DEFAULT_LEVEL = "normal"


def choose(view: dict[str, Any], rng: random.Random, level: str = DEFAULT_LEVEL) -> Action:
    """The computer player's action at ``level`` for ``view["seat"]``, whose turn it must be.

    ``view``: :meth:`engine.coyote.CoyoteGame.view` for that seat; ``rng``: the only source of
    chance. Returns a legal :class:`engine.core.Action`. Raises ``ValueError`` for an unknown
    level, off-turn, or when the game is over.
    """
    policy = LEVELS.get(level)
    if policy is None:
        raise ValueError(f"unknown level {level!r}")
    return policy(view, rng)


__all__ = ["DEFAULT_LEVEL", "LEVELS", "Policy", "choose"]
