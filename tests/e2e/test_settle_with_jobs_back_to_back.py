"""``settle()`` while JobQueue jobs run back to back, as the sweeper and the league posts do
every 50 ms on a loaded machine: two jobs of the test keep one job running at every moment."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

from tests.clock import Clock
from tests.e2e.harness import BotRunner, bot_table, mover, open_lobby

GROUP = -100812


def run_back_to_back(runner: BotRunner) -> None:
    """Two jobs doing nothing for 0.3 s every 0.4 s, the second 0.2 s after the first: one
    starts 0.1 s before the other ends, so some job runs at every moment."""
    async def idle(_context) -> None:
        await asyncio.sleep(0.3)

    assert runner.app is not None and runner.app.job_queue is not None
    for name, first in (("idle-a", 0.0), ("idle-b", 0.2)):
        runner.app.job_queue.run_repeating(idle, interval=0.4, first=first, name=name)


async def test_settle_sees_the_bot_idle_while_idle_jobs_run_back_to_back(pg_db, pg_url) -> None:
    """Before the fix ``settle()`` counted every running job as work in flight: with a job
    running at every moment it never saw the bot idle and timed out, although the bot had
    nothing to do."""
    async with bot_table(pg_url, GROUP, "Busy jobs", ["Ann", "Bob"]) as (api, _players, runner):
        run_back_to_back(runner)
        await asyncio.sleep(0.5)  # both under way
        await api.settle(timeout=5)


async def test_settle_still_waits_for_the_sweeps_timeout(pg_db, pg_url) -> None:
    """A job's run under way counts as idle only once a whole earlier run of it began after
    the last request and after ``settle()`` began: the clock moved past the turn's deadline,
    ``settle()`` waits for the sweep that times the turn out and for its note. (Before the
    fix ``settle()`` timed out here too, but for a late tick leaving a moment idle.)"""
    clock = Clock(datetime(2026, 5, 4, 9, 0, tzinfo=UTC))
    async with bot_table(pg_url, GROUP, "Busy jobs", ["Ann", "Bob", "Cat"], clock=clock,
                         sweep_interval=0.05) as (api, players, runner):
        lobby = await open_lobby(api, players, GROUP)
        await players[0].press_and_settle(lobby, "▶️ Start")
        await mover(api, players)  # the game runs
        run_back_to_back(runner)
        await asyncio.sleep(1)  # each job ran through with nothing to do since the last request
        clock.advance(3601)  # past the standard pace's hour
        await api.settle(timeout=10)
        assert api.find_messages(GROUP, "ran out of time")
