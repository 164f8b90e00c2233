"""What every part of the match service shares: the database, the games by kind, the seed of
a new game and the clock. One :class:`Context` is handed to each part
(``league.service.MatchService`` composes them), so a test that replaces ``new_seed`` or
``clock`` on the service replaces it for every part."""

from __future__ import annotations

import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime

from engine import GAMES, Game
from league.store.db import Database
from league.store.errors import ServiceError
from league.store.orm import utcnow


def _new_seed() -> int:
    return secrets.randbits(62)


@dataclass
class Context:
    """``new_seed`` gives each game its random seed and ``clock`` the current time (aware
    UTC; tests pass a controlled one)."""

    db: Database
    games: Mapping[str, Game] = field(default_factory=lambda: GAMES)
    new_seed: Callable[[], int] = _new_seed
    clock: Callable[[], datetime] = utcnow

    def game(self, kind: str) -> Game:
        """The rules of ``kind``; raises ``unknown_game`` (detail ``kind``)."""
        try:
            return self.games[kind]
        except KeyError:
            raise ServiceError("unknown_game", kind=kind) from None
