"""The table and the moves of the messy-Telegram end-to-end tests (test_messy_*.py): a quiet basic
group (and a forum) where Ann (admin) and Bob started the bot and Dan never did (he plays with
🎴 only); starting a game, playing until someone's turn, Dan's 🎴 view and moves from the table,
and reading the pings and requests the bot left.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime

import pytest

from engine import GAMES
from tests.clock import Clock
from tests.e2e.harness import BotRunner, move_version, wait_for
from tests.e2e.koira_play import service_of
from tests.fakebot import FakeBotAPI, FakeUser, StoredMessage
from tests.fakebot.html_check import utf16_len

GROUP = -100777001
FORUM = -100777002
CARDS = "🎴 My cards"
ANONYMOUS_ADMIN = {"id": 1087968824, "is_bot": True, "first_name": "Group",
                   "username": "GroupAnonymousBot"}


def failures(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]


def plain(text: str | None) -> str:
    return (text or "").replace("\u2068", "").replace("\u2069", "")


@asynccontextmanager
async def table(url: str, *, forum: bool = False, strangers: int = 1, clock=None,
                names=("Ann", "Bob", "Dan")
                ) -> AsyncIterator[tuple[FakeBotAPI, list[FakeUser], BotRunner, Clock]]:
    """Ann (admin) and Bob started the bot; Dan (the last ``strangers``) never did. The
    group is ``GROUP`` (a basic group), and with ``forum`` also ``FORUM``."""
    clock = clock or Clock(datetime(2026, 5, 4, 9, 0, tzinfo=UTC))
    async with FakeBotAPI() as api:
        api.add_group(GROUP, "Basic", admins=[1])
        if forum:
            api.add_group(FORUM, "Forum", type="supergroup", is_forum=True, admins=[1],
                          bot_admin=True)
        players = [api.add_user(i, name) for i, name in enumerate(names, start=1)]
        for user in players[:len(players) - strangers]:
            await user.start_bot()
        runner = BotRunner(api, url, clock=clock, sweep_interval=0.05)
        await runner.start()
        service_of(runner).new_seed = lambda: 1  # (the same deal every run)
        try:
            yield api, players, runner, clock
        finally:
            await runner.stop()


async def start(api: FakeBotAPI, players: list[FakeUser], chat: int,
                thread: int | None = None, command: str = "/newgame") -> int:
    """The first player opens a lobby (in topic ``thread``), the others join, start: the
    game's id."""
    host = players[0]
    before = {m.message_id for m in api.find_messages(chat, "new game #")}
    await host.send(chat, command, thread_id=thread)
    await wait_for(lambda: any(m.message_id not in before
                               for m in api.find_messages(chat, "new game #")))
    await api.settle(quiet=0.05)
    lobby = next(m for m in api.find_messages(chat, "new game #") if m.message_id not in before)
    for user in players[1:]:
        await user.press_and_settle(lobby, "✋ Join", quiet=0.02)
    await host.press_and_settle(api.get_message(chat, lobby.message_id), "▶️ Start")
    await api.settle(quiet=0.1)
    data = next(d for m in reversed(api.bot_messages(chat)) for t, d in api.buttons(m)
                if t == CARDS)
    return int(data.split(":")[1])


async def game_of(runner, game_id: int):
    return await service_of(runner).get(game_id)


async def to_act(runner, game_id: int) -> int | None:
    game = await game_of(runner, game_id)
    if game.status != "running":
        return None
    seat = GAMES[game.kind].current_seat(game.state)
    return None if seat is None else game.at_seat(seat).user_id


def game_turn_message(api: FakeBotAPI, user: FakeUser, game_id: int) -> StoredMessage | None:
    """``user``'s newest private message with move buttons of ``game_id``."""
    for message in reversed(api.bot_messages(user.id)):
        for _, data in api.buttons(message):
            parts = (data or "").split(":")
            if len(parts) > 2 and parts[1] == str(game_id) and move_version(api, message):
                return message
    return None


def lowest_bid(api: FakeBotAPI, message: StoredMessage) -> str:
    bids = [(int(d.split(":")[3]), d) for _, d in api.buttons(message)
            if d and d.startswith("b:") and d.count(":") == 3]
    return min(bids)[1]


