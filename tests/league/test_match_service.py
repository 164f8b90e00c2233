"""The match service against real PostgreSQL (and once on SQLite, the embedded default)."""

from __future__ import annotations

import asyncio

import pytest

from engine import Action
from league.service import MatchService
from league.store.db import Database
from league.store.errors import ServiceError
from league.store.snapshots import UserRef

CHAT = -1001
USERS = [UserRef(i, f"P{i}") for i in range(1, 6)]


async def _running(service: MatchService, players: int = 4) -> int:
    lobby = await service.open_lobby(CHAT, "Group", 0, USERS[0], "coyote")
    for user in USERS[1:players]:
        await service.join(lobby.id, user)
    outcome = await service.start(lobby.id, USERS[0].id)
    assert outcome.events[0]["type"] == "round_dealt"
    return lobby.id


def _user_at(game, seat: int) -> int:
    return game.at_seat(seat).user_id


async def test_lobby_rules(pg_db: Database) -> None:
    service = MatchService(pg_db)
    lobby = await service.open_lobby(CHAT, "Group", 0, USERS[0], "coyote")
    with pytest.raises(ServiceError) as err:
        await service.open_lobby(CHAT, "Group", 0, USERS[1], "coyote")
    assert err.value.code == "game_open" and err.value.detail["game_id"] == lobby.id
    other_topic = await service.open_lobby(CHAT, "Group", 7, USERS[1], "coyote")
    assert other_topic.id != lobby.id
    await service.join(lobby.id, USERS[1])
    with pytest.raises(ServiceError, match="already_joined"):
        await service.join(lobby.id, USERS[1])
    with pytest.raises(ServiceError, match="too_few_players"):
        await service.start(lobby.id, USERS[0].id)
    await service.join(lobby.id, USERS[2])
    with pytest.raises(ServiceError, match="not_creator"):
        await service.start(lobby.id, USERS[1].id)
    left = await service.leave(lobby.id, USERS[0].id)
    assert left.creator_id == USERS[1].id and left.status == "lobby"
    with pytest.raises(ServiceError, match="not_joined"):
        await service.leave(lobby.id, USERS[0].id)


async def test_moves_are_logged_and_replayable(pg_db: Database) -> None:
    service = MatchService(pg_db)
    game_id = await _running(service)
    game = await service.get(game_id)
    seat = game.state["turn"]
    with pytest.raises(ServiceError, match="not_your_turn"):
        await service.act(game_id, _user_at(game, (seat + 1) % 4), game.version, Action("bid", 3))
    with pytest.raises(ServiceError, match="bid_too_low"):
        await service.act(game_id, _user_at(game, seat), game.version, Action("bid", 0))
    outcome = await service.act(game_id, _user_at(game, seat), game.version, Action("bid", 3))
    assert outcome.events == [{"type": "bid_placed", "seat": seat, "amount": 3}]
    assert outcome.game.version == game.version + 1
    with pytest.raises(ServiceError, match="stale"):
        await service.act(game_id, _user_at(game, seat), game.version, Action("bid", 4))
    log = await service.log(game_id)
    assert [row.action for row in log] == [None, {"kind": "bid", "amount": 3}]


async def test_concurrent_actions_exactly_one_applied(pg_db: Database) -> None:
    service = MatchService(pg_db)
    game_id = await _running(service)
    game = await service.get(game_id)
    user = _user_at(game, game.state["turn"])
    results = await asyncio.gather(
        *(service.act(game_id, user, game.version, Action("bid", n)) for n in (5, 6, 7, 8)),
        return_exceptions=True)
    applied = [r for r in results if not isinstance(r, BaseException)]
    refused = [r for r in results if isinstance(r, ServiceError)]
    assert len(applied) == 1 and len(refused) == 3, results
    assert all(r.code == "stale" for r in refused)
    after = await service.get(game_id)
    assert after.version == game.version + 1
    assert len(after.state["bids"]) == 1
    assert len(await service.log(game_id)) == 2


async def test_full_game_finishes_on_sqlite(sqlite_url: str) -> None:
    db = Database(sqlite_url)
    service = MatchService(db, new_seed=lambda: 42)
    game_id = await _running(service, players=3)
    game = await service.get(game_id)
    while game.status == "running":
        seat = game.state["turn"]
        bids = game.state["bids"]
        action = Action("call") if bids and bids[-1][1] >= 8 else Action(
            "bid", (bids[-1][1] + 3) if bids else 4)
        game = (await service.act(game_id, _user_at(game, seat), game.version, action)).game
    assert game.status == "finished"
    assert sorted(p.placement for p in game.players) == [1, 2, 3]
    await db.dispose()


async def test_the_event_log_replays_to_the_stored_state(pg_db: Database) -> None:
    from engine import GAMES

    service = MatchService(pg_db, new_seed=lambda: 1234)
    lobby = await service.open_lobby(CHAT, "Group", 0, USERS[0], "coyote")
    await service.join(lobby.id, USERS[1])
    await service.add_ai(lobby.id, USERS[0].id)
    await service.set_option(lobby.id, USERS[0].id, "specials", True)
    game = (await service.start(lobby.id, USERS[0].id)).game
    while game.status == "running":
        seat = game.state["turn"]
        user = game.at_seat(seat).user_id
        bids = game.state["bids"]
        action = Action("call") if bids and bids[-1][1] >= 7 and bids[-1][0] != seat else \
            Action("bid", bids[-1][1] + 2 if bids else 3)
        game = (await service.act(game.id, user, game.version, action)).game
    coyote = GAMES["coyote"]
    log = await service.log(game.id)
    state, events = coyote.new_game(3, 1234, game.options)
    assert [e.to_json() for e in events] == log[0].events
    for row in log[1:]:
        state, events = coyote.apply(state, row.seat, Action.from_json(row.action))
        assert [e.to_json() for e in events] == row.events
    assert state == game.state and any(row.user_id is None for row in log[1:])  # AI moves too


