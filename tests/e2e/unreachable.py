"""Helpers of the tests of players the bot cannot message privately and of their comebacks
(test_unreachable_players.py, test_comebacks.py, test_comeback_edges.py)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

import pytest
from sqlalchemy import text

from league.delivery import DELIVERY_LOCK
from telegram_app.services import KEY
from tests.e2e.harness import (
    MOVE_VERBS,
    current_of,
    open_lobby,
    press_move,
    private_turn_message,
    wait_for,
)
from tests.fakebot import FakeBotAPI, FakeUser, StoredMessage, parse_html

CARDS = "🎴 My cards"


def plain(text: str | None) -> str:
    return parse_html(text or "")[0].replace("\u2068", "").replace("\u2069", "")


def table_message(api: FakeBotAPI, group: int) -> StoredMessage | None:
    tables = [m for m in api.bot_messages(group) if any(t == CARDS for t, _ in api.buttons(m))]
    return tables[-1] if tables else None


def lowest_bid(api: FakeBotAPI, message: StoredMessage) -> str:
    return min((int(d.split(":")[3]), d) for _, d in api.buttons(message)
               if d and d.startswith("b:") and d.count(":") == 3)[1]


def call_of(api: FakeBotAPI, message: StoredMessage) -> str:
    return next(d for _, d in api.buttons(message) if d and d.startswith(("c:", "cc:")))


def sent_to(api: FakeBotAPI, user: FakeUser) -> list[StoredMessage]:
    """Every message the bot sent ``user`` privately, deleted ones too."""
    return [m for m in api.messages(user.id, include_deleted=True) if m.from_bot]


def move_keyboards(api: FakeBotAPI, user: FakeUser) -> list[StoredMessage]:
    """``user``'s private messages that carry Coyote move buttons."""
    return [m for m in api.bot_messages(user.id)
            if any(d and d.split(":")[0] in MOVE_VERBS for _, d in api.buttons(m))]


async def peek(api: FakeBotAPI, user: FakeUser, group: int) -> StoredMessage:
    """``user`` presses 🎴 on the table: their ephemeral message in the group."""
    table = table_message(api, group)
    assert table is not None
    before = len(api.ephemeral_messages(group, user.id, include_deleted=True))
    await user.press_and_settle(table, CARDS, quiet=0.05)
    await wait_for(lambda: len(api.ephemeral_messages(group, user.id, include_deleted=True))
                   > before)
    return api.ephemeral_messages(group, user.id)[-1]


async def to_cats_turn(api: FakeBotAPI, players: list[FakeUser], runner, group: int) -> None:
    """Ann, Bob and Cat (seed 3: in that order) start a game; Ann and Bob bid: Cat's turn,
    her private message carrying its bids."""
    ann, bob, cat = players[:3]
    runner.app.bot_data[KEY].service.new_seed = lambda: 3
    lobby = await open_lobby(api, [ann, bob, cat], group)
    await ann.press_and_settle(lobby, "▶️ Start")
    for user in (ann, bob):
        await wait_for(lambda user=user: private_turn_message(api, user) is not None)
        message = private_turn_message(api, user)
        await press_move(api, user, message, lowest_bid(api, message))
    await wait_for(lambda: private_turn_message(api, cat) is not None)
    await api.settle(quiet=0.2)


async def blocked_through_round_one(api: FakeBotAPI, players: list[FakeUser], runner,
                                    group: int) -> None:
    """Cat blocks the bot on her turn of round 1 (her private message carries its bids),
    plays it from the group (🎴), and Ann's call ends the round: round 2 is dealt while the
    bot cannot write to Cat, so her round-1 message is never closed."""
    ann, _bob, cat = players[:3]
    await to_cats_turn(api, players, runner, group)
    cat.block_bot()
    mine = await peek(api, cat, group)
    await press_move(api, cat, mine, lowest_bid(api, mine))  # (refused: the bot learns it)
    await wait_for(lambda: private_turn_message(api, ann) is not None)
    message = private_turn_message(api, ann)
    await press_move(api, ann, message, call_of(api, message))
    await wait_for(lambda: bool(api.find_messages(group, "round 2")))
    await api.settle(quiet=0.3)
    assert [m for m in move_keyboards(api, cat) if "round 1" in plain(m.text)]


@asynccontextmanager
async def game_lock_held(db, game_id: int) -> AsyncIterator[Callable[[], Awaitable[bool]]]:
    """Hold game ``game_id``'s delivery lock (``league.delivery.DELIVERY_LOCK``) from another
    connection, as a slow delivery of another bot process would; yields whether a delivery
    waits for it. Deliveries of this process queue behind the one that waits, in order."""
    async with db.engine.connect() as conn:
        await conn.execute(text("SELECT pg_advisory_lock(:k, :g)"),
                           {"k": DELIVERY_LOCK, "g": game_id})
        await conn.commit()

        async def waiting() -> bool:  # (this database's lock of this game: other tests
            # running beside this one wait for their own)
            count = await conn.scalar(text(
                "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted "
                "AND classid = :k AND objid = :g AND objsubid = 2 AND database = "
                "(SELECT oid FROM pg_database WHERE datname = current_database())"),
                {"k": DELIVERY_LOCK, "g": game_id})
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


async def press_now(api: FakeBotAPI, user: FakeUser, message: StoredMessage, data: str) -> None:
    """Press ``data`` (a 🐺 Coyote! that asks, confirmed) and wait for the answers only: the
    move commits; its delivery may wait (no settle: a waiting delivery keeps the bot busy)."""
    await api.wait_answer(await user.press(message, data))
    if data.startswith("cc:"):
        def yes() -> str | None:
            current = current_of(api, message)
            return next((d for _, d in api.buttons(current) if d and d.startswith("c:")), None)
        await wait_for(lambda: yes() is not None)
        await api.wait_answer(await user.press(message, yes() or ""))


def live(api: FakeBotAPI, user: FakeUser) -> list[tuple[str, list]]:
    return [(plain(m.text)[:70], api.buttons(m)[:3]) for m in move_keyboards(api, user)]


async def advisory_waiters(db) -> int:
    async with db.engine.connect() as conn:
        return await conn.scalar(text(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted")) or 0


async def to_bobs_turn(api: FakeBotAPI, players: list[FakeUser], runner,
                       group: int) -> StoredMessage:
    """Seed 3 (Ann, Bob, Cat in turn): Ann bids; Bob's turn message."""
    ann, bob, cat = players[:3]
    runner.app.bot_data[KEY].service.new_seed = lambda: 3
    lobby = await open_lobby(api, [ann, bob, cat], group)
    await ann.press_and_settle(lobby, "▶️ Start")
    await wait_for(lambda: private_turn_message(api, ann) is not None)
    message = private_turn_message(api, ann)
    await press_move(api, ann, message, lowest_bid(api, message))
    await wait_for(lambda: private_turn_message(api, bob) is not None)
    await api.settle(quiet=0.2)
    return private_turn_message(api, bob)
