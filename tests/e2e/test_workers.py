"""Crash safety of the update path with real processes: an update a killed bot had fetched is
handled after the restart (polling); several webhook workers behind one round-robin front
share PostgreSQL and play a game to its end, one of them killed while it handled an update,
which another worker then handles (after the inbox's grace period), once."""

from __future__ import annotations

import asyncio

import aiohttp
import pytest
from sqlalchemy import func, select

from league.store.models import InboxItem
from tests.e2e.harness import hold, play_turn, start_game, wait_for
from tests.e2e.processes import free_port, kill, spawn, spawn_with_game
from tests.fakebot import FakeBotAPI

pytestmark = pytest.mark.process  # every test here starts the bot as a process

GROUP = -100555
SECRET = "workers-secret-0123456789"


async def _undone(db) -> int:
    async with db.sessions() as session:
        return await session.scalar(select(func.count()).select_from(InboxItem)
                                    .where(InboxItem.done_at.is_(None))) or 0


def _paused(api: FakeBotAPI) -> int:
    """The answers to /pause ("… is paused.", not the table's "is paused (/resume)")."""
    return len(api.find_messages(GROUP, "is paused."))


@pytest.mark.timeout(240)
async def test_an_update_fetched_by_a_killed_bot_is_handled_after_restart(
        pg_db, pg_url: str, tmp_path) -> None:
    async with FakeBotAPI() as api:
        bot, players = await spawn_with_game(api, pg_url, tmp_path / "bot.log", GROUP,
                                             "Killed")
        try:
            # /pause asks Telegram whether Ann is an admin before it changes anything: the
            # bot is killed right there, after Telegram was told the update arrived.
            held, release = hold(api, "getChatMember", lambda p: True)
            await players[0].send(GROUP, "/pause")
            pause_id = api._next_update_id - 1
            await asyncio.wait_for(held.wait(), 60)
            # The next getUpdates confirmed it: Telegram would never deliver it again.
            await wait_for(lambda: any((c.params.get("offset") or 0) > pause_id
                                       for c in api.calls("getUpdates")))
            await kill(bot)
            release.set()
            assert _paused(api) == 0
            bot = await spawn(api, pg_url, tmp_path / "bot.log")
            await wait_for(lambda: _paused(api) == 1, timeout=60)
            for _ in range(300):
                if await _undone(pg_db) == 0:
                    break
                await asyncio.sleep(0.1)
            assert await _undone(pg_db) == 0
        finally:
            await kill(bot)
    assert "Traceback" not in (tmp_path / "bot.log").read_text()


@pytest.mark.timeout(300)
async def test_webhook_workers_play_a_game_one_killed(pg_db, pg_url: str, tmp_path) -> None:
    ports = [free_port() for _ in range(3)]
    urls = [f"http://127.0.0.1:{port}/hook" for port in ports]
    async with FakeBotAPI() as api, aiohttp.ClientSession() as http:
        api.add_group(GROUP, "Workers", admins=[1])
        players = [api.add_user(i, name) for i, name in enumerate(["Ann", "Bob", "Cat"], 1)]
        workers = [await spawn(api, pg_url, tmp_path / f"worker{i}.log",
                               TELEGRAM_WEBHOOK_URL=url, TELEGRAM_WEBHOOK_SECRET=SECRET,
                               WEB_LISTEN_PORT=str(port), INBOX_GRACE="1",
                               INBOX_INTERVAL="0.3")
                   for i, (url, port) in enumerate(zip(urls, ports, strict=True))]
        try:
            async def healthy(port: int) -> bool:
                try:
                    async with http.get(f"http://127.0.0.1:{port}/healthz") as response:
                        return response.status == 200
                except aiohttp.ClientError:
                    return False

            for port in ports:
                for _ in range(600):
                    if await healthy(port):
                        break
                    await asyncio.sleep(0.1)
            api.deliver_by_webhook(urls, SECRET)
            for user in players:
                await user.start_bot()
            await start_game(api, players, GROUP)
            for _ in range(3):
                assert await play_turn(api, players, GROUP)
            held, release = hold(api, "getChatMember", lambda p: True)
            await players[0].send(GROUP, "/pause")
            await asyncio.wait_for(held.wait(), 60)
            pause_id = max(i for i, u in api.webhook_updates.items()
                           if (u.get("message") or {}).get("text") == "/pause")
            url = next(u for u, i, status in api.webhook_posts if i == pause_id and status == 200)
            victim = workers[urls.index(url)]
            await kill(victim)
            release.set()
            await wait_for(lambda: _paused(api) == 1, timeout=60)  # another worker took it
            await players[0].send(GROUP, "/resume")
            await wait_for(lambda: bool(api.find_messages(GROUP, "runs again")), timeout=60)
            for _ in range(400):
                if api.find_messages(GROUP, "is over!"):
                    break
                assert await play_turn(api, players, GROUP)
            assert api.find_messages(GROUP, "Winner")
            assert _paused(api) == 1
            await api.settle()
            for _ in range(300):
                if await _undone(pg_db) == 0:
                    break
                await asyncio.sleep(0.1)
            assert await _undone(pg_db) == 0
        finally:
            for worker in workers:
                await kill(worker)
    for i in range(3):
        assert "Traceback" not in (tmp_path / f"worker{i}.log").read_text(), i
