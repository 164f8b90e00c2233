"""The real bot Application run against the fake Bot API (polling), with the bookkeeping
``settle()`` needs to know when the bot is idle."""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import datetime

from apscheduler.events import (
    EVENT_JOB_ERROR,
    EVENT_JOB_EXECUTED,
    EVENT_JOB_SUBMITTED,
    JobEvent,
)
from telegram.ext import Application

from league.store.orm import utcnow
from telegram_app.app import ALLOWED_UPDATES, build_application
from telegram_app.config import Settings
from telegram_app.services import KEY
from telegram_app.transport.scheduler import JOB_NAME as SWEEP_JOB
from telegram_app.transport.scheduler import TOURNAMENTS_JOB
from tests.fakebot import FakeBotAPI

# The jobs that read the clock: each must have looked at a moved clock before settle() ends.
TICKERS = (SWEEP_JOB, TOURNAMENTS_JOB)


class BotRunner:
    """Starts and stops the real Application (polling) against ``api`` on ``database_url``."""

    def __init__(self, api: FakeBotAPI, database_url: str, *,
                 clock: Callable[[], datetime] = utcnow, sweep_interval: float = 5.0) -> None:
        self.api = api
        self.database_url = database_url
        self.clock = clock
        self.sweep_interval = sweep_interval
        self.league_interval = 60.0
        self.app: Application | None = None
        # job id -> when its run under way / its last run that ended well was submitted
        # (time.monotonic(); APScheduler runs one instance of a JobQueue job at a time)
        self._running: dict[str, float] = {}
        self._done_well: dict[str, float] = {}
        self._updates_done = 0.0  # when the Application last finished handling an update
        # job name (TICKERS) -> when its last run that ended well was submitted
        self._swept: dict[str, float] = {}
        api.busy_checks.append(self.busy)

    def busy(self) -> bool:
        """Whether the Application holds updates it fetched but has not finished handling
        (the intake's pending updates, from the fetch — they are stored in the inbox before
        they reach PTB's update queue — to the end of their handlers), a JobQueue job with
        work to do is running (:meth:`jobs_busy`), or a delivery of a committed change is
        under way: all may work in the database for a while without a request."""
        if self.app is None or not self.app.running:
            return False
        intake = self.app.bot_data.get("intake")
        if intake is not None and intake.pending:  # fetched, maybe not yet stored or queued
            return True
        bot = self.app.bot_data.get(KEY)
        return getattr(self.app.update_queue, "_unfinished_tasks", 0) > 0 \
            or self.jobs_busy() or (bot is not None and bot.presenter.busy())

    def jobs_busy(self) -> bool:
        """Whether a running JobQueue job may still have work to do: not one whose previous
        run was submitted after the last Bot API request, the last update handled and the
        start of the ``settle()`` under way, and ended well (it found nothing to do; nothing
        happened since). On a
        loaded machine a job every 50 ms runs back to back: ``settle()`` never saw it idle."""
        since = max(self.api._last_activity, self.api.settle_began, self._updates_done)
        return any(self._done_well.get(job, 0.0) <= since for job in self._running) \
            or self._sweep_owed()

    def _sweep_owed(self) -> bool:
        """Whether the test's clock (:class:`tests.clock.Clock`) moved since the last sweep
        or tournaments' tick (a job of its own, a round's deadline) began and they run often
        enough to wait for (every second or more often): a test that moves the clock and
        settles to see that nothing happened must not pass because no sweep or tick has
        looked at the new time yet."""
        moved = getattr(self.clock, "moved_at", None)
        return moved is not None and self.sweep_interval <= 1.0 and \
            any(self._swept.get(name, 0.0) <= moved for name in TICKERS)

    def _count_jobs(self, event: JobEvent) -> None:
        if event.code == EVENT_JOB_SUBMITTED:
            self._running[event.job_id] = time.monotonic()
            return
        submitted = self._running.pop(event.job_id, None)
        if event.code == EVENT_JOB_EXECUTED and submitted is not None:
            self._done_well[event.job_id] = submitted
            for name in TICKERS:
                if self.app is not None and self.app.job_queue is not None and any(
                        job.job.id == event.job_id
                        for job in self.app.job_queue.get_jobs_by_name(name)):
                    self._swept[name] = max(self._swept.get(name, 0.0), submitted)

    def settings(self) -> Settings:
        """The bot's settings for this run: the fake's URL and token, a generous rate limit."""
        return Settings(telegram_bot_token=self.api.token, database_url=self.database_url,
                        telegram_base_url=self.api.base_url, telegram_group_rate=6000,
                        telegram_overall_rate=1000, sweep_interval=self.sweep_interval,
                        league_interval=self.league_interval)

    async def start(self) -> None:
        """Build, initialise (migrating the schema) and start polling."""
        self.app = build_application(self.settings(), clock=self.clock)
        self._running, self._done_well, self._swept = {}, {}, {}
        queue, done = self.app.update_queue, self.app.update_queue.task_done

        def task_done() -> None:  # (PTB's: once an update's handlers have all run)
            self._updates_done = time.monotonic()
            done()

        queue.task_done = task_done  # type: ignore[method-assign]
        assert self.app.job_queue is not None
        self.app.job_queue.scheduler.add_listener(
            self._count_jobs, EVENT_JOB_SUBMITTED | EVENT_JOB_EXECUTED | EVENT_JOB_ERROR)
        # The same order as Application.run_polling: initialize, post_init, start.
        await self.app.initialize()
        if self.app.post_init:
            await self.app.post_init(self.app)
        await self.app.start()
        assert self.app.updater is not None
        await self.app.updater.start_polling(poll_interval=0, timeout=1,
                                             allowed_updates=ALLOWED_UPDATES)

    async def stop(self) -> None:
        """Stop polling and shut the Application down, as a restart would."""
        if self.app is None:
            return
        if self.app.updater is not None and self.app.updater.running:
            await self.app.updater.stop()
        if self.app.running:
            await self.app.stop()
            if self.app.post_stop:
                await self.app.post_stop(self.app)
        await self.app.shutdown()
        if self.app.post_shutdown:
            await self.app.post_shutdown(self.app)
        self.app = None
