"""A throwaway, migrated PostgreSQL database for a benchmark run."""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import psycopg
from sqlalchemy.engine import make_url

from league.store.db import Database, upgrade

ADMIN = os.environ.get("TEST_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/test")


@asynccontextmanager
async def throwaway_database() -> AsyncIterator[Database]:
    """Create a database on the server at ``TEST_DATABASE_URL``, migrate it, yield a
    :class:`Database` on it, and drop it afterwards."""
    name = f"coyote_bench_{uuid.uuid4().hex[:8]}"
    admin = make_url(ADMIN).set(drivername="postgresql").render_as_string(hide_password=False)
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    url = make_url(admin).set(database=name).render_as_string(hide_password=False)
    db = None
    try:
        await asyncio.to_thread(upgrade, url)
        db = Database(url)
        yield db
    finally:
        if db is not None:
            await db.dispose()
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
