"""Concurrent updates with order per lane: a command in a group waits for the one before it,
while one in another group is not held up; two presses of one bid that arrive together
are applied in order of arrival (the second refused as out of date); a repeated update is
handled once; a press whose move committed just before a kill is answered after the
restart; an update fetched as polling stops, or cut off by the stop's bound, is handled by
the next process at once."""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import func, select

from league.store.models import GameEvent, InboxItem
from league.store.orm import utcnow
from tests.e2e.harness import (
    BotRunner,
    hold,
    mover,
    private_turn_message,
    wait_for,
)
from tests.e2e.processes import kill, spawn, spawn_with_game
from tests.fakebot import FakeBotAPI

MOVED = "You already moved this turn."  # (a toast: a stale tap of a turn one played)
GROUP_A, GROUP_B = -100801, -100802


async def test_one_lane_waits_another_does_not(pg_db, pg_url: str) -> None:
    async with FakeBotAPI() as api:
        api.add_group(GROUP_A, "A", admins=[1])
        api.add_group(GROUP_B, "B", admins=[11])
        team_a = [api.add_user(i, n) for i, n in ((1, "Ann"), (2, "Bob"), (3, "Cat"))]
        team_b = [api.add_user(i, n) for i, n in ((11, "Dan"), (12, "Eve"), (13, "Fay"))]
        for user in team_a + team_b:
            await user.start_bot()
        runner = BotRunner(api, pg_url)
        await runner.start()
        try:
            await api.settle()  # (the /start of each player handled)
            # Ann's /settings is held inside its handler (at the admin check).
            held, release = hold(api, "getChatMember", lambda p: p.get("chat_id") == GROUP_A)
            await team_a[0].send(GROUP_A, "/settings")
            await asyncio.wait_for(held.wait(), 30)
            await team_a[1].send(GROUP_A, "/help")  # the same lane (the group), at once
            await team_b[1].send(GROUP_B, "/help")
            await wait_for(lambda: bool(api.bot_messages(GROUP_B)))  # while A's lane is held
            assert not api.bot_messages(GROUP_A)  # waits behind Ann's /settings
            release.set()
            await wait_for(lambda: len(api.bot_messages(GROUP_A)) >= 2)
            await api.settle()
            lobby_a = await _lobby(api, team_a[0], GROUP_A)
            for user in team_a[1:]:
                await user.press_and_settle(api.get_message(GROUP_A, lobby_a.message_id),
                                            "✋ Join")

            # Two presses of one bid at once (a double tap): applied in order, the second
            # answered with a toast that it was played already (no alert to dismiss).
            await team_a[0].press_and_settle(api.get_message(GROUP_A, lobby_a.message_id),
                                             "▶️ Start")
            first_a = await mover(api, team_a)
            msg_a = private_turn_message(api, first_a)
            bid_a = next(d for _, d in api.buttons(msg_a) if d and d.startswith("b:"))
            first_q = await first_a.press(msg_a, bid_a)
            second_q = await first_a.press(msg_a, bid_a)
            first = await api.wait_answer(first_q, timeout=30)
            second = await api.wait_answer(second_q, timeout=30)
            assert not first.get("show_alert"), first
            assert not second.get("show_alert") and second.get("text") == MOVED, second
            await api.settle()
            assert len(api.find_messages(GROUP_A, "bids")) == 1  # one bid applied
            async with pg_db.sessions() as session:
                undone = await session.scalar(select(func.count()).select_from(InboxItem)
                                              .where(InboxItem.done_at.is_(None)))
            assert undone == 0
        finally:
            await runner.stop()


async def _lobby(api: FakeBotAPI, host, group: int):
    await host.send(group, "/newgame")
    await wait_for(lambda: bool(api.find_messages(group, "new game #")))
    await api.settle(quiet=0.05)
    return api.find_messages(group, "new game #")[-1]


@pytest.mark.process
@pytest.mark.timeout(240)
async def test_a_press_committed_just_before_a_kill_is_answered_after_the_restart(
        pg_db, pg_url: str, tmp_path) -> None:
    """The bid commits (which marks its inbox item done), then the process is killed before
    its answerCallbackQuery reached Telegram: after the restart the press is answered (the
    soak's unanswered presses), and the bid is applied once. (Its note may be told twice: a kill
    between a send and its record shows it again; never more than once again.)"""
    async with FakeBotAPI() as api:
        bot, players = await spawn_with_game(api, pg_url, tmp_path / "bot.log", GROUP_A,
                                             "Killed")
        try:
            user = await mover(api, players)
            message = private_turn_message(api, user)
            bid = next(d for _, d in api.buttons(message) if d and d.startswith("b:"))
            # The answer to this press never arrives: the process dies while sending it.
            original, held = api._handlers["answercallbackquery"], asyncio.Event()

            async def lost(params: dict):
                if params.get("callback_query_id") == query and not held.is_set():
                    held.set()
                    await asyncio.Event().wait()  # until the connection goes
                return original(params)

            api._handlers["answercallbackquery"] = lost
            query = await user.press(message, bid)
            await asyncio.wait_for(held.wait(), 60)
            await kill(bot)
            assert api.callback_answer(query) is None
            bot = await spawn(api, pg_url, tmp_path / "bot.log")
            answer = await api.wait_answer(query, timeout=60)
            assert not answer.get("show_alert"), answer
            await wait_for(lambda: bool(api.find_messages(GROUP_A, "bids")), timeout=60)
            await api.settle()
            assert 1 <= len(api.find_messages(GROUP_A, "bids")) <= 2
            async with pg_db.sessions() as session:
                bids = [e for events in await session.scalars(select(GameEvent.events))
                        for e in events if e.get("type") == "bid_placed"]
            assert len(bids) == 1, bids  # applied once
        finally:
            await kill(bot)
    assert "Traceback" not in (tmp_path / "bot.log").read_text()


