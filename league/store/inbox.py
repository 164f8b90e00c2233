"""The inbox: updates stored on arrival, each marked done in the commit of its change."""

from __future__ import annotations

import contextvars
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Delete, Insert, Update, bindparam, delete, event, or_, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.orm import ORMExecuteState, Session

from league.store.models import InboxItem, User
from league.store.orm import table_of, utcnow


@dataclass
class Work:
    """The item being handled. ``several``: changes in several transactions (leaving two
    games), marked after its handler, which must skip what a crashed earlier run did."""

    id: int
    done: bool = False
    failed: bool = False
    several: bool = False


# The item the running code works for (None: a timer job, a test, a script).
CURRENT: contextvars.ContextVar[Work | None] = contextvars.ContextVar("inbox_work", default=None)

_NOT_A_CHANGE = frozenset({User.__tablename__, InboxItem.__tablename__})  # users: names seen
NAMES_ONLY = "inbox_names_only"  # session.info: a transaction storing only names seen


class LeagueSession(Session):
    """The league's session class: its commits mark :data:`CURRENT` done (the hooks below)."""


def _changes(session: Session) -> bool:
    return any(getattr(o, "__tablename__", None) not in _NOT_A_CHANGE
               for o in (*session.new, *session.dirty, *session.deleted))


@event.listens_for(LeagueSession, "do_orm_execute")
def _on_execute(state: ORMExecuteState) -> None:
    stmt = state.statement
    if isinstance(stmt, Insert | Update | Delete) and \
            getattr(stmt.table, "name", None) not in _NOT_A_CHANGE:
        state.session.info["changed"] = True


@event.listens_for(LeagueSession, "after_flush")
def _after_flush(session: Session, _context: Any) -> None:
    if _changes(session):
        session.info["changed"] = True


@event.listens_for(LeagueSession, "before_commit")
def _before_commit(session: Session) -> None:
    work = CURRENT.get()
    if work is None or work.done or work.several or session.info.get(NAMES_ONLY):
        return
    if session.info.get("changed") or _changes(session):
        session.execute(_MARK_DONE, {"item": work.id, "now": utcnow()})
        session.info["marks"] = work


@event.listens_for(LeagueSession, "after_commit")
def _after_commit(session: Session) -> None:
    work = session.info.pop("marks", None)
    if work is not None:
        work.done = True
    session.info.pop("changed", None)


# Built once: executed with its parameters, it is found in the compiled cache.
_MARK_DONE = update(table_of(InboxItem)).where(
    table_of(InboxItem).c.id == bindparam("item"), table_of(InboxItem).c.done_at.is_(None)) \
    .values(done_at=bindparam("now"))


@event.listens_for(LeagueSession, "after_rollback")
def _after_rollback(session: Session) -> None:
    session.info.pop("marks", None)
    session.info.pop("changed", None)


@dataclass(frozen=True)
class Item:
    id: int
    lane: str
    payload: dict[str, Any]


class Inbox:
    def __init__(self, db: Any) -> None:
        self.db = db

    async def store(self, items: list[Item], now: datetime | None = None,
                    held_for: timedelta | None = None) -> set[int]:
        """Store ``items`` in one transaction, held by the storer for ``held_for`` (no other
        process's replay takes them meanwhile: :meth:`renew`); returns the ids that were new."""
        if not items:
            return set()
        now = now or utcnow()
        ids = [i.id for i in items]
        held = None if held_for is None else now + held_for
        rows = [{"id": i.id, "lane": i.lane, "payload": i.payload, "received_at": now,
                 "taken_until": held} for i in items]
        async with self.db.sessions.begin() as session:
            if self.db.dialect == "postgresql":  # one statement: what it inserted is new
                table = table_of(InboxItem)  # (Core: no ORM bulk-insert work)
                stmt = pg_insert(table).values(rows).on_conflict_do_nothing(index_elements=["id"])
                return set(await session.scalars(stmt.returning(table.c.id)))
            known = set(await session.scalars(select(InboxItem.id).where(InboxItem.id.in_(ids))))
            fresh = [row for row in rows if row["id"] not in known]
            if fresh:
                await session.execute(sqlite_insert(InboxItem).values(fresh)
                                      .on_conflict_do_nothing(index_elements=["id"]))
            return set(ids) - known

    async def renew(self, ids: Iterable[int], held_for: timedelta) -> None:
        """Hold the undone items ``ids`` (being handled here) for ``held_for`` more."""
        ids = list(ids)
        if ids:
            table = table_of(InboxItem)
            async with self.db.sessions.begin() as session:
                await session.execute(update(table).where(
                    table.c.id.in_(ids), table.c.done_at.is_(None))
                    .values(taken_until=utcnow() + held_for))

    async def take_undone(self, *, taken_for: timedelta, skip: Iterable[int] = (),
                          received_before: datetime | None = None,
                          limit: int = 500) -> list[Item]:
        """Take for ``taken_for`` the undone items nobody holds (their holder let the time
        pass: it died), oldest first; ``SKIP LOCKED``, so two replays never take the same."""
        now = utcnow()
        table = table_of(InboxItem)
        chosen = select(table.c.id).where(
            table.c.done_at.is_(None),
            or_(table.c.taken_until.is_(None), table.c.taken_until < now))
        if received_before is not None:
            chosen = chosen.where(table.c.received_at < received_before)
        skip = list(skip)
        if skip:
            chosen = chosen.where(table.c.id.not_in(skip))
        chosen = chosen.order_by(table.c.id).limit(limit).with_for_update(skip_locked=True)
        async with self.db.sessions.begin() as session:
            rows = await session.execute(
                update(table).where(table.c.id.in_(chosen.scalar_subquery()))
                .values(taken_until=now + taken_for)
                .returning(table.c.id, table.c.lane, table.c.payload))
            return sorted((Item(*row) for row in rows), key=lambda item: item.id)

    async def done_since(self, received_from: datetime, done_from: datetime,
                         done_before: datetime, limit: int = 2000) -> list[Item]:
        """The items received from ``received_from`` on and done from ``done_from`` up to
        (not at) ``done_before``."""
        async with self.db.sessions() as session:
            rows = await session.execute(
                select(InboxItem.id, InboxItem.lane, InboxItem.payload)
                .where(InboxItem.received_at >= received_from, InboxItem.done_at >= done_from,
                       InboxItem.done_at < done_before)
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
        """Delete done items older than ``older_than`` (undone ones are work: kept)."""
        cutoff = (now or utcnow()) - older_than
        async with self.db.sessions.begin() as session:
            result = await session.execute(delete(InboxItem).where(
                InboxItem.done_at.is_not(None), InboxItem.received_at < cutoff))
            return result.rowcount or 0
