"""``settle()`` and a job run that, under way, picks up work an update handled during the
settle left without any Bot API request (``getUpdates`` is no activity): its previous run
found nothing, yet this run has work, as a sweep that reads the database in several steps
while a handler commits."""

from __future__ import annotations

import asyncio
import time

from telegram.ext import MessageHandler, filters

from tests.e2e.harness import BotRunner, bot_table

GROUP = -100813


def add_handler_and_worker(runner: BotRunner) -> None:
    """A group text ``ping``: its handler (no Bot API request) leaves work once the worker's
    run under way began after the settle, as did a whole earlier run that found nothing. The
    worker, every 50 ms, looks for work during its run (0.3 s); found, it works 0.5 s before
    its first request, ``pong``."""
    app, api = runner.app, runner.api
    assert app is not None and app.job_queue is not None
    state: dict = {"work": False, "done": False, "idle_in": None}
    under_way = asyncio.Event()

    async def handle(_update, _context) -> None:
        under_way.clear()
        await under_way.wait()
        state["work"] = True

    async def worker(_context) -> None:
        began, settle = time.monotonic(), api.settle_began
        if began > settle and state["idle_in"] == settle:  # (a whole idle run in this settle)
            under_way.set()
        for _ in range(30):
            await asyncio.sleep(0.01)
            if state["work"] and not state["done"]:
                state["done"] = True
                await asyncio.sleep(0.5)  # database work before the first request
                await app.bot.send_message(GROUP, "pong")
                return
        if began > settle:
            state["idle_in"] = settle

    app.add_handler(MessageHandler(filters.Regex("^ping$"), handle), group=99)
    app.job_queue.run_repeating(worker, interval=0.05, first=0.0, name="worker")


async def test_settle_waits_for_work_a_running_job_picked_up(pg_db, pg_url) -> None:
    """Before the fix ``settle()`` returned while the job's run was still working: that
    run's predecessor began after the settle and after the last Bot API request and found
    nothing, so the run counted as idle, though the update handled meanwhile (with no
    request) gave it work; ``pong`` came after ``settle()`` had returned."""
    async with bot_table(pg_url, GROUP, "Job work", ["Ann"]) as (api, players, runner):
        add_handler_and_worker(runner)
        await api.settle()
        await players[0].send(GROUP, "ping")
        await api.settle(timeout=10)
        assert api.find_messages(GROUP, "pong"), "settle() returned before the job's work"
