"""A sweep that runs longer than the sweep interval (here: a tournament's announcement
waiting for Telegram) makes the next ones wait, by design (one sweep at a time): that is not
a warning for the operator, through the real Application and the fake Bot API."""

from __future__ import annotations

import asyncio
import logging

from tests.e2e.harness import hold
from tests.e2e.test_tournament_tables import group_bot, start_cup


async def test_a_long_sweep_logs_no_warning_for_the_ones_it_delays(
        pg_db, pg_url, caplog) -> None:
    """Before the fix each sweep due while one still ran was logged at WARNING by
    APScheduler ("Execution of job "sweep …" skipped: maximum number of running instances
    reached (1)"): 213 lines in one soak, and one every ``SWEEP_INTERVAL`` in production
    while a tournament's announcement waited for a group's message budget. The skip is the
    design (``max_instances=1``): no line at WARNING or above."""
    caplog.set_level(logging.INFO)
    async with group_bot(pg_url, forum=False) as (api, _chat, players, runner):
        held, release = hold(api, "sendMessage",
                             lambda p: "tournament #" in str(p.get("text")))
        await start_cup(runner, players, 0, kind="coyote", forum=False)
        await asyncio.wait_for(held.wait(), 30)
        await asyncio.sleep(0.5)  # ten sweep intervals while the sweep waits
        release.set()
        await api.settle()
    skipped = [r for r in caplog.records if r.levelno >= logging.WARNING
               and "maximum number of running instances" in r.getMessage()]
    assert not skipped, skipped[0].getMessage()
