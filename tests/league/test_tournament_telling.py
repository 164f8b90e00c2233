"""The claim on a tournament's announcement (``MatchService.claim_tell``): held while it is
sent, refused to anyone else meanwhile and once it is marked told; free again the moment its
holder's process dies (on PostgreSQL the claim is a transaction's advisory lock, gone with
its connection), and tried again a while later after a failed send; on PostgreSQL and on
SQLite."""

from __future__ import annotations

from contextlib import suppress

from sqlalchemy import text
from sqlalchemy.exc import OperationalError

from league.service import MatchService
from league.store.db import Database
from league.store.snapshots import UserRef
from league.tournaments.records import TournamentSnapshot
from league.tournaments.telling import RETRY_AFTER, TELL_LOCK
from tests.clock import Clock

CHAT = -4102
ANN, BOB, CAT = (UserRef(i, n, language="en") for i, n in enumerate(["Ann", "Bob", "Cat"], 1))


async def started(service: MatchService) -> TournamentSnapshot:
    cup = await service.open_tournament(CHAT, "G", 0, ANN, "coyote")
    for user in (BOB, CAT):
        cup = await service.join_tournament(cup.id, user)
    cup = await service.start_tournament(cup.id, ANN.id, is_admin=False, version=cup.version)
    assert cup.round == 1 and cup.told_round == 0
    return cup


async def untold(service: MatchService) -> list[int]:
    return [cup.id for cup in await service.untold_tournaments()]


async def test_a_claim_dies_with_its_holder(pg_db: Database) -> None:
    clock = Clock()
    first, second = MatchService(pg_db, clock=clock), MatchService(pg_db, clock=clock)
    cup = await started(first)
    claim = first.claim_tell(cup.id, 1)
    assert await claim.__aenter__()
    async with second.claim_tell(cup.id, 1) as elsewhere:
        assert not elsewhere  # (being sent by the first)
    assert await untold(second) == [cup.id]
    # The first's process is killed while it sends: its connection ends, and so its claim.
    # (Waited for: the backend signalled may still hold the lock for a moment.)
    async with pg_db.engine.begin() as conn:
        assert await conn.scalar(text(
            "SELECT pg_terminate_backend(pid, 10000) FROM pg_locks "
            "WHERE locktype = 'advisory' AND classid = :k AND objid = :t"),
            {"k": TELL_LOCK, "t": cup.id})
    async with second.claim_tell(cup.id, 1) as claimed:
        assert claimed
        await second.told(cup.id, 1)
    async with second.claim_tell(cup.id, 1) as claimed:
        assert not claimed  # (told)
    assert await untold(second) == []
    assert (await second.tournament(cup.id)).told_round == 1
    with suppress(OperationalError):  # (what is left of the first: its connection is gone)
        await claim.__aexit__(None, None, None)


async def test_a_failed_send_is_tried_again_later(pg_db: Database) -> None:
    clock = Clock()
    service = MatchService(pg_db, clock=clock)
    cup = await started(service)
    async with service.claim_tell(cup.id, 1) as claimed:
        assert claimed  # (and the send fails: not marked told)
    assert await untold(service) == []  # (not at every tick)
    clock.advance(RETRY_AFTER.total_seconds() + 1)
    assert await untold(service) == [cup.id]
    async with service.claim_tell(cup.id, 1) as claimed:
        assert claimed
        await service.told(cup.id, 1)
    assert await untold(service) == []
    assert (await service.tournament(cup.id)).told_round == 1


async def test_a_claim_on_sqlite(sqlite_url: str) -> None:
    db = Database(sqlite_url)
    try:
        clock = Clock()
        service = MatchService(db, clock=clock)
        cup = await started(service)
        async with service.claim_tell(cup.id, 1) as claimed:
            assert claimed  # (a failed send)
        assert await untold(service) == []
        clock.advance(RETRY_AFTER.total_seconds() + 1)
        async with service.claim_tell(cup.id, 1) as claimed:
            assert claimed
            await service.told(cup.id, 1)
        async with service.claim_tell(cup.id, 1) as claimed:
            assert not claimed
        assert await untold(service) == [] and \
            (await service.tournament(cup.id)).told_round == 1
    finally:
        await db.dispose()
