"""What a committed change hands back, shared by the moves, the sweeper and delivery: the
steps it took (:class:`Step`), the change as a whole (:class:`Outcome`), and the listeners
every committed start, move and timeout is reported to (:class:`Listeners`)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from league.store.snapshots import GameSnapshot

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Step:
    """One applied action: who acted (``seat``; ``ai`` for a computer player), the engine's
    events (JSON objects) and the state right after it."""

    seat: int | None
    ai: bool
    events: list[dict[str, Any]]
    state: dict[str, Any]


@dataclass(frozen=True)
class Outcome:
    """A committed change: the game after it and every step it took, in order."""

    game: GameSnapshot
    steps: list[Step] = field(default_factory=list)
    turn_before: int | None = None
    """The seat whose turn it was before the change (``None`` when not known)."""
    started: bool = False
    """The change is the game's start (its lobby message is to be closed)."""

    @property
    def events(self) -> list[dict[str, Any]]:
        """All events of all steps, in order."""
        return [e for step in self.steps for e in step.events]


Listener = Callable[[Outcome], None]
"""Called with each committed :class:`Outcome`, synchronously, right after the commit (it
must not block: the bot's listener only notes the change and starts its delivery)."""


class Listeners:
    """The listeners of committed changes (``MatchService.on_commit``)."""

    def __init__(self) -> None:
        self.listeners: list[Listener] = []

    def on_commit(self, listener: Listener) -> None:
        """Call ``listener`` with every committed start, move and timeout."""
        self.listeners.append(listener)

    def reported(self, outcomes: list[Outcome]) -> None:
        """Hand committed outcomes to the listeners (a listener's error is logged, never
        raised into the service call: the change is committed either way)."""
        for listener in list(self.listeners):
            for outcome in outcomes:
                try:
                    listener(outcome)
                except Exception:
                    log.exception("a commit listener failed for game %s", outcome.game.id)
