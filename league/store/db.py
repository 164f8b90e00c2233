"""Database URLs, the async engine and session factory, and schema migrations through Alembic."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DisconnectionError
from sqlalchemy.ext.asyncio import (
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)

from league.store import inbox

ALEMBIC_DIR = Path(__file__).resolve().parents[2] / "alembic"
DEFAULT_URL = "sqlite+aiosqlite:///coyote-league.sqlite3"


def async_url(url: str | None) -> str:
    """The URL with an async driver (psycopg 3, aiosqlite); ``None``: the SQLite default."""
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
    """Bring the schema to ``revision`` (blocking: run it outside the loop or in a thread)."""
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(ALEMBIC_DIR))
    config.set_main_option("sqlalchemy.url", sync_url(url).replace("%", "%%"))
    command.upgrade(config, revision)


class Database:
    """An async engine and its session factory (whose commits mark inbox items done)."""

    def __init__(self, url: str | None = None) -> None:
        self.url = async_url(url)
        # Sized for handlers and deliveries (which hold one while sending): overflow ones are
        # opened per use, costlier than the statements (pool of 10: 2,000 connects in 15 s).
        # LIFO: quiet times reuse the same few. hide_parameters: an error (or echo) shows
        # no statement's parameters: the inbox's are users' updates (message texts, presses).
        self.engine: AsyncEngine = create_async_engine(
            self.url, pool_size=20, max_overflow=20, pool_use_lifo=True, hide_parameters=True)
        if self.engine.dialect.name == "sqlite":
            event.listen(self.engine.sync_engine, "connect", _sqlite_pragmas)
        else:
            _ping_idle_connections(self.engine)
        self.sessions = async_sessionmaker(self.engine, expire_on_commit=False,
                                           class_=AsyncSession,
                                           sync_session_class=inbox.LeagueSession)

    @property
    def dialect(self) -> str:
        return self.engine.dialect.name

    async def dispose(self) -> None:
        await self.engine.dispose()


PING_AFTER = 1.0  # seconds idle after which a pooled connection is pinged when taken


def _ping_idle_connections(engine: AsyncEngine) -> None:
    """``pool_pre_ping`` for idle connections only: one just used is alive (or invalidated)."""
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
