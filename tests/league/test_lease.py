"""Which polling process leads (league.lease): one at a time holds the lease, sweeps and writes
its deliveries' bookkeeping behind; the others do neither, and one of them leads once the
leader stops or its connection drops. Against real PostgreSQL."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from sqlalchemy import text

from league.db import Database
from league.lease import LEASE_LOCK
from league.service import MatchService


def _polling(db: Database) -> MatchService:
    service = MatchService(db)
    service.write_behind()
    return service


@pytest.fixture
async def two(pg_url: str) -> AsyncIterator[tuple[MatchService, MatchService]]:
    """Two polling processes' services on one database (each its own engine)."""
    dbs = (Database(pg_url), Database(pg_url))
    services = (_polling(dbs[0]), _polling(dbs[1]))
    yield services
    for service, db in zip(services, dbs, strict=True):
        await service.resign()
        await db.dispose()


async def test_one_process_leads_and_another_leads_once_it_resigns(two) -> None:
    first, second = two
    assert await first.lead() and await first.lead()  # (still held: answered again)
    assert first.ctx.behind is not None
    assert not await second.lead()
    assert second.ctx.behind is None, "a process that does not lead writes nothing behind"
    await first.resign()
    assert await second.lead() and second.ctx.behind is not None
    assert not await first.lead() and first.ctx.behind is None


async def test_a_leader_whose_connection_dropped_gives_way(two) -> None:
    """The server frees the lock of a connection that dropped (a killed process): another
    process leads at its next tick, and the old leader, back, flushes and stops writing
    behind."""
    first, second = two
    assert await first.lead()
    async with second.ctx.db.engine.begin() as conn:
        await conn.execute(text(
            "SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' "
            "AND classid = :k AND objid = 0 AND granted"), {"k": LEASE_LOCK})
    assert await second.lead()
    assert not await first.lead() and first.ctx.behind is None


async def test_webhook_workers_all_sweep_and_never_write_behind(pg_db: Database) -> None:
    workers = [MatchService(pg_db), MatchService(pg_db)]
    for worker in workers:
        assert await worker.lead() and worker.ctx.behind is None


async def test_a_leader_cut_off_on_its_side_only_takes_its_lease_back(pg_url: str) -> None:
    """A network fault cut the lease's connection on this side while the server keeps it
    (and the lock): this process ends that server process and leads again."""
    db = Database(pg_url)
    service = _polling(db)
    try:
        assert await service.lead()
        lease = service.deliveries._lease
        orphan, lease._conn = lease._conn, None  # (still open at the server, lock held)
        assert await service.lead()
        await orphan.invalidate()
    finally:
        await service.resign()
        await db.dispose()
