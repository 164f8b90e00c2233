"""Forged, repeated and ambiguous input from a review that tried to break the bot: each test
describes what once went wrong."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest

from tests.e2e.harness import bot_table, mover, open_lobby, private_turn_message, wait_for
from tests.fakebot import FakeBotAPI, FakeUser

GROUP = -100424242


def said(api: FakeBotAPI, chat_id: int, text: str) -> list:
    return [m for m in api.bot_messages(chat_id) if text in (m.text or "")]


def failures(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]


def twice(api: FakeBotAPI, payload: dict) -> None:
    """Deliver one update twice with the same update_id (as Telegram does when the bot's
    offset was not confirmed before a crash)."""
    update = api.enqueue_update(payload)
    api._updates.append(dict(update))
    api._updates_event.set()


async def test_start_with_a_superscript_digit_in_the_game_link_is_answered(
        pg_db, pg_url, caplog) -> None:
    """``/start g²`` typed in the private chat: ``"²".isdigit()`` is true but ``int("²")``
    raises; the handler crashed and the user got no answer at all."""
    caplog.set_level(logging.INFO)
    async with bot_table(pg_url, GROUP, "G", ["Ann"]) as (api, (ann,), _):
        await api.settle()
        before = len(api.bot_messages(ann.id))
        await ann.send(ann.id, "/start g²")
        await api.settle()
        assert len(api.bot_messages(ann.id)) > before, "no answer to /start g²"
    assert not failures(caplog)


async def test_a_typed_bid_delivered_twice_is_applied_once(pg_db, pg_url) -> None:
    """Telegram delivers a typed bid twice (same update_id: the bot's offset was not
    confirmed before a restart). Buttons carry the game version, typed bids do not: the copy
    was applied as a second bid once the turn was the sender's again (here: the computers call
    the too-high bid, the sender loses and opens the next round, and the copy became their
    opening bid there, costing a second life)."""
    async with bot_table(pg_url, GROUP, "G", ["Ann"]) as (api, (ann,), _):
        await ann.send(GROUP, "/newgame")
        await wait_for(lambda: bool(said(api, GROUP, "new game #")))
        await api.settle()
        lobby = said(api, GROUP, "new game #")[-1]
        await ann.press_and_settle(lobby, "🤖 Add AI")
        await ann.press_and_settle(api.get_message(GROUP, lobby.message_id), "🤖 Add AI")
        await ann.press_and_settle(api.get_message(GROUP, lobby.message_id), "▶️ Start")
        await wait_for(lambda: private_turn_message(api, ann) is not None)
        msg = api.store_message(api.private_chat(ann), from_bot=False, sender_id=ann.id,
                                text="500", entities=[])
        twice(api, {"message": api.message_dict(msg)})
        await api.settle()
        # (a closed table repeats its round's moves: the live messages tell each once)
        group_text = "\n".join(m.text or "" for m in api.bot_messages(GROUP)
                               if "is over: see below" not in (m.text or ""))
        assert group_text.count("bids 500") == 1, group_text


BIDI_CONTROLS = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"


async def test_a_name_cannot_break_out_of_its_bidi_isolation(pg_db, pg_url) -> None:
    """Names are wrapped in FSI…PDI so that right-to-left text cannot reorder the line
    (DEVELOPERS.md). A name that itself contained a PDI (U+2069) closed that isolate early; a
    right-to-left override (U+202E) after it then reversed the rest of the line, e.g. the
    bid numbers in "Eve bids 12." (shown as 21). Bidi controls inside a name are dropped."""
    async with bot_table(pg_url, GROUP, "G", ["Ann", "Bob"]) as (api, (ann, bob), _):
        bob.first_name = "Bob\u2069\u202e"
        await ann.send(GROUP, "/newgame")
        await wait_for(lambda: bool(said(api, GROUP, "new game #")))
        await api.settle()
        lobby = said(api, GROUP, "new game #")[-1]
        await bob.press_and_settle(lobby, "✋ Join")
        text = api.get_message(GROUP, lobby.message_id).text
        line = next(line for line in text.splitlines() if "Bob" in line)
        inner = line.split("\u2068", 1)[1].rsplit("\u2069", 1)[0]
        assert not any(c in BIDI_CONTROLS for c in inner), repr(line)


OTHER = -100434343


@asynccontextmanager
async def _turns_in_two_games(pg_url: str) -> AsyncIterator[tuple[FakeBotAPI, FakeUser, int]]:
    """Ann, alone with two computer players in this group and in another (``OTHER``): it is
    her turn in both games. Yields the api, Ann and the other group's id."""
    async with bot_table(pg_url, GROUP, "G", ["Ann"]) as (api, (ann,), _):
        api.add_group(OTHER, "H", admins=[1])
        await _game_with_two_ais(api, ann, GROUP)
        await _game_with_two_ais(api, ann, OTHER)
        await api.settle()
        yield api, ann, OTHER


