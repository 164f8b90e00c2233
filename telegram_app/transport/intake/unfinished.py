"""Replay: what a dead process left undone is taken over; presses a kill left unanswered too."""

from __future__ import annotations

import asyncio
import logging
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from telegram import Update
from telegram.error import TelegramError
from telegram.ext import ContextTypes

from league.store.orm import utcnow
from telegram_app.transport.outage import is_outage

if TYPE_CHECKING:
    from telegram_app.transport.intake.lanes import Intake

log = logging.getLogger(__name__)
ANSWER_WINDOW = 60.0  # seconds a press is answered after a restart (Telegram's: undocumented)
# A live process (another webhook worker) answers its own press as soon as the press's change
# commits, and Telegram keeps only a query's first answer: a press done (committed) this many
# seconds before the start is answered only once that long has passed, so its alert is not lost.
ANSWER_DELAY = 5.0


class Replay:
    """The ``inbox`` job's work for one :class:`~telegram_app.transport.intake.Intake`."""

    def __init__(self, intake: Intake, *, grace: float, keep: timedelta) -> None:
        self.intake = intake
        self.grace = grace
        self.keep = keep
        self.runs = 0
        self.answered_upto: datetime | None = None  # presses done before it answered

    async def run(self) -> int:
        """Hold this process's items ``grace`` s more; queue those nobody holds; how many."""
        intake = self.intake
        held_for = timedelta(seconds=self.grace)
        if (self.answered_upto is None or self.answered_upto < intake.born) \
                and (answered := await self.answer_owed()):
            log.info("answered %d button presses a killed process had not answered", answered)
        if intake.abandoned:
            done = set(intake.abandoned)
            await intake.inbox.mark_done(done)
            intake.abandoned -= done
        mine = intake.pending | intake.abandoned
        await intake.inbox.renew(mine, held_for)
        items = await intake.inbox.take_undone(taken_for=held_for, skip=mine)
        intake.outage.ok()
        for item in items:
            intake.received.fresh[item.id] = True
            await intake.app.update_queue.put(Update.de_json(item.payload, intake.app.bot))
        self.runs += 1
        if self.runs % 100 == 1:
            pruned = await intake.inbox.prune(self.keep)
            if pruned:
                log.info("pruned %d handled updates from the inbox", pruned)
        return len(items)

    async def answer_owed(self) -> int:
        """Answer the presses done just before the start (a kill after a commit), those
        done in the last :data:`ANSWER_DELAY` seconds before it once that long has passed
        (done, not received: a press may wait in its lane for seconds before a live worker
        commits it and answers); how many."""
        born = self.intake.born
        window = born - timedelta(seconds=ANSWER_WINDOW)
        since = self.answered_upto or window
        upto = min(born, utcnow() - timedelta(seconds=ANSWER_DELAY))
        if upto <= since:
            return 0
        items = await self.intake.inbox.done_since(window, since, upto)
        self.answered_upto = upto
        queries = [query["id"] for item in items
                   if isinstance(query := item.payload.get("callback_query"), dict)
                   and query.get("id")]
        bot = self.intake.app.bot

        async def answer(query_id: str) -> bool:
            try:
                return bool(await bot.answer_callback_query(query_id))
            except TelegramError as exc:  # answered already, or too old: nothing to do
                log.debug("press %s: %s", query_id, exc)
                return False

        return sum(await asyncio.gather(*(answer(q) for q in queries)))


async def replay_job(context: ContextTypes.DEFAULT_TYPE) -> None:
    """JobQueue callback: :meth:`Replay.run`."""
    from telegram_app.transport.intake.lanes import KEY

    intake: Intake | None = context.application.bot_data.get(KEY)
    if intake is None:
        return
    task = asyncio.current_task()
    if task is not None:
        intake.working.add(task)  # (a stop's bound cuts it off too: Intake.cut_off)
    try:
        if queued := await intake.replay.run():
            log.info("queued %d received but unhandled updates", queued)
    except Exception as exc:
        if not is_outage(exc):
            raise
        intake.outage.failed(exc)
    finally:
        if task is not None:
            intake.working.discard(task)
