"""SIGTERM (what systemd and Docker send to stop a service) and SIGINT (Ctrl+C) stop the real
bot process the way it is meant to stop, in every mode: the Application stops, post_stop and
post_shutdown run (deliveries drained, the database closed: our "stopped" line), and the
process exits 0 instead of being ended by the signal. With the web app (webhook mode, or
polling with ``WEB_LISTEN_PORT``) uvicorn catches the signal first; its handling must not
cut the bot's stop short."""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

import aiohttp
import pytest

from league.store.db import Database
from tests.e2e.processes import free_port, kill, spawn
from tests.fakebot import FakeBotAPI

pytestmark = pytest.mark.process  # every test here starts the bot as a process

SECRET = "s3cret-token_1-0123456789"
MODES = ("polling", "polling with web app", "webhook")


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
