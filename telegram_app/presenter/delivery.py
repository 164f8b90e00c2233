"""The delivery: from a commit to the messages, one delivery per game at a time, in commit
order (the service's commit listener), and again for games a sweep finds not shown."""

from __future__ import annotations

import asyncio
import contextvars
import logging
from collections.abc import Coroutine
from typing import Any

from league.delivery import Delivery
from league.outcome import Outcome
from league.service import MatchService
from telegram_app.messenger import Messenger
from telegram_app.outage import OutageLog, is_outage
from telegram_app.presenter.reports import Reports

DELIVERIES = 16
"""Games delivered at once by one process: each holds a database connection for its lock
(PostgreSQL) while it sends, so this and the intake's 16 handlers stay below the connection
pool's 40 (``league.db.Database``)."""
log = logging.getLogger(__name__)


class Presenter(Reports):
    """Shows lobbies and games in their group and in each player's private chat.

    It is the service's commit listener (:meth:`committed`): every committed start, move and
    timeout is delivered by :meth:`deliver`, the one path from a commit to the messages,
    which the sweeper also runs for games whose last change was not shown."""

    def __init__(self, messenger: Messenger, service: MatchService,
                 outage: OutageLog | None = None) -> None:
        self.messenger = messenger
        self.service = service
        # the bot's one log of database outages (the intake's): a delivery that meets one
        # adds no traceback to its one warning
        self.outage = outage or OutageLog()
        self._locks: dict[int, tuple[asyncio.Lock, int]] = {}
        # game id -> version -> committed change not delivered yet (see committed)
        self._pending: dict[int, dict[int, Outcome]] = {}
        self._tasks: set[asyncio.Task] = set()
        self._slots = asyncio.Semaphore(DELIVERIES)
        service.on_commit(self.committed)

    def committed(self, outcome: Outcome) -> None:
        """The service's listener: note a committed change and start delivering its game
        (right after the commit, before anything else is awaited, so the changes of one game
        are delivered in commit order: the next delivery takes all that are noted)."""
        self._pending.setdefault(outcome.game.id, {})[outcome.game.version] = outcome
        self.spawn(self.deliver(outcome.game.id))

    def spawn(self, work: Coroutine[Any, Any, None]) -> None:
        """Run ``work`` beside the update handlers; :meth:`drain` waits for it. In a fresh
        context: a delivery must inherit neither the language of the update whose commit
        started it (each message picks its reader's) nor its inbox item."""
        task = asyncio.get_running_loop().create_task(work, context=contextvars.Context())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def busy(self) -> bool:
        """Whether a delivery is running or waiting."""
        return bool(self._tasks)

    async def drain(self, timeout: float) -> None:  # noqa: ASYNC109
        """Wait up to ``timeout`` seconds for the deliveries under way (a stop)."""
        if self._tasks:
            await asyncio.wait(set(self._tasks), timeout=timeout)

    def represent(self, game_ids: list[int]) -> None:
        """Start delivering each of ``game_ids`` (the sweep's games not shown) that this
        process is not delivering already (the sweep does not wait for them: a slow game
        must not hold up the next sweep)."""
        for game_id in game_ids:
            if game_id not in self._locks:
                self.spawn(self.deliver(game_id))

    async def deliver(self, game_id: int) -> None:
        """Show what changed in the game since the group was last told: the changes this
        process committed (coalesced: each run of consecutive versions is one report), or,
        with none, what the log holds beyond ``told_version`` and any private message of
        this hand that was never delivered (:meth:`_represent`). Errors are logged (a
        database outage as the outage's one warning); what was not told is found again by a
        sweep."""
        try:
            async with self.delivering(game_id) as delivery:
                await self._deliver(game_id, delivery)
        except Exception as exc:
            if is_outage(exc):  # shown again by a sweep once the database is back
                self.outage.failed(exc)
            else:
                log.exception("showing game %s failed", game_id)

    async def _deliver(self, game_id: int, delivery: Delivery) -> None:
        """The body of :meth:`deliver`, under the game's delivery."""
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
    """``pending`` changes in version order, each run of consecutive ones (a change whose
    first step follows the previous change's last) coalesced into one outcome: one report,
    one edit of each message. A gap (a pause, a change of another process) starts a run."""
    runs: list[Outcome] = []
    for version in sorted(pending):
        outcome = pending[version]
        last = runs[-1] if runs else None
        if last is not None and not outcome.started and \
                version - len(outcome.steps) == last.game.version:
            runs[-1] = Outcome(outcome.game, last.steps + outcome.steps, last.turn_before,
                               last.started)
        else:
            runs.append(outcome)
    return runs
