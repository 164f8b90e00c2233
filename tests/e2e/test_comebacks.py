"""Players who come back (by /start, or by typing to the bot) while the game moves on: a
delivery that finds them reachable before /start's own closes their earlier round's message
left with its buttons; two workers handling their texts at once send their views once; a
/start whose view is drawn just after the turn passed to them leaves one live keyboard.
(Found by second looks at the refusals' changes; each failed before its fix.)"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from datetime import UTC, datetime

import pytest
from sqlalchemy import text

from league.delivery import DELIVERY_LOCK
from telegram_app.services import KEY
from tests.clock import Clock
from tests.e2e.harness import (
    bot_table,
    open_lobby,
    press_move,
    private_turn_message,
    wait_for,
)
from tests.e2e.unreachable import (
    blocked_through_round_one,
    lowest_bid,
    move_keyboards,
    plain,
    sent_to,
)
from tests.fakebot import FakeUser

GROUP = -100828


@pytest.fixture
async def table(pg_db, pg_url):
    clock = Clock(datetime(2026, 3, 4, 9, 0, tzinfo=UTC))
    async with bot_table(pg_url, GROUP, "Second look", ["Ann", "Bob", "Cat", "Dan"],
                         clock=clock, sweep_interval=5.0) as (api, players, runner):
        yield api, players, clock, runner, pg_db, pg_url


@asynccontextmanager
async def game_lock_held(db, game_id: int) -> AsyncIterator[Callable[[], Awaitable[bool]]]:
    """Hold game ``game_id``'s delivery lock (``league.delivery.DELIVERY_LOCK``) from another
    connection, as a slow delivery of another bot process would; yields whether a delivery
    waits for it. Deliveries of this process queue behind the one that waits, in order."""
    async with db.engine.connect() as conn:
        await conn.execute(text("SELECT pg_advisory_lock(:k, :g)"),
                           {"k": DELIVERY_LOCK, "g": game_id})
        await conn.commit()

        async def waiting() -> bool:
            count = await conn.scalar(text(
                "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"))
            await conn.commit()
            return bool(count)

        try:
            yield waiting
        finally:
            await conn.execute(text("SELECT pg_advisory_unlock(:k, :g)"),
                               {"k": DELIVERY_LOCK, "g": game_id})
            await conn.commit()


async def until(condition: Callable[[], Awaitable[bool]], failure: str) -> None:
    for _ in range(1000):
        if await condition():
            return
        await asyncio.sleep(0.01)
    pytest.fail(failure)


async def reachable(service, user: FakeUser) -> bool:
    return user.id in await service.reachable([user.id])


async def test_back_while_a_move_is_delivered_leaves_no_round_one_keyboard(table) -> None:
    """As in test_unreachable_players' "back with /start after a round ended", but a move
    of round 2 is being delivered when Cat comes back (it waits for the game's lock, held
    by a slow delivery, say of another process). That delivery reads her reachable and
    sends her the round's message (``_refresh``: "missing"); /start's ``send_private``
    then finds her latest message of round 2 and only retires that one. Her round-1
    message, never closed, keeps its bid buttons beside the new one: two keyboards of one
    game in her chat (README: "/start mid-game sends the message again and deletes the
    old one")."""
    api, players, _clock, runner, db, _url = table
    ann, bob, cat = players[:3]
    await blocked_through_round_one(api, players, runner, GROUP)
    service = runner.app.bot_data[KEY].service
    game = (await service.open_games_in(GROUP))[0]
    actor = next(u for u in (ann, bob) if private_turn_message(api, u) is not None)
    message = private_turn_message(api, actor)
    async with game_lock_held(db, game.id) as waiting:
        # The move commits; its delivery waits for the game's lock.
        query = await actor.press(message, lowest_bid(api, message))
        await api.wait_answer(query)
        await until(waiting, "the move's delivery never waited for the lock")
        before = len(sent_to(api, cat))
        await cat.start_bot()  # (she comes back: /start)
        await until(lambda: reachable(service, cat), "/start never recorded her")
        await asyncio.sleep(0.3)  # (/start's send_private queues behind the move's)
    await wait_for(lambda: len(sent_to(api, cat)) > before)
    await api.settle(quiet=0.5)
    assert "round 2" in plain(api.bot_messages(cat.id)[-1].text)  # (her view came back)
    stale = [m for m in move_keyboards(api, cat) if "round 1" in plain(m.text)]
    assert not stale, [(plain(m.text)[:60], api.buttons(m)[:3]) for m in stale]


async def test_two_workers_see_one_comeback_once(pg_db) -> None:
    """Two texts of a player coming back (a double /start, or two numbers typed at once)
    reach two webhook workers (their lanes are per process). Each handler asks
    ``touch_user`` whether private messages reached her before, and each that hears "no"
    sends her every running game's view (``_send_views``): the answer must be "no" once.
    ``upsert_user`` reads the row without a lock, so both read ``can_message`` false before
    either commits (here the row is held a moment, as a third transaction would; both
    reads come first) and both send the views: every view twice, each a notification."""
    from league.service import MatchService
    from league.store.snapshots import UserRef

    cat = UserRef(3, "Cat", language="en")
    workers = [MatchService(pg_db), MatchService(pg_db)]
    await workers[0].touch_user(cat, can_message=False)  # (she blocked the bot)
    async with pg_db.engine.connect() as holder:
        await holder.execute(text("SELECT id FROM users WHERE id = 3 FOR UPDATE"))
        both = [asyncio.create_task(w.touch_user(cat, can_message=True)) for w in workers]

        async def blocked() -> bool:
            async with pg_db.engine.connect() as conn:
                return (await conn.scalar(text(
                    "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                    "AND datname = current_database()")) or 0) >= 2

        await until(blocked, "the two comebacks never both waited for the row")
        await holder.commit()
        before = await asyncio.gather(*both)
    assert sorted(before) == [False, True], before  # (one comeback, told once)


async def test_start_just_before_the_turn_passes_to_her_leaves_one_keyboard(table) -> None:
    """Cat sends /start while Bob is to act, and her view waits for the game's lock (a slow
    delivery, say of another process, holds it); Bob's bid commits meanwhile, its delivery
    queued behind her view. The view is drawn as the game is then, her turn: its bids; the
    bid's delivery then pings her with a new message, and the view's keyboard stays
    beside it: two live keyboards of one game in her chat."""
    api, players, _clock, runner, db, _url = table
    ann, bob, cat = players[:3]
    service = runner.app.bot_data[KEY].service
    service.new_seed = lambda: 3  # (Ann, Bob, Cat in turn)
    lobby = await open_lobby(api, [ann, bob, cat], GROUP)
    await ann.press_and_settle(lobby, "▶️ Start")
    await wait_for(lambda: private_turn_message(api, ann) is not None)
    message = private_turn_message(api, ann)
    await press_move(api, ann, message, lowest_bid(api, message))
    await wait_for(lambda: private_turn_message(api, bob) is not None)
    await api.settle(quiet=0.2)
    game = (await service.open_games_in(GROUP))[0]
    message = private_turn_message(api, bob)
    before = len(sent_to(api, cat))
    async with game_lock_held(db, game.id) as waiting:
        await cat.start_bot()  # (her view waits for the lock)
        await until(waiting, "/start's view never waited for the lock")
        query = await bob.press(message, lowest_bid(api, message))
        await api.wait_answer(query)  # (committed: her turn; its delivery waits too)
        await asyncio.sleep(0.3)
    await wait_for(lambda: len(sent_to(api, cat)) > before)
    await api.settle(quiet=0.5)
    live = move_keyboards(api, cat)
    assert len(live) == 1, [(plain(m.text)[:60], api.buttons(m)[:3]) for m in live]
    assert live[0] is api.bot_messages(cat.id)[-1]
