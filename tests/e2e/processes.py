"""Real bot processes (``python -m telegram_app``) for the end-to-end tests, configured only
by environment variables, against the fake Bot API; their log goes to a file."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import sys
from pathlib import Path

from tests.fakebot import FakeBotAPI, FakeUser

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    """A TCP port free on loopback right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def spawn(api: FakeBotAPI, database_url: str, log: Path | None = None,
                **env: str) -> asyncio.subprocess.Process:
    """Start the bot against ``api`` on ``database_url``; ``env`` adds settings."""
    full = {**os.environ, "TELEGRAM_BOT_TOKEN": api.token, "TELEGRAM_BASE_URL": api.base_url,
            "DATABASE_URL": database_url, "SWEEP_INTERVAL": "0.2",
            "TELEGRAM_GROUP_RATE": "6000", "TELEGRAM_OVERALL_RATE": "1000", **env}
    out = open(log, "ab") if log is not None else asyncio.subprocess.DEVNULL  # noqa: SIM115, ASYNC230
    try:
        return await asyncio.create_subprocess_exec(
            sys.executable, "-m", "telegram_app", cwd=ROOT, env=full, stdout=out,
            stderr=asyncio.subprocess.STDOUT if log is not None else out)
    finally:
        if log is not None:
            out.close()  # type: ignore[union-attr]


async def kill(process: asyncio.subprocess.Process) -> None:
    """SIGKILL ``process`` (if still running) and reap it."""
    if process.returncode is None:
        process.send_signal(signal.SIGKILL)
    await process.wait()


async def spawn_with_game(api: FakeBotAPI, database_url: str, log: Path, group: int,
                          title: str, *, notes: str = "quiet"
                          ) -> tuple[asyncio.subprocess.Process, list[FakeUser]]:
    """Group ``group`` (Ann its admin) with Ann, Bob and Cat, who started the bot, and the
    real bot process polling, with a game of the three started: ``(process, players)``
    (``notes="every_move"``: Ann sets the group to a note per move first). The caller kills
    the process (:func:`kill`)."""
    from tests.e2e.harness import start_game, wait_for  # (the harness runs bots in-process)

    api.add_group(group, title, admins=[1])
    players = [api.add_user(i, name) for i, name in enumerate(("Ann", "Bob", "Cat"), 1)]
    for user in players:
        await user.start_bot()
    bot = await spawn(api, database_url, log)
    try:
        await wait_for(lambda: bool(api.calls("getUpdates")), timeout=60)
        if notes == "every_move":
            await players[0].send(group, "/settings")
            await wait_for(lambda: bool(api.find_messages(group, "Defaults for new games")))
            settings = api.find_messages(group, "Defaults for new games")[-1]
            await players[0].press_and_settle(settings, "🔕 Group: the table is edited")
            await wait_for(lambda: any("a note per move" in text for text, _ in api.buttons(
                api.get_message(group, settings.message_id))))
        await start_game(api, players, group)
    except BaseException:
        await kill(bot)
        raise
    return bot, players
