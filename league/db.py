"""Database URLs, the async engine and session factory, and schema migrations through Alembic."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import event
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import (
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)

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


class Database:
    """An async engine and its session factory. ``url`` as accepted by :func:`async_url`."""

    def __init__(self, url: str | None = None, *, echo: bool = False) -> None:
        self.url = async_url(url)
        # PostgreSQL: room for the deliveries' lock connections (telegram_app.presenter
        # .DELIVERIES) beside the handlers' transactions.
        pool = {"pool_size": 10, "max_overflow": 20} if self.url.startswith("postgresql") \
            else {}
        self.engine: AsyncEngine = create_async_engine(self.url, echo=echo, **pool)
        if self.engine.dialect.name == "sqlite":
            event.listen(self.engine.sync_engine, "connect", _sqlite_pragmas)
        self.sessions = async_sessionmaker(self.engine, expire_on_commit=False,
                                           class_=AsyncSession)

    @property
    def dialect(self) -> str:
        """``"postgresql"`` or ``"sqlite"``."""
        return self.engine.dialect.name

    async def dispose(self) -> None:
        """Close every pooled connection."""
        await self.engine.dispose()


def _sqlite_pragmas(dbapi_connection, _record) -> None:  # type: ignore[no-untyped-def]
    # Foreign keys are off by default in SQLite; WAL lets readers work beside one writer.
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA busy_timeout=5000")
    cursor.close()
