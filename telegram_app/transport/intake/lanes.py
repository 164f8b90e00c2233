"""Lanes: updates handled concurrently, one at a time per lane, each once."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable
from datetime import timedelta
from typing import Any

from telegram import Update
from telegram.ext import Application, BaseUpdateProcessor

from league.store.inbox import CURRENT, Inbox, Work
from league.store.orm import utcnow
from telegram_app import metrics
from telegram_app.callbacks import parse
from telegram_app.handlers.common import thread_of
from telegram_app.transport.keylocks import KeyLocks
from telegram_app.transport.outage import OutageLog, answer_outage, is_outage

log = logging.getLogger(__name__)
KEY = "intake"  # bot_data key of the Intake


def lane_of(update: Update) -> str:
    """``g<game>`` for a button, ``c<chat>:<topic>`` in a group, ``u<user>``, or ``-``."""
    query = update.callback_query
    if query is not None:
        data = parse(query.data)
        if data is not None and data.game_id > 0:
            return f"g{data.game_id}"
    chat, user = update.effective_chat, update.effective_user
    if chat is not None and chat.type != "private":
        return f"c{chat.id}:{thread_of(update.effective_message)}"
    if user is not None:
        return f"u{user.id}"
    return f"c{chat.id}:0" if chat is not None else "-"


class Intake:
    """One process's intake; ``grace``: seconds before a replay takes an undone item."""

    def __init__(self, app: Application, inbox: Inbox, *, concurrency: int = 16,
                 grace: float = 10.0, keep: timedelta = timedelta(days=1)) -> None:
        from telegram_app.transport.intake.receiving import Received
        from telegram_app.transport.intake.unfinished import Replay

        self.app = app
        self.inbox = inbox
        self.outage = OutageLog()
        grace = max(grace, 5.0)  # (a shorter hold lapsed under load: handled twice, in CI)
        self.received = Received(inbox, self.outage, timedelta(seconds=grace))
        # (PTB drops what getUpdates fetches once its Updater stops: not stored, see there)
        self.received.polling = lambda: app.updater is None or app.updater.running
        self.replay = Replay(self, grace=grace, keep=keep)
        self.handling: set[int] = set()   # ids being handled here
        self.abandoned: set[int] = set()  # answered with the outage note: done once it ends
        self.cut: set[int] = set()  # ids whose handling was cancelled (a stop): not done
        self.working: set[asyncio.Task] = set()  # tasks handling updates here, the replay's
        self.born = utcnow()  # items received before this are no one's here (a restart's)
        self._slots = asyncio.Semaphore(concurrency)
        self._lanes = KeyLocks()

    @property
    def pending(self) -> set[int]:
        """Ids received or taken here and not yet handled (or being handled), from their
        store in the inbox on."""
        return set(self.received.fresh) | self.received.storing | self.handling

    async def handle(self, update: Update, coroutine: Awaitable[Any] | None) -> None:
        """Run ``coroutine`` (PTB's handling) in its lane if this process stored it as new."""
        uid = update.update_id
        work = self.received.fresh.pop(uid, None)
        self.handling.add(uid)
        task = asyncio.current_task()
        if task is not None:
            self.working.add(task)
        try:
            if work is None:
                metrics.DROPPED.labels("repeat").inc()
                return
            if work is False:
                metrics.DROPPED.labels("outage").inc()
                await answer_outage(update)
                return
            # (the lane first: a busy lane must not hold a slot another lane could use)
            async with self._lanes.hold(lane_of(update)), self._slots:
                running, coroutine, item = coroutine, None, Work(uid)
                token = CURRENT.set(item)
                try:
                    if running is not None:
                        await running
                finally:
                    CURRENT.reset(token)
                metrics.handled(update, self.received.started_at.get(uid))
                if item.failed:
                    self.abandoned.add(uid)
                elif not item.done:
                    await self.inbox.mark_done([uid])
        except asyncio.CancelledError:
            if work is True:
                self.cut.add(uid)  # (undone, unless its change committed: released at the stop)
            raise
        except Exception as exc:
            if not is_outage(exc):
                raise
            self.outage.failed(exc)
            self.abandoned.add(uid)
        finally:
            if coroutine is not None and hasattr(coroutine, "close"):
                coroutine.close()  # never awaited: a repeat, or answered with the outage note
            self.handling.discard(uid)
            self.received.started_at.pop(uid, None)
            if task is not None:
                self.working.discard(task)

    def cut_off(self) -> int:
        """The stop's bound is reached: cancel the handling still under way here (and a
        replay's run); how many tasks. Their updates stay undone (a commit marks its own
        update done, so one cut off before it is handled again): :meth:`release`."""
        running = [task for task in self.working if not task.done()]
        for task in running:
            task.cancel("the bot stops: its bound is reached")
        return len(running)

    async def release(self) -> int:
        """At the end of a stop: give up the hold on the updates stored or taken here and not
        handled (cut off, dropped by PTB's stop, fetched as it stopped), so the next process
        takes them at once (:meth:`Inbox.take_undone`) instead of waiting for the hold to
        lapse; how many. A database that cannot be reached leaves them to lapse."""
        ids = {uid for uid, work in self.received.fresh.items() if work} | self.cut
        if not ids:
            return 0
        try:
            await self.inbox.renew(ids, timedelta(0))
        except Exception as exc:
            if not is_outage(exc):
                raise
            self.outage.failed(exc)
            return 0
        self.cut -= ids
        for uid in ids:
            self.received.fresh.pop(uid, None)
        return len(ids)


class LaneProcessor(BaseUpdateProcessor):
    """Hands updates to :attr:`intake` once set; the intake's limit, not PTB's, rules."""

    def __init__(self) -> None:
        super().__init__(max_concurrent_updates=4096)
        self.intake: Intake | None = None
        self._before = asyncio.Lock()

    async def do_process_update(self, update: object, coroutine: Awaitable[Any]) -> None:
        if self.intake is not None and isinstance(update, Update):
            await self.intake.handle(update, coroutine)
            return
        async with self._before:
            await coroutine

    async def initialize(self) -> None:
        pass

    async def shutdown(self) -> None:
        pass