def _awaits(task: asyncio.Task, qualname: str) -> bool:
    """Whether ``task`` is (somewhere down its chain of awaits) inside ``qualname``."""
    coro = task.get_coro()
    for _ in range(50):
        if coro is None:
            return False
        if getattr(coro, "__qualname__", "") == qualname:
            return True
        coro = getattr(coro, "cr_await", None) or getattr(coro, "gi_yieldfrom", None)
    return False


async def test_a_cancelled_update_releases_its_lane(pg_db, pg_url: str) -> None:
    """The task handling an update is cancelled while it holds its lane (in-process lock,
    concurrency slot): the next update of that lane is handled."""
    async with FakeBotAPI() as api:
        api.add_group(GROUP_A, "A", admins=[1])
        team = [api.add_user(i, n) for i, n in ((1, "Ann"), (2, "Bob"), (3, "Cat"))]
        for user in team:
            await user.start_bot()
        runner = BotRunner(api, pg_url)
        await runner.start()
        try:
            await api.settle()  # (the /start of each player handled)
            # Ann's /settings is held inside its handler (at the admin check).
            held, release = hold(api, "getChatMember", lambda p: p.get("chat_id") == GROUP_A)
            await team[0].send(GROUP_A, "/settings")
            await asyncio.wait_for(held.wait(), 30)
            handling = [t for t in asyncio.all_tasks() if _awaits(t, "Intake.handle")]
            assert len(handling) == 1
            for task in handling:
                task.cancel()
            release.set()
            await wait_for(lambda: all(t.done() for t in handling))
            await team[1].send(GROUP_A, "/help")
            await wait_for(lambda: bool(api.bot_messages(GROUP_A)), timeout=30)  # (lane free)
            await api.settle()
        finally:
            await runner.stop()


async def test_an_update_fetched_as_polling_stops_is_handled_first_after_the_restart(
        pg_db, pg_url: str) -> None:
    """PTB's Updater, when polling stops, calls getUpdates once more (``timeout`` 0) to
    confirm the batch before, and drops what that call returns; Telegram keeps it. It is not
    stored: stored as held by the stopping process, it would wait after the restart, a repeat,
    until that hold lapsed (``INBOX_GRACE``), behind newer updates of its chat. The next
    process receives it as new: the /rules sent during the stop is answered before a /help
    sent after the restart."""
    async with FakeBotAPI() as api:
        api.add_group(GROUP_A, "A", admins=[1], type="supergroup")
        ann = api.add_user(1, "Ann")
        runner = BotRunner(api, pg_url)
        await runner.start()
        await api.settle()
        last_call, go_on = asyncio.Event(), asyncio.Event()
        polled = api._get_updates

        async def held_last_call(params: dict, request):
            if not params.get("timeout") and not last_call.is_set():  # (the stop's call)
                last_call.set()
                await go_on.wait()
            return await polled(params, request)

        api._get_updates = held_last_call
        stopping = asyncio.create_task(runner.stop())
        await asyncio.wait_for(last_call.wait(), 30)
        await ann.send(GROUP_A, "/rules")  # fetched by that last call
        go_on.set()
        await stopping
        async with pg_db.sessions() as session:
            assert not await session.scalar(select(func.count()).select_from(InboxItem))
        assert not api.bot_messages(GROUP_A)

        runner = BotRunner(api, pg_url)
        await runner.start()
        try:
            await ann.send(GROUP_A, "/help")
            await wait_for(lambda: len(api.bot_messages(GROUP_A)) == 2, 30)
            rules, help_ = api.bot_messages(GROUP_A)
            assert "/newgame" not in rules.text and "/newgame" in help_.text  # in order
            await api.settle()
        finally:
            await runner.stop()


async def test_a_handler_still_running_at_the_stops_bound_is_cut_off(
        pg_db, pg_url: str, monkeypatch) -> None:
    """A handler that outlasts the stop's bound (here its admin check never answered) is
    cancelled at the bound: the stop ends, its update stays undone, its hold released, and
    the next process handles it at once."""
    from telegram_app.transport import scheduler

    monkeypatch.setattr(scheduler, "FINISH_TIMEOUT", 0.5)
    async with FakeBotAPI() as api:
        api.add_group(GROUP_A, "A", admins=[1])
        ann = api.add_user(1, "Ann")
        runner = BotRunner(api, pg_url)
        await runner.start()
        try:
            await api.settle()
            held, release = hold(api, "getChatMember", lambda p: p.get("chat_id") == GROUP_A)
            await ann.send(GROUP_A, "/settings")
            await asyncio.wait_for(held.wait(), 30)
            loop = asyncio.get_running_loop()
            began = loop.time()
            await runner.stop()
            assert loop.time() - began < 0.5 + scheduler.CUT_GRACE + 1
        finally:
            release.set()
            await runner.stop()
        async with pg_db.sessions() as session:
            undone = list(await session.scalars(select(InboxItem.taken_until)
                                                .where(InboxItem.done_at.is_(None))))
        assert len(undone) == 1 and undone[0] <= utcnow(), undone  # its hold released
        assert not api.bot_messages(GROUP_A)

        runner = BotRunner(api, pg_url)
        await runner.start()
        try:
            await wait_for(lambda: bool(api.find_messages(GROUP_A, "Defaults for new games")),
                           timeout=30)
            await api.settle()
        finally:
            await runner.stop()
