"""SIGTERM (what systemd and Docker send to stop a service) and SIGINT (Ctrl+C) stop the real
bot process the way it is meant to stop, in every mode: the Application stops, post_stop and
post_shutdown run (deliveries drained, the database closed: our "stopped" line), and the
process exits 0 instead of being ended by the signal. With the web app (webhook mode, or
polling with ``WEB_LISTEN_PORT``) uvicorn catches the signal first; its handling must not
cut the bot's stop short. Neither a reply waiting for its group's rate limit (it is given up,
and the next process handles its update) nor an open Mini App page holds the stop up."""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

import aiohttp
import pytest
from sqlalchemy import select

from league.store.db import Database
from league.store.models import Game, InboxItem
from league.store.orm import utcnow
from telegram_app.transport import scheduler
from tests.e2e.harness import wait_for
from tests.e2e.processes import free_port, kill, spawn
from tests.fakebot import FakeBotAPI

pytestmark = pytest.mark.process  # every test here starts the bot as a process

SECRET = "s3cret-token_1-0123456789"
MODES = ("polling", "polling with web app", "webhook")
BUSY = -1008001


def _env(mode: str, port: int) -> dict[str, str]:
    if mode == "polling":
        return {}
    env = {"WEB_LISTEN_PORT": str(port)}
    if mode == "webhook":
        env |= {"TELEGRAM_WEBHOOK_URL": f"http://127.0.0.1:{port}/hook",
                "TELEGRAM_WEBHOOK_SECRET": SECRET}
    return env


async def _answers(http: aiohttp.ClientSession, url: str) -> bool:
    try:
        async with http.get(url, timeout=aiohttp.ClientTimeout(total=1)):
            return True
    except (aiohttp.ClientError, TimeoutError):
        return False


def _read(log: Path) -> str:
    return log.read_text()


async def _started(api: FakeBotAPI, log: Path, mode: str, port: int) -> None:
    """Until the Application has started, polls when it should and, with the web app,
    uvicorn answers (its signal handling is then in place)."""
    def ready() -> bool:
        return "Application started" in _read(log) and (
            mode == "webhook" or bool(api.calls("getUpdates")))

    deadline = asyncio.get_running_loop().time() + 60
    async with aiohttp.ClientSession() as http:
        while not (ready() and (mode == "polling" or await _answers(
                http, f"http://127.0.0.1:{port}/healthz"))):
            if asyncio.get_running_loop().time() > deadline:
                raise TimeoutError(f"the bot did not start:\n{_read(log)}")
            await asyncio.sleep(0.05)


@pytest.mark.timeout(120)
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
@pytest.mark.parametrize("mode", MODES)
async def test_a_stop_signal_runs_the_whole_stop_and_exits_0(
        pg_db: Database, pg_url: str, tmp_path: Path, mode: str, sig: signal.Signals) -> None:
    port = free_port()
    log = tmp_path / "bot.log"
    log.touch()
    async with FakeBotAPI() as api:
        bot = await spawn(api, pg_url, log, **_env(mode, port))
        try:
            await _started(api, log, mode, port)
            if mode == "webhook":
                assert api.webhook_url == f"http://127.0.0.1:{port}/hook"
            bot.send_signal(sig)
            code = await asyncio.wait_for(bot.wait(), 30)
        finally:
            await kill(bot)
    output = _read(log)
    assert code == 0, output
    assert "Application is stopping" in output, output  # PTB's Application.stop
    assert output.rstrip().endswith("telegram_app.app: stopped"), output  # post_shutdown, last
    assert "Traceback" not in output, output


