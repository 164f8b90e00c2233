"""Telegram's passing faults (a 502, a network error) in the middle of a game: nothing the
players need is lost, and no dead keyboard is left behind. Found by a chaos review that
injected random Bot API failures into whole games."""

from __future__ import annotations

import pytest

from tests.e2e.harness import bot_table, open_lobby, play_turn, wait_for
from tests.fakebot import FakeBotAPI

GROUP = -100426


@pytest.fixture
async def table(pg_db, pg_url):
    async with bot_table(pg_url, GROUP, "Flaky", ["Ann", "Bob", "Cat"]) as (api, players, _):
        yield api, players


def text_has(words: str):
    return lambda params: words in str(params.get("text"))


def keyboards(api: FakeBotAPI, chat_id: int) -> list:
    return [m for m in api.bot_messages(chat_id) if api.buttons(m)]


async def test_a_bad_gateway_does_not_lose_the_end_of_the_game(table) -> None:
    api, players = table
    api.fail_next("sendMessage", 502, "Bad Gateway", chat_id=GROUP, when=text_has("is over!"))
    api.fail_next("editMessageText", 502, "Bad Gateway", chat_id=GROUP,
                  when=text_has("The game is over."))
    lobby = await open_lobby(api, players, GROUP)
    await players[0].press_and_settle(lobby, "▶️ Start")
    for _ in range(400):
        if api.find_messages(GROUP, "is over!"):
            break
        assert await play_turn(api, players, GROUP)
    assert api.find_messages(GROUP, "is over!")
    await api.settle()
    # No move buttons in the group (the moves are in the private chats); old tables keep
    # their 👀, which answers for the game as it is now, and the last message its 🔁.
    assert [d for m in keyboards(api, GROUP) for _, d in api.buttons(m)
            if not d.startswith(("p:", "rm:"))] == []


async def test_a_private_message_that_failed_is_sent_at_the_next_move(table) -> None:
    api, players = table
    lobby = await open_lobby(api, players, GROUP)
    # Every try fails: the round's private message of one player is not sent at the deal.
    api.fail_next("sendMessage", 500, "Internal Server Error", count=2, chat_id=players[1].id)
    await players[0].press_and_settle(lobby, "▶️ Start")
    await wait_for(lambda: bool(api.find_messages(GROUP, "· round 1")))
    assert "\n🐺 Game #1 · round 1\n" not in api.bot_messages(players[1].id)[-1].text
    # The next delivery (the sweep's, or the next move's: a bid typed in the private chat,
    # which every player has, even the one without the round's message) sends it.
    table = api.find_messages(GROUP, "· round 1")[-1]
    mover = next(u for u in players if f"{u.first_name}\u2069 opens the round" in table.text)
    await mover.send(mover.id, "1")
    await wait_for(lambda: "\n🐺 Game #1 · round 1\n" in api.bot_messages(players[1].id)[-1].text)


async def test_a_lobby_whose_closing_edit_failed_is_closed_by_the_next_press(table) -> None:
    api, players = table
    lobby = await open_lobby(api, players, GROUP)
    api.fail_next("editMessageText", 502, "Bad Gateway", count=2, chat_id=GROUP,
                  when=text_has("started with"))
    await players[0].press_and_settle(lobby, "▶️ Start")
    assert api.buttons(api.get_message(GROUP, lobby.message_id))  # still the lobby's
    answer = await players[1].press_and_settle(api.get_message(GROUP, lobby.message_id),
                                               "✋ Join")
    assert answer["show_alert"]
    closed = api.get_message(GROUP, lobby.message_id)
    assert "started with" in closed.text and not api.buttons(closed)
