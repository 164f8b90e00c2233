"""What one bot process keeps of tournaments between updates: a lock per tournament, so its
sign-up message is edited by one drawing at a time (each drawing reads the tournament anew),
and the tables the computer finished at a round's deadline in this process's ticks.

The league does not record which tables the computer finished (a table over is over), so the
tick notes them as it happens: while ``advance_tournaments`` runs, the match service hands
every commit to its listeners, and a finished table reported within that call (in the
tick's own task: :data:`_TICKING`) is one the computer played to its end. A restart between
the tick and its announcement forgets them: the announcement then goes without that note
(nothing else is lost: the league claims and marks each announcement).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from league.match.outcome import Outcome
from league.service import MatchService
from telegram_app.transport.keylocks import KeyLocks

KEY = "tournaments"
"""The application's ``bot_data`` key of its :class:`TournamentMemory`."""
_TICKING: ContextVar[bool] = ContextVar("tournament_tick", default=False)


class TournamentMemory:
    """One process's locks and deadline notes (see the module)."""

    def __init__(self) -> None:
        self.locks = KeyLocks()
        self._by_computer: dict[int, dict[int, set[int]]] = defaultdict(
            lambda: defaultdict(set))
        self._watched: set[int] = set()  # the services whose commits are listened to

    def watch(self, service: MatchService) -> None:
        """Listen to ``service``'s commits (once per service)."""
        if id(service) not in self._watched:
            self._watched.add(id(service))
            service.on_commit(self._committed)

    @contextmanager
    def ticking(self) -> Iterator[None]:
        """The block in which the tick advances tournaments: tables finished in it are the
        computer's."""
        token = _TICKING.set(True)
        try:
            yield
        finally:
            _TICKING.reset(token)

    def _committed(self, outcome: Outcome) -> None:
        game = outcome.game
        if _TICKING.get() and not outcome.started and game.tournament_id is not None \
                and game.status == "finished" and game.tournament_round is not None:
            self._by_computer[game.tournament_id][game.tournament_round].add(
                game.tournament_table or 0)

    def finished_by_computer(self, tournament_id: int, round_: int) -> list[int]:
        """The table numbers of round ``round_`` the computer finished at its deadline, as
        far as this process saw."""
        return sorted(self._by_computer.get(tournament_id, {}).get(round_, set()))

    def forget(self, tournament_id: int, before: int) -> None:
        """Drop the notes of rounds before ``before`` (they were told)."""
        rounds = self._by_computer.get(tournament_id)
        if rounds is None:
            return
        for round_ in [r for r in rounds if r < before]:
            del rounds[round_]
        if not rounds:
            del self._by_computer[tournament_id]


def memory_of(bot_data: dict[str, Any]) -> TournamentMemory:
    """The application's :class:`TournamentMemory` (made at first use)."""
    found = bot_data.get(KEY)
    if found is None:
        found = bot_data[KEY] = TournamentMemory()
    return found
