"""The inbox: requests from the platform, stored before the platform is told they arrived, and
marked done in the same transaction as the change they caused.

The bot (``telegram_app.intake``) stores each update with :meth:`Inbox.store`, then handles it
while :data:`CURRENT` names it. Every transaction of the league that commits a change (any
table but ``users``, whose rows are only names refreshed on sight) then also sets the item's
``done_at``, in that commit (:func:`install`): a crash before the commit leaves the item undone,
so it is handled again after a restart; a crash after it leaves it done, so it is never applied
twice. A request that changed nothing is marked done once handled (:meth:`Inbox.mark_done`).

An item may also be handled before it is stored (:attr:`Work.unstored`: the bot's polling
intake defers the store of a button press, issue 10): then the commit of its change *inserts*
it, done, and one that changed nothing is inserted done once handled (:meth:`Inbox.store_done`).
The caller must not tell the platform the request arrived before one of those, or a plain
:meth:`Inbox.store`, has committed.

Lanes: a string key (a game, or a chat's topic). On PostgreSQL :meth:`Inbox.lane` holds an
advisory lock on the key for as long as one request of the lane is handled, so several
processes never handle two requests of one lane at once; on SQLite (one process) it holds
nothing and the caller's in-process lock is all there is.
"""

from __future__ import annotations

import contextvars
from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import (
    Delete,
    Insert,
    Update,
    bindparam,
    delete,
    event,
    func,
    select,
    text,
    update,
)
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.orm import ORMExecuteState, Session

from league.models import InboxItem, User, table_of, utcnow


@dataclass
class Work:
    """The inbox item being handled in this context: its ``id``; ``done`` once a commit (or
    :meth:`Inbox.mark_done`) marked it; ``failed``: the handler met an outage (left undone);
    ``several``: the request asks for several changes, each its own transaction (a departure
    from a group with two games), so no commit marks it done; the caller marks it once the
    handler returned, and a crash in between has the request handled again (its handler
    must then skip what is done already); ``unstored``: the item itself when it is not in the
    inbox yet (its marking commit inserts it); ``on_done``: called once a commit marked it."""

    id: int
    done: bool = False
    failed: bool = False
    several: bool = False
    unstored: Item | None = None
    on_done: Callable[[], None] | None = None


CURRENT: contextvars.ContextVar[Work | None] = contextvars.ContextVar("inbox_work",
                                                                      default=None)
"""The inbox item the running code works for (``None``: a timer job, a test, a script)."""

_NOT_A_CHANGE = frozenset({User.__tablename__, InboxItem.__tablename__})
NAMES_ONLY = "inbox_names_only"
"""``session.info`` key: set it in a transaction that only stores names seen on an update
(a player's name in their seats, a group's title, a topic's name), which is not the change
the update asked for either, so its commit leaves the item undone."""


class LeagueSession(Session):
    """The league's session class: its commits mark :data:`CURRENT` done (see :func:`install`)."""


def install() -> None:
    """Register the session hooks on :class:`LeagueSession` (idempotent)."""
    if event.contains(LeagueSession, "before_commit", _before_commit):
        return
    event.listen(LeagueSession, "do_orm_execute", _on_execute)
    event.listen(LeagueSession, "after_flush", _after_flush)
    event.listen(LeagueSession, "before_commit", _before_commit)
    event.listen(LeagueSession, "after_commit", _after_commit)
    event.listen(LeagueSession, "after_rollback", _after_rollback)


def _changes(objects: Iterable[Any]) -> bool:
    return any(getattr(o, "__tablename__", None) not in _NOT_A_CHANGE for o in objects)


def _on_execute(state: ORMExecuteState) -> None:
    stmt = state.statement
    if isinstance(stmt, Insert | Update | Delete) and \
            getattr(stmt.table, "name", None) not in _NOT_A_CHANGE:
        state.session.info["changed"] = True


def _after_flush(session: Session, _context: Any) -> None:
    if _changes([*session.new, *session.dirty, *session.deleted]):
        session.info["changed"] = True


