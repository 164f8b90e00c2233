"""A forum tournament's new round of many tables spends its group's message budget (20 calls
a minute, as Telegram's) opening the tables' topics and posting them; meanwhile another
group's turn runs out of time. Through the real Application and the fake Bot API on
PostgreSQL.

The limiter's sleeps are held until the end (:class:`HeldSleeps`): the forum's minute never
passes during the test, so nothing here waits a real minute."""

from __future__ import annotations

import asyncio
import time

import pytest

from league.store.snapshots import UserRef
from telegram_app.config import Settings
from telegram_app.services import KEY
from telegram_app.transport import ratelimit
from tests.clock import Clock
from tests.e2e.harness import BotRunner, start_game, wait_for
from tests.e2e.test_migration_queue import HeldSleeps
from tests.fakebot import FakeBotAPI

FORUM, OTHER = -1007001, -1007002
TABLES, SEATS = 12, 3


class ProductionBudget(BotRunner):
    """The bot with production's 20 calls a minute per group."""

    def settings(self) -> Settings:
        return super().settings().model_copy(update={"telegram_group_rate": 20})


async def test_a_long_round_start_holds_up_no_other_groups_timeout(
        pg_db, pg_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Before the fix the sweep awaited the tournaments' tick at its end, and the tick opened
    a topic and posted the first message of each of the round's 12 tables (24 calls and the
    announcement, through the forum's 20 a minute) before it ended: the sweep stayed held
    for a minute and more, its later ticks skipped, so a turn that ran out in another group
    was not timed out, nor told, until the tournament's posts were out. Now it is, within a
    few sweep intervals, while the forum still waits for its budget."""
    sleeps = HeldSleeps()
    monkeypatch.setattr(ratelimit, "asyncio", sleeps)
    clock = Clock()
    async with FakeBotAPI() as api:
        api.add_group(FORUM, "Cup forum", type="supergroup", is_forum=True, admins=[1],
                      bot_admin=True)
        api.add_group(OTHER, "Quiet group", admins=[501])
        entrants = [api.add_user(i, f"P{i}") for i in range(1, TABLES * SEATS + 1)]
        others = [api.add_user(501 + i, f"G{i}") for i in range(3)]
        for user in entrants + others:
            await user.start_bot()
        runner = ProductionBudget(api, pg_url, clock=clock, sweep_interval=0.1)
        await runner.start()
        try:
            assert runner.app is not None
            service = runner.app.bot_data[KEY].service
            await service.set_chat_setting(OTHER, "Quiet group", "pace", "quick")
            await start_game(api, others, OTHER)  # (a minute a turn)
            await api.settle()
            home = api.create_topic(FORUM, "Cup final", by=entrants[0])
            people = [UserRef(u.id, u.first_name) for u in entrants]
            cup = await service.open_tournament(FORUM, "Cup forum", home, people[0], "coyote",
                                                forum=True)
            cup = await service.set_tournament_setting(cup.id, people[0].id, "table_size",
                                                       SEATS, is_admin=True, version=cup.version)
            for person in people[1:]:
                cup = await service.join_tournament(cup.id, person)
            cup = await service.start_tournament(cup.id, people[0].id, is_admin=False,
                                                 version=cup.version)
            assert len(cup.tables_of(1)) == TABLES
            await wait_for(sleeps.waiting.is_set)  # the forum's budget is spent
            # ten ticks: the tournaments' tick found round 1 untold and waits for its tables
            await asyncio.sleep(1)
            clock.advance(61)  # the other group's turn is over
            began = time.monotonic()
            await wait_for(lambda: bool(api.find_messages(OTHER, "ran out of time")), 15)
            waited = time.monotonic() - began
            assert waited < 3, f"the timeout waited {waited:.1f} s for the tournament's posts"
            # (the tournament still waits for its budget: the timeout did not wait for it)
            assert not api.find_messages(FORUM, f"tournament #{cup.id}: round 1 of")
        finally:
            sleeps.release.set()
            await runner.stop()
