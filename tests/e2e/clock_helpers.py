"""The turn-clock tests' group and their bot on a controlled clock, sweeping every 50 ms."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from tests.clock import Clock
from tests.e2e.harness import bot_table

GROUP = -100999


@pytest.fixture(name="bot")
async def bot_fixture(pg_db, pg_url):
    clock = Clock(datetime(2026, 5, 4, 9, 0, tzinfo=UTC))
    async with bot_table(pg_url, GROUP, "Slow group", ["Ann", "Bob", "Cat"], clock=clock,
                         sweep_interval=0.05) as (api, players, runner):
        yield api, players, clock, runner
