"""The polling intake's deferred store across a kill (telegram_app.intake), driven by hand
with a real inbox: the presses of one game keep their order, and a press whose commit was its
store is answered after the restart (both found in review)."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

from telegram import Update

from league.inbox import Inbox
from telegram_app.intake import Intake

USER = {"id": 7, "is_bot": False, "first_name": "Ann"}
CHAT = {"id": 7, "type": "private"}


def _press(uid: int, data: str) -> Update:
    return Update.de_json({"update_id": uid, "callback_query": {
        "id": f"q{uid}", "from": USER, "chat_instance": "c", "data": data,
        "message": {"message_id": 3, "date": 0, "chat": CHAT, "from": USER, "text": "x"}}},
        None)


def _intake(db) -> Intake:
    app = SimpleNamespace(update_queue=asyncio.Queue(), bot=None)
    return Intake(app, Inbox(db), shared=False)  # type: ignore[arg-type]


async def test_two_presses_of_one_game_in_one_batch_keep_their_order_across_a_kill(
        pg_db) -> None:
    """Batch [A, B], both presses of game 42 (A first). The process is killed while A's
    handler runs (before its commit): Telegram was not told of either, so both come again.
    But B was stored and A was not, so the restart's first replay queues B alone, ahead of
    A, which only arrives with the next getUpdates: B is applied before A."""
    first = _intake(pg_db)
    await first.replay(grace=0)
    assert first.settled
    a, b = _press(101, "b:42:3:5"), _press(102, "b:42:3:6")
    assert await first.receive([a, b]) == 2
    # --- SIGKILL here (A's handler has not committed; no getUpdates since) ---
    second = _intake(pg_db)
    await second.replay(grace=0)  # the restart's backlog: what the inbox holds, undone
    queued = []
    while not second.app.update_queue.empty():
        queued.append(second.app.update_queue.get_nowait().update_id)
    await second.receive([a, b])  # Telegram delivers A and B again
    while not second.app.update_queue.empty():
        queued.append(second.app.update_queue.get_nowait().update_id)
    # the queue the restarted bot hands to the lanes (A stored now as a new item)
    order = queued + [u.update_id for u in (a, b) if u.update_id not in queued
                      and u.update_id in second.fresh]
    assert order == [101, 102], order


class _Bot:
    def __init__(self) -> None:
        self.answered: list[str] = []

    async def answer_callback_query(self, query_id: str, *args, **kwargs) -> bool:
        self.answered.append(query_id)
        return True


async def test_a_press_committed_before_its_confirm_is_answered_after_a_kill(pg_db) -> None:
    """A deferred press's move committed (inserting its item, done), then the process was
    killed before the next getUpdates (which now waits for that commit) confirmed it, and
    before its answerCallbackQuery: Telegram delivers it again after the restart. If that
    getUpdates comes before the first replay (PTB's run_polling starts polling before the
    Application and its JobQueue), answer_owed skips it (pending) and handle drops it as a
    repeat: the press is never answered."""
    first = _intake(pg_db)
    await first.replay(grace=0)
    a = _press(201, "b:43:3:5")
    await first.receive([a])
    await first.inbox.store_done([first.deferred[201].unstored])  # its move's commit
    # --- SIGKILL here: no answer, no getUpdates since ---
    await asyncio.sleep(0.01)
    second = _intake(pg_db)
    bot = _Bot()
    second.app.bot = bot
    await second.receive([a])  # redelivered, before the first replay
    await second.replay(grace=0)

    async def handler() -> None:
        raise AssertionError("a repeat must not be handled")

    await second.handle(a, handler())
    assert bot.answered == ["q201"], bot.answered
