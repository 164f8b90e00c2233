"""Delivery bookkeeping written behind (league.behind): one process delivering every game holds
what its deliveries wrote, lays it over every read, and writes it for many games in one
transaction; a flush that fails keeps it held. Against real PostgreSQL."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from sqlalchemy import event, select, update

from league import behind as behind_module
from league.db import Database
from league.models import Game as GameRow
from league.models import GamePlayer
from league.rows import SENDING
from league.service import MatchService
from league.snapshots import UserRef

CHAT = -1002
USERS = [UserRef(i, f"P{i}") for i in range(1, 5)]


async def _running(service: MatchService, chat: int = CHAT) -> int:
    lobby = await service.open_lobby(chat, "Group", 0, USERS[0], "coyote")
    for user in USERS[1:3]:
        await service.join(lobby.id, user)
    await service.start(lobby.id, USERS[0].id)
    return lobby.id


async def _stored(db: Database, game_id: int) -> tuple:
    async with db.sessions() as session:
        told, table = (await session.execute(select(
            GameRow.told_version, GameRow.table_message_id).where(GameRow.id == game_id))).one()
        private = dict((await session.execute(select(
            GamePlayer.user_id, GamePlayer.private_message_id)
            .where(GamePlayer.game_id == game_id))).all())
    return told, table, private


@pytest.fixture
async def leader(pg_db: Database) -> AsyncIterator[MatchService]:
    """A service of a polling process that leads (``league.lease``): it writes behind."""
    service = MatchService(pg_db)
    service.write_behind()
    assert await service.lead()
    yield service
    await service.resign()


def _count_transactions(db: Database) -> list[int]:
    ended: list[int] = []
    event.listen(db.engine.sync_engine, "commit", lambda _conn: ended.append(1))
    return ended


async def test_a_delivery_that_only_tells_writes_nothing_until_one_flush_for_all(
        pg_db: Database, leader: MatchService) -> None:
    service = leader
    games = [await _running(service, CHAT - n) for n in range(3)]
    before = {g: await _stored(pg_db, g) for g in games}
    ended = _count_transactions(pg_db)
    for game_id in games:
        hint = await service.get(game_id)
        async with service.delivering(game_id, hint) as delivery:
            assert await service.claim_private(game_id, USERS[1].id, 1)
            assert not await service.claim_private(game_id, USERS[1].id, 1)  # claimed
            delivery.told(hint.version)
    assert not ended, "a delivery that posted nothing commits nothing"
    for game_id in games:  # every read of this process sees it at once
        seen = await service.get(game_id)
        assert seen.told_version == seen.version
        assert seen.player(USERS[1].id).private_message_id == SENDING
        assert await _stored(pg_db, game_id) == before[game_id]  # the database: not yet
    await service.flush_behind()
    assert len(ended) == 1, "one transaction writes every game's bookkeeping"
    for game_id in games:
        told, _table, private = await _stored(pg_db, game_id)
        assert (told, private[USERS[1].id]) == ((await service.get(game_id)).version, SENDING)


async def test_a_delivery_that_posted_writes_its_ids_when_it_ends(
        pg_db: Database, leader: MatchService) -> None:
    """A lost id would have the next delivery post the message again: written at the end of
    the delivery that posted it, in one transaction with everything else held."""
    service = leader
    game_id = await _running(service)
    ended = _count_transactions(pg_db)
    async with service.delivering(game_id, await service.get(game_id)):
        assert await service.claim_private(game_id, USERS[1].id, 1)
        await service.set_private_message(game_id, USERS[1].id, 900, 1)
        await service.set_messages(game_id, table=800)
        assert not ended
        seen = await service.get(game_id)
        assert seen.table_message_id == 800
        assert (await service.game_of_private_message(USERS[1].id, 900)).id == game_id
    assert len(ended) == 1
    _told, table, private = await _stored(pg_db, game_id)
    assert (table, private[USERS[1].id]) == (800, 900)
    # a later delivery of the same hand does not claim the message again
    async with service.delivering(game_id, await service.get(game_id)):
        assert not await service.claim_private(game_id, USERS[1].id, 1)


async def test_the_flush_runs_by_itself_and_a_failed_one_keeps_what_it_held(
        pg_db: Database, leader: MatchService, monkeypatch) -> None:
    monkeypatch.setattr(behind_module, "FLUSH_AFTER", 0.05)
    monkeypatch.setattr(behind_module, "RETRY_AFTER", 0.05)
    service = leader
    game_id = await _running(service)
    failing = [True]

    def fail(_conn, _cursor, statement: str, *_args) -> None:
        if failing[0] and statement.startswith("UPDATE"):  # (the reads go on)
            raise OSError("the database is unreachable")

    event.listen(pg_db.engine.sync_engine, "before_cursor_execute", fail)
    try:
        with pytest.raises(OSError):  # the delivery's write at its end fails: held
            async with service.delivering(game_id, await service.get(game_id)):
                await service.set_private_message(game_id, USERS[2].id, 777, 1)
        await asyncio.sleep(0.3)  # tried again, failed, held
        assert (await service.get(game_id)).player(USERS[2].id).private_message_id == 777
    finally:
        failing[0] = False
    for _ in range(50):  # tried again by itself once the database answers
        if (await _stored(pg_db, game_id))[2][USERS[2].id] == 777:
            break
        await asyncio.sleep(0.05)
    assert (await _stored(pg_db, game_id))[2][USERS[2].id] == 777


async def test_a_change_committed_after_the_hint_is_read_not_drawn_from_the_hint(
        pg_db: Database, leader: MatchService) -> None:
    """A delivery draws its move's snapshot only if nothing else of that game committed
    since (here a pause of the clock, which no report announces)."""
    service = leader
    game_id = await _running(service)
    hint = await service.get(game_id)
    await service.pause(game_id)
    async with service.delivering(game_id, hint) as delivery:
        assert delivery.game.version == hint.version + 1 and delivery.game.paused


async def test_without_write_behind_nothing_is_held(pg_db: Database) -> None:
    service = MatchService(pg_db)
    game_id = await _running(service)
    async with service.delivering(game_id, await service.get(game_id)):
        assert await service.claim_private(game_id, USERS[1].id, 1)
        await service.set_private_message(game_id, USERS[1].id, 555, 1)
    assert (await _stored(pg_db, game_id))[2][USERS[1].id] == 555


async def test_a_claim_a_killed_process_left_is_checked_in_the_database(
        pg_db: Database, leader: MatchService) -> None:
    """The delivery's game shows a private message being sent (``SENDING``: a process was
    killed during the send) that was released since: the claim reads the row and takes it."""
    service = leader
    game_id = await _running(service)
    await _set_private(pg_db, game_id, SENDING)
    hint = await service.get(game_id)
    assert hint.player(USERS[1].id).private_message_id == SENDING
    await _set_private(pg_db, game_id, None)  # released (Deliveries.release_stale_claims)
    async with service.delivering(game_id, hint):
        assert await service.claim_private(game_id, USERS[1].id, 1)


async def _set_private(db: Database, game_id: int, message_id: int | None) -> None:
    async with db.sessions.begin() as session:
        player = (await session.scalars(select(GamePlayer).where(
            GamePlayer.game_id == game_id, GamePlayer.user_id == USERS[1].id))).one()
        player.private_message_id, player.private_hand = message_id, 1


async def test_a_failed_delivery_gives_up_its_claims_of_messages_not_sent(
        leader: MatchService) -> None:
    """A delivery that fails between a claim and its send: the next delivery sends that
    player's message (else it would be held as being sent until dropped)."""
    service = leader
    game_id = await _running(service)
    with pytest.raises(RuntimeError):
        async with service.delivering(game_id, await service.get(game_id)):
            assert await service.claim_private(game_id, USERS[1].id, 1)
            raise RuntimeError("the delivery failed before the send")
    assert (await service.get(game_id)).player(USERS[1].id).private_message_id is None
    async with service.delivering(game_id, await service.get(game_id)):
        assert await service.claim_private(game_id, USERS[1].id, 1)


