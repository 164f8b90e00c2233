"""Webhook mode, in process: a request without the right secret token gets 403 and changes
nothing; a repeated update is applied once; ``/healthz`` and ``/metrics`` answer; a lobby is
played through webhooks; during an outage an update nobody can be told about gets 503."""

from __future__ import annotations

import asyncio
import socket

import aiohttp
from sqlalchemy import func, select
from sqlalchemy.engine import make_url

from league.store.models import InboxItem
from telegram_app.app import build_application, make_server, serve
from telegram_app.config import Settings
from tests.e2e.harness import open_lobby, wait_for
from tests.e2e.tcp_proxy import TcpProxy
from tests.fakebot import FakeBotAPI

GROUP = -100701
SECRET = "s3cret-token_1-0123456789"
OUTAGE = "I can't reach my records right now; nothing was changed"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def _inbox_count(db) -> int:
    async with db.sessions() as session:
        return await session.scalar(select(func.count()).select_from(InboxItem)) or 0


async def test_webhook_mode(pg_db, pg_url: str) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}/hook"
    async with FakeBotAPI() as api, aiohttp.ClientSession() as http:
        api.add_group(GROUP, "Hooked", admins=[1])
        players = [api.add_user(i, n) for i, n in enumerate(["Ann", "Bob", "Cat"], start=1)]
        settings = Settings(telegram_bot_token=api.token, database_url=pg_url,
                            telegram_base_url=api.base_url, telegram_group_rate=6000,
                            telegram_overall_rate=1000, telegram_webhook_url=url,
                            telegram_webhook_secret=SECRET, web_listen_port=port)
        app = build_application(settings)
        api.busy_checks.append(lambda: getattr(app.update_queue, "_unfinished_tasks", 0) > 0)
        server = make_server(app, settings)
        task = asyncio.create_task(serve(app, settings, server))
        try:
            await wait_for(lambda: server.started and api.webhook_url == url, timeout=60)
            assert api.calls("setWebhook")[-1].params.get("secret_token") == SECRET
            api.deliver_by_webhook([url], SECRET)
            for user in players:
                await user.start_bot()
            await api.settle()
            stored = await _inbox_count(pg_db)
            forged = {"update_id": 999_999, "message": {
                "message_id": 1, "date": 0, "chat": {"id": GROUP, "type": "supergroup"},
                "from": {"id": 1, "is_bot": False, "first_name": "Ann"}, "text": "/newgame"}}
            for headers in ({}, {"X-Telegram-Bot-Api-Secret-Token": "wrong"}):
                async with http.post(url, json=forged, headers=headers) as response:
                    assert response.status == 403
            await api.settle()
            assert await _inbox_count(pg_db) == stored  # nothing stored,
            assert not api.find_messages(GROUP, "new game #")  # nothing done

            lobby = await open_lobby(api, players[:2], GROUP)
            join = max(api.webhook_updates.values(),
                       key=lambda u: u["update_id"] if "callback_query" in u else 0)
            api.redeliver(join)  # Telegram repeats a webhook whose 200 it did not see
            await api.settle()
            answers = [c for c in api.calls("answerCallbackQuery")
                       if c.params.get("callback_query_id") == join["callback_query"]["id"]]
            assert len(answers) == 1
            text = api.get_message(GROUP, lobby.message_id).text or ""
            assert text.count("Bob") == 1, text

            async with http.get(f"http://127.0.0.1:{port}/healthz") as response:
                assert response.status == 200
                assert (await response.json())["database"] == "ok"
            async with http.get(f"http://127.0.0.1:{port}/metrics") as response:
                body = await response.text()
                assert response.status == 200
                assert 'coyote_updates_total{kind="press"}' in body
                assert "coyote_updates_dropped_total" in body and "coyote_active_games 1.0" \
                    in body
                assert 'coyote_bot_api_calls_total{method="sendMessage"}' in body
        finally:
            server.should_exit = True
            await task


async def test_an_update_nobody_can_be_told_about_is_refused_during_an_outage(
        pg_db, pg_url: str) -> None:
    """While the database is down, a press gets its 200 and the outage answer, but a
    departure from the group (nobody to tell "nothing was changed") gets 503, so Telegram
    delivers it again; once the database is back it is stored and handled (Bob leaves the
    lobby)."""
    real = make_url(pg_url)
    proxy = await TcpProxy(real.host or "127.0.0.1", real.port or 5432).start()
    db_url = real.set(port=proxy.port).render_as_string(hide_password=False)
    port = free_port()
    url = f"http://127.0.0.1:{port}/hook"
    async with FakeBotAPI() as api:
        api.add_group(GROUP, "Hooked", admins=[1])
        players = [api.add_user(i, n) for i, n in enumerate(["Ann", "Bob"], start=1)]
        settings = Settings(telegram_bot_token=api.token, database_url=db_url,
                            telegram_base_url=api.base_url, telegram_group_rate=6000,
                            telegram_overall_rate=1000, telegram_webhook_url=url,
                            telegram_webhook_secret=SECRET, web_listen_port=port)
        app = build_application(settings)
        server = make_server(app, settings)
        task = asyncio.create_task(serve(app, settings, server))
        try:
            await wait_for(lambda: server.started and api.webhook_url == url, timeout=60)
            api.deliver_by_webhook([url], SECRET)
            for user in players:
                await user.start_bot()
            lobby = await open_lobby(api, players, GROUP)
            assert "Bob" in (api.get_message(GROUP, lobby.message_id).text or "")
            proxy.cut()
            answer = await players[0].press_and_settle(lobby, "✋ Join", quiet=0.05)
            assert OUTAGE in answer.get("text", ""), answer
            api.user_leaves(players[1], GROUP)
            departure = max(api.webhook_updates)
            await wait_for(lambda: sum(1 for _, uid, status in api.webhook_posts
                                       if uid == departure and status == 503) >= 3)
            assert not any(uid == departure and status == 200
                           for _, uid, status in api.webhook_posts)
            proxy.restore()
            await wait_for(lambda: "Bob" not in (api.get_message(GROUP, lobby.message_id)
                                                 .text or ""), timeout=30)
            await api.settle()
        finally:
            server.should_exit = True
            await task
            await proxy.stop()
