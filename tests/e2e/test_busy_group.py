"""A group whose 20-a-minute budget is spent holds up its own deliveries only: they wait for
their chat's turn (a few at a time), not in the slots (database connections) every group
shares, so another group's lobby is posted at once."""

from __future__ import annotations

import asyncio
import time

import pytest

from telegram_app.config import Settings
from telegram_app.transport import ratelimit
from tests.e2e.harness import BotRunner, wait_for
from tests.e2e.test_migration_queue import HeldSleeps
from tests.fakebot import FakeBotAPI

BUSY, OTHER = -1006001, -1006002


class SmallBudget(BotRunner):
    def settings(self) -> Settings:
        return super().settings().model_copy(update={"telegram_group_rate": 4})


async def test_a_group_out_of_budget_holds_up_no_other_group(
        pg_db, pg_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    sleeps = HeldSleeps()  # (the busy group's minute never passes during the test)
    monkeypatch.setattr(ratelimit, "asyncio", sleeps)
    async with FakeBotAPI() as api:
        api.add_group(BUSY, "Busy forum", admins=[1], type="supergroup", is_forum=True)
        api.add_group(OTHER, "Quiet group", admins=[2], type="supergroup")
        ann, bob = api.add_user(1, "Ann"), api.add_user(2, "Bob")
        runner = SmallBudget(api, pg_url)
        await runner.start()
        try:
            topics = [api.create_topic(BUSY, f"t{i}", ann) for i in range(22)]
            await api.settle()
            for thread in topics:  # 22 lobbies: 4 fit the budget, 18 wait (16 slots)
                await ann.send(BUSY, "/newgame", thread_id=thread)
            await wait_for(lambda: len(api.find_messages(BUSY, "new game #")) >= 4, 30)
            await asyncio.sleep(1)
            start = time.monotonic()
            await bob.send(OTHER, "/newgame")  # another group, with its whole budget
            await wait_for(lambda: bool(api.find_messages(OTHER, "new game #")), 10)
            assert time.monotonic() - start < 5
        finally:
            sleeps.release.set()
            await runner.stop()
