"""Computer levels in the lobby, 🔁 Rematch and next-game alerts, through the match service
on PostgreSQL (the stand-in's level without a database: planning is pure)."""

from __future__ import annotations

import pytest
from sqlalchemy import update

from league.service import MatchService
from league.store.db import Database
from league.store.errors import ServiceError
from league.store.models import User
from league.store.snapshots import UserRef
from tests.league.play import finish_coyote

CHAT = -3101
ANN, BOB, CAT, DAN = (UserRef(i, n) for i, n in enumerate(["Ann", "Bob", "Cat", "Dan"], 1))


async def finish(service: MatchService, game_id: int) -> None:
    """Play a started game to its end: each human bids up to 6, then calls."""
    await finish_coyote(service, game_id)


async def test_levels_are_stored_changed_and_played(pg_db: Database) -> None:
    service = MatchService(pg_db, new_seed=iter(range(7, 99)).__next__)
    lobby = await service.open_lobby(CHAT, "G", 0, ANN, "coyote")
    lobby = await service.add_ai(lobby.id, ANN.id, level="easy")
    lobby = await service.add_ai(lobby.id, ANN.id)
    assert [p.level for p in lobby.players] == [None, "easy", "normal"]
    with pytest.raises(ServiceError) as refused:
        await service.set_ai_level(lobby.id, BOB.id, 1, "hard", version=lobby.version)
    assert refused.value.code == "not_creator"
    changed = await service.set_ai_level(lobby.id, ANN.id, 1, "hard", version=lobby.version)
    with pytest.raises(ServiceError) as twice:  # the same button tapped again
        await service.set_ai_level(lobby.id, ANN.id, 1, "easy", version=lobby.version)
    assert twice.value.code == "stale"
    with pytest.raises(ServiceError) as bad:
        await service.set_ai_level(lobby.id, ANN.id, 5, "hard", version=changed.version)
    assert bad.value.code == "bad_option"
    assert [p.level for p in changed.players] == [None, "easy", "hard"]
    assert changed.options["stand_in_level"] == "normal"
    await service.start(lobby.id, ANN.id)
    await finish(service, lobby.id)
    assert (await service.get(lobby.id)).status == "finished"


async def test_rematch_keeps_options_and_computer_seats(pg_db: Database) -> None:
    service = MatchService(pg_db, new_seed=iter(range(7, 99)).__next__)
    await service.set_chat_setting(CHAT, "G", "stand_in_level", "hard")
    lobby = await service.open_lobby(CHAT, "G", 0, ANN, "coyote", {"edition": "feathers"})
    await service.join(lobby.id, BOB)
    await service.add_ai(lobby.id, ANN.id, level="hard")
    lobby = await service.set_option(lobby.id, ANN.id, "pace", "quick")
    with pytest.raises(ServiceError) as early:
        await service.rematch(lobby.id, ANN)
    assert early.value.code == "not_finished"
    await service.start(lobby.id, ANN.id)
    await finish(service, lobby.id)

    with pytest.raises(ServiceError) as stranger:
        await service.rematch(lobby.id, CAT)
    assert stranger.value.code == "not_a_player"
    again, opened = await service.rematch(lobby.id, BOB)
    assert opened and again.creator_id == BOB.id and again.status == "lobby"
    assert again.options == lobby.options and again.options["stand_in_level"] == "hard"
    assert [(p.user_id, p.level) for p in again.players] == [(BOB.id, None), (None, "hard")]
    joined, opened = await service.rematch(lobby.id, ANN)
    assert not opened and joined.id == again.id
    assert {p.user_id for p in joined.players} == {ANN.id, BOB.id, None}
    with pytest.raises(ServiceError) as double:
        await service.rematch(lobby.id, ANN)
    assert double.value.code == "already_joined"

    # The rematch started: a later tap is refused, naming it.
    await service.start(again.id, BOB.id)
    with pytest.raises(ServiceError) as busy:
        await service.rematch(lobby.id, ANN)
    assert busy.value.code == "rematch_started" and busy.value.detail["game_id"] == again.id


async def test_alerts_once_per_lobby_and_only_to_the_reachable(pg_db: Database) -> None:
    service = MatchService(pg_db, new_seed=iter(range(7, 99)).__next__)
    assert await service.subscribe(CHAT, "G", BOB)
    assert not await service.subscribe(CHAT, "G", BOB)  # asked twice: one subscription
    assert await service.subscribe(CHAT, "G", CAT)
    assert await service.subscribe(CHAT, "G", DAN)
    async with service.db.sessions.begin() as session:
        await session.execute(update(User).where(User.id.in_([BOB.id, DAN.id]))
                              .values(can_message=True))
    assert await service.unsubscribe(CHAT, DAN.id)
    assert not await service.unsubscribe(CHAT, DAN.id)
    lobby = await service.open_lobby(CHAT, "G", 0, ANN, "coyote")
    assert [uid for uid, _ in await service.to_alert(lobby.id)] == [BOB.id]
    assert await service.to_alert(lobby.id) == []  # once: Cat (unreachable) is not retried
    await service.cancel(lobby.id, ANN.id, is_admin=False)
    second = await service.open_lobby(CHAT, "G", 0, BOB, "coyote")
    assert await service.to_alert(second.id) == []  # Bob opened it himself
    await service.cancel(second.id, BOB.id, is_admin=False)
    third = await service.open_lobby(CHAT, "G", 0, ANN, "coyote")
    assert [uid for uid, _ in await service.to_alert(third.id)] == [BOB.id]


class NoDatabase:
    """A :class:`Database` that fails on any use: for what the service plans without one."""

    def __getattr__(self, name: str) -> object:
        raise AssertionError(f"the database was used ({name})")


def test_the_stand_in_plays_at_the_chats_level() -> None:
    """A timed-out human's turn is played by ``Game.stand_in_action`` at the level the lobby
    took from the chat (``stand_in_level``); each computer seat at its own level. Planning
    is pure (``Moves.plan_replies``): no database."""
    import random

    from engine import GAMES
    from engine.core import step_of
    from league.store.models import Game as GameRow
    from league.store.models import GamePlayer

    game = GAMES["coyote"]
    for seed in range(40):
        state, _ = game.new_game(3, seed, {})
        seat = game.current_seat(state)
        assert seat is not None
        rng = random.Random(f"ai:{seed}:{step_of(state)}")
        easy = game.stand_in_action(state, seat, rng, "easy")
        rng = random.Random(f"ai:{seed}:{step_of(state)}")
        hard = game.stand_in_action(state, seat, rng, "hard")
        if easy != hard:
            break
    else:
        pytest.skip("no seed where the levels differ at the first move")
    service = MatchService(NoDatabase())  # type: ignore[arg-type]
    for level, expected in (("easy", easy), ("hard", hard)):
        row = GameRow(seed=seed, options={"stand_in_level": level}, kind="coyote")
        row.players = [GamePlayer(user_id=i, name=str(i), seat=i) for i in range(3)]
        planned = service.moves.plan_replies(row, game, state, (seat, None))
        assert planned[0][1] == expected
