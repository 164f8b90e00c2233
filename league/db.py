"""Database URLs, the async engine and session factory, and schema migrations through Alembic."""

from __future__ import annotations

import asyncio
import contextvars
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import Executable, event
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DisconnectionError
from sqlalchemy.ext.asyncio import (
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)

from league import behind, inbox

ALEMBIC_DIR = Path(__file__).resolve().parent.parent / "alembic"
DEFAULT_URL = "sqlite+aiosqlite:///coyote-league.sqlite3"


def async_url(url: str | None) -> str:
    """Normalise a database URL to an async driver.

    ``None``/empty gives the embedded SQLite default; ``postgresql://`` and ``postgres://`` get
    psycopg 3 (``postgresql+psycopg://``); ``sqlite://`` gets aiosqlite.
    """
    if not url:
        return DEFAULT_URL
    parsed = make_url(url.replace("postgres://", "postgresql://", 1))
    if parsed.drivername in ("postgresql", "postgresql+psycopg2", "postgresql+asyncpg"):
        parsed = parsed.set(drivername="postgresql+psycopg")
    elif parsed.drivername in ("sqlite", "sqlite+pysqlite"):
        parsed = parsed.set(drivername="sqlite+aiosqlite")
    return parsed.render_as_string(hide_password=False)


def sync_url(url: str | None) -> str:
    """The same database through a synchronous driver, for Alembic (psycopg 3 does both)."""
    parsed = make_url(async_url(url))
    if parsed.drivername == "sqlite+aiosqlite":
        parsed = parsed.set(drivername="sqlite")
    return parsed.render_as_string(hide_password=False)


def upgrade(url: str | None, revision: str = "head") -> None:
    """Bring the schema at ``url`` to ``revision`` (blocking; run it outside the event loop or in
    a thread, because Alembic's environment opens its own synchronous connection)."""
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(ALEMBIC_DIR))
    config.set_main_option("sqlalchemy.url", sync_url(url).replace("%", "%%"))
    command.upgrade(config, revision)


@dataclass
class Ambient:
    """A delivery's context (``league.delivery``). ``session``: its open transaction, which
    :meth:`Database.session` and :meth:`Database.begin` hand out instead of new ones in this
    context; ``None`` when its bookkeeping is written behind (``behind``, a
    :class:`league.behind.Behind`; ``game``: the game it delivers, as it drew it).
    ``lock``: one user of the session at a time (an ``AsyncSession`` is not safe for
    concurrent use, and a delivery sends several messages at once)."""

    session: AsyncSession | None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    deferred: list[Executable] = field(default_factory=list)
    claimed: set[tuple[int, int, int]] = field(default_factory=set)  # (game, user, hand)
    behind: Any = None
    game: Any = None
    posted: bool = False  # (written behind: a message was posted, whose id is written at the end)

    async def flush(self) -> None:
        """Execute the :meth:`Database.later` statements noted so far (the caller holds
        :attr:`lock`, or is the owner with nothing else running)."""
        while self.deferred and self.session is not None:
            await self.session.execute(self.deferred.pop(0))


AMBIENT: contextvars.ContextVar[Ambient | None] = contextvars.ContextVar("league_ambient",
                                                                       default=None)
"""The :class:`Ambient` session of the running code, if any (tasks started from it share it)."""


