"""Which polling process leads: sweeps the clocks, shows again what was not shown, and writes
its deliveries' bookkeeping behind (``league.behind``; issue 10).

Writing behind is safe only while one process delivers the games: another process would read
a ``told_version`` that is still held here and tell the same change again. Telegram hands a
bot's updates to one polling process, but a second process can still be running (a deploy's
overlap, a sweeper started twice). So on PostgreSQL the leader is whoever holds a session
advisory lock (keys :data:`LEASE_LOCK`, 0) on a connection kept for it; the server frees it
when that process dies or its connection drops, and the next tick of another process takes
it. A process that does not lead neither sweeps nor writes behind: the updates it is handed
are delivered the webhook way (each in a transaction, under the game's lock). On SQLite
(one process by design) the process always leads.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

log = logging.getLogger(__name__)

CHECK_TIMEOUT = 5.0
"""Seconds the leader's check of its lock's connection may take before it counts as gone."""
LEASE_LOCK = 0x6C65  # the first key of the leader's advisory lock ("le"); the second: 0

_TAKE = text("SELECT pg_try_advisory_lock(:k, 0), pid, backend_start FROM pg_stat_activity "
             "WHERE pid = pg_backend_pid()")
"""Takes the lock if free; with the connection's server process (pid, start) to know it by."""
_END_OLD = text(
    "SELECT pg_terminate_backend(l.pid, 5000) FROM pg_locks l JOIN pg_stat_activity a "
    "ON a.pid = l.pid WHERE l.locktype = 'advisory' AND l.classid = :k AND l.objid = 0 "
    "AND l.granted AND l.pid = :pid AND a.backend_start = :started")
"""Ends this process's own earlier lock connection if the server still holds it: a network
fault that cut the connection on this side only (the server would keep it, and the lock,
until its TCP keepalive gives up) must not leave this process without the lease. Matched by
pid and start, as a server reuses pids; waits up to 5 s for it to end (PostgreSQL 14+)."""


class Lease:
    """The leader's advisory lock, taken and kept by :meth:`hold`. ``db``: a
    :class:`league.db.Database`."""

    def __init__(self, db: Any) -> None:
        self.db = db
        self._conn: AsyncConnection | None = None
        self._backend: tuple[Any, Any] | None = None  # the lock's server process (pid, start)

    @staticmethod
    async def _alive(conn: AsyncConnection) -> None:
        await conn.execute(text("SELECT 1"))
        await conn.commit()  # (not left idle in a transaction)

    @staticmethod
    async def _try(conn: AsyncConnection) -> tuple[Any, Any] | None:
        """The lock taken on ``conn``: its server process (pid, start); ``None``: held
        elsewhere."""
        taken, pid, started = (await conn.execute(_TAKE, {"k": LEASE_LOCK})).one()
        await conn.commit()  # (a session lock outlives the transaction; none stays open)
        return (pid, started) if taken else None

    async def hold(self) -> bool | None:
        """Whether this process leads now: ``True`` (it holds the lock, taken now or still
        held: its connection answers), ``False`` (another process holds it), ``None``
        (unknown: the database did not answer; the caller keeps what it did)."""
        if self.db.dialect != "postgresql":
            return True
        if self._conn is not None:
            try:
                # (bounded: a half-open connection must not stall the sweep for minutes)
                await asyncio.wait_for(self._alive(self._conn), CHECK_TIMEOUT)
                return True
            except Exception:  # noqa: BLE001 - the connection (and with it the lock) is gone
                await self._drop()
        try:
            conn = await self.db.engine.connect()
        except Exception:  # noqa: BLE001 - an outage: logged by the sweep that fails with it
            return None
        try:
            backend = await self._try(conn)
            if backend is None and self._backend is not None and await conn.scalar(
                    _END_OLD, {"k": LEASE_LOCK, "pid": self._backend[0],
                               "started": self._backend[1]}):
                backend = await self._try(conn)
        except Exception:  # noqa: BLE001
            await conn.invalidate()  # (a lock it may hold goes with it)
            return None
        if backend is None:
            try:
                await conn.close()
            except Exception:  # noqa: BLE001
                log.debug("closing a connection failed", exc_info=True)
            return False
        self._conn, self._backend = conn, backend
        log.info("this process leads: it sweeps and writes its deliveries' bookkeeping behind")
        return True

    async def release(self) -> None:
        """Give the lock up (the bot stops): another process may lead at once."""
        if self._conn is None:
            return
        try:
            await self._conn.execute(text("SELECT pg_advisory_unlock_all()"))
            await self._conn.commit()
        except Exception:  # noqa: BLE001 - closing it frees the lock as well
            pass
        await self._drop()

    async def _drop(self) -> None:
        conn, self._conn = self._conn, None
        if conn is None:
            return
        try:
            await conn.invalidate()  # (not back to the pool: it may hold the lock still)
        except Exception:  # noqa: BLE001
            log.debug("dropping the lease's connection failed", exc_info=True)
