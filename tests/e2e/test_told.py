"""Moves the group was not told yet are told from the log: a special after which the same
player still acts, across a restart; a note Telegram lost, with the next move."""

from __future__ import annotations

import asyncio

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


async def test_a_new_table_is_recorded_told_before_the_private_messages_are_sent(
        pg_db, pg_url) -> None:
    """A kill while a new table's private messages are still being sent (the rate limiter
    may hold them for seconds) must not post the table again: the game is recorded told
    once the table is posted, before the delivery's other calls end."""
    from tests.e2e.harness import hold, wait_for
    from tests.e2e.koira_play import service_of

    async with bot_table(pg_url, GROUP, "Told", ["Ann", "Bob", "Cat"]) as (
            api, players, runner):
        lobby = await open_lobby(api, players, GROUP)
        held, release = hold(api, "sendMessage", lambda p: int(p.get("chat_id", 0)) > 0)
        await players[0].press(api.get_message(GROUP, lobby.message_id), "▶️ Start")
        await wait_for(held.is_set)
        service = service_of(runner)
        await wait_for(lambda: bool(api.find_messages(GROUP, "round 1")))
        game = (await service.open_games_in(GROUP))[0]
        for _ in range(30):  # (its own transaction; well before the held call times out)
            if (await service.get(game.id)).told_version == game.version:
                break
            await asyncio.sleep(0.05)
        assert (await service.get(game.id)).told_version == game.version
        release.set()
        await api.settle()
