"""A process starting beside a live one (webhook workers) answers only the presses a dead
process left unanswered, not one the live process is answering: Telegram keeps a query's
first answer only, so an empty answer sent first would lose the live process's alert (the
delay counts from when a press was done: it may wait in its lane for seconds first)."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta

import httpx

from league.store.models import InboxItem
from league.store.orm import utcnow
from telegram_app.transport.intake.unfinished import ANSWER_DELAY
from tests.e2e.harness import BotRunner
from tests.fakebot import FakeBotAPI

GROUP = -100871


def _press(api: FakeBotAPI, user_id: int, update_id: int) -> tuple[str, dict]:
    """A press the fake Bot API knows (as if a user had pressed a button before the start)
    and the update that carried it; no bot fetches it (it is in the inbox already)."""
    query_id = str(4_900_000_000_000_000_000 + update_id)
    api._queries[query_id] = {"user_id": user_id, "chat_id": GROUP, "message_id": 1,
                              "data": "b:1", "ephemeral_id": None}
    user = {"id": user_id, "is_bot": False, "first_name": f"P{user_id}"}
    return query_id, {"update_id": update_id, "callback_query": {
        "id": query_id, "from": user, "chat_instance": "1", "data": "b:1"}}


async def _handled(db, *presses: tuple[dict, datetime, datetime | None]) -> None:  # noqa: ANN001
    """Store each press's update in the inbox as handled before the start: ``(update,
    received, done)``, done when received if ``None`` (as a process that dies after its
    commit leaves it)."""
    async with db.sessions.begin() as session:
        for update, received, done in presses:
            session.add(InboxItem(id=update["update_id"], lane=f"c{GROUP}", payload=update,
                                  received_at=received, done_at=done or received))


async def live_answer(api: FakeBotAPI, query: str) -> None:
    """The live worker answers its press ``query`` (an alert), over the Bot API."""
    async with httpx.AsyncClient() as client:
        reply = await client.post(f"{api.base_url}{api.token}/answerCallbackQuery",
                                  json={"callback_query_id": query, "text": "Not your turn",
                                        "show_alert": True})
    assert reply.json()["ok"], reply.text


async def test_a_press_another_process_is_answering_keeps_its_answer(pg_db, pg_url) -> None:
    """Before the fix a starting process answered (with nothing) every press done in the
    minute before its start, at once: a press another webhook worker had committed a moment
    before but not yet answered got the empty answer first, and that worker's own answer
    (its alert) was refused by Telegram. Now a press received in the last
    ``ANSWER_DELAY`` seconds before the start is answered only that long after it, when a
    live process has answered it; an older one (a dead process's) is answered at once."""
    async with FakeBotAPI() as api:
        now = utcnow()
        old, old_update = _press(api, 501, 9001)  # a dead process's, half a minute ago
        live, live_update = _press(api, 502, 9002)  # the live worker's, just committed
        dead, dead_update = _press(api, 503, 9003)  # a kill just after its commit
        await _handled(pg_db, (old_update, now - timedelta(seconds=30), None),
                       (live_update, now - timedelta(seconds=1), None),
                       (dead_update, now - timedelta(seconds=1), None))
        runner = BotRunner(api, pg_url)
        await runner.start()
        try:
            assert not (await api.wait_answer(old, timeout=15)).get("text")
            assert api.callback_answer(live) is None
            assert api.callback_answer(dead) is None
            await live_answer(api, live)
            assert not (await api.wait_answer(dead, timeout=ANSWER_DELAY + 15)).get("text")
            assert api.callback_answer(live) == {"text": "Not your turn", "show_alert": True,
                                                 "url": None, "cache_time": None}
        finally:
            await runner.stop()


async def test_a_press_queued_for_seconds_then_committed_keeps_its_live_answer(
        pg_db, pg_url) -> None:
    """Before the fix a starting process answered at once (with nothing) a press received
    more than ``ANSWER_DELAY`` seconds before its start, however recently it was done: a
    press that waited in a busy lane for 10 s on a live webhook worker and committed just
    now, its alert ("Not your turn") on its way, got the starting process's empty answer
    first, and Telegram refused the live worker's (only a query's first answer counts)."""
    async with FakeBotAPI() as api:
        now = utcnow()
        old, old_update = _press(api, 511, 9101)  # a dead process's, half a minute ago
        queued, queued_update = _press(api, 512, 9102)  # received 10 s ago, done just now
        await _handled(pg_db, (old_update, now - timedelta(seconds=30), None),
                       (queued_update, now - timedelta(seconds=10), now))
        runner = BotRunner(api, pg_url)
        await runner.start()
        try:
            assert not (await api.wait_answer(old, timeout=15)).get("text")
            await asyncio.sleep(0.5)  # (the same run's answers: gathered)
            assert api.callback_answer(queued) is None
            await live_answer(api, queued)
            await asyncio.sleep(ANSWER_DELAY + 3)  # (the starting process's later runs)
            assert api.callback_answer(queued) == {"text": "Not your turn", "show_alert": True,
                                                   "url": None, "cache_time": None}
        finally:
            await runner.stop()
