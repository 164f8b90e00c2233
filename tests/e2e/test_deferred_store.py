"""The polling intake's deferred store (issue 10: a press's transactions when updates arrive
one at a time): a button press is handled before it is stored, and the commit of its change
inserts it, done; Telegram is told it arrived (the next ``getUpdates`` offset) only once it
is stored, by that commit or, when the press is slow to commit, by the intake itself."""

from __future__ import annotations

import time

from sqlalchemy import select

from league.models import InboxItem
from telegram_app.intake import DEFER_WAIT
from tests.e2e.harness import bot_table, hold, mover, private_turn_message, start_game, wait_for

GROUP = -100901


async def _row(db, update_id: int) -> InboxItem | None:
    async with db.sessions() as session:
        return await session.scalar(select(InboxItem).where(InboxItem.id == update_id))


async def test_a_press_is_stored_by_its_own_moves_commit(pg_db, pg_url: str) -> None:
    async with bot_table(pg_url, GROUP, "Deferred", ["Ann", "Bob", "Cat"]) as \
            (api, players, runner):
        assert runner.app is not None
        intake = runner.app.bot_data["intake"]
        await start_game(api, players, GROUP)
        await wait_for(lambda: intake.settled)  # (the restart's backlog is queued first)
        user = await mover(api, players)
        message = private_turn_message(api, user)
        assert message is not None
        bid = next(d for _, d in api.buttons(message) if d and d.startswith("b:"))
        await api.settle()  # (a press in a lane still busy with the start is stored first)
        query = await user.press(message, bid)
        update_id = api._next_update_id - 1
        assert not (await api.wait_answer(query)).get("show_alert")
        await api.settle()
        row = await _row(pg_db, update_id)
        # one statement of the move's transaction inserted it, done: no store of its own
        assert row is not None and row.done_at is not None and row.done_at == row.received_at
        assert row.payload["callback_query"]["id"] == query
        assert update_id not in api.unconfirmed()

        # The same button again: out of date, a press that changes nothing. Its handler is
        # held at its answer, before it could mark anything: Telegram is not told it arrived
        # until the intake has stored it itself (undone), after DEFER_WAIT.
        pressed = [""]
        held, release = hold(api, "answerCallbackQuery",
                             lambda p: p.get("callback_query_id") == pressed[0])
        started = time.monotonic()
        pressed[0] = await user.press(message, bid)
        stale_id = api._next_update_id - 1
        await wait_for(held.is_set)
        await wait_for(lambda: stale_id not in api.unconfirmed())
        assert time.monotonic() - started >= DEFER_WAIT
        row = await _row(pg_db, stale_id)
        assert row is not None and row.done_at is None  # stored before it was confirmed
        release.set()
        answer = await api.wait_answer(pressed[0])
        assert answer.get("show_alert") and "out of date" in answer.get("text", ""), answer
        await api.settle()
        row = await _row(pg_db, stale_id)
        assert row is not None and row.done_at is not None
        assert len(api.find_messages(GROUP, "bids")) == 1