async def _game_with_two_ais(api: FakeBotAPI, host, group_id: int) -> None:
    await host.send(group_id, "/newgame")
    await wait_for(lambda: bool(said(api, group_id, "new game #")))
    await api.settle()
    lobby = said(api, group_id, "new game #")[-1]
    for label in ("🤖 Add AI", "🤖 Add AI", "▶️ Start"):
        await host.press_and_settle(api.get_message(group_id, lobby.message_id), label)


def _turn_message(api: FakeBotAPI, user: FakeUser, game: int):
    """The user's private message of game #``game`` if it says it is their turn, else None."""
    return next((m for m in reversed(api.bot_messages(user.id))
                 if f"Game #{game} ·" in (m.text or "") and "Your turn" in m.text), None)


async def test_a_typed_bid_goes_to_the_game_whose_message_it_answers(pg_db, pg_url) -> None:
    """Ann plays in two groups and it is her turn in both. Her private message of game #2
    says she can also type the number; she types 7 as a reply to that very message.
    The bid was placed in game #1 instead (the oldest game where it was her turn), a move she
    never meant in a game she was not looking at."""
    async with _turns_in_two_games(pg_url) as (api, ann, other):
        # (not "round 1": the computer players may end a round before Ann's first turn)
        await wait_for(lambda: _turn_message(api, ann, 1) and _turn_message(api, ann, 2))
        second = _turn_message(api, ann, 2)
        assert _turn_message(api, ann, 1) is not None
        # The lowest bid her keyboard of game #2 offers (the computer players before her may
        # have bid 7 or more: a fixed number would then be refused as too low).
        shown = api.get_message(ann.id, second.message_id)
        bid = min(int(d.split(":")[3]) for _, d in api.buttons(shown)
                  if d and d.startswith("b:") and d.count(":") == 3)
        msg = api.store_message(api.private_chat(ann), from_bot=False, sender_id=ann.id,
                                text=str(bid), entities=[], reply_to=second.message_id)
        api.enqueue_update({"message": api.message_dict(msg)})
        # (waited for: a loaded machine may be quiet for a moment before the note goes out)
        await wait_for(lambda: bool(said(api, other, f"Ann\u2069 bids {bid}")))
        await api.settle()
        assert not said(api, GROUP, f"Ann\u2069 bids {bid}"), [
            m.text for m in api.bot_messages(GROUP)]


async def test_a_double_tap_on_add_ai_adds_one_computer_player(pg_db, pg_url) -> None:
    """The host double-taps 🤖 Add AI (two callback queries from one lobby message, as a
    quick double tap sends). callbacks.py says every button that changes the game carries its
    version "so a press on an old message (or a second tap) is refused"; the lobby's Add AI /
    Remove AI buttons carried none, so both taps were applied and two computer players joined.
    (The option buttons are safe: they carry the value to set.)"""
    async with bot_table(pg_url, GROUP, "G", ["Ann"]) as (api, (ann,), _):
        await ann.send(GROUP, "/newgame")
        await wait_for(lambda: bool(said(api, GROUP, "new game #")))
        await api.settle()
        lobby = said(api, GROUP, "new game #")[-1]
        first = await ann.press(lobby, "🤖 Add AI")
        second = await ann.press(lobby, "🤖 Add AI")  # the same picture, tapped twice
        await api.wait_answer(first)
        await api.wait_answer(second)
        await api.settle()
        text = api.get_message(GROUP, lobby.message_id).text
        assert text.count("🤖") == 1, text


