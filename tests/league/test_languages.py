"""The league keeps the languages: a chat's (set by its first lobby's opener, or by its
admins), a user's choice over their client's, both on every game snapshot, and a group's
language kept when it becomes a supergroup."""

from __future__ import annotations

import pytest

from engine import Action
from league.service import MatchService
from league.store.db import Database
from league.store.errors import ServiceError
from league.store.snapshots import UserRef

KIM = UserRef(1, "Kim", language="ko-KR")
BETO = UserRef(2, "Beto", language="es-419")
ANN = UserRef(3, "Ann", language=None)


async def test_the_first_lobby_sets_the_chats_language(pg_db: Database) -> None:
    service = MatchService(pg_db)
    assert await service.chat_language(-10) is None
    game = await service.open_lobby(-10, "g", 0, KIM, "coyote")
    assert game.language == "ko-KR" and await service.chat_language(-10) == "ko-KR"
    await service.cancel(game.id, KIM.id, is_admin=True)
    await service.open_lobby(-10, "g", 0, BETO, "coyote")  # the next opener changes nothing
    assert await service.chat_language(-10) == "ko-KR"
    await service.open_lobby(-11, "h", 0, ANN, "coyote")  # no client language: English
    assert await service.chat_language(-11) == "en"


async def test_an_admins_language_wins_and_survives_a_migration(pg_db: Database) -> None:
    service = MatchService(pg_db)
    await service.set_chat_setting(-20, "g", "language", "ja")
    await service.open_lobby(-20, "g", 0, KIM, "coyote")
    assert (await service.chat_settings(-20))["language"] == "ja"
    with pytest.raises(ServiceError):
        await service.set_chat_setting(-20, "g", "language", "not a code!")
    await service.migrate_chat(-20, -1000020)
    assert await service.chat_language(-1000020) == "ja"


async def test_players_languages_are_on_the_snapshot(pg_db: Database) -> None:
    service = MatchService(pg_db)
    game = await service.open_lobby(-30, "g", 0, KIM, "coyote")
    for user in (BETO, ANN):
        await service.join(game.id, user)
    await service.choose_language(ANN, "ja")
    game = await service.get(game.id)
    assert {p.user_id: p.language for p in game.players} == {1: "ko-KR", 2: "es-419", 3: "ja"}
    outcome = await service.start(game.id, KIM.id)
    assert {p.user_id: p.language for p in outcome.game.players}[3] == "ja"
    seat = outcome.game.state["turn"]
    mover = outcome.game.at_seat(seat)
    after = await service.act(game.id, mover.user_id, outcome.game.version, Action("bid", 1))
    assert after.game.language == "ko-KR"
    await service.choose_language(ANN, None)  # back to the client's (none: unknown)
    assert await service.user_language(3) is None
    assert await service.chosen_language(1) is None and await service.user_language(1) == "ko-KR"
    with pytest.raises(ServiceError):
        await service.choose_language(ANN, "x" * 40)


async def test_every_snapshot_says_whom_private_messages_reach(pg_db: Database) -> None:
    """Read with the game's own rows (a new hand's private messages go by it): a player who
    started the bot is reachable, one who never did is not, in the lobby (a join in the same
    transaction) and in the running game (loaded anew) alike."""
    service = MatchService(pg_db)
    await service.touch_user(KIM, can_message=True)
    lobby = await service.open_lobby(-30, "g", 0, KIM, "coyote")
    joined = await service.join(lobby.id, BETO)  # never started the bot
    assert {p.user_id: p.reachable for p in joined.players} == {KIM.id: True, BETO.id: False}
    await service.join(lobby.id, ANN)
    started = (await service.start(lobby.id, KIM.id)).game
    assert {p.user_id: p.reachable for p in started.players} == \
        {KIM.id: True, BETO.id: False, ANN.id: False}
    await service.set_can_message(KIM.id, False)  # a 403: they blocked the bot
    assert not any(p.reachable for p in (await service.get(lobby.id)).players)
