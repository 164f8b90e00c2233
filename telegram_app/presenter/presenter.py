"""From a commit to its messages: one delivery per game at a time, in commit order."""

from __future__ import annotations

import asyncio
import contextvars
import logging
from collections.abc import Coroutine
from typing import Any

from league.match.outcome import Outcome
from league.service import MatchService
from telegram_app.presenter.reports import Reports
from telegram_app.tournaments.table_topics import TableTopics
from telegram_app.transport.keylocks import KeyLocks
from telegram_app.transport.messenger import Messenger
from telegram_app.transport.outage import OutageLog, is_outage, sqlstate

# Each holds a database connection while it sends: with the intake's 16, below the pool's 40.
DELIVERIES = 16
CHAT_DELIVERIES = 4  # of them for one chat: a group out of budget waits, the others go on
LOCK_TIMEOUT = "55P03"  # PostgreSQL's lock_not_available: the lock wait (LOCK_WAIT) ran out
log = logging.getLogger(__name__)


class Presenter(Reports):
    """Shows games: the service's commit listener and the sweeper run :meth:`deliver`."""

    def __init__(self, messenger: Messenger, service: MatchService,
                 outage: OutageLog | None = None) -> None:
        self.messenger = messenger
        self.service = service
        self.outage = outage or OutageLog()  # the intake's: one warning per outage
        self.topics = TableTopics(messenger, service)
        self._locks = KeyLocks()
        self._chats = KeyLocks(CHAT_DELIVERIES)
        self._pending: dict[int, dict[int, Outcome]] = {}  # game -> version -> undelivered
        self._tasks: set[asyncio.Task] = set()
        self._slots = asyncio.Semaphore(DELIVERIES)
        service.on_commit(self.committed)

    def committed(self, outcome: Outcome) -> None:
        """Note a change and deliver its game (the next delivery takes all noted, in order)."""
        self._pending.setdefault(outcome.game.id, {})[outcome.game.version] = outcome
        self.spawn(self.deliver(outcome.game.id), f"showing game {outcome.game.id} failed")

    def spawn(self, work: Coroutine[Any, Any, Any], what: str = "drawing a game failed") -> None:
        """Run ``work`` beside the handlers (its waits hold no handler's slot: SQLite has one),
        without the update's language or inbox item; a failure is logged as ``what``."""
        task = asyncio.get_running_loop().create_task(self._logged(work, what),
                                                      context=contextvars.Context())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    later = spawn

    async def _logged(self, work: Coroutine[Any, Any, Any], what: str) -> None:
        try:
            await work
        except Exception as exc:
            if is_outage(exc):
                self.outage.failed(exc)
            elif sqlstate(exc) == LOCK_TIMEOUT:  # (another process's delivery: a sweep retries)
                log.info("%s: the game's delivery is busy elsewhere", what)
            else:
                log.exception(what)

    def busy(self) -> bool:
        return bool(self._tasks)

    async def drain(self, timeout: float) -> None:  # noqa: ASYNC109
        if self._tasks:
            await asyncio.wait(set(self._tasks), timeout=timeout)

    def represent(self, game_ids: list[int]) -> None:
        """Deliver the sweep's games not under way here; unawaited: a slow one stalls no sweep."""
        for game_id in game_ids:
            if game_id not in self._locks:
                self.spawn(self.deliver(game_id), f"showing game {game_id} failed")

    async def deliver(self, game_id: int) -> None:
        """Show what changed since the group was last told (run by :meth:`spawn`: a failure
        is logged, and the sweep finds the game again)."""
        pending = self._pending.get(game_id) or {}
        chat = next(iter(pending.values())).game.chat_id if pending else None
        async with self.delivering(game_id, chat) as delivery:
            runs = _runs(self._pending.pop(game_id, {}))
            for n, outcome in enumerate(runs):
                if outcome.started:
                    await self._close_lobby(delivery.game)
                if n > 0:  # (read again: the game may have moved on since the first read)
                    await self.service.reread(delivery)
                await self._moved(outcome, delivery)
            if not runs:
                await self._represent(delivery, self.messenger.bot.username)


def _runs(pending: dict[int, Outcome]) -> list[Outcome]:
    """``pending`` in order, each run of consecutive versions coalesced into one outcome.
    A start stays alone: its new table tells the start, not what came after it (a Koira
    table says a removed player "left the game", never that their time ran out)."""
    runs: list[Outcome] = []
    for version, outcome in sorted(pending.items()):
        last = runs[-1] if runs else None
        if last is not None and not outcome.started and not last.started and \
                version - len(outcome.steps) == last.game.version:
            runs[-1] = Outcome(outcome.game, last.steps + outcome.steps, last.turn_before,
                               last.started)
        else:
            runs.append(outcome)
    return runs
