"""The inbox: repeats are dropped, a change marks the item being handled done in its own
commit, a refreshed name or a rolled-back change does not, old done items are pruned."""

from __future__ import annotations

import asyncio
from datetime import timedelta

from sqlalchemy import select, update

from league.service import MatchService
from league.store.inbox import CURRENT, Inbox, Item, Work
from league.store.models import InboxItem
from league.store.orm import utcnow
from league.store.snapshots import UserRef

ANN = UserRef(1, "Ann")


async def _done(db, item_id: int) -> bool:
    async with db.sessions() as session:
        return await session.scalar(select(InboxItem.done_at).where(
            InboxItem.id == item_id)) is not None


async def _undone(inbox: Inbox) -> list[Item]:
    return await inbox.take_undone(received_before=utcnow() + timedelta(seconds=1),
                                   taken_for=timedelta(0))


async def test_a_repeat_is_dropped(pg_db) -> None:
    inbox = Inbox(pg_db)
    assert await inbox.store([Item(5, "g1", {"a": 1}), Item(6, "g1", {"b": 2})]) == {5, 6}
    assert await inbox.store([Item(6, "g1", {"b": 2}), Item(7, "c1:0", {})]) == {7}
    later = utcnow() + timedelta(seconds=1)
    assert [i.id for i in await inbox.take_undone(received_before=later,
                                                  taken_for=timedelta(minutes=1))] == [5, 6, 7]


async def test_a_change_marks_the_item_done_in_its_commit(pg_db) -> None:
    inbox, service = Inbox(pg_db), MatchService(pg_db)
    await inbox.store([Item(1, "c-5:0", {}), Item(2, "u1", {})])
    token = CURRENT.set(work := Work(2))
    try:
        await service.touch_user(ANN)  # a name refreshed: not the change the update asked for
        assert not work.done and not await _done(pg_db, 2)
    finally:
        CURRENT.reset(token)
    token = CURRENT.set(work := Work(1))
    try:
        await service.open_lobby(-5, "Group", 0, ANN, "coyote")
        assert work.done and await _done(pg_db, 1)
    finally:
        CURRENT.reset(token)
    assert [i.id for i in await _undone(inbox)] == [2]


async def test_a_refused_change_leaves_the_item_undone(pg_db) -> None:
    inbox, service = Inbox(pg_db), MatchService(pg_db)
    game = await service.open_lobby(-5, "Group", 0, ANN, "coyote")
    await inbox.store([Item(3, f"g{game.id}", {})])
    token = CURRENT.set(work := Work(3))
    try:
        try:
            await service.start(game.id, ANN.id)  # one player: refused, rolled back
        except Exception:
            pass
        assert not work.done and not await _done(pg_db, 3)
    finally:
        CURRENT.reset(token)


async def test_old_done_items_are_pruned(pg_db) -> None:
    inbox = Inbox(pg_db)
    old = utcnow() - timedelta(days=3)
    await inbox.store([Item(1, "a", {}), Item(2, "a", {})], now=old)
    await inbox.store([Item(3, "a", {})])
    await inbox.mark_done([1, 3])
    assert await inbox.prune(timedelta(days=1)) == 1  # 2 is old but undone: kept
    assert [i.id for i in await _undone(inbox)] == [2]


async def test_names_refreshed_on_sight_leave_the_item_undone(pg_db) -> None:
    """The names handler runs before every handler: a renamed player (stored in their games'
    seats too), a group's title and a forum topic's name are not the change an update asked
    for, so a crash before the handler's own commit must leave the update to be handled
    again."""
    inbox, service = Inbox(pg_db), MatchService(pg_db)
    game = await service.open_lobby(-5, "Group", 0, ANN, "coyote")
    await inbox.store([Item(8, f"g{game.id}", {})])
    token = CURRENT.set(work := Work(8))
    try:
        assert await service.refresh_user(UserRef(ANN.id, "Annabel"))
        await service.set_chat_title(-5, "Renamed group")
        await service.set_topic_name(-5, 7, "Tuesdays")
        assert not work.done and not await _done(pg_db, 8)
    finally:
        CURRENT.reset(token)


async def test_an_undone_item_is_taken_by_one_replay_until_its_taker_lets_it_go(
        pg_db) -> None:
    """Two processes' replays never take the same item; one being handled here is left
    out; an item whose taker died is taken again once its time has passed."""
    inbox = Inbox(pg_db)
    await inbox.store([Item(i, "g1", {}) for i in (31, 32, 33)])
    later = utcnow() + timedelta(seconds=1)
    minute = timedelta(minutes=1)
    first, second = await asyncio.gather(
        inbox.take_undone(received_before=later, taken_for=minute, skip=[33]),
        inbox.take_undone(received_before=later, taken_for=minute, skip=[33]))
    assert sorted(i.id for i in [*first, *second]) == [31, 32]
    assert [i.id for i in await inbox.take_undone(received_before=later,
                                                  taken_for=minute)] == [33]
    assert not await inbox.take_undone(received_before=later, taken_for=minute)
    await inbox.mark_done([31])
    gone = await inbox.take_undone(received_before=later, taken_for=-minute)  # (none free)
    assert not gone
    async with pg_db.sessions.begin() as session:  # the takers died a while ago
        await session.execute(update(InboxItem).values(taken_until=utcnow() - minute))
    assert [i.id for i in await inbox.take_undone(received_before=later,
                                                  taken_for=minute)] == [32, 33]
