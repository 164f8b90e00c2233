"""Pooled connections an outage killed unnoticed are replaced before use (league.store.db's check of
connections idle longer than PING_AFTER), and a busy pool makes no ping per checkout."""

from __future__ import annotations

import asyncio

from sqlalchemy import text
from sqlalchemy.engine import make_url

from league.store import db as league_db
from league.store.db import Database
from tests.e2e.tcp_proxy import TcpProxy


async def test_a_connection_killed_while_idle_is_replaced_before_use(pg_url, monkeypatch):
    monkeypatch.setattr(league_db, "PING_AFTER", 0.2)
    real = make_url(pg_url)
    proxy = await TcpProxy(real.host or "127.0.0.1", real.port or 5432).start()
    database = Database(real.set(port=proxy.port).render_as_string(hide_password=False))
    try:
        async with database.engine.connect() as conn:  # one pooled connection
            assert await conn.scalar(text("SELECT 1")) == 1
        proxy.cut()  # a short outage while it sits idle in the pool: it dies unnoticed
        await asyncio.sleep(0.1)
        proxy.restore()
        await asyncio.sleep(0.3)
        async with database.engine.connect() as conn:  # checked, found dead, replaced
            assert await conn.scalar(text("SELECT 2")) == 2
    finally:
        await database.dispose()
        await proxy.stop()


async def test_a_busy_pool_does_not_ping(pg_url, monkeypatch):
    """Connections reused at once are not pinged; one idle for longer is, once."""
    monkeypatch.setattr(league_db, "PING_AFTER", 0.2)
    database = Database(pg_url)
    dialect = database.engine.sync_engine.dialect
    pings: list[object] = []
    plain = dialect.do_ping

    def counted(dbapi_connection):
        pings.append(dbapi_connection)
        return plain(dbapi_connection)

    monkeypatch.setattr(dialect, "do_ping", counted)
    try:
        for n in range(20):
            async with database.engine.connect() as conn:
                assert await conn.scalar(text(f"SELECT {n}")) == n
        assert pings == []
        await asyncio.sleep(0.3)
        async with database.engine.connect() as conn:
            assert await conn.scalar(text("SELECT 1")) == 1
        assert len(pings) == 1
    finally:
        await database.dispose()