async def test_a_press_on_a_cancelled_games_private_message_keeps_saying_cancelled(
        pg_db, pg_url) -> None:
    """The host cancels a running game; every private message now reads "Game #1 was
    cancelled." A player presses a bid button their client still shows (an old picture):
    the alert says the game is not running, and ``Presenter.redraw`` rewrote the message to
    "round 1 is over (see the group)", as if the game went on to another round."""
    async with bot_table(pg_url, GROUP, "G", ["Ann", "Bob", "Cat"]) as (api, players, _):
        lobby = await open_lobby(api, players, GROUP)
        await players[0].press_and_settle(lobby, "▶️ Start")
        turn = await mover(api, players)
        message = private_turn_message(api, turn)
        bid = next(d for _, d in api.buttons(message) if d and d.startswith("b:"))
        await players[0].send(GROUP, "/cancel")
        await wait_for(lambda: "cancelled" in api.get_message(turn.id, message.message_id).text)
        await api.settle()
        answer = await api.wait_answer(await turn.press_raw(turn.id, message.message_id, bid))
        assert answer["show_alert"]
        await api.settle()
        assert "cancelled" in api.get_message(turn.id, message.message_id).text, \
            api.get_message(turn.id, message.message_id).text


async def test_a_typed_bid_with_turns_in_two_games_asks_which(pg_db, pg_url) -> None:
    """Not a reply, and it is her turn in two games: she is asked to reply to the game's
    message, and no bid is placed."""
    async with _turns_in_two_games(pg_url) as (api, ann, other):
        # (the groups as they were: a computer player may have bid 7 before her turn)
        before = [[(m.message_id, m.text) for m in api.bot_messages(chat)]
                  for chat in (GROUP, other)]
        await ann.send(ann.id, "7")
        await api.settle()
        assert said(api, ann.id, "It is your turn in games #1, #2")
        assert [[(m.message_id, m.text) for m in api.bot_messages(chat)]
                for chat in (GROUP, other)] == before


async def test_forged_presses_get_the_answer_that_fits(pg_db, pg_url) -> None:
    """A settings press forged on the lobby changed the chat's setting and turned the lobby's
    keyboard into the settings keyboard; a forged bid of a non-player was told the bid limit
    instead of that they do not play."""
    async with bot_table(pg_url, GROUP, "G", ["Ann", "Bob", "Cat", "Eve"]) as (
            api, (ann, bob, cat, eve), _):
        lobby = await open_lobby(api, [ann, bob, cat], GROUP)
        before = api.buttons(api.get_message(GROUP, lobby.message_id))
        answer = await api.wait_answer(await ann.press_raw(GROUP, lobby.message_id, "z:0:0"))
        await api.settle()
        assert answer["text"] and api.buttons(api.get_message(GROUP, lobby.message_id)) == before
        await ann.press_and_settle(api.get_message(GROUP, lobby.message_id), "▶️ Start")
        turn = await mover(api, [ann, bob, cat])
        message = private_turn_message(api, turn)
        version = next(d for _, d in api.buttons(message) if d and d.startswith("b:")).split(":")[2]
        table = api.find_messages(GROUP, "round 1")[-1]
        answer = await api.wait_answer(await eve.press_raw(
            GROUP, table.message_id, f"b:1:{version}:999999999999"))
        assert "not playing" in answer["text"].lower() or "not in this game" in \
            answer["text"].lower(), answer["text"]