class Database:
    """An async engine and its session factory. ``url`` as accepted by :func:`async_url`.
    A session's commit that changes something marks the inbox item being handled done
    (:mod:`league.inbox`)."""

    def __init__(self, url: str | None = None, *, echo: bool = False,
                 pool_size: int = 10) -> None:
        self.url = async_url(url)
        # The pool is sized for the deliveries and handlers at once (a delivery holds a
        # connection for its lock); LIFO, so that busy times reuse the same few connections.
        self.engine: AsyncEngine = create_async_engine(self.url, echo=echo,
                                                       pool_size=pool_size,
                                                       max_overflow=3 * pool_size,
                                                       pool_use_lifo=True)
        if self.engine.dialect.name == "sqlite":
            event.listen(self.engine.sync_engine, "connect", _sqlite_pragmas)
        else:
            _ping_idle_connections(self.engine)
        inbox.install()
        behind.install(inbox.LeagueSession)
        self.versions = behind.Versions()
        """The newest version of each game this process committed (``league.behind``)."""
        self.sessions = async_sessionmaker(self.engine, expire_on_commit=False,
                                           class_=AsyncSession,
                                           sync_session_class=inbox.LeagueSession,
                                           info={"versions": self.versions})

    @asynccontextmanager
    async def session(self, *, deferred: bool = False) -> AsyncIterator[AsyncSession]:
        """A session for a read: the :data:`AMBIENT` one when the running code has one (it
        sees that transaction's writes; with ``deferred``, the :meth:`later` ones too, which
        are executed first and then hold their rows), else a new one, closed at the end."""
        ambient = AMBIENT.get()
        if ambient is None or ambient.session is None:
            async with self.sessions() as session:
                yield session
            return
        async with ambient.lock:
            if deferred:
                await ambient.flush()
            yield ambient.session

    @asynccontextmanager
    async def begin(self) -> AsyncIterator[AsyncSession]:
        """A session for a bookkeeping write: the :data:`AMBIENT` one when the running code
        has one (flushed at the end; its owner commits it), else a new transaction,
        committed at the end. Only for writes that may wait for the owner's commit (the
        rows of the game being delivered): anything else takes ``sessions.begin()``."""
        ambient = AMBIENT.get()
        if ambient is None or ambient.session is None:
            async with self.sessions.begin() as session:
                yield session
            return
        async with ambient.lock:
            yield ambient.session
            await ambient.session.flush()

    async def later(self, statement: Executable) -> None:
        """Execute a bookkeeping write on a row a move also writes (the game's row, its
        players'): in an :data:`AMBIENT` transaction, noted and executed by its owner just
        before its commit, so that the row is not held locked (and a move
        of the game kept waiting) while the owner sends; else now, in a transaction of
        its own. (``session(deferred=True)`` reads them before the commit.)"""
        ambient = AMBIENT.get()
        if ambient is None or ambient.session is None:
            async with self.sessions.begin() as session:
                await session.execute(statement)
            return
        ambient.deferred.append(statement)

    @property
    def dialect(self) -> str:
        """``"postgresql"`` or ``"sqlite"``."""
        return self.engine.dialect.name

    async def dispose(self) -> None:
        """Close every pooled connection."""
        await self.engine.dispose()


PING_AFTER = 1.0
"""Seconds a pooled connection may have been idle before it is checked with a round trip
when taken (:func:`_ping_idle_connections`)."""


def _ping_idle_connections(engine: AsyncEngine) -> None:
    """Check a connection taken from the pool after :data:`PING_AFTER` seconds idle, and
    replace it if it is dead (SQLAlchemy's pessimistic disconnect handling: a
    ``DisconnectionError`` in a ``checkout`` listener makes the pool connect anew). This is
    ``pool_pre_ping`` for the connections an outage could have killed unnoticed: one used a
    moment ago is alive or was invalidated with the whole pool when its failure was seen
    (SQLAlchemy does that on a disconnect), so a busy bot makes no round trip per checkout
    (PostgreSQL counts each ping as a transaction: issue 10)."""
    sync = engine.sync_engine

    def checkin(_dbapi: Any, record: Any) -> None:
        record.info["idle_since"] = time.monotonic()

    def checkout(dbapi: Any, record: Any, _proxy: Any) -> None:
        since = record.info.pop("idle_since", None)
        if since is None or time.monotonic() - since < PING_AFTER:
            return  # (a new connection, or one just used)
        try:
            sync.dialect.do_ping(dbapi)
        except Exception as exc:
            raise DisconnectionError(f"a pooled connection is dead: {exc}") from exc

    event.listen(sync, "checkin", checkin)
    event.listen(sync, "checkout", checkout)


def _sqlite_pragmas(dbapi_connection, _record) -> None:  # type: ignore[no-untyped-def]
    # Foreign keys are off by default in SQLite; WAL lets readers work beside one writer.
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA busy_timeout=5000")
    cursor.close()
