"""Moves the group was not told yet are told from the log: a special after which the same
player still acts, across a restart; a note Telegram lost, with the next move."""

from __future__ import annotations

from tests.e2e.harness import (
    bot_table,
    labels,
    mover,
    open_lobby,
    press,
    private_turn_message,
    start_game,
)

GROUP = -100556


def _plain(text: str) -> str:
    return text.replace("\u2068", "").replace("\u2069", "")


async def test_a_held_special_is_told_after_a_restart(pg_db, pg_url) -> None:
    async with bot_table(pg_url, GROUP, "Told", ["Ann", "Bob", "Cat"],
                         notes="every_move") as (api, players, runner):
        await start_game(api, players, GROUP, "/newgame feathers", "🪙 Coins: off")
        first = await mover(api, players)
        await press(api, first, "🪙 Extra feather", GROUP)
        before = len(api.bot_messages(GROUP))

        await runner.stop()  # the Extra feather's note is not sent yet: it waits for the bid
        await runner.start()
        await press(api, first, "1", GROUP)
        await api.settle()
        [note] = [m for m in api.bot_messages(GROUP)[before:] if "bids 1." in m.text]
        assert "turns the Extra feather coin" in note.text


async def test_a_lost_note_is_told_with_the_next_move(pg_db, pg_url) -> None:
    async with bot_table(pg_url, GROUP, "Told", ["Ann", "Bob", "Cat"],
                         notes="every_move") as (api, players, _):
        lobby = await open_lobby(api, players, GROUP)
        await players[0].press_and_settle(lobby, "▶️ Start")
        first = await mover(api, players)
        # the note of the first bid fails, and so does its one retry
        api.fail_next("sendMessage", 502, "Bad Gateway", count=2, chat_id=GROUP)
        await press(api, first, "1", GROUP)
        await api.settle()
        assert not api.find_messages(GROUP, "bids 1.")
        second = await mover(api, players)
        await press(api, second, next(t for t in labels(api, private_turn_message(api, second))
                                      if t.isdigit()), GROUP)
        await api.settle()
        note = _plain(api.find_messages(GROUP, "bids 1.")[-1].text)
        assert f"{first.first_name} bids 1." in note
        assert f"{second.first_name} bids 2." in note
        # told once: the third move's note has neither
        third = await mover(api, players)
        before = len(api.bot_messages(GROUP))
        await press(api, third, "3", GROUP)
        await api.settle()
        assert not [m for m in api.bot_messages(GROUP)[before:] if "bids 1." in m.text]


async def test_a_refused_note_is_not_told_again(pg_db, pg_url) -> None:
    """A note Telegram refused (a bad request) would be refused again: it is not repeated,
    so it cannot spoil the notes after it."""
    async with bot_table(pg_url, GROUP, "Told", ["Ann", "Bob", "Cat"],
                         notes="every_move") as (api, players, _):
        lobby = await open_lobby(api, players, GROUP)
        await players[0].press_and_settle(lobby, "▶️ Start")
        first = await mover(api, players)
        api.fail_next("sendMessage", 400, "Bad Request: can't parse entities", chat_id=GROUP)
        await press(api, first, "1", GROUP)
        await api.settle()
        second = await mover(api, players)
        await press(api, second, "2", GROUP)
        await api.settle()
        assert not api.find_messages(GROUP, "bids 1.")
        assert api.find_messages(GROUP, "bids 2.")
