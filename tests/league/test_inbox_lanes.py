"""A lane held across processes (PostgreSQL advisory lock) is released by a task that is
cancelled, wherever the cancellation lands: waiting for the lock, right after getting it
(in the read that follows), while the body runs, or in the commit that ends it. A leaked
lock would hold every later update of the lane for good: a pooled connection left in its
transaction would keep it. Another process is played by a second :class:`Database` (its
own pool)."""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import event

from league.db import Database
from league.inbox import Inbox


async def _free(url: str, key: str, seconds: float = 5) -> bool:
    """Whether another process could take the lane ``key`` within ``seconds``."""
    other = Database(url)
    try:
        async def take() -> None:
            async with Inbox(other).lane(key):
                pass
        await asyncio.wait_for(take(), seconds)
        return True
    except TimeoutError:
        return False
    finally:
        await other.dispose()


async def test_a_task_cancelled_in_the_body_releases_the_lane(pg_db, pg_url) -> None:
    inbox = Inbox(pg_db)
    inside = asyncio.Event()

    async def body() -> None:
        async with inbox.lane("g1"):
            inside.set()
            await asyncio.sleep(60)

    task = asyncio.create_task(body())
    await asyncio.wait_for(inside.wait(), 5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await _free(pg_url, "g1")


async def test_a_task_cancelled_while_waiting_for_the_lane_leaves_it_free(
        pg_db, pg_url) -> None:
    inbox = Inbox(pg_db)
    inside, release = asyncio.Event(), asyncio.Event()

    async def holder() -> None:
        async with inbox.lane("g2"):
            inside.set()
            await release.wait()

    async def waiter() -> None:
        async with inbox.lane("g2"):
            await asyncio.sleep(60)  # never reached in time: cancelled while waiting

    first = asyncio.create_task(holder())
    await asyncio.wait_for(inside.wait(), 5)
    second = asyncio.create_task(waiter())
    await asyncio.sleep(0.3)  # (the waiter's lock request is on the server by now)
    second.cancel()
    with pytest.raises(asyncio.CancelledError):
        await second
    release.set()
    await first
    assert await _free(pg_url, "g2")


@pytest.mark.parametrize("statement", ["pg_advisory_xact_lock(", "FROM inbox"])
async def test_a_cancellation_right_after_a_lock_statement_leaks_nothing(
        pg_db, pg_url, statement: str) -> None:
    """The task is cancelled the moment the lock statement (or the read of the lane's items
    that follows it) returned, so the cancellation lands in what follows it (timed by
    SQLAlchemy's event hook, not by a sleep)."""
    inbox = Inbox(pg_db)

    def cancel_now(conn, clauseelement, multiparams, params, execution_options, result):
        if statement in str(clauseelement):
            task = asyncio.current_task()
            assert task is not None
            task.cancel()

    event.listen(pg_db.engine.sync_engine, "after_execute", cancel_now)

    async def body() -> None:
        async with inbox.lane("g3", 10):
            await asyncio.sleep(0)

    task = asyncio.create_task(body())
    try:
        await task
    except asyncio.CancelledError:
        pass
    event.remove(pg_db.engine.sync_engine, "after_execute", cancel_now)
    assert task.cancelled()
    assert await _free(pg_url, "g3")
