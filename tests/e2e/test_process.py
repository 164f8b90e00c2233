"""``python -m telegram_app`` as its own process, configured only by environment variables,
plays against the fake Bot API at ``TELEGRAM_BASE_URL``; ``kill -9`` in the middle of a game
loses nothing: a new process picks the game up and it goes on to the end."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path

import pytest

from tests.e2e.harness import (
    move_version,
    mover,
    open_lobby,
    play_turn,
    private_turn_message,
    wait_for,
)
from tests.fakebot import FakeBotAPI
from tests.fakebot.models import StoredMessage

pytestmark = pytest.mark.process  # every test here starts the bot as a process

GROUP = -100444
ROOT = Path(__file__).resolve().parents[2]


def lowest_bid(api: FakeBotAPI, message: StoredMessage) -> str:
    """The callback data of the lowest bid on ``message``'s keyboard."""
    bids = [(int(d.split(":")[3]), d) for _, d in api.buttons(message)
            if d and d.startswith("b:") and d.count(":") == 3]
    return min(bids)[1]


async def _spawn(api: FakeBotAPI, database_url: str) -> asyncio.subprocess.Process:
    env = {**os.environ, "TELEGRAM_BOT_TOKEN": api.token, "TELEGRAM_BASE_URL": api.base_url,
           "DATABASE_URL": database_url, "SWEEP_INTERVAL": "0.2",
           "TELEGRAM_GROUP_RATE": "6000", "TELEGRAM_OVERALL_RATE": "1000"}
    return await asyncio.create_subprocess_exec(
        sys.executable, "-m", "telegram_app", cwd=ROOT, env=env,
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL)


@pytest.mark.timeout(180)
async def test_bot_process_survives_kill_9(pg_db, pg_url: str) -> None:
    async with FakeBotAPI() as api:
        api.add_group(GROUP, "Process group", admins=[1])
        players = [api.add_user(i, name) for i, name in enumerate(["Ann", "Bob", "Cat"], 1)]
        for user in players:
            await user.start_bot()
        bot = await _spawn(api, pg_url)
        try:
            await wait_for(lambda: bool(api.calls("getUpdates")), timeout=60)
            lobby = await open_lobby(api, players, GROUP)
            await players[0].press_and_settle(lobby, "▶️ Start")
            for _ in range(5):
                assert await play_turn(api, players, GROUP)
            bot.send_signal(signal.SIGKILL)
            await bot.wait()
            polls = len(api.calls("getMe"))
            bot = await _spawn(api, pg_url)
            await wait_for(lambda: len(api.calls("getMe")) > polls, timeout=60)
            for _ in range(400):
                if api.find_messages(GROUP, "is over!"):
                    break
                assert await play_turn(api, players, GROUP)
            assert api.find_messages(GROUP, "Winner")
        finally:
            if bot.returncode is None:
                bot.send_signal(signal.SIGKILL)
                await bot.wait()


@pytest.mark.timeout(180)
async def test_a_kill_right_after_a_commit_is_shown_again_after_the_restart(
        pg_db, pg_url: str) -> None:
    """A bid is committed, then the process is killed before any of its messages went out
    (the fake Bot API holds them and never answers): the new process shows the game again
    at its first sweep, so the next player gets their keyboard and the group's table the
    bid (a quiet group: the table is edited, no note is posted)."""
    async with FakeBotAPI() as api:
        api.add_group(GROUP, "Process group", admins=[1])
        players = [api.add_user(i, name) for i, name in enumerate(["Ann", "Bob", "Cat"], 1)]
        for user in players:
            await user.start_bot()
        bot = await _spawn(api, pg_url)
        try:
            await wait_for(lambda: bool(api.calls("getUpdates")), timeout=60)
            lobby = await open_lobby(api, players, GROUP)
            await players[0].press_and_settle(lobby, "▶️ Start")
            assert await play_turn(api, players, GROUP)
            user = await mover(api, players)
            message = private_turn_message(api, user)
            pressed = move_version(api, message)
            notes = len(api.bot_messages(GROUP))
            held = asyncio.Event()
            originals = {name: api._handlers[name] for name in ("sendmessage",
                                                                  "editmessagetext")}

            def swallow(name: str):
                async def gated(params: dict):
                    held.set()
                    await asyncio.Event().wait()  # never answered: the bot dies meanwhile
                return gated

            for name in originals:
                api._handlers[name] = swallow(name)
            # (a bid, whatever the deal: the note below must tell a bid, not a call)
            await user.press(message, lowest_bid(api, message))
            await asyncio.wait_for(held.wait(), 30)  # committed; its delivery has begun
            bot.send_signal(signal.SIGKILL)
            await bot.wait()
            api._handlers.update(originals)
            assert not any(private_turn_message(api, u, pressed) for u in players)
            bot = await _spawn(api, pg_url)
            await wait_for(lambda: any(private_turn_message(api, u, pressed) for u in players),
                           timeout=60)
            table = api.find_messages(GROUP, "· round 1")[-1]
            await wait_for(lambda: "bids" in (api.get_message(GROUP, table.message_id).text
                                              or ""), timeout=30)
            assert len(api.bot_messages(GROUP)) == notes
        finally:
            if bot.returncode is None:
                bot.send_signal(signal.SIGKILL)
                await bot.wait()


@pytest.mark.timeout(180)
async def test_a_kill_right_after_a_join_commits_redraws_the_lobby(pg_db, pg_url: str) -> None:
    """Bob's join is committed, then the process is killed while the lobby's edit is on its
    way (the fake Bot API holds it and never answers): the new process's first sweep draws
    the lobby with Bob's seat, without any further press."""
    async with FakeBotAPI() as api:
        api.add_group(GROUP, "Process group", admins=[1])
        players = [api.add_user(i, name) for i, name in enumerate(["Ann", "Bob"], 1)]
        for user in players:
            await user.start_bot()
        bot = await _spawn(api, pg_url)
        try:
            await wait_for(lambda: bool(api.calls("getUpdates")), timeout=60)
            lobby = await open_lobby(api, players[:1], GROUP)
            assert "Bob" not in (api.get_message(GROUP, lobby.message_id).text or "")
            held = asyncio.Event()
            original = api._handlers["editmessagetext"]

            async def swallow(params: dict):
                held.set()
                await asyncio.Event().wait()  # never answered: the bot dies meanwhile

            api._handlers["editmessagetext"] = swallow
            await players[1].press(lobby, "✋ Join")
            await asyncio.wait_for(held.wait(), 30)  # committed; the lobby's edit has begun
            bot.send_signal(signal.SIGKILL)
            await bot.wait()
            api._handlers["editmessagetext"] = original
            assert "Bob" not in (api.get_message(GROUP, lobby.message_id).text or "")
            polls = len(api.calls("getMe"))
            bot = await _spawn(api, pg_url)
            await wait_for(lambda: len(api.calls("getMe")) > polls, timeout=60)
            await wait_for(lambda: "Bob" in (api.get_message(GROUP, lobby.message_id).text
                                             or ""), timeout=10)
            text = api.get_message(GROUP, lobby.message_id).text or ""
            assert text.count("Bob") == 1, text
        finally:
            if bot.returncode is None:
                bot.send_signal(signal.SIGKILL)
                await bot.wait()