def _before_commit(session: Session) -> None:
    work = CURRENT.get()
    if work is None or work.done or work.several or session.info.get(NAMES_ONLY):
        return
    if session.info.get("changed") or _changes([*session.new, *session.dirty,
                                                *session.deleted]):
        now = utcnow()
        if work.unstored is not None:  # (handled before it was stored: insert it, done)
            item = work.unstored
            session.execute(_INSERT_DONE[session.get_bind().dialect.name],
                            {"id": item.id, "lane": item.lane, "payload": item.payload,
                             "received_at": now, "done_at": now})
        else:
            session.execute(_MARK_DONE, {"item": work.id, "now": now})
        session.info["marks"] = work


def _after_commit(session: Session) -> None:
    work = session.info.pop("marks", None)
    if work is not None:
        work.done = True
        if work.on_done is not None:
            work.on_done()
    session.info.pop("changed", None)


def _insert_done_statement(insert: Any) -> Any:
    """An item inserted as done (Core, one statement, parameters named as the columns); one
    stored meanwhile (a deferred store that gave up waiting, :meth:`Inbox.store`) is marked
    done instead."""
    table = table_of(InboxItem)
    stmt = insert(table)
    return stmt.on_conflict_do_update(index_elements=["id"],
                                      set_={"done_at": stmt.excluded.done_at},
                                      where=table.c.done_at.is_(None))


# The statements of every press, built once (issue 10: built anew, this insert's construction
# and cache key took 0.8 ms of CPU against 0.3 ms for executing it prebuilt, measured alone);
# executed with their parameters, they are found in the compiled cache.
_INSERT_DONE = {"postgresql": _insert_done_statement(pg_insert),
                "sqlite": _insert_done_statement(sqlite_insert)}
_MARK_DONE = update(table_of(InboxItem)).where(
    table_of(InboxItem).c.id == bindparam("item"), table_of(InboxItem).c.done_at.is_(None)) \
    .values(done_at=bindparam("now"))


def _after_rollback(session: Session) -> None:
    session.info.pop("marks", None)
    session.info.pop("changed", None)


@dataclass(frozen=True)
class Item:
    """An inbox row, detached: ``id``, ``lane``, ``payload`` (the raw JSON)."""

    id: int
    lane: str
    payload: dict[str, Any]


