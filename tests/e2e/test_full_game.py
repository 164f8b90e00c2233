"""A whole Coyote game in a group, through the real Application and the fake Bot API, on
PostgreSQL: lobby, deep link, stale/forged/wrong-player presses, a restart mid-round, the end."""

from __future__ import annotations

import pytest

from tests.e2e.harness import BotRunner, play_turn, private_turn_message, wait_for
from tests.fakebot import FakeBotAPI

GROUP = -100777


@pytest.fixture
async def api():
    async with FakeBotAPI() as fake:
        yield fake


async def test_whole_game_with_restart(api: FakeBotAPI, pg_db, pg_url: str) -> None:
    group = api.add_group(GROUP, "Coyote night", admins=[1])
    ann = api.add_user(1, "<b>Ann</b> & \"Co\"")
    bob = api.add_user(2, "בוב", username="bob")
    cat = api.add_user(3, "Cat_*[x]")
    dan = api.add_user(4, "Dan")
    players = [ann, bob, cat, dan]
    for user in (ann, bob, cat):
        await user.start_bot()
    runner = BotRunner(api, pg_url)
    await runner.start()
    try:
        await ann.send(group.id, "/newgame")
        await api.settle()
        lobby = api.find_messages(GROUP, "new game #")[-1]
        for user in (bob, cat):
            answer = await user.press_and_settle(lobby, "✋ Join")
            assert "joined" in answer["text"]
        answer = await dan.press_and_settle(lobby, "✋ Join")
        # never started the bot: he is not sent away to the private chat (🎴 serves him in
        # the group), only told that it would bring a message on his turn; the lobby too
        assert not answer.get("url") and not answer.get("show_alert"), answer
        assert answer["text"].startswith("You joined game #1. Tip: start a private chat")
        assert "🔕" in api.get_message(GROUP, lobby.message_id).text
        await dan.start_bot("g1")
        await api.settle()
        assert "🔕" not in api.get_message(GROUP, lobby.message_id).text

        await ann.send(group.id, "/newgame")  # a second lobby is refused, pointing at the first
        await api.settle()
        assert api.find_messages(GROUP, "already open here")

        answer = await bob.press_and_settle(lobby, "▶️ Start")
        assert answer["show_alert"] and "opened the lobby" in answer["text"]
        answer = await ann.press_and_settle(lobby, "▶️ Start")
        assert not answer.get("show_alert")
        assert "started with" in api.get_message(GROUP, lobby.message_id).text
        for user in players:
            assert api.bot_messages(user.id)[-1].text.count("❓") == 1

        table = api.find_messages(GROUP, "· round 1")[-1]
        mover = next(u for u in players if private_turn_message(api, u))
        other = next(u for u in players if u is not mover)
        # The table carries 🎴 only (the moves are in the private chats, or in the ephemeral
        # message 🎴 sends); a move pressed there anyway (an old client) by a player whose
        # turn it is not is refused.
        assert [t for t, _ in api.buttons(table)] == ["🎴 My cards"]
        stale_data = next(d for _, d in api.buttons(private_turn_message(api, mover))
                          if d and d.startswith("b:"))
        answer = await api.wait_answer(await other.press_raw(GROUP, table.message_id,
                                                             stale_data))
        assert answer["show_alert"] and "not your turn" in answer["text"]
        peek = await other.press_and_settle(table, "🎴 My cards")  # their view, for them only
        assert not peek.get("show_alert") and not peek.get("text")
        assert api.ephemeral_messages(GROUP, other.id)[-1].text.count("❓") == 1

        assert await play_turn(api, players, GROUP)
        # A client still showing the old keyboard (a double tap) sends the old data again.
        stale = await mover.press_raw(GROUP, table.message_id, stale_data)
        answer = await api.wait_answer(stale)
        assert not answer["show_alert"] and answer["text"] == "You already moved this turn."
        forged = await mover.press_raw(GROUP, table.message_id, "b:1:99999:5")
        assert "out of date" in (await api.wait_answer(forged))["text"]
        junk = await mover.press_raw(GROUP, table.message_id, "x" * 40)
        assert (await api.wait_answer(junk))["show_alert"]

        await runner.stop()  # restart in the middle of the round
        await runner.start()
        turns = 0
        while not api.find_messages(GROUP, "is over!"):
            assert await play_turn(api, players, GROUP), "nobody can act but the game is not over"
            turns += 1
            assert turns < 400
        final = api.find_messages(GROUP, "is over!")[-1].text
        assert "Winner" in final
        assert api.find_messages(GROUP, "calls Coyote!")
    finally:
        await runner.stop()


async def test_group_upgraded_to_supergroup_keeps_its_lobby(api: FakeBotAPI, pg_db,
                                                            pg_url: str) -> None:
    old = api.add_group(-555, "Small group", admins=[1])
    ann, bob, cat = (api.add_user(i, n) for i, n in enumerate(["Ann", "Bob", "Cat"], 1))
    for user in (ann, bob, cat):
        await user.start_bot()
    runner = BotRunner(api, pg_url)
    await runner.start()
    try:
        await ann.send(old.id, "/newgame")
        await wait_for(lambda: bool(api.find_messages(old.id, "new game #")))
        api.migrate_group(old.id, -100555)
        await wait_for(lambda: bool(api.find_messages(-100555, "new game #")))
        lobby = api.find_messages(-100555, "new game #")[-1]
        for user in (bob, cat):
            answer = await user.press_and_settle(lobby, "✋ Join")
            assert "joined" in answer["text"]
        await ann.press_and_settle(api.get_message(-100555, lobby.message_id), "▶️ Start")
        await wait_for(lambda: bool(api.find_messages(-100555, "· round 1")))
    finally:
        await runner.stop()
