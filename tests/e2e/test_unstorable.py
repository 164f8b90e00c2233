"""Text no database can store (U+0000, an unpaired surrogate: PostgreSQL's JSON refuses
both), in forged callback data, against the real bot (fake Bot API, PostgreSQL): polling or
webhook, the presser is told "That button is not valid.", one warning is logged (no
traceback), nothing is stored, and the bot goes on."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import uvicorn
from sqlalchemy import select

from league.store.models import InboxItem
from telegram_app.transport.web import create_web_app
from tests.e2e.harness import bot_table, open_lobby, wait_for
from tests.miniapp.server import free_port

GROUP = -100703
SECRET = "unstorable-test-secret_0123456789"
BAD_BUTTON = "That button is not valid."


async def _inbox(db) -> list[int]:
    async with db.sessions() as session:
        return list(await session.scalars(select(InboxItem.id).order_by(InboxItem.id)))


@asynccontextmanager
async def _served(runner) -> AsyncIterator[str]:
    """The bot's web app served by uvicorn on a free port; yields the webhook's URL."""
    port = free_port()
    web = create_web_app(runner.app, webhook_path="/hook", secret=SECRET)
    server = uvicorn.Server(uvicorn.Config(web, host="127.0.0.1", port=port,
                                           log_level="warning", access_log=False,
                                           lifespan="off", timeout_graceful_shutdown=1))
    task = asyncio.create_task(server.serve())
    try:
        while not server.started:
            if task.done():
                task.result()
            await asyncio.sleep(0.01)
        yield f"http://127.0.0.1:{port}/hook"
    finally:
        server.should_exit = True
        await asyncio.wait_for(task, 10)


async def test_callback_data_with_a_nul_is_refused_when_polling(pg_db, pg_url,
                                                                caplog) -> None:
    async with bot_table(pg_url, GROUP, "Guarded", ["Ann", "Bob"]) as (api, players, runner):
        ann, bob = players
        lobby = await open_lobby(api, players, GROUP)
        stored = await _inbox(pg_db)
        caplog.clear()
        caplog.set_level(logging.WARNING)
        for data in ("j:1\x00:1", "\x00", "x\ud800"):
            query = await bob.press_raw(GROUP, lobby.message_id, data)
            answer = await api.wait_answer(query)
            assert answer["text"] == BAD_BUTTON and answer["show_alert"], answer
        await api.settle()
        assert await _inbox(pg_db) == stored
        warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
        assert [(r.name, r.levelname) for r in warnings] == \
            [("telegram_app.transport.intake.receiving", "WARNING")] * 3, \
            [r.getMessage() for r in warnings]
        assert all(r.exc_info is None for r in warnings)
        # the bot goes on: a genuine press after them is handled
        answer = await bob.press_and_settle(api.get_message(GROUP, lobby.message_id),
                                            "🚪 Leave")
        assert answer.get("text") != BAD_BUTTON


async def test_callback_data_with_a_nul_is_refused_by_webhook(pg_db, pg_url, caplog) -> None:
    async with bot_table(pg_url, GROUP, "Guarded", ["Ann", "Bob"]) as (api, players, runner):
        ann, bob = players
        lobby = await open_lobby(api, players, GROUP)
        async with _served(runner) as url:
            api.deliver_by_webhook([url], SECRET)
            stored = await _inbox(pg_db)
            caplog.clear()
            caplog.set_level(logging.WARNING)
            query = await bob.press_raw(GROUP, lobby.message_id, "j:1:\x00")
            answer = await api.wait_answer(query)
            assert answer["text"] == BAD_BUTTON and answer["show_alert"], answer
            await wait_for(lambda: not api._webhook_pending)
            assert [status for _, uid, status in api.webhook_posts] == [200]
            assert await _inbox(pg_db) == stored
            warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
            assert len(warnings) == 1 and warnings[0].exc_info is None, \
                [r.getMessage() for r in warnings]

