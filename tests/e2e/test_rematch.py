"""Keeping the table together, through the real Application and the fake Bot API on
PostgreSQL: 🔁 Rematch after a finished game (its host may /cancel it once no other human
plays in it), /notify's private alert with a join link, and a lobby with an easy and a hard
computer player played to its end."""

from __future__ import annotations

import asyncio

import pytest

from league.service import MatchService
from tests.e2e.harness import BotRunner, labels, play_turn, wait_for
from tests.fakebot import FakeBotAPI

GROUP = -100816


@pytest.fixture
async def api():
    async with FakeBotAPI() as fake:
        yield fake


async def play_to_the_end(api: FakeBotAPI, players, group_id: int) -> None:
    turns = 0
    while not api.find_messages(group_id, "is over!"):
        assert await play_turn(api, players, group_id), "nobody can act, the game goes on"
        turns += 1
        assert turns < 600


async def test_a_rematch_seats_who_taps_and_keeps_the_options(api: FakeBotAPI, pg_db,
                                                               pg_url: str) -> None:
    group = api.add_group(GROUP, "Rematch night")
    ann, bob, cat, dan = (api.add_user(i, n)
                          for i, n in enumerate(["Ann", "Bob", "Cat", "Dan"], 1))
    for user in (ann, bob, cat, dan):
        await user.start_bot()
    runner = BotRunner(api, pg_url)
    await runner.start()
    try:
        await ann.send(group.id, "/newgame feathers")
        await wait_for(lambda: bool(api.find_messages(GROUP, "new game #")))
        await api.settle(quiet=0.05)
        lobby = api.find_messages(GROUP, "new game #")[-1]
        for user in (bob, cat):
            await user.press_and_settle(lobby, "✋ Join")
        await ann.press_and_settle(api.get_message(GROUP, lobby.message_id), "⏱ Pace: standard")
        await ann.press_and_settle(api.get_message(GROUP, lobby.message_id), "▶️ Start")
        await play_to_the_end(api, [ann, bob, cat], GROUP)
        await api.settle(quiet=0.05)
        final = api.find_messages(GROUP, "is over!")[-1]
        assert "🔁 Rematch" in labels(api, final), labels(api, final)

        answer = await dan.press_and_settle(final, "🔁 Rematch")  # not a player of it
        assert answer["show_alert"] and "not playing" in answer["text"]
        answer = await bob.press_and_settle(final, "🔁 Rematch")
        assert "Rematch!" in answer["text"]

        def lobbies():  # (the first lobby now says the game started)
            return [m for m in api.find_messages(GROUP, "new game #")
                    if m.message_id > final.message_id]

        await wait_for(lambda: len(lobbies()) == 1)
        answer = await ann.press_and_settle(final, "🔁 Rematch")
        assert "joined" in answer["text"]
        answer = await ann.press_and_settle(final, "🔁 Rematch")  # a double tap: a toast
        assert not answer["show_alert"] and "already joined" in answer["text"]
        assert len(lobbies()) == 1
        again = lobbies()[0]
        await wait_for(lambda: "Ann" in api.get_message(GROUP, again.message_id).text)
        text = api.get_message(GROUP, again.message_id).text
        assert "Bob" in text and "Cat" not in text and "Dan" not in text

        service = MatchService(pg_db)
        first, second = await service.get(1), await service.get(2)
        assert second.status == "lobby" and second.options == first.options
        assert second.options["edition"] == "feathers" and second.options["pace"] == "relaxed"
        assert {p.user_id for p in second.players} == {ann.id, bob.id}
        assert second.creator_id == bob.id

        # Its host (no admin: the group has none) may /cancel it once no other human plays
        # in it, not before: the refusal says so, not that only admins ever may.
        await bob.press_and_settle(api.get_message(GROUP, again.message_id), "🤖 Add AI")
        await bob.press_and_settle(api.get_message(GROUP, again.message_id), "▶️ Start")
        assert (await service.get(2)).status == "running"
        await bob.send(group.id, "/cancel")
        refusal = "Only a chat admin can cancel a game that other people are still playing"
        await wait_for(lambda: bool(api.find_messages(GROUP, refusal)))
        assert (await service.get(2)).status == "running"
        await ann.send(group.id, "/leave")
        for _ in range(500):  # (her resignation committed: Bob and the computer play on)
            if (seat := (await service.get(2)).player(ann.id)) is None or not seat.playing:
                break
            await asyncio.sleep(0.01)
        await bob.send(group.id, "/cancel")
        await wait_for(lambda: bool(api.find_messages(GROUP, "Game #2 was cancelled.")))
        assert (await service.get(2)).status == "cancelled"
    finally:
        await runner.stop()