class Inbox:
    """The inbox of ``db`` (a :class:`league.db.Database`)."""

    def __init__(self, db: Any) -> None:
        self.db = db

    async def store(self, items: list[Item], now: datetime | None = None) -> set[int]:
        """Store ``items`` in one transaction; returns the ids that were new (a repeat of a
        stored id is dropped). Raises the driver's error when the database is unreachable
        (then nothing was stored)."""
        if not items:
            return set()
        now = now or utcnow()
        ids = [i.id for i in items]
        insert = pg_insert if self.db.dialect == "postgresql" else sqlite_insert
        async with self.db.sessions.begin() as session:
            if self.db.dialect == "postgresql":  # one statement: what it inserted is new
                table = table_of(InboxItem)  # (Core: no ORM bulk-insert work)
                stmt = insert(table).values([
                    {"id": i.id, "lane": i.lane, "payload": i.payload, "received_at": now}
                    for i in items]).on_conflict_do_nothing(index_elements=["id"])
                return set(await session.scalars(stmt.returning(table.c.id)))
            known = set(await session.scalars(select(InboxItem.id).where(InboxItem.id.in_(ids))))
            fresh = [i for i in items if i.id not in known]
            if fresh:
                await session.execute(insert(InboxItem).values([
                    {"id": i.id, "lane": i.lane, "payload": i.payload, "received_at": now}
                    for i in fresh]).on_conflict_do_nothing(index_elements=["id"]))
            return {i.id for i in fresh}

    async def store_done(self, items: list[Item]) -> None:
        """Store ``items`` as done, in one transaction (handled before they were stored, and
        changed nothing); one stored meanwhile is marked done. Raises the driver's error
        when the database is unreachable."""
        if items:
            now = utcnow()
            async with self.db.sessions.begin() as session:
                await session.execute(_INSERT_DONE[self.db.dialect], [
                    {"id": i.id, "lane": i.lane, "payload": i.payload, "received_at": now,
                     "done_at": now} for i in items])

    async def newest_id(self) -> int:
        """The highest id stored (0 for an empty inbox): an id above it cannot be a repeat
        of a stored item."""
        async with self.db.sessions() as session:
            return int(await session.scalar(select(func.max(InboxItem.id))) or 0)

    async def undone_upto(self, lane: str, upto: int) -> list[Item]:
        """The undone items of ``lane`` with an id up to ``upto``, oldest first."""
        async with self.db.sessions() as session:
            rows = await session.execute(
                select(InboxItem.id, InboxItem.lane, InboxItem.payload)
                .where(InboxItem.lane == lane, InboxItem.done_at.is_(None),
                       InboxItem.id <= upto).order_by(InboxItem.id))
            return [Item(*row) for row in rows]

    async def undone(self, *, received_before: datetime | None = None,
                     limit: int = 500) -> list[Item]:
        """Undone items (received before ``received_before`` when given), oldest first."""
        stmt = select(InboxItem.id, InboxItem.lane, InboxItem.payload).where(
            InboxItem.done_at.is_(None))
        if received_before is not None:
            stmt = stmt.where(InboxItem.received_at < received_before)
        async with self.db.sessions() as session:
            rows = await session.execute(stmt.order_by(InboxItem.id).limit(limit))
            return [Item(*row) for row in rows]

    async def done_since(self, received_after: datetime, received_before: datetime,
                         limit: int = 2000) -> list[Item]:
        """Done items received between the two moments, oldest first (at most ``limit``):
        after a restart, the requests whose sender may still be owed an answer (their change
        committed, then the process died before it answered)."""
        async with self.db.sessions() as session:
            rows = await session.execute(
                select(InboxItem.id, InboxItem.lane, InboxItem.payload)
                .where(InboxItem.done_at.is_not(None), InboxItem.received_at > received_after,
                       InboxItem.received_at < received_before)
                .order_by(InboxItem.id).limit(limit))
            return [Item(*row) for row in rows]

    async def mark_done(self, ids: Iterable[int]) -> None:
        """Mark items done (handled without a change, or given up on)."""
        ids = list(ids)
        if not ids:
            return
        async with self.db.sessions.begin() as session:
            await session.execute(update(InboxItem).where(InboxItem.id.in_(ids),
                                                          InboxItem.done_at.is_(None))
                                  .values(done_at=utcnow()))

    async def prune(self, older_than: timedelta, now: datetime | None = None) -> int:
        """Delete done items received more than ``older_than`` ago; returns how many. Undone
        items are kept whatever their age (they are work)."""
        cutoff = (now or utcnow()) - older_than
        async with self.db.sessions.begin() as session:
            result = await session.execute(delete(InboxItem).where(
                InboxItem.done_at.is_not(None), InboxItem.received_at < cutoff))
            return result.rowcount or 0

    @asynccontextmanager
    async def lane(self, key: str, upto: int | None = None) -> AsyncIterator[list[Item]]:
        """Hold ``key``'s lane across processes while the body runs, and yield the lane's
        undone items with an id up to ``upto`` (:meth:`undone_upto`; none when ``upto`` is
        ``None``), read once the lane is held. PostgreSQL: a transaction advisory lock in a
        transaction of its own connection, open while the body runs, so taking the lane,
        reading its items and releasing it is one transaction (issue 10: a press's
        transactions); it ends when the body ends or the process dies. SQLite: nothing is
        held."""
        if self.db.dialect != "postgresql":
            yield [] if upto is None else await self.undone_upto(key, upto)
            return
        async with self.db.engine.connect() as conn:
            clean = False
            try:
                await conn.execute(text("SELECT pg_advisory_xact_lock(hashtextextended(:key, "
                                        "0))"), {"key": key})
                items: list[Item] = []
                if upto is not None:
                    rows = await conn.execute(
                        select(InboxItem.id, InboxItem.lane, InboxItem.payload)
                        .where(InboxItem.lane == key, InboxItem.done_at.is_(None),
                               InboxItem.id <= upto).order_by(InboxItem.id))
                    items = [Item(*row) for row in rows]
                yield items
                await conn.commit()  # (read only: the commit releases the lock)
                clean = True
            finally:
                if not clean:
                    # Cancelled or failed anywhere (waiting for the lock, in the body, in the
                    # commit): closing the server session ends the transaction and its lock
                    # for sure, whatever state the connection is in.
                    await _close(conn)


async def _close(conn: Any) -> None:
    """Invalidate ``conn`` (its server session ends, and with it its advisory locks),
    whatever state it is in."""
    try:
        await conn.invalidate()
    except Exception:  # noqa: BLE001 - a dead connection is what we want
        pass
