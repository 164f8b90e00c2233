"""A group becomes a supergroup while the bot still has messages for it, through the real
Application and the fake Bot API on PostgreSQL: a table queued behind the group's flood
budget is to reach the supergroup once, and an answer sent again there is no reply to
another message.

The limiter's sleeps are held until the test lets the group's minute pass, so nothing here
waits a real minute."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from telegram_app.config import Settings
from telegram_app.services import KEY
from telegram_app.transport import ratelimit
from telegram_app.transport.ratelimit import ChatRateLimiter
from tests.e2e.harness import BotRunner, bot_table, open_lobby, wait_for
from tests.fakebot import FakeBotAPI

OLD, NEW = -5001, -1005001
TABLE = "· round 1"


class SmallBudget(BotRunner):
    """The bot with 4 messages a minute per group: the lobby, two joins and the start's
    edit of the lobby use them up, so the table waits for the next minute."""

    def settings(self) -> Settings:
        return super().settings().model_copy(update={"telegram_group_rate": 4})


class HeldSleeps:
    """``asyncio`` as the rate limiter sees it: its sleeps last until :attr:`release`, and
    are real ones after it."""

    def __init__(self) -> None:
        self.waiting = asyncio.Event()
        self.release = asyncio.Event()

    def __getattr__(self, name: str) -> Any:
        return getattr(asyncio, name)

    async def sleep(self, seconds: float) -> None:
        if self.release.is_set():
            await asyncio.sleep(seconds)
            return
        self.waiting.set()
        await self.release.wait()


async def test_a_table_queued_when_the_group_migrates_is_posted_once(
        pg_db, pg_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The start's table waits for the group's next minute; meanwhile the group becomes a
    supergroup and the bot handles the migrate update; then the minute passes."""
    sleeps = HeldSleeps()
    monkeypatch.setattr(ratelimit, "asyncio", sleeps)
    async with FakeBotAPI() as api:
        api.add_group(OLD, "Basic group", admins=[1])
        players = [api.add_user(i, name) for i, name in enumerate(["Ann", "Bob", "Cat"], 1)]
        for user in players:
            await user.start_bot()
        runner = SmallBudget(api, pg_url)
        await runner.start()
        try:
            assert runner.app is not None
            limiter = runner.app.bot.rate_limiter
            assert isinstance(limiter, ChatRateLimiter)
            service = runner.app.bot_data[KEY].service
            lobby = await open_lobby(api, players, OLD)
            await players[0].press(api.get_message(OLD, lobby.message_id), "▶️ Start")
            await asyncio.wait_for(sleeps.waiting.wait(), 30)
            assert not api.find_messages(OLD, TABLE)  # the table waits for the next minute

            api.migrate_group(OLD, NEW)  # (with the migrate update, as Telegram does)
            async with asyncio.timeout(30):
                # (the migrate update's handler moves the game in the database)
                while not await service.open_games_in(NEW):  # noqa: ASYNC110
                    await asyncio.sleep(0.01)
            limiter._groups[OLD].starts.clear()  # the minute passes
            sleeps.release.set()
            await api.settle()

            assert not api.find_messages(OLD, TABLE)
            assert len(api.find_messages(NEW, TABLE)) == 1
        finally:
            await runner.stop()


async def test_an_answer_sent_again_in_the_supergroup_is_no_reply(pg_db, pg_url: str) -> None:
    """A /rules handled after the group became a supergroup (the bot learns it from the
    refused answer): the answer is sent again in the supergroup, without its reply: the
    command's message id is another message's there (the supergroup's ids start again)."""
    async with bot_table(pg_url, OLD, "Basic group", ["Ann", "Bob"]) as (api, players, _):
        ann, bob = players
        for _ in range(3):
            await bob.send(OLD, "hi")
        # (all at once: the bot fetches the command after the upgrade, and the supergroup
        # has a message with the command's id by the time the answer goes there)
        command = api.user_message(ann, OLD, "/rules")
        api.migrate_group(OLD, NEW, announce=False)
        for _ in range(5):
            api.user_message(bob, NEW, "hello")
        await wait_for(lambda: bool(api.bot_messages(NEW)))
        await api.settle()
        assert command.message_id in api.chats[NEW].messages  # Bob's "hello" there
        [answer] = api.bot_messages(NEW)
        assert answer.reply_to is None


async def test_a_table_lost_after_the_migration_is_posted_by_the_sweep(pg_db, pg_url) -> None:
    """The supergroup's table post is lost (a 429 past the limiter's retries): the sweep
    finds the game's messages still in the old group and posts the table again, once."""
    from tests.e2e.harness import start_game

    old, new = -5101, -1005101
    async with bot_table(pg_url, old, "Basic group", ["Ann", "Bob", "Cat"],
                         sweep_interval=0.2) as (api, players, runner):
        await start_game(api, players, old)
        await api.settle()
        assert api.find_messages(old, "· round 1")
        api.fail_next("sendMessage", error_code=429, parameters={"retry_after": 1},
                      count=4, chat_id=new)
        api.migrate_group(old, new)
        await wait_for(lambda: bool(api.find_messages(new, "· round 1")), timeout=20)
        await asyncio.sleep(1)  # (a few more sweeps: no second table)
        await api.settle()
        assert len(api.find_messages(new, "· round 1")) == 1
