"""Races between a move and the clock or cancel commands, on PostgreSQL (from a review).

Each test scripts one interleaving deterministically: a third connection holds the game's
row lock (``FOR NO KEY UPDATE``), so both service calls read the game and then queue for
the row in a known order; releasing the lock lets the first commit, then the second."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime

import psycopg
import pytest

from engine import Action
from league.service import MatchService
from league.store.db import Database
from league.store.errors import ServiceError
from league.store.snapshots import UserRef
from tests.clock import Clock
from tests.conftest import _libpq

CHAT = -3001
USERS = [UserRef(i, f"P{i}") for i in range(1, 5)]


@pytest.fixture
def clock() -> Clock:
    return Clock(datetime(2026, 3, 2, 12, 0, tzinfo=UTC))


async def _running(service: MatchService) -> int:
    await service.set_chat_setting(CHAT, "Group", "pace", "quick")
    lobby = await service.open_lobby(CHAT, "Group", 0, USERS[0], "coyote")
    for user in USERS[1:3]:
        await service.join(lobby.id, user)
    await service.start(lobby.id, USERS[0].id)
    return lobby.id


async def _waiting(conn: psycopg.AsyncConnection) -> int:
    cur = await conn.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = "
                             "current_database() AND wait_event_type = 'Lock'")
    return (await cur.fetchone())[0]


async def interleave(pg_url: str, game_id: int, first: Callable[[], Awaitable],
                     second: Callable[[], Awaitable]) -> list:
    """Run ``first`` and ``second`` so that both read the game before either writes, and
    ``first`` commits before ``second`` writes. Returns their results (or exceptions)."""
    url = _libpq(pg_url)
    async with await psycopg.AsyncConnection.connect(url) as locker, \
            await psycopg.AsyncConnection.connect(url, autocommit=True) as watcher:
        await locker.execute("SELECT 1 FROM games WHERE id = %s FOR NO KEY UPDATE",
                             (game_id,))
        one = asyncio.create_task(first())
        for _ in range(1000):
            if await _waiting(watcher) >= 1:
                break
            await asyncio.sleep(0.01)
        two = asyncio.create_task(second())
        for _ in range(1000):
            if await _waiting(watcher) >= 2:
                break
            await asyncio.sleep(0.01)
        assert await _waiting(watcher) == 2, "both calls should queue for the row"
        await locker.rollback()
    return list(await asyncio.gather(one, two, return_exceptions=True))


async def _bid(service: MatchService, game_id: int):
    game = await service.get(game_id)
    seat = game.state["turn"]
    user = game.at_seat(seat).user_id
    return lambda: service.act(game_id, user, game.version, Action("bid", game.state.get(
        "bid", 0) + 1 if isinstance(game.state.get("bid"), int) else 1))


async def test_a_pause_that_lands_while_a_move_is_being_made_stops_the_clock(
        pg_url: str, pg_db: Database, clock: Clock) -> None:
    """An admin's /pause commits between a player's move's read and its write. Both
    succeed (a pause does not raise the version, and neither call locks the row), and the
    move re-arms the next turn's clock from the unpaused game it read: the game says it is
    paused (``paused_left`` is set, /pause says already paused) while its clock runs, and
    the sweeper times the turn out. Either the pause should hold for the new turn, or one
    of the two should be refused."""
    service = MatchService(pg_db, clock=clock, new_seed=lambda: 3)
    game_id = await _running(service)
    clock.advance(10)  # the move comes 10 s into the turn
    move = await _bid(service, game_id)
    paused, moved = await interleave(pg_url, game_id, lambda: service.pause(game_id), move)
    if isinstance(paused, ServiceError) or isinstance(moved, ServiceError):
        return  # one of them refused: fine
    assert not isinstance(paused, Exception) and not isinstance(moved, Exception)
    game = await service.get(game_id)
    assert game.paused  # the admin was told the game is paused, and it says so
    clock.advance(10_000)
    assert await service.sweep() == [], "a paused game's turn was reminded / timed out"


async def test_a_resume_that_lands_while_a_move_is_being_made_restarts_the_clock(
        pg_url: str, pg_db: Database, clock: Clock) -> None:
    """The same race the other way: /resume commits between a move's read and its write;
    the move, having read a paused game, pauses the clock again. The admin was told the
    clock runs again, yet nothing ever times out."""
    service = MatchService(pg_db, clock=clock, new_seed=lambda: 3)
    game_id = await _running(service)
    clock.advance(10)
    await service.pause(game_id)
    move = await _bid(service, game_id)
    resumed, moved = await interleave(pg_url, game_id, lambda: service.resume(game_id), move)
    if isinstance(resumed, ServiceError) or isinstance(moved, ServiceError):
        return
    assert not isinstance(resumed, Exception) and not isinstance(moved, Exception)
    game = await service.get(game_id)
    assert not game.paused, "the resumed game is paused again"


async def test_a_move_does_not_land_in_a_game_cancelled_meanwhile(
        pg_url: str, pg_db: Database, clock: Clock) -> None:
    """/cancel commits between a move's read and its write. Cancel does not raise the
    version, so the move's version check passes: the move is applied and logged in a
    cancelled game (and the bot then shows its note and redraws the table with live buttons
    after the 'cancelled' text). The move should be refused (``not_running``/``stale``)."""
    service = MatchService(pg_db, clock=clock, new_seed=lambda: 3)
    game_id = await _running(service)
    before = len(await service.log(game_id))
    move = await _bid(service, game_id)
    cancelled, moved = await interleave(
        pg_url, game_id, lambda: service.cancel(game_id, USERS[0].id, is_admin=True), move)
    assert not isinstance(cancelled, Exception), cancelled
    game = await service.get(game_id)
    assert game.status == "cancelled"
    assert isinstance(moved, ServiceError), "a move was applied to a cancelled game"
    assert len(await service.log(game_id)) == before
