"""Shared fixtures: a real PostgreSQL database per test session, migrated with Alembic.

The server comes from ``TEST_DATABASE_URL`` (default: the local cluster on 127.0.0.1:5432,
trust auth). A server that does not answer fails the tests: they are never skipped.

What a test needs is a marker (registered in pyproject.toml): ``postgres`` and ``browser`` are
added here from the test's fixtures, ``process`` is written by the modules that start one.
``make unit`` runs the tests that have none of them: they need nothing running.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator, Iterator

import psycopg
import pytest
from sqlalchemy import text
from sqlalchemy.engine import make_url

from league.store.db import Database, upgrade
from league.store.models import Base

ADMIN_URL = os.environ.get("TEST_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/test")
TABLES = tuple(t.name for t in reversed(Base.metadata.sorted_tables))


# A test whose fixture closure (its fixtures and theirs) holds one of these needs that service.
# A test that reaches PostgreSQL without them (tests/league/test_migrations.py) is marked by
# hand; a test on SQLite alone (the ``sqlite_url`` fixture) needs none.
POSTGRES_FIXTURES = frozenset({"pg_url", "pg_db"})
BROWSER_FIXTURES = frozenset({"browser"})  # tests/miniapp: Playwright on the system Chromium


@pytest.hookimpl(tryfirst=True)  # before ``-m`` deselects by marker
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        needs = set(getattr(item, "fixturenames", ()))
        if needs & POSTGRES_FIXTURES:
            item.add_marker(pytest.mark.postgres)
        if needs & BROWSER_FIXTURES:
            item.add_marker(pytest.mark.browser)


def _libpq(url: str) -> str:
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


@pytest.fixture(scope="session")
def pg_url() -> Iterator[str]:
    """A fresh, migrated PostgreSQL database for this test session; dropped afterwards."""
    admin = _libpq(ADMIN_URL)
    name = f"coyote_test_{uuid.uuid4().hex[:10]}"
    try:
        conn = psycopg.connect(admin, autocommit=True, connect_timeout=5)
    except psycopg.OperationalError as exc:
        pytest.fail(f"PostgreSQL at {ADMIN_URL} does not answer ({exc}); start it "
                    "(see .ci/run) or set TEST_DATABASE_URL", pytrace=False)
    with conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    url = make_url(admin).set(database=name).render_as_string(hide_password=False)
    upgrade(url)
    yield url
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
async def pg_db(pg_url: str) -> AsyncIterator[Database]:
    """A :class:`Database` on the session's PostgreSQL database, emptied before the test."""
    db = Database(pg_url)
    async with db.engine.begin() as conn:
        await conn.execute(text(f"TRUNCATE {', '.join(TABLES)} RESTART IDENTITY CASCADE"))
    yield db
    await db.dispose()


@pytest.fixture
def sqlite_url(tmp_path) -> str:
    """A migrated SQLite file in the test's temporary folder."""
    url = f"sqlite+aiosqlite:///{tmp_path / 'league.sqlite3'}"
    upgrade(url)
    return url
