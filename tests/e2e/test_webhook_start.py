"""A webhook worker's start: an update Telegram POSTs between ``setWebhook`` and the web app
serving waits in the socket's queue and is handled, not refused (real bot process, fake
Bot API)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.e2e.harness import hold, wait_for
from tests.e2e.processes import free_port, kill, spawn
from tests.fakebot import FakeBotAPI

pytestmark = pytest.mark.process  # the bot runs as a process

SECRET = "whsec-start-0123456789abcdef"


@pytest.mark.timeout(180)
async def test_an_update_posted_before_the_web_app_serves_waits_for_it(
        pg_db, pg_url: str, tmp_path: Path) -> None:
    """Before the fix the web app's socket was bound at the start but listened only once
    uvicorn served, after ``setWebhook`` had returned: an update Telegram POSTed in that
    moment (Telegram sends at once once told the URL) found the port closed (connection
    refused) and waited for Telegram's retry. The socket now listens from the start, so
    the update waits in its queue until the web app accepts it."""
    port = free_port()
    url = f"http://127.0.0.1:{port}/telegram"
    log = tmp_path / "bot.log"
    async with FakeBotAPI() as api:
        ann = api.add_user(1, "Ann")
        told, release = hold(api, "setWebhook", lambda p: True)
        bot = await spawn(api, pg_url, log, TELEGRAM_WEBHOOK_URL=url,
                          TELEGRAM_WEBHOOK_SECRET=SECRET, WEB_LISTEN_PORT=str(port))
        try:
            await asyncio.wait_for(told.wait(), 90)  # the socket is bound; not yet served
            api.deliver_by_webhook([url], SECRET)
            await ann.start_bot()
            await asyncio.sleep(1.0)  # (refused posts are retried every 0.2 s)
            release.set()
            await wait_for(lambda: bool(api.bot_messages(1)), timeout=60)
            statuses = [status for _, _, status in api.webhook_posts]
        finally:
            await kill(bot)
    assert statuses == [200], statuses
    assert "Traceback" not in log.read_text()