async def test_notify_sends_one_private_message_with_a_join_link(api: FakeBotAPI, pg_db,
                                                                 pg_url: str) -> None:
    group = api.add_group(GROUP, "Alerts")
    ann, dan, eve = (api.add_user(i, n) for i, n in [(1, "Ann"), (4, "Dan"), (5, "Eve")])
    for user in (ann, dan):
        await user.start_bot()
    runner = BotRunner(api, pg_url)
    await runner.start()
    try:
        await wait_for(lambda: bool(api.bot_messages(dan.id)))
        await dan.send(group.id, "/notify")
        await wait_for(lambda: bool(api.find_messages(GROUP, "when the next game opens")))
        await eve.send(group.id, "/notify")  # never started the bot: told how to
        await wait_for(lambda: bool(api.find_messages(GROUP, "press Start")))
        before = len(api.bot_messages(dan.id))

        await ann.send(group.id, "/newgame")
        await wait_for(lambda: len(api.bot_messages(dan.id)) > before)
        alert = api.bot_messages(dan.id)[-1]
        assert "A new game" in alert.text and "Alerts" in alert.text
        link = next(d for _, d in api.buttons(alert) if d and "start=" in d)
        payload = link.split("start=")[1]
        await dan.start_bot(payload)
        lobby = api.find_messages(GROUP, "new game #")[-1]
        await wait_for(lambda: "Dan" in api.get_message(GROUP, lobby.message_id).text)
        game = await MatchService(pg_db).get(1)
        assert {p.user_id for p in game.players} == {ann.id, dan.id}
        await api.settle(quiet=0.1)
        alerts = [m for m in api.bot_messages(dan.id) if "A new game" in (m.text or "")]
        assert len(alerts) == 1  # one message per lobby
        assert not [m for m in api.bot_messages(eve.id) if "A new game" in (m.text or "")]

        answer = await ann.press_and_settle(api.get_message(GROUP, lobby.message_id),
                                            "🔔 Next games")  # the lobby's button
        assert answer["show_alert"] and "when the next game opens" in answer["text"]
        answer = await ann.press_and_settle(api.get_message(GROUP, lobby.message_id),
                                            "🔔 Next games")
        assert "already" in answer["text"]
        await dan.send(group.id, "/notify off")
        await wait_for(lambda: bool(api.find_messages(GROUP, "no more messages")))
    finally:
        await runner.stop()


async def test_an_easy_and_a_hard_computer_player_play_to_the_end(api: FakeBotAPI, pg_db,
                                                                  pg_url: str) -> None:
    group = api.add_group(GROUP, "Bots")
    ann = api.add_user(1, "Ann")
    await ann.start_bot()
    runner = BotRunner(api, pg_url)
    await runner.start()
    try:
        await ann.send(group.id, "/newgame")
        await wait_for(lambda: bool(api.find_messages(GROUP, "new game #")))
        await api.settle(quiet=0.05)
        lobby = api.find_messages(GROUP, "new game #")[-1]

        def current():
            return api.get_message(GROUP, lobby.message_id)

        wile, howler = "\u2068Wile\u2069", "\u2068Howler\u2069"  # (names are isolated)
        for label in ("🤖 Add AI", "🤖 Add AI", f"{wile}: normal", f"{howler}: normal",
                      f"{howler}: hard"):
            await ann.press_and_settle(current(), label)
        text = current().text
        assert f"🤖 {wile} (hard)" in text and f"🤖 {howler} (easy)" in text, text
        buttons = [t for t, _ in api.buttons(current())]
        assert f"{wile}: hard" in buttons and f"{howler}: easy" in buttons, buttons
        await ann.press_and_settle(current(), "▶️ Start")
        await play_to_the_end(api, [ann], GROUP)
        game = await MatchService(pg_db).get(1)
        assert game.status == "finished"
        assert [p.level for p in game.seated] == [None, "hard", "easy"]
    finally:
        await runner.stop()
