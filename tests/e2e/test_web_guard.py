"""What the webhook does with bodies Telegram never sends, against the real bot (fake Bot
API, PostgreSQL): a body that is no update is one warning and a 200, neither stored nor
handled (Telegram would retry anything else forever); a body over the limit gets 413 and is
not read past it. A valid update still goes through the inbox as before. Polling holds what
it fetches to the same rules: an item that is no update is one warning, neither stored nor
handled, and the updates after it are."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx
from sqlalchemy import func, select

from league.store.models import InboxItem
from telegram_app.transport.web import WEBHOOK_MAX_BODY, create_web_app
from tests.bot.test_update_check import NULL_SHAPES, _sample, _with
from tests.e2e.harness import bot_table, wait_for

GROUP = -100702
SECRET = "webhook-guard-secret_0123456789"
HEADERS = {"X-Telegram-Bot-Api-Secret-Token": SECRET}


async def _inbox(db) -> list[int]:
    async with db.sessions() as session:
        return list(await session.scalars(select(InboxItem.id).order_by(InboxItem.id)))


async def _inbox_count(db) -> int:
    async with db.sessions() as session:
        return await session.scalar(select(func.count()).select_from(InboxItem)) or 0


def _web(runner):
    return create_web_app(runner.app, webhook_path="/hook", secret=SECRET)


@asynccontextmanager
async def _client(runner) -> AsyncIterator[httpx.AsyncClient]:
    """An HTTP client of the bot's web app, in process (the app's own exceptions raise)."""
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=_web(runner)),
                                 base_url="http://bot.test") as client:
        yield client


def _private_text(update_id: int, user_id: int, text: str) -> dict:
    return {"update_id": update_id, "message": {
        "message_id": update_id, "date": 1_700_000_000, "text": text,
        "chat": {"id": user_id, "type": "private", "first_name": "Ann"},
        "from": {"id": user_id, "is_bot": False, "first_name": "Ann"}}}


NO_UPDATES: list[bytes] = [
    b"[]", b'"x"', b"null", b"1", b"{}", b"{not json", b"\xff\xfe\x00", b"",
    b'{"update_id":"abc"}', b'{"update_id":true}', b'{"update_id":1.5}',
    b'{"update_id":-1}', b'{"update_id":1,"message":"x"}',
    b'{"update_id":1,"message":{}}', b'{"update_id":1,"callback_query":{"id":"1"}}',
    b'{"update_id":1,"callback_query":{"id":"1","chat_instance":"1","data":5,'
    b'"from":{"id":1,"is_bot":false,"first_name":"A"}}}',
    b'{"update_id":1,"message":{"message_id":1,"date":0,"chat":"x"}}',
    b'{"update_id":100000000000000000000000000000}',
    b'{"update_id":1,"message":{"message_id":1,"date":0,"text":"x","chat":{"id":'
    b'100000000000000000000000000000,"type":"private"}}}',
    b'{"update_id":NaN}', b'{"update_id":1,"x":Infinity}', b'{"update_id":1,"x":1e999}',
    b"[" * 3000, b'{"update_id":1,"x":' + b"[" * 3000 + b"]" * 3000 + b"}",
    b'{"update_id":1,"x":' + b"[" * 100 + b"]" * 100 + b"}",
    # PTB reads these without a complaint; the bot's handlers and the database would not
    *(json.dumps(_private_text(800_000 + i, 1, "/help") | change).encode() for i, change in
      enumerate([{"message": {**_private_text(0, 1, "x")["message"], field: value}}
                 for field, value in (("text", {"a": 1}), ("chat", {"id": [1], "type": "x"}),
                                      ("from", {"id": "1", "is_bot": False,
                                                "first_name": "A"}),
                                      ("entities", [{"type": "bot_command", "offset": "0",
                                                     "length": 5}]),
                                      ("message_thread_id", "7"),
                                      ("new_chat_members", [{"id": 2, "is_bot": False,
                                                             "first_name": 5}]))])),
    json.dumps({"update_id": 800_100, "chat_member": {
        "chat": {"id": -1, "type": "supergroup", "title": "G"}, "date": 0,
        "from": {"id": 1, "is_bot": False, "first_name": "A"},
        "old_chat_member": {"status": "member", "user": {"id": 2, "is_bot": False,
                                                         "first_name": "B"}},
        "new_chat_member": {"status": 5, "user": {"id": 2, "is_bot": False,
                                                  "first_name": "B"}}}}).encode(),
    # a null where PTB builds an object passes PTB and failed the check itself (a 500)
    *(json.dumps(_with(_sample(n), path, value) | {"update_id": 800_200 + i}).encode()
      for i, (n, path, value) in enumerate(NULL_SHAPES)),
]


async def test_a_body_that_is_no_update_is_one_warning_and_a_200(pg_db, pg_url,
                                                                  caplog) -> None:
    async with bot_table(pg_url, GROUP, "Guarded", ["Ann"]) as (api, players, runner), \
            _client(runner) as client:
        await api.settle()
        stored = await _inbox(pg_db)
        caplog.clear()
        caplog.set_level(logging.WARNING)
        for body in NO_UPDATES:
            before = len(caplog.records)
            response = await client.post("/hook", content=body, headers=HEADERS)
            assert response.status_code == 200, (body[:80], response.text)
            new = caplog.records[before:]
            assert [(r.name, r.levelname) for r in new] == \
                [("telegram_app.transport.web", "WARNING")], \
                (body[:80], [r.getMessage() for r in new])
            assert new[0].exc_info is None and "no update" in new[0].getMessage()
        await api.settle()
        assert await _inbox(pg_db) == stored  # none stored
        assert not [r for r in caplog.records if r.levelno >= logging.ERROR]

        # A real update still goes through the inbox and its handler.
        replies = len(api.bot_messages(1))
        response = await client.post("/hook", json=_private_text(900_001, 1, "/help"),
                                     headers=HEADERS)
        assert response.status_code == 200
        await wait_for(lambda: len(api.bot_messages(1)) > replies)
        assert 900_001 in await _inbox(pg_db)


async def test_a_body_over_the_limit_is_refused_unread(pg_db, pg_url) -> None:
    async with bot_table(pg_url, GROUP, "Guarded", ["Ann"]) as (api, players, runner), \
            _client(runner) as client:
        await api.settle()
        stored = await _inbox_count(pg_db)
        update = _private_text(900_002, 1, "/help")
        update["message"]["padding"] = "x" * (10 * 1024 * 1024)  # 10 MB, valid otherwise
        body = json.dumps(update).encode()
        for headers in (HEADERS, {}):
            response = await client.post("/hook", content=body, headers=headers)
            assert response.status_code == 413, response.text

        # Chunked (no Content-Length): read up to the limit, not beyond.
        pulled = 0
        chunk = b" " * 65536

        async def chunks() -> AsyncIterator[bytes]:
            nonlocal pulled
            while pulled < len(body):
                pulled += len(chunk)
                yield chunk

        response = await client.post("/hook", content=chunks(), headers=HEADERS)
        assert response.status_code == 413
        assert pulled <= WEBHOOK_MAX_BODY + 2 * len(chunk), pulled
        # Just under the limit is read and handled as usual.
        fits = _private_text(900_003, 1, "/help")
        fits["message"]["padding"] = "x" * (WEBHOOK_MAX_BODY - 1000)
        response = await client.post("/hook", content=json.dumps(fits).encode(),
                                     headers=HEADERS)
        assert response.status_code == 200
        await api.settle()
        assert await _inbox_count(pg_db) == stored + 1


async def test_a_polled_item_that_is_no_update_is_one_warning_and_ignored(pg_db, pg_url,
                                                                       caplog) -> None:
    """Before, PTB read a null where it builds an object and the handlers failed on it (one
    traceback each); an item PTB cannot read failed the whole ``getUpdates``, fetched again
    and again: nothing after it was ever handled."""
    async with bot_table(pg_url, GROUP, "Guarded", ["Ann"]) as (api, players, runner):
        await api.settle()
        stored = await _inbox(pg_db)
        caplog.clear()
        caplog.set_level(logging.WARNING)
        items = [{key: value for key, value in _with(_sample(n), path, value).items()
                  if key != "update_id"} for n, path, value in NULL_SHAPES]
        items += [{"message": "x"}, {"message": {**_private_text(0, 1, "/help")["message"],
                                                 "chat": {"id": [1], "type": "private"}}}]
        ignored = [api.enqueue_update(item)["update_id"] for item in items]
        replies = len(api.bot_messages(1))
        await players[0].send(1, "/help")  # fetched with them, after them
        await wait_for(lambda: len(api.bot_messages(1)) > replies)
        await api.settle()
        assert api.unconfirmed() == []  # (confirmed: Telegram sends them no more)
        assert not set(ignored) & set(await _inbox(pg_db))
        assert len(await _inbox(pg_db)) == len(stored) + 1  # the /help
        warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
        assert [(r.name, r.levelname) for r in warnings] == \
            [("telegram_app.transport.intake.receiving", "WARNING")] * len(items), \
            [(r.name, r.getMessage()[:200]) for r in warnings]
        assert all(r.exc_info is None and "no update" in r.getMessage() for r in warnings)
