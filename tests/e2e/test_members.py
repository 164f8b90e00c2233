"""Who leaves the group leaves its games, as with /leave: told by a ``left_chat_member``
service message or by a ``chat_member`` update (left, or removed by an admin), the player is
out of the running game (the group is told) and off the lobby (redrawn)."""

from __future__ import annotations

from engine import GAMES
from tests.e2e.harness import bot_table, open_lobby, wait_for
from tests.fakebot import FakeBotAPI

GROUP = -100701


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
        assert len(api.find_messages(GROUP, "Cat\u2069 leaves the game")) == 1
        # Both are out (the table is not redrawn during its round: the notes tell it).
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