async def test_two_flushes_at_once_write_in_turn_and_never_deadlock(pg_db: Database) -> None:
    """The timer's flush and a delivery's may start together with the same games held in
    other orders; written at once, each could hold one game's row and wait for the other's
    (a deadlock the throughput bench met under load). Here a move holds the first game's row
    while both flushes start: they are written one after the other, in game id order."""
    service = MatchService(pg_db)
    first, second = await _running(service), await _running(service, chat=CHAT - 1)
    behind = behind_module.Behind(pg_db)
    async with pg_db.engine.connect() as move:  # (holds the first game's row, like a move)
        await move.execute(update(GameRow).where(GameRow.id == first)
                           .values(version=GameRow.version + 1))
        behind.told(first, 10)
        behind.told(second, 10)
        one = asyncio.create_task(behind.flush())  # (first, second): waits for the move
        await asyncio.sleep(0.2)
        behind.told(second, 11)
        behind.told(first, 11)
        behind.private(first, USERS[0].id, 900, 1)
        two = asyncio.create_task(behind.flush())  # held in the other order: (second, first)
        await asyncio.sleep(0.2)
        await move.commit()
    await asyncio.wait_for(asyncio.gather(one, two), 30)
    told_first, _, private = await _stored(pg_db, first)
    assert (told_first, (await _stored(pg_db, second))[0]) == (11, 11)
    assert private[USERS[0].id] == 900