async def bid(api: FakeBotAPI, runner, user: FakeUser, game_id: int) -> dict:
    """``user`` (who started the bot) bids the lowest bid in ``game_id``."""
    game = await game_of(runner, game_id)
    await wait_for(lambda: (m := game_turn_message(api, user, game_id)) is not None
                   and move_version(api, m) == game.version)
    message = game_turn_message(api, user, game_id)
    answer = await user.press_and_settle(message, lowest_bid(api, message), quiet=0.05)
    assert not answer.get("show_alert"), answer
    return answer


async def until_turn_of(api, runner, players, game_id: int, target: FakeUser) -> None:
    """The others bid (lowest) until ``target`` is to act."""
    users = {u.id: u for u in players}
    for _ in range(20):
        who = await to_act(runner, game_id)
        if who == target.id:
            await api.settle(quiet=0.1)
            return
        assert who is not None and users[who] is not target
        await bid(api, runner, users[who], game_id)
    raise AssertionError("never the target's turn")


def named(api: FakeBotAPI, chat: int, user: FakeUser) -> list[StoredMessage]:
    """The group's live pings/reminders naming ``user``'s turn."""
    return [m for m in api.bot_messages(chat) if user.first_name in plain(m.text)
            and ("your turn" in (m.text or ""))]


def mentions(message: StoredMessage, user: FakeUser) -> bool:
    return any(e["type"] == "text_mention" and e["user"]["id"] == user.id
               for e in message.entities)


def command(api: FakeBotAPI, chat: int, sender_id: int, text: str, **extra) -> dict:
    name = text.split(maxsplit=1)[0]
    message = api.store_message(api.chats[chat], from_bot=False, sender_id=sender_id,
                                text=text, entities=[{"type": "bot_command", "offset": 0,
                                                      "length": utf16_len(name)}], **extra)
    return api.message_dict(message)


def anonymous(api: FakeBotAPI, chat: int, text: str) -> None:
    """An anonymous admin sends ``text`` in ``chat``: from Telegram's "Group" bot, with the
    group as ``sender_chat``."""
    data = command(api, chat, ANONYMOUS_ADMIN["id"], text)
    data["from"] = ANONYMOUS_ADMIN
    data["sender_chat"] = api.chats[chat].to_dict()
    api.enqueue_update({"message": data})


def live_ephemeral(api: FakeBotAPI, chat: int, user: FakeUser) -> StoredMessage | None:
    found = api.ephemeral_messages(chat, user.id)
    assert len(found) <= 1, [m.text for m in found]
    return found[0] if found else None


async def dans_view(api: FakeBotAPI, runner, players: list[FakeUser]):
    """Start a game in ``GROUP``, play until Dan (the third player) is to act, and open his
    🎴 view: the game's id, the game then and its table message."""
    game_id = await start(api, players, GROUP)
    await until_turn_of(api, runner, players, game_id, players[2])
    game = await game_of(runner, game_id)
    tbl = api.get_message(GROUP, game.table_message_id)
    await players[2].press_and_settle(tbl, CARDS, quiet=0.05)
    return game_id, game, tbl


async def dan_moves_from_the_table(api, runner, dan: FakeUser, chat: int, game_id: int) -> None:
    """Dan presses 🎴 on the game's table (unless his ephemeral view carries the turn's
    buttons) and bids the lowest bid there."""
    game = await game_of(runner, game_id)
    mine = live_ephemeral(api, chat, dan)
    if mine is None or move_version(api, mine) != game.version:
        tbl = api.get_message(chat, game.table_message_id)
        assert tbl is not None and not tbl.deleted
        answer = await dan.press_and_settle(tbl, CARDS, quiet=0.05)
        assert not answer.get("show_alert"), answer
        await wait_for(lambda: (m := live_ephemeral(api, chat, dan)) is not None
                       and move_version(api, m) == game.version)
        mine = live_ephemeral(api, chat, dan)
    answer = await dan.press_and_settle(mine, lowest_bid(api, mine), quiet=0.1)
    assert not answer.get("show_alert"), answer


def group_calls(api: FakeBotAPI, chat: int) -> int:
    return len([r for r in api.requests if r.params.get("chat_id") == chat])