async def test_a_delivery_records_what_it_sent_and_never_lowers_told(pg_db: Database) -> None:
    """What a delivery records shows in its game at once and in every read after it; the
    told version only grows."""
    service = MatchService(pg_db, new_seed=lambda: 3)
    game_id = await _running(service)
    user = _user_at(await service.get(game_id), 0)
    async with service.delivering(game_id) as delivery:
        delivery.set_private(user, 555, 1)
        delivery.set_messages(table=77)
        delivery.told(3)
        seen = delivery.game
        assert seen.player(user).private_message_id == 555 and seen.table_message_id == 77
    game = await service.get(game_id)
    player = game.player(user)
    assert (player.private_message_id, player.private_hand) == (555, 1)
    assert (game.table_message_id, game.told_version) == (77, 3)
    async with service.delivering(game_id) as delivery:
        delivery.told(2)
        delivery.set_private(user, 556, 2)
    game = await service.get(game_id)
    assert game.told_version == 3 and game.player(user).private_message_id == 556


async def test_a_typed_bid_is_applied_once_and_only_in_its_round(pg_db: Database) -> None:
    """A typed bid carries its message id: a message delivered again is refused
    (``already_handled``), and so is one sent before this round's private message."""
    service = MatchService(pg_db)
    game_id = await _running(service)
    game = await service.get(game_id)
    first = _user_at(game, game.state["turn"])
    async with service.delivering(game_id) as delivery:
        delivery.set_private(first, 50, game.state["round"])
    with pytest.raises(ServiceError, match="typed_too_early"):
        await service.act(game_id, first, game.version, Action("bid", 3), typed=40)
    await service.act(game_id, first, game.version, Action("bid", 3), typed=60)
    game = await service.get(game_id)
    while _user_at(game, game.state["turn"]) != first:  # round the table, back to the bidder
        game = (await service.act(game_id, _user_at(game, game.state["turn"]), game.version,
                                  Action("bid", game.state["bids"][-1][1] + 1))).game
    with pytest.raises(ServiceError, match="already_handled"):
        await service.act(game_id, first, game.version, Action("bid", 20), typed=60)
    await service.act(game_id, first, game.version, Action("bid", 20), typed=61)


async def test_a_number_typed_before_the_turns_ping_counts(pg_db: Database) -> None:
    """A player gets a new private message when their turn comes (it notifies): a number
    they typed just before it arrived, after the round's first message, is still this
    round's bid (the round's first private message is what it must follow)."""
    await _typed_before_the_ping(MatchService(pg_db))


async def test_a_number_typed_before_the_turns_ping_counts_on_sqlite(sqlite_url: str) -> None:
    db = Database(sqlite_url)
    try:
        await _typed_before_the_ping(MatchService(db))
    finally:
        await db.dispose()


async def _typed_before_the_ping(service: MatchService) -> None:
    game_id = await _running(service)
    game = await service.get(game_id)
    first = _user_at(game, game.state["turn"])
    async with service.delivering(game_id) as delivery:
        delivery.set_private(first, 50, game.state["round"])
    async with service.delivering(game_id) as delivery:  # the turn's ping, the same round
        delivery.set_private(first, 70, game.state["round"])
    with pytest.raises(ServiceError, match="typed_too_early"):
        await service.act(game_id, first, game.version, Action("bid", 3), typed=40)
    await service.act(game_id, first, game.version, Action("bid", 3), typed=60)
    assert (await service.get(game_id)).state["bids"][-1][1] == 3


async def test_a_running_game_is_cancelled_by_an_admin_not_by_its_host(pg_db: Database) -> None:
    """A cancelled game is not rated, so the host may not wipe a running game others still
    play; an admin may, and so may the host once nobody else is left."""
    service = MatchService(pg_db)
    game_id = await _running(service, players=3)
    with pytest.raises(ServiceError, match="cancel_running"):
        await service.cancel(game_id, USERS[0].id, is_admin=False)
    with pytest.raises(ServiceError, match="cancel_running"):
        await service.cancel(game_id, USERS[1].id, is_admin=False)
    assert (await service.cancel(game_id, USERS[1].id, is_admin=True)).status == "cancelled"

    lobby = await service.open_lobby(CHAT, "Group", 0, USERS[0], "coyote")
    await service.join(lobby.id, USERS[1])
    await service.add_ai(lobby.id, USERS[0].id)
    await service.add_ai(lobby.id, USERS[0].id)
    await service.start(lobby.id, USERS[0].id)
    game = await service.get(lobby.id)
    await service.act(lobby.id, USERS[1].id, game.version, Action("resign"))
    assert (await service.get(lobby.id)).status == "running"  # the host and two computers
    assert (await service.cancel(lobby.id, USERS[0].id, is_admin=False)).status == "cancelled"