@pytest.mark.timeout(180)
@pytest.mark.parametrize("wait", ["group's minute", "429 pause"])
async def test_a_reply_waiting_for_a_rate_limit_does_not_hold_up_the_stop(
        pg_db: Database, pg_url: str, tmp_path: Path, wait: str) -> None:
    """A /help's reply waits for its group when SIGTERM comes: three /help in three topics of
    a group allowed two messages a minute, or one /help whose reply Telegram refused with
    "retry after 60". The stop gives the reply up instead of waiting for it (PTB's stop waits
    for every handler: this one would have taken a minute, past Docker's 10 s and its
    SIGKILL): the process exits 0 within the stop's bound, the /help stays undone in the inbox,
    its hold released, and the next process answers it."""
    log = tmp_path / "bot.log"
    log.touch()
    async with FakeBotAPI() as api:
        api.add_group(BUSY, "Busy forum", admins=[1], type="supergroup", is_forum=True)
        ann = api.add_user(1, "Ann")
        rate = {"TELEGRAM_GROUP_RATE": "2"} if wait == "group's minute" else {}
        bot = await spawn(api, pg_url, log, **rate)
        try:
            await _started(api, log, "polling", 0)
            if wait == "group's minute":
                for thread in [api.create_topic(BUSY, f"t{i}", ann) for i in range(3)]:
                    await ann.send(BUSY, "/help", thread_id=thread)  # (three lanes at once)
                await wait_for(lambda: len(api.bot_messages(BUSY)) == 2, 60)
            else:
                api.fail_next("sendMessage", chat_id=BUSY, parameters={"retry_after": 60})
                await ann.send(BUSY, "/help")
                await wait_for(lambda: bool(api.calls("sendMessage")), 60)  # (refused)
            await _stopped_in_time(bot, log)
        finally:
            await kill(bot)
        answered = len(api.bot_messages(BUSY))
        undone = await _undone(pg_db)
        assert len(undone) == 1 and undone[0] <= utcnow(), undone  # undone, its hold released

        bot = await spawn(api, pg_url, log)
        try:
            await wait_for(lambda: len(api.bot_messages(BUSY)) == answered + 1, 60)
            deadline = asyncio.get_running_loop().time() + 30
            while await _undone(pg_db):  # (marked done right after its answer)
                assert asyncio.get_running_loop().time() < deadline, "the /help stays undone"
                await asyncio.sleep(0.05)
        finally:
            await kill(bot)
    assert len({m.text for m in api.bot_messages(BUSY)}) == 1  # answers of /help, each once


async def _stopped_in_time(bot, log: Path) -> None:
    """SIGTERM: the bot exits 0 within the stop's bound, with no traceback in its log."""
    loop = asyncio.get_running_loop()
    began = loop.time()
    bot.send_signal(signal.SIGTERM)
    code = await asyncio.wait_for(bot.wait(), 90)
    took = loop.time() - began
    output = _read(log)
    assert code == 0, output
    assert took < scheduler.FINISH_TIMEOUT, (took, output)
    assert "Traceback" not in output, output


async def _undone(db: Database) -> list:
    """The ``taken_until`` of each inbox item not done."""
    async with db.sessions() as session:
        return list(await session.scalars(select(InboxItem.taken_until)
                                          .where(InboxItem.done_at.is_(None))))


@pytest.mark.timeout(180)
async def test_an_open_mini_app_page_does_not_hold_up_the_stop(
        pg_db: Database, pg_url: str, tmp_path: Path) -> None:
    """A player's Mini App page keeps its game's event stream open (up to 25 s at a time):
    the web app gives open requests a second when it stops, so the whole stop still ends
    within its bound (Docker kills after 10 s)."""
    from tests.e2e.harness import start_game
    from tests.miniapp.server import init_data

    port = free_port()
    log = tmp_path / "bot.log"
    log.touch()
    async with FakeBotAPI() as api:
        api.add_group(BUSY, "Open page", admins=[1])
        players = [api.add_user(i, name) for i, name in enumerate(("Ann", "Bob", "Cat"), 1)]
        for user in players:
            await user.start_bot()
        bot = await spawn(api, pg_url, log, WEB_LISTEN_PORT=str(port))
        try:
            await _started(api, log, "polling with web app", port)
            await start_game(api, players, BUSY)
            async with pg_db.sessions() as session:
                game_id = await session.scalar(select(Game.id))
            url = f"http://127.0.0.1:{port}/app/api/game/{game_id}/events"
            auth = {"Authorization": "tma " + init_data(api.token, 1, "Ann")}
            async with aiohttp.ClientSession() as http, http.get(url, headers=auth) as stream:
                assert stream.status == 200
                assert (await stream.content.readline()).startswith(b"data: ")  # (open)
                await _stopped_in_time(bot, log)
        finally:
            await kill(bot)
