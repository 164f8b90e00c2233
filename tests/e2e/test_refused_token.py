"""``python -m telegram_app`` started with a token Telegram refuses: one line of ours that
names TELEGRAM_BOT_TOKEN, a non-zero exit, no traceback, and the token in no log line."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest

from tests.fakebot import FakeBotAPI

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "987654321:AAHx-secret-part-of-the-token_42"
REFUSALS = {401: "Unauthorized", 403: "Forbidden: bot was banned", 404: "Not Found"}

pytestmark = pytest.mark.process  # every test here starts the bot as a process


async def _run(api: FakeBotAPI, tmp_path: Path) -> tuple[int, list[str]]:
    """Run the bot process against ``api`` until it exits: its status and output lines."""
    env = {**os.environ, "TELEGRAM_BOT_TOKEN": api.token, "TELEGRAM_BASE_URL": api.base_url,
           "DATABASE_URL": f"sqlite:///{tmp_path / 'bot.sqlite3'}"}
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "telegram_app", cwd=ROOT, env=env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
    try:
        output, _ = await asyncio.wait_for(process.communicate(), 60)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    return process.returncode or 0, [line for line in output.decode().splitlines()
                                      if line.strip()]


@pytest.mark.timeout(120)
@pytest.mark.parametrize("status", [401, 403, 404])
async def test_refused_token_ends_in_one_line(tmp_path: Path, status: int) -> None:
    async with FakeBotAPI(token=TOKEN) as api:
        api.fail_next("getMe", status, REFUSALS[status], count=100)
        code, lines = await _run(api, tmp_path)
    assert code != 0
    assert len(lines) == 1, lines
    assert "TELEGRAM_BOT_TOKEN" in lines[0] and str(status) in lines[0]
    assert "@BotFather" in lines[0]
    assert "Traceback" not in lines[0]
    assert TOKEN not in lines[0] and TOKEN.split(":")[1] not in lines[0]


@pytest.mark.timeout(120)
async def test_token_never_logged_even_in_library_tracebacks(tmp_path: Path) -> None:
    """The token passes the start-up check, then PTB's own getMe is refused: PTB logs its
    traceback ("The token `…` was rejected by the server"), with the token masked."""
    async with FakeBotAPI(token=TOKEN) as api:
        calls = []

        def second(params: dict) -> bool:
            calls.append(params)
            return len(calls) >= 2

        api.fail_next("getMe", 401, "Unauthorized", count=100, when=second)
        code, lines = await _run(api, tmp_path)
    output = "\n".join(lines)
    assert code != 0
    assert "was rejected by the server" in output  # PTB's message, masked
    assert "[redacted]" in output
    assert TOKEN not in output and TOKEN.split(":")[1] not in output
    assert "TELEGRAM_BOT_TOKEN" in lines[-1]
