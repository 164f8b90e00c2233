"""Every game through the league: a Koira lobby opens with the chat's Koira defaults, takes
its options (validated against ``Game.option_specs``), starts and plays to the end with
computer stand-ins; chat settings are per game kind; leagues are per kind."""

from __future__ import annotations

import pytest

from league.service import MatchService
from league.store.db import Database
from league.store.errors import ServiceError
from league.store.snapshots import UserRef
from tests.league.play import play_koira

CHAT = -3001
USERS = [UserRef(i, f"K{i}") for i in range(1, 5)]


async def test_chat_settings_are_per_game(pg_db: Database) -> None:
    service = MatchService(pg_db)
    settings = await service.chat_settings(CHAT)
    assert settings["games"]["koira"] == {"tie_split": False, "trump_ends_trick": False,
                                          "pickup_single": False, "min_sequence": 2}
    assert settings["games"]["coyote"]["edition"] == "classic"
    await service.set_chat_setting(CHAT, "G", "min_sequence", 3, kind="koira")
    await service.set_chat_setting(CHAT, "G", "edition", "feathers", kind="coyote")
    for kind, key, value in (("koira", "min_sequence", 4), ("koira", "tie_split", 1),
                             ("koira", "edition", "classic"), ("coyote", "edition", "nope"),
                             ("coyote", "lives", True)):
        with pytest.raises(ServiceError) as err:
            await service.set_chat_setting(CHAT, "G", key, value, kind=kind)
        assert err.value.code == "bad_option"
    with pytest.raises(ServiceError):
        await service.set_chat_setting(CHAT, "G", "min_sequence", 3)  # no kind: no such key
    settings = await service.chat_settings(CHAT)
    assert settings["games"]["koira"]["min_sequence"] == 3
    assert settings["games"]["coyote"]["edition"] == "feathers"
    lobby = await service.open_lobby(CHAT, "G", 0, USERS[0], "koira")
    assert lobby.options["min_sequence"] == 3 and lobby.options["pace"] == "standard"


async def test_a_koira_lobby_opens_takes_options_and_plays(pg_db: Database) -> None:
    service = MatchService(pg_db, new_seed=lambda: 17)
    lobby = await service.open_lobby(CHAT, "G", 0, USERS[0], "koira")
    assert "edition" not in lobby.options
    await service.join(lobby.id, USERS[1])
    for name, value in (("tie_split", True), ("pace", "quick")):
        lobby = await service.set_option(lobby.id, USERS[0].id, name, value)
        assert lobby.options[name] == value
    for name, value in (("tie_split", 1), ("lives", 3), ("min_sequence", 9), ("pace", "x")):
        with pytest.raises(ServiceError) as err:
            await service.set_option(lobby.id, USERS[0].id, name, value)
        assert err.value.code == "bad_option"
    await service.add_ai(lobby.id, USERS[0].id)
    await service.add_ai(lobby.id, USERS[0].id)
    outcome = await service.start(lobby.id, USERS[0].id)
    game = outcome.game
    assert game.status == "running" and game.hand == 1
    assert all(p.playing for p in game.seated)
    humans = {p.seat: p.user_id for p in game.seated if p.user_id is not None}
    for _ in range(500):  # the humans play the engine's first legal move until it ends
        if game.status != "running":
            break
        seat = service.games["koira"].current_seat(game.state or {})
        assert seat in humans
        action = service.games["koira"].legal_actions(game.state or {}, seat)[0]
        game = (await service.act(game.id, humans[seat], game.version, action)).game
    assert game.status == "finished"
    assert sorted(p.placement for p in game.seated if p.placement is not None)[0] == 1
    assert await service.history(CHAT, kind="coyote") == []
    [entry] = await service.history(CHAT, kind="koira")
    assert entry.kind == "koira" and await service.history(CHAT, kind=None) == [entry]


async def _play_koira(service: MatchService, users: list[UserRef]) -> None:
    """A rated Koira game (humans only), each moving as the computer player would (the
    first legal move may go round in circles)."""
    await play_koira(service, CHAT, users, seed=5)


async def test_weekly_posts_are_per_game(pg_db: Database) -> None:
    """A week with rated Coyote and Koira games has two posts, claimed apart; a week with
    only Koira games has Koira's alone (and each table is its own game's)."""
    from datetime import UTC, datetime, timedelta

    from tests.clock import Clock
    from tests.league.test_league import PEOPLE, play_game

    clock = Clock(datetime(2026, 3, 4, 10, 0, tzinfo=UTC))  # a Wednesday
    service = MatchService(pg_db, clock=clock, new_seed=iter(range(300, 400)).__next__)
    await play_game(service, PEOPLE[:3])
    await _play_koira(service, USERS[:3])
    clock.now = datetime(2026, 3, 9, 0, 0, 1, tzinfo=UTC)  # Monday: last week is final
    due = await service.due_posts()
    assert [(d.chat_id, d.game_kind, d.post) for d in due] == [(CHAT, "coyote", "week"),
                                                                (CHAT, "koira", "week")]
    assert await service.claim_post(*due[1])  # Koira's claim leaves Coyote's due
    assert await service.due_posts() == [due[0]]
    assert await service.claim_post(*due[0]) and not await service.claim_post(*due[0])
    await service.mark_posted(*due[0])
    await service.mark_posted(*due[1])  # (an unsent claim would be retried, weeks later too)
    assert await service.due_posts() == []
    koira = await service.standings(CHAT, "last", kind="koira")
    assert koira.kind == "koira" and {r.player for r in koira.rows} == {u.id for u in USERS[:3]}
    clock.now += timedelta(days=2)
    await _play_koira(service, USERS[:3])
    clock.now += timedelta(days=7)
    assert [(d.game_kind, d.post) for d in await service.due_posts()] == [("koira", "week")]
