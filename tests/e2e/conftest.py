"""Fixtures shared by the end-to-end tests."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from tests.clock import Clock
from tests.e2e.harness import bot_table


@pytest.fixture
async def slow_table(pg_db, pg_url, request):
    """The bot in the test module's ``GROUP`` with Ann, Bob and Cat, on a controlled clock
    and sweeping every 50 ms: ``(api, players, clock, runner)``; the group's ``group_notes``
    is the module's ``NOTES`` (default quiet)."""
    clock = Clock(datetime(2026, 5, 4, 9, 0, tzinfo=UTC))
    async with bot_table(pg_url, request.module.GROUP, "Race", ["Ann", "Bob", "Cat"],
                         clock=clock, sweep_interval=0.05,
                         notes=getattr(request.module, "NOTES", "quiet")) as (
            api, players, runner):
        yield api, players, clock, runner
