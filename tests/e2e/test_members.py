"""Who leaves the group leaves its games, as with /leave: told by a ``left_chat_member``
service message or by a ``chat_member`` update (left, or removed by an admin), the player is
out of the running game (the group is told) and off the lobby (redrawn)."""

from __future__ import annotations

import asyncio

import pytest

from engine import GAMES
from league.service import MatchService
from tests.e2e.harness import bot_table, hold, notes, open_lobby, wait_for
from tests.e2e.processes import kill, spawn
from tests.fakebot import FakeBotAPI

GROUP, FORUM = -100701, -100702


def lobby_text(api: FakeBotAPI, message_id: int) -> str:
    return (api.get_message(GROUP, message_id).text or "").replace("\u2068", "").replace(
        "\u2069", "")


async def test_leaving_the_group_leaves_the_running_game(pg_db, pg_url) -> None:
    async with bot_table(pg_url, GROUP, "Den", ["Ann", "Bob", "Cat", "Dan"]) as (
            api, players, runner):
        ann, bob, cat, dan = players
        lobby = await open_lobby(api, players, GROUP)
        await ann.press_and_settle(lobby, "▶️ Start")
        await api.settle()

        api.user_leaves(cat, GROUP)  # a service message
        await wait_for(lambda: bool(api.find_messages(GROUP, "Cat\u2069 leaves the game")))
        api.member_update(GROUP, dan, "kicked", by=ann)  # an admin removes Dan
        await wait_for(lambda: bool(api.find_messages(GROUP, "Dan\u2069 leaves the game")))
        # Telegram may send both for one departure: the second changes nothing.
        api.member_update(GROUP, cat, "left", old="member")
        await api.settle()
        assert len(notes(api, GROUP, "Cat\u2069 leaves the game")) == 1
        # Both are out (told by the notes; the table lists it too).
        [game] = await runner.app.bot_data["coyote"].service.open_games_in(GROUP)
        playing = GAMES[game.kind].still_playing(game.state)
        assert {p.name for p in game.seated if p.seat not in playing} == {"Cat", "Dan"}
        assert not api.find_messages(GROUP, "is over!")

        api.user_leaves(bob, GROUP, by=ann)
        await wait_for(lambda: bool(api.find_messages(GROUP, "is over!")))
        assert "Winner" in api.find_messages(GROUP, "is over!")[-1].text
        assert "Ann" in api.find_messages(GROUP, "is over!")[-1].text


async def test_leaving_the_group_leaves_the_lobby(pg_db, pg_url) -> None:
    async with bot_table(pg_url, GROUP, "Den", ["Ann", "Bob", "Cat", "Dan"]) as (
            api, players, _runner):
        ann, bob, cat, dan = players
        lobby = await open_lobby(api, players, GROUP)
        assert "Players: 4" in lobby_text(api, lobby.message_id)

        api.user_leaves(cat, GROUP)
        await wait_for(lambda: "Players: 3" in lobby_text(api, lobby.message_id))
        assert "Cat" not in lobby_text(api, lobby.message_id)
        api.member_update(GROUP, dan, "left")
        await wait_for(lambda: "Players: 2" in lobby_text(api, lobby.message_id))
        assert "Dan" not in lobby_text(api, lobby.message_id)
        # Other member changes (a promotion) and people in no game change nothing.
        api.member_update(GROUP, bob, "administrator")
        outsider = api.add_user(9, "Eve")
        api.user_leaves(outsider, GROUP)
        await api.settle()
        assert "Players: 2" in lobby_text(api, lobby.message_id)

        # The host leaves: the lobby passes to Bob; Bob leaves too: it is cancelled.
        api.user_leaves(ann, GROUP)
        await wait_for(lambda: "Players: 1" in lobby_text(api, lobby.message_id))
        assert "Bob (the host)" in lobby_text(api, lobby.message_id)
        api.member_update(GROUP, bob, "kicked", old="administrator", by=ann)
        await wait_for(lambda: "cancelled" in lobby_text(api, lobby.message_id))


@pytest.mark.process
@pytest.mark.timeout(240)
async def test_a_departure_from_two_games_survives_a_kill_between_them(
        pg_db, pg_url, tmp_path) -> None:
    """Cat sits in two lobbies of one forum (two topics) and leaves the group. One lobby's
    leave commits, and the bot is killed while it redraws that lobby: after the restart Cat
    leaves the other lobby too (the first leave's commit marked the update done, so the
    second never happened)."""
    service = MatchService(pg_db)

    async def seats() -> int:
        return sum(g.player(3) is not None for g in await service.open_games_in(FORUM))

    async with FakeBotAPI() as api:
        forum = api.add_group(FORUM, "Forum", type="supergroup", is_forum=True, admins=[1])
        ann, bob, cat = (api.add_user(i, n) for i, n in enumerate(["Ann", "Bob", "Cat"], 1))
        for user in (ann, bob, cat):
            await user.start_bot()
        bot = await spawn(api, pg_url, tmp_path / "bot.log")
        try:
            await wait_for(lambda: bool(api.calls("getUpdates")), timeout=60)
            for host, topic in ((ann, 11), (bob, 22)):
                await host.send(forum.id, "/newgame", thread_id=topic)
                await wait_for(lambda t=topic: any(m.thread_id == t for m in api.find_messages(
                    forum.id, "new game #")), timeout=60)
                lobby = next(m for m in api.find_messages(forum.id, "new game #")
                             if m.thread_id == topic)
                await cat.press_and_settle(lobby, "✋ Join", timeout=60)
            assert await seats() == 2
            held, _release = hold(api, "editMessageText", lambda p: "new game #" in str(
                p.get("text")) and "Cat" not in str(p.get("text")))
            api.user_leaves(cat, forum.id)
            await asyncio.wait_for(held.wait(), 60)  # one lobby's leave is committed
            await kill(bot)
            assert await seats() == 1
            bot = await spawn(api, pg_url, tmp_path / "bot.log")
            for _ in range(600):
                if await seats() == 0:
                    break
                await asyncio.sleep(0.1)
            assert await seats() == 0
        finally:
            await kill(bot)
    assert "Traceback" not in (tmp_path / "bot.log").read_text()
