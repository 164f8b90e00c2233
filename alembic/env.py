"""Alembic environment: synchronous connection (psycopg 3 or sqlite3), batch mode on SQLite.

The app migrates through :func:`league.store.db.upgrade`, which passes the URL in. The ``alembic``
command line (with ``alembic.ini``) reads ``DATABASE_URL`` like the app does, so
``DATABASE_URL=... .venv/bin/alembic revision --autogenerate`` compares against that database.
"""

import os

from alembic import context
from sqlalchemy import create_engine, pool, text

from league.store.db import sync_url
from league.store.models import Base

config = context.config
target_metadata = Base.metadata
MIGRATION_LOCK = 0x436F796F  # any fixed number: one advisory lock for every process
"""On PostgreSQL, two bot processes starting together (a redeploy) migrate one after the
other: the second waits on this lock, then finds the schema already at head."""


def _url() -> str:
    if config.config_file_name is not None:  # the alembic command line
        return sync_url(os.environ.get("DATABASE_URL"))
    return config.get_main_option("sqlalchemy.url")


def run_migrations_offline() -> None:
    context.configure(url=_url(), target_metadata=target_metadata, literal_binds=True,
                      render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    engine = create_engine(_url(), poolclass=pool.NullPool, hide_parameters=True)
    with engine.connect() as connection:
        context.configure(connection=connection, target_metadata=target_metadata,
                          render_as_batch=connection.dialect.name == "sqlite")
        with context.begin_transaction():
            if connection.dialect.name == "postgresql":
                connection.execute(text("SELECT pg_advisory_xact_lock(:key)"),
                                   {"key": MIGRATION_LOCK})
            context.run_migrations()
    engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
