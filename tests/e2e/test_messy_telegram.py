"""Messy Telegram around a running game, in a quiet group (a break-it review): forum topics,
a supergroup migration mid-game, /pause and /resume while a group-only player is to act,
timeouts, a player who blocks the bot, the bot demoted or removed, an anonymous admin,
double taps and repeated updates. Dan never starts the bot (he plays with 🎴 only)."""

from __future__ import annotations

import asyncio
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


# ---------------------------------------------------------------- forum topics

async def test_two_games_in_two_topics_keep_pings_reminders_and_timeouts_in_their_topic(
        pg_db, pg_url, caplog) -> None:
    """Two games at once in two topics of one forum; Dan (no private chat) is to act in
    both: his pings, the 🎴 ephemeral views, the reminders and the timeouts' tables stay in
    each game's topic; nothing lands in General or the other topic."""
    caplog.set_level(logging.INFO)
    async with table(pg_url, forum=True) as (api, players, runner, clock):
        ann, bob, dan = players
        one = api.create_topic(FORUM, "One", ann)
        two = api.create_topic(FORUM, "Two", ann)
        g1 = await start(api, players, FORUM, one)
        g2 = await start(api, [bob, ann, dan], FORUM, two)
        assert (await game_of(runner, g1)).thread_id == one
        assert (await game_of(runner, g2)).thread_id == two
        await until_turn_of(api, runner, players, g1, dan)
        await until_turn_of(api, runner, players, g2, dan)
        # (a ping, or the new table that names him: a mention either way)
        for thread in (one, two):
            assert [m for m in api.topic_messages(FORUM, thread) if mentions(m, dan)], thread
        assert all(m.thread_id in (one, two) for m in named(api, FORUM, dan))
        # 🎴 on each table: the ephemeral view in the table's topic
        for game_id, thread in ((g1, one), (g2, two)):
            game = await game_of(runner, game_id)
            tbl = api.get_message(FORUM, game.table_message_id)
            assert tbl.thread_id == thread
            answer = await dan.press_and_settle(tbl, CARDS, quiet=0.05)
            assert not answer.get("show_alert"), answer
            mine = [m for m in api.ephemeral_messages(FORUM, dan.id) if m.thread_id == thread]
            assert mine, [(m.thread_id, m.text) for m in api.ephemeral_messages(FORUM, dan.id)]
        # the clock: reminders at three quarters, then the timeouts
        clock.advance(2701)
        await wait_for(lambda: len(api.find_messages(FORUM, "it is your turn in game")) >= 2)
        await api.settle(quiet=0.2)
        clock.advance(901)
        await wait_for(lambda: len(api.find_messages(FORUM, "ran out of time")) >= 2)
        await api.settle(quiet=0.3)
        for message in api.messages(FORUM, include_deleted=True):
            if message.from_bot and message.kind != "service":
                assert message.thread_id in (one, two), (message.thread_id, message.text)
        for message in api.ephemeral_messages(FORUM, None, True):
            assert message.thread_id in (one, two), (message.thread_id, message.text)
        for game_id, thread in ((g1, one), (g2, two)):
            in_topic = "\n".join(m.text or "" for m in api.topic_messages(FORUM, thread))
            assert f"#{game_id}" in in_topic
            other = g2 if game_id == g1 else g1
            assert f"Game #{other}" not in in_topic
    assert not failures(caplog)


# ---------------------------------------------------------------- supergroup migration

NEW = -100777003


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


async def test_a_migration_while_a_group_only_player_is_to_act(pg_db, pg_url, caplog) -> None:
    """Dan (no private chat) is to act, pinged, with his 🎴 view open, when the group
    becomes a supergroup: the table comes once in the supergroup and names him there, his 🎴
    works there, his move goes through, the next turns' pings come in the supergroup, and
    nothing the bot posted in the supergroup is deleted or edited by an old group's id."""
    caplog.set_level(logging.INFO)
    async with table(pg_url) as (api, players, runner, clock):
        ann, bob, dan = players
        game_id = await start(api, players, GROUP)
        await until_turn_of(api, runner, players, game_id, dan)
        tbl = api.get_message(GROUP, (await game_of(runner, game_id)).table_message_id)
        await dan.press_and_settle(tbl, CARDS, quiet=0.05)
        assert live_ephemeral(api, GROUP, dan) is not None
        # the supergroup has messages of its own whose ids the old group's had
        api.migrate_group(GROUP, NEW)
        await wait_for(lambda: bool(api.find_messages(NEW, "· round")))
        await api.settle(quiet=0.3)
        for _ in range(8):
            await bob.send(NEW, "chatter")
        await api.settle(quiet=0.1)
        tables = [m for m in api.bot_messages(NEW) if CARDS in [t for t, _ in api.buttons(m)]]
        assert len(tables) == 1, [m.text for m in tables]
        # (his ping stays in the old group's history; the clock's reminder comes here)
        clock.advance(2701)
        await wait_for(lambda: bool(api.find_messages(NEW, "it is your turn in game")))
        await api.settle(quiet=0.2)
        reminder = api.find_messages(NEW, "it is your turn in game")[-1]
        assert "Dan" in plain(reminder.text)
        await dan_moves_from_the_table(api, runner, dan, NEW, game_id)
        await api.settle(quiet=0.2)
        assert api.get_message(NEW, reminder.message_id).deleted  # (its turn is over)
        await until_turn_of(api, runner, players, game_id, dan)
        game = await game_of(runner, game_id)
        assert game.chat_id == NEW
        pings = named(api, NEW, dan)
        assert len(pings) == 1, [m.text for m in pings]
        await dan_moves_from_the_table(api, runner, dan, NEW, game_id)
        await api.settle(quiet=0.2)
        assert not named(api, NEW, dan), [m.text for m in named(api, NEW, dan)]
        # nothing of the supergroup's people was touched by an id of the old group
        users = [m for m in api.messages(NEW, include_deleted=True) if not m.from_bot]
        assert not [m for m in users if m.deleted or m.edits]
        assert len([m for m in api.bot_messages(NEW)
                    if CARDS in [t for t, _ in api.buttons(m)]]) == 1
    assert not failures(caplog)


async def test_a_press_on_the_old_groups_table_after_the_migration(pg_db, pg_url,
                                                                   caplog) -> None:
    """The old group's history still shows the table with 🎴 (and Dan's old view with his
    buttons): Dan presses them after the group became a supergroup. Each press is
    answered, nothing fails, and what he is shown is in the supergroup."""
    caplog.set_level(logging.INFO)
    async with table(pg_url) as (api, players, runner, clock):
        ann, bob, dan = players
        game_id = await start(api, players, GROUP)
        await until_turn_of(api, runner, players, game_id, dan)
        old_table = api.get_message(GROUP, (await game_of(runner, game_id)).table_message_id)
        await dan.press_and_settle(old_table, CARDS, quiet=0.05)
        old_view = live_ephemeral(api, GROUP, dan)
        assert old_view is not None and move_version(api, old_view)
        api.migrate_group(GROUP, NEW)
        await wait_for(lambda: bool(api.find_messages(NEW, "· round")))
        await api.settle(quiet=0.3)
        answer = await dan.press_and_settle(old_table, CARDS, quiet=0.1)
        shown = api.ephemeral_messages(NEW, dan.id)
        assert shown or answer.get("text"), answer  # a view in the supergroup, or a word why
        before = (await game_of(runner, game_id)).version
        answer = await dan.press_and_settle(old_view, lowest_bid(api, old_view), quiet=0.1)
        assert answer is not None
        after = await game_of(runner, game_id)
        if after.version == before:  # refused: he is told why
            assert answer.get("text"), answer
        assert len([m for m in api.bot_messages(NEW)
                    if CARDS in [t for t, _ in api.buttons(m)]]) == 1
    assert not failures(caplog)


# ---------------------------------------------------------------- /pause and /resume

async def test_pause_and_resume_while_a_group_only_player_is_to_act(pg_db, pg_url,
                                                                   caplog) -> None:
    """Dan (no private chat) is to act with his 🎴 view open, half an hour into his turn;
    Ann pauses for ten days, then resumes. His view and the table show the paused clock,
    then the new deadline (half an hour after the resume); no reminder while paused; the
    reminder comes a quarter of an hour after the resume, with the new deadline, once;
    then the timeout."""
    caplog.set_level(logging.INFO)
    async with table(pg_url) as (api, players, runner, clock):
        ann, bob, dan = players
        game_id, game, tbl = await dans_view(api, runner, players)
        view = live_ephemeral(api, GROUP, dan)
        assert view is not None and "Turn ends" in view.text, view.text
        clock.advance(1800)
        await api.settle(quiet=0.2)
        await ann.send(GROUP, "/pause")
        await wait_for(lambda: bool(api.find_messages(GROUP, "is paused")))
        await api.settle(quiet=0.2)
        assert "The clock is paused" in api.get_message(GROUP, tbl.message_id).text
        view = live_ephemeral(api, GROUP, dan)
        assert view is not None and "Turn ends" not in view.text, view.text  # no stale clock
        clock.advance(10 * 86400)
        await api.settle(quiet=0.3)
        assert not api.find_messages(GROUP, "it is your turn in game")
        assert not api.find_messages(GROUP, "ran out of time")
        await ann.send(GROUP, "/resume")
        await wait_for(lambda: bool(api.find_messages(GROUP, "runs again")))
        await api.settle(quiet=0.3)
        resumed = clock.now
        deadline = int((resumed.timestamp()) + 1800)
        text = api.get_message(GROUP, tbl.message_id).text
        assert "Turn ends" in text, text
        stamps = [e["unix_time"] for e in api.get_message(GROUP, tbl.message_id).entities
                  if e["type"] == "date_time"]
        assert stamps and abs(stamps[0] - deadline) <= 60, (stamps, deadline)
        view = live_ephemeral(api, GROUP, dan)
        assert view is not None and "Turn ends" in view.text, view.text
        stamps = [e["unix_time"] for e in view.entities if e["type"] == "date_time"]
        assert stamps and abs(stamps[0] - deadline) <= 60, (stamps, deadline)
        assert not api.find_messages(GROUP, "it is your turn in game")  # (not yet)
        clock.advance(14 * 60)
        await api.settle(quiet=0.3)
        assert not api.find_messages(GROUP, "it is your turn in game"), "reminder too early"
        clock.advance(2 * 60)
        await wait_for(lambda: bool(api.find_messages(GROUP, "it is your turn in game")))
        await api.settle(quiet=0.3)
        [reminder] = api.find_messages(GROUP, "it is your turn in game")
        stamps = [e["unix_time"] for e in reminder.entities if e["type"] == "date_time"]
        assert stamps and abs(stamps[0] - deadline) <= 60, (stamps, deadline, reminder.text)
        clock.advance(15 * 60)
        await wait_for(lambda: bool(api.find_messages(GROUP, "ran out of time")))
        await api.settle(quiet=0.3)
        # (Dan's ping after the timeout: test_a_reminded_group_only_player_keeps_no_ping…)
    assert not failures(caplog)


# ---------------------------------------------------------------- timeouts

@pytest.mark.parametrize("ends", ["timeout", "move", "cancel"])
async def test_a_reminded_group_only_player_keeps_no_ping_after_the_turn(
        pg_db, pg_url, caplog, ends) -> None:
    """Dan (no private chat) is passed the turn by a bid: pinged ("Dan, your turn: 🎴 …").
    At three quarters of his clock the reminder names him too. His turn then ends (it times
    out, he moves from 🎴, or Ann cancels the game): the ping and the reminder both go
    (README: the ping is "deleted (as a clock's reminder is) once its turn is over")."""
    caplog.set_level(logging.INFO)
    async with table(pg_url) as (api, players, runner, clock):
        ann, bob, dan = players
        # (seed 1, table(): Ann opens, Dan's turn comes by a bid)
        game_id = await start(api, players, GROUP)
        await until_turn_of(api, runner, players, game_id, dan)
        [ping] = named(api, GROUP, dan)
        clock.advance(2701)
        await wait_for(lambda: bool(api.find_messages(GROUP, "it is your turn in game")))
        await api.settle(quiet=0.3)
        if ends == "timeout":
            clock.advance(901)
            await wait_for(lambda: bool(api.find_messages(GROUP, "ran out of time")))
        elif ends == "move":
            await dan_moves_from_the_table(api, runner, dan, GROUP, game_id)
        else:
            await ann.send(GROUP, "/cancel")
            await wait_for(lambda: bool(api.find_messages(GROUP, "was cancelled")))
        await api.settle(quiet=0.3)
        if (await to_act(runner, game_id)) != dan.id:
            assert api.get_message(GROUP, ping.message_id).deleted, \
                f"Dan's ping stays after his turn: {ping.text!r}"
            assert not named(api, GROUP, dan), [m.text for m in named(api, GROUP, dan)]
    assert not failures(caplog), failures(caplog)


async def play_until(api, runner, players, game_id: int, *, away: FakeUser, clock,
                     stop, limit: int = 40) -> None:
    """Everybody but ``away`` bids (Dan from the group); ``away``'s turns time out; until
    ``stop()``."""
    users = {u.id: u for u in players}
    for _ in range(limit):
        if stop():
            return
        who = await to_act(runner, game_id)
        if who is None:
            return
        user = users[who]
        version = (await game_of(runner, game_id)).version
        if user is away:
            clock.advance(3601)
            for _ in range(300):
                if (await game_of(runner, game_id)).version != version:
                    break
                await asyncio.sleep(0.02)
            await api.settle(quiet=0.2)
            continue
        if user.started:
            await bid(api, runner, user, game_id)
        else:
            await dan_moves_from_the_table(api, runner, user, GROUP, game_id)
        await api.settle(quiet=0.1)
    raise AssertionError("did not get there")


@pytest.mark.parametrize("who", ["Dan", "Bob"])
async def test_two_timeouts_in_a_row_remove_the_player_and_leave_nothing_live(
        pg_db, pg_url, caplog, who) -> None:
    """Dan (group only) or Bob (private chat) lets two turns in a row time out: removed,
    the others play on. No ping or reminder naming him stays in the group, he keeps no live
    keyboard (private, or 🎴 view), and his 🎴 press is told he is out."""
    caplog.set_level(logging.INFO)
    async with table(pg_url, names=("Ann", "Bob", "Cat", "Dan")) as (
            api, players, runner, clock):
        ann, bob, cat, dan = players
        away = dan if who == "Dan" else bob
        game_id = await start(api, players, GROUP)
        await play_until(api, runner, players, game_id, away=away, clock=clock,
                         stop=lambda: bool(api.find_messages(GROUP, "is removed from")))
        await api.settle(quiet=0.3)
        game = await game_of(runner, game_id)
        assert game.status == "running"
        assert not named(api, GROUP, away), [m.text for m in named(api, GROUP, away)]
        assert not [m for m in api.find_messages(GROUP, "it is your turn in game")
                    if away.first_name in plain(m.text)]
        for message in api.ephemeral_messages(GROUP, away.id):
            assert move_version(api, message) is None, message.text
        for message in api.bot_messages(away.id):
            assert move_version(api, message) is None, message.text
        tbl = api.get_message(GROUP, game.table_message_id)
        answer = await away.press_and_settle(tbl, CARDS, quiet=0.1)
        assert "out" in (answer.get("text") or "").lower(), answer
        # the game goes on: someone else holds the turn, with a keyboard
        nxt = await to_act(runner, game_id)
        assert nxt is not None and nxt != away.id
    assert not failures(caplog)


# ---------------------------------------------------------------- the bot removed or demoted

def group_calls(api: FakeBotAPI, chat: int) -> int:
    return len([r for r in api.requests if r.params.get("chat_id") == chat])


@pytest.mark.parametrize("status", ["kicked", "left"])
async def test_the_bot_removed_mid_game(pg_db, pg_url, caplog, status) -> None:
    """An admin removes the bot from the group mid-game, then the players with a private
    chat go on pressing: each press is answered, nothing logs an error, and the bot does not
    knock on the group's door again and again while nothing happens."""
    caplog.set_level(logging.INFO)
    async with table(pg_url, names=("Ann", "Bob", "Cat"), strangers=0) as (
            api, players, runner, clock):
        ann, bob, cat = players
        game_id = await start(api, players, GROUP)
        api.bot_membership(GROUP, status, by=ann, old="member")
        await api.settle(quiet=0.3)
        users = {u.id: u for u in players}
        for _ in range(3):
            who = await to_act(runner, game_id)
            if who is None:
                break
            await bid(api, runner, users[who], game_id)
            await api.settle(quiet=0.2)
        calls = group_calls(api, GROUP)
        await asyncio.sleep(1.5)  # (30 sweeps)
        await api.settle(quiet=0.2)
        assert group_calls(api, GROUP) - calls <= 2, [
            (r.method, r.params.get("text", "")[:40]) for r in api.requests[-10:]]
        # the clock goes on: a reminder and a timeout, both refused by the group
        calls = group_calls(api, GROUP)
        clock.advance(3601)
        await asyncio.sleep(1.0)
        await api.settle(quiet=0.3)
        clock.advance(10)
        await asyncio.sleep(1.0)
        await api.settle(quiet=0.3)
        assert group_calls(api, GROUP) - calls <= 10, [
            (r.method, r.params.get("text", "")[:40]) for r in api.requests[-10:]]
    assert not failures(caplog), failures(caplog)


# ---------------------------------------------------------------- an anonymous admin

def anonymous(api: FakeBotAPI, chat: int, text: str) -> None:
    data = command(api, chat, ANONYMOUS_ADMIN["id"], text)
    data["from"] = ANONYMOUS_ADMIN
    data["sender_chat"] = api.chats[chat].to_dict()
    api.enqueue_update({"message": data})


@pytest.mark.parametrize("text", ["/pause", "/settings", "/cancel", "/resume"])
async def test_an_anonymous_admin_mid_game(pg_db, pg_url, caplog, text) -> None:
    """An anonymous admin (the "Group" bot, sender_chat the group) sends an admin command
    while a game runs: it is answered (done, or told to send it as themselves), the game
    is not harmed, and nothing fails."""
    caplog.set_level(logging.INFO)
    async with table(pg_url) as (api, players, runner, clock):
        ann, bob, dan = players
        game_id = await start(api, players, GROUP)
        if text == "/resume":
            await ann.send(GROUP, "/pause")
            await wait_for(lambda: bool(api.find_messages(GROUP, "is paused")))
        await api.settle(quiet=0.2)
        before = len(api.bot_messages(GROUP))
        version = (await game_of(runner, game_id)).version
        anonymous(api, GROUP, text)
        await api.settle(quiet=0.3)
        new = api.bot_messages(GROUP)[before:]
        assert new, f"no answer to an anonymous {text}"
        game = await game_of(runner, game_id)
        answer = "\n".join(m.text or "" for m in new)
        assert "something went wrong" not in answer.lower(), answer
        if game.version != version or game.status != "running":
            assert text in ("/cancel", "/pause", "/resume"), answer
    assert not failures(caplog), failures(caplog)


# ---------------------------------------------------------------- double taps, repeats

def twice(api: FakeBotAPI, payload: dict) -> dict:
    """Deliver one update twice with the same update_id."""
    update = api.enqueue_update(payload)
    api._updates.append(dict(update))
    api._updates_event.set()
    return update


def press_payload(api: FakeBotAPI, user: FakeUser, message: StoredMessage, data: str) -> str:
    """The callback query of ``user`` pressing ``data`` on ``message``, delivered twice
    (same update_id): its query id."""
    api._query_counter += 1
    query_id = str(4_900_000_000_000_000_000 + api._query_counter)
    api._queries[query_id] = {"user_id": user.id, "chat_id": message.chat_id,
                              "message_id": message.message_id, "data": data,
                              "ephemeral_id": message.ephemeral_id}
    twice(api, {"callback_query": {
        "id": query_id, "from": user.to_dict(), "message": api.message_dict(message),
        "chat_instance": str(abs(message.chat_id) * 7919 % 10**18), "data": data}})
    return query_id


async def test_a_double_tap_on_cards_leaves_one_view(pg_db, pg_url, caplog) -> None:
    """Dan taps 🎴 twice at once (two callback queries), and then once more with the
    update delivered twice: both presses are answered, and he has one view."""
    caplog.set_level(logging.INFO)
    async with table(pg_url) as (api, players, runner, clock):
        ann, bob, dan = players
        game_id = await start(api, players, GROUP)
        await until_turn_of(api, runner, players, game_id, dan)
        tbl = api.get_message(GROUP, (await game_of(runner, game_id)).table_message_id)
        first = await dan.press(tbl, CARDS)
        second = await dan.press(tbl, CARDS)
        for query in (first, second):
            answer = await api.wait_answer(query)
            assert not answer.get("show_alert"), answer
        await api.settle(quiet=0.3)
        assert len(api.ephemeral_messages(GROUP, dan.id)) == 1, \
            [m.text for m in api.ephemeral_messages(GROUP, dan.id)]
        query = press_payload(api, dan, tbl, next(d for t, d in api.buttons(tbl) if t == CARDS))
        await api.wait_answer(query)
        await api.settle(quiet=0.3)
        assert len(api.ephemeral_messages(GROUP, dan.id)) == 1
    assert not failures(caplog), failures(caplog)


async def test_a_double_tap_on_a_move_in_the_view(pg_db, pg_url, caplog) -> None:
    """Dan taps the same bid twice at once on his 🎴 view: one bid is made, both taps are
    answered, the next player gets one keyboard, and Dan's view has no buttons left."""
    caplog.set_level(logging.INFO)
    async with table(pg_url) as (api, players, runner, clock):
        ann, bob, dan = players
        game_id, game, tbl = await dans_view(api, runner, players)
        view = live_ephemeral(api, GROUP, dan)
        data = lowest_bid(api, view)
        first = await dan.press_raw_on(view, data)
        second = await dan.press_raw_on(view, data)
        answers = [await api.wait_answer(q) for q in (first, second)]
        await api.settle(quiet=0.3)
        after = await game_of(runner, game_id)
        assert after.version == game.version + 1, (game.version, after.version, answers)
        assert "bids" in "\n".join(m.text or "" for m in api.bot_messages(GROUP))
        view = live_ephemeral(api, GROUP, dan)
        assert view is None or move_version(api, view) is None, view.text
        nxt = {u.id: u for u in players}[await to_act(runner, game_id)]
        live = [m for m in api.bot_messages(nxt.id) if move_version(api, m)]
        assert len(live) == 1, [m.text for m in live]
    assert not failures(caplog), failures(caplog)


async def test_a_private_bid_delivered_twice_and_tapped_twice(pg_db, pg_url, caplog) -> None:
    """Ann's bid press reaches the bot twice (same update_id), and Bob taps his bid twice
    at once: one bid each, every query answered, one live keyboard each."""
    caplog.set_level(logging.INFO)
    async with table(pg_url, names=("Ann", "Bob", "Cat"), strangers=0) as (
            api, players, runner, clock):
        users = {u.id: u for u in players}
        game_id = await start(api, players, GROUP)
        for repeat in ("same update", "two taps"):
            game = await game_of(runner, game_id)
            user = users[await to_act(runner, game_id)]
            await wait_for(lambda user=user, game=game: (
                m := game_turn_message(api, user, game_id)) is not None
                and move_version(api, m) == game.version)
            message = game_turn_message(api, user, game_id)
            data = lowest_bid(api, message)
            if repeat == "same update":
                queries = [press_payload(api, user, message, data)]
            else:
                queries = [await user.press_raw_on(message, data) for _ in range(2)]
            for query in queries:
                await api.wait_answer(query)
            await api.settle(quiet=0.3)
            assert (await game_of(runner, game_id)).version == game.version + 1, repeat
            for u in players:
                live = [m for m in api.bot_messages(u.id) if move_version(api, m)
                        == (await game_of(runner, game_id)).version]
                assert len(live) <= 1, (repeat, u, [m.text for m in live])
    assert not failures(caplog), failures(caplog)


async def test_repeated_pause_cancel_updates(pg_db, pg_url, caplog) -> None:
    """/pause, /resume and /cancel each delivered twice (same update_id): each said once."""
    caplog.set_level(logging.INFO)
    async with table(pg_url) as (api, players, runner, clock):
        ann, bob, dan = players
        await start(api, players, GROUP)
        for text, said in (("/pause", "⏸ The clock of game"), ("/resume", "runs again"),
                           ("/cancel", "was cancelled")):
            twice(api, {"message": command(api, GROUP, ann.id, text)})
            await wait_for(lambda said=said: bool(api.find_messages(GROUP, said)))
            await api.settle(quiet=0.3)
            assert len(api.find_messages(GROUP, said)) == 1, text
        assert not api.find_messages(GROUP, "no game")
    assert not failures(caplog), failures(caplog)


# ---------------------------------------------------------------- a player blocks the bot

async def test_a_player_who_blocks_the_bot_on_his_turn_is_named_from_then_on(
        pg_db, pg_url, caplog) -> None:
    """Bob blocks the bot while it is his turn (his turn's private message already sent):
    the reminder names him in the group (its private copy is refused), the timeout's
    computer move goes through, and when his turn comes again he is pinged in the group;
    Dan's 🎴 and the others' keyboards go on as before."""
    caplog.set_level(logging.INFO)
    async with table(pg_url, names=("Ann", "Bob", "Cat"), strangers=0) as (
            api, players, runner, clock):
        ann, bob, cat = players
        users = {u.id: u for u in players}
        game_id = await start(api, players, GROUP)
        await until_turn_of(api, runner, players, game_id, bob)
        bob.block_bot()
        clock.advance(2701)
        await wait_for(lambda: bool(api.find_messages(GROUP, "it is your turn in game")))
        await api.settle(quiet=0.3)
        assert "Bob" in plain(api.find_messages(GROUP, "it is your turn in game")[-1].text)
        clock.advance(901)
        await wait_for(lambda: bool(api.find_messages(GROUP, "ran out of time")))
        await api.settle(quiet=0.3)
        assert not api.find_messages(GROUP, "it is your turn in game") or all(
            m.deleted for m in api.find_messages(GROUP, "it is your turn in game"))
        for _ in range(10):
            who = await to_act(runner, game_id)
            if who is None or who == bob.id:
                break
            await bid(api, runner, users[who], game_id)
        if await to_act(runner, game_id) == bob.id:
            await api.settle(quiet=0.3)
            bot_messages = api.bot_messages(GROUP)
            assert named(api, GROUP, bob) or any(mentions(m, bob) for m in bot_messages[-2:]), \
                [m.text for m in bot_messages[-3:]]
    assert not failures(caplog), failures(caplog)


# ---------------------------------------------------------------- a forum topic deleted

async def test_a_game_whose_forum_topic_is_deleted(pg_db, pg_url, caplog) -> None:
    """An admin deletes the game's forum topic mid-game (its messages go; a send to it is
    refused: "message thread not found"). The players with a private chat go on: presses
    are answered, nothing logs an error, nothing lands in General, and the bot does not
    retry the topic on every sweep."""
    caplog.set_level(logging.INFO)
    async with table(pg_url, forum=True, names=("Ann", "Bob", "Cat"), strangers=0) as (
            api, players, runner, clock):
        ann, bob, cat = players
        users = {u.id: u for u in players}
        topic = api.create_topic(FORUM, "Coyote", ann)
        game_id = await start(api, players, FORUM, topic)
        for message in api.topic_messages(FORUM, topic, bot_only=False):
            message.deleted = True
        api.fail_next("sendMessage", 400, "Bad Request: message thread not found",
                      count=10**6, when=lambda p: p.get("message_thread_id") == topic)
        for _ in range(3):
            who = await to_act(runner, game_id)
            if who is None:
                break
            await bid(api, runner, users[who], game_id)
            await api.settle(quiet=0.2)
        calls = group_calls(api, FORUM)
        await asyncio.sleep(1.5)
        await api.settle(quiet=0.2)
        assert group_calls(api, FORUM) - calls <= 2, [
            (r.method, str(r.params.get("text", ""))[:40]) for r in api.requests[-10:]]
        general = [m for m in api.bot_messages(FORUM) if m.thread_id is None]
        assert not general, [m.text for m in general]
    assert not failures(caplog), failures(caplog)


async def test_pause_and_cancel_in_one_topic_touch_only_its_game(pg_db, pg_url,
                                                               caplog) -> None:
    """Two games in two topics, Dan (group only) to act in both, his 🎴 view open in both:
    /pause in topic One pauses game one only (answered in topic One); /cancel in topic Two
    cancels game two only: its ping and Dan's view there go, game one's stay."""
    caplog.set_level(logging.INFO)
    async with table(pg_url, forum=True) as (api, players, runner, clock):
        ann, bob, dan = players
        one = api.create_topic(FORUM, "One", ann)
        two = api.create_topic(FORUM, "Two", ann)
        g1 = await start(api, players, FORUM, one)
        g2 = await start(api, [bob, ann, dan], FORUM, two)
        await until_turn_of(api, runner, players, g1, dan)
        await until_turn_of(api, runner, players, g2, dan)
        for game_id in (g1, g2):
            tbl = api.get_message(FORUM, (await game_of(runner, game_id)).table_message_id)
            await dan.press_and_settle(tbl, CARDS, quiet=0.05)
        views = {m.thread_id for m in api.ephemeral_messages(FORUM, dan.id)}
        assert views == {one, two}, views  # (one view a game)
        await ann.send(FORUM, "/pause", thread_id=one)
        await wait_for(lambda: bool(api.find_messages(FORUM, "⏸ The clock of game")))
        await api.settle(quiet=0.3)
        assert [m.thread_id for m in api.find_messages(FORUM, "⏸ The clock of game")] == [one]
        assert (await game_of(runner, g1)).paused and not (await game_of(runner, g2)).paused
        await ann.send(FORUM, "/cancel", thread_id=two)
        await wait_for(lambda: bool(api.find_messages(FORUM, "was cancelled")))
        await api.settle(quiet=0.3)
        assert [m.thread_id for m in api.find_messages(FORUM, "was cancelled")] == [two]
        assert (await game_of(runner, g1)).status == "running"
        assert (await game_of(runner, g2)).status != "running"
        views = [m for m in api.ephemeral_messages(FORUM, dan.id) if move_version(api, m)]
        assert {m.thread_id for m in views} == {one}, [(m.thread_id, m.text) for m in views]
        pings = [m for m in named(api, FORUM, dan)]
        assert all(m.thread_id == one for m in pings), [(m.thread_id, m.text) for m in pings]
    assert not failures(caplog), failures(caplog)


async def test_a_migration_the_bot_learns_from_a_refused_edit(pg_db, pg_url, caplog) -> None:
    """The group becomes a supergroup and the migrate messages never reach the bot; it
    learns from a refused call when Ann bids. The table comes once in the supergroup, with
    🎴, and Dan can play from it."""
    caplog.set_level(logging.INFO)
    async with table(pg_url) as (api, players, runner, clock):
        ann, bob, dan = players
        users = {u.id: u for u in players}
        game_id = await start(api, players, GROUP)
        who = await to_act(runner, game_id)
        if who == dan.id:
            await dan_moves_from_the_table(api, runner, dan, GROUP, game_id)
            who = await to_act(runner, game_id)
        api.migrate_group(GROUP, NEW, announce=False)
        await bid(api, runner, users[who], game_id)
        await api.settle(quiet=0.5)
        tables = [m for m in api.bot_messages(NEW) if CARDS in [t for t, _ in api.buttons(m)]]
        assert len(tables) == 1, [m.text for m in api.bot_messages(NEW)]
        await until_turn_of(api, runner, players, game_id, dan)
        await dan_moves_from_the_table(api, runner, dan, NEW, game_id)
        await api.settle(quiet=0.3)
        tables = [m for m in api.bot_messages(NEW) if CARDS in [t for t, _ in api.buttons(m)]]
        assert len(tables) == 1, [m.text for m in api.bot_messages(NEW)]
    assert not failures(caplog), failures(caplog)


async def test_leaving_on_ones_turn_takes_the_ping_along(pg_db, pg_url, caplog) -> None:
    """Dan (group only), pinged, with his 🎴 view, sends /leave on his turn (Cat leaves the
    group on hers in a second game): the ping goes, his view keeps no buttons, the turn
    passes to a player who is told."""
    caplog.set_level(logging.INFO)
    async with table(pg_url, names=("Ann", "Bob", "Cat", "Dan")) as (
            api, players, runner, clock):
        ann, bob, cat, dan = players
        game_id = await start(api, players, GROUP)
        await until_turn_of(api, runner, players, game_id, dan)
        tbl = api.get_message(GROUP, (await game_of(runner, game_id)).table_message_id)
        await dan.press_and_settle(tbl, CARDS, quiet=0.05)
        await dan.send(GROUP, "/leave")
        await wait_for(lambda: bool(api.find_messages(GROUP, "leaves the game")))
        await api.settle(quiet=0.3)
        assert not named(api, GROUP, dan), [m.text for m in named(api, GROUP, dan)]
        for message in api.ephemeral_messages(GROUP, dan.id):
            assert move_version(api, message) is None, message.text
        nxt = {u.id: u for u in players}[await to_act(runner, game_id)]
        version = (await game_of(runner, game_id)).version
        await wait_for(lambda: (m := game_turn_message(api, nxt, game_id)) is not None
                       and move_version(api, m) == version)
        # Cat leaves the group on her turn
        await until_turn_of(api, runner, [ann, bob, cat], game_id, cat)
        api.user_leaves(cat, GROUP)
        await wait_for(lambda: len(api.find_messages(GROUP, "leaves the game")) >= 2
                       or bool(api.find_messages(GROUP, "is over!")))
        await api.settle(quiet=0.3)
        for message in api.bot_messages(cat.id):
            assert move_version(api, message) is None, message.text
    assert not failures(caplog), failures(caplog)


async def test_a_migration_of_a_paused_game_keeps_the_clock_paused(pg_db, pg_url,
                                                                  caplog) -> None:
    """The game is paused when the group becomes a supergroup: the table posted there says
    the clock is paused (no deadline), no reminder or timeout comes while paused, and
    /resume in the supergroup starts it again."""
    caplog.set_level(logging.INFO)
    async with table(pg_url) as (api, players, runner, clock):
        ann, bob, dan = players
        game_id = await start(api, players, GROUP)
        await until_turn_of(api, runner, players, game_id, dan)
        await ann.send(GROUP, "/pause")
        await wait_for(lambda: bool(api.find_messages(GROUP, "⏸ The clock of game")))
        await api.settle(quiet=0.2)
        api.migrate_group(GROUP, NEW)
        await wait_for(lambda: bool(api.find_messages(NEW, "· round")))
        await api.settle(quiet=0.3)
        [tbl] = api.find_messages(NEW, "· round")
        assert "The clock is paused" in tbl.text and "Turn ends" not in tbl.text, tbl.text
        clock.advance(5 * 86400)
        await api.settle(quiet=0.3)
        assert not api.find_messages(NEW, "it is your turn in game")
        assert not api.find_messages(NEW, "ran out of time")
        await ann.send(NEW, "/resume")
        await wait_for(lambda: bool(api.find_messages(NEW, "runs again")))
        await api.settle(quiet=0.3)
        assert "Turn ends" in api.get_message(NEW, tbl.message_id).text
    assert not failures(caplog), failures(caplog)


async def test_a_reminder_sent_before_the_migration_is_not_sent_again(pg_db, pg_url,
                                                                      caplog) -> None:
    """Dan's turn was reminded in the group (and he was pinged there); then it becomes a
    supergroup: the table comes there once; the reminder is not posted a second time."""
    caplog.set_level(logging.INFO)
    async with table(pg_url) as (api, players, runner, clock):
        ann, bob, dan = players
        game_id = await start(api, players, GROUP)
        await until_turn_of(api, runner, players, game_id, dan)
        clock.advance(2701)
        await wait_for(lambda: bool(api.find_messages(GROUP, "it is your turn in game")))
        await api.settle(quiet=0.2)
        api.migrate_group(GROUP, NEW)
        await wait_for(lambda: bool(api.find_messages(NEW, "· round")))
        await api.settle(quiet=0.5)
        texts = [m.text for m in api.bot_messages(NEW)]
        assert len(texts) == 1, texts
    assert not failures(caplog), failures(caplog)


async def test_a_timeout_takes_the_buttons_off_the_group_only_players_view(
        pg_db, pg_url, caplog) -> None:
    """Dan's 🎴 view shows his turn's buttons when his clock runs out: the computer moves
    for him, his view loses the turn's buttons, his ping goes, and a tap on the old bid is
    answered without moving."""
    caplog.set_level(logging.INFO)
    async with table(pg_url) as (api, players, runner, clock):
        ann, bob, dan = players
        game_id = await start(api, players, GROUP)
        await until_turn_of(api, runner, players, game_id, dan)
        tbl = api.get_message(GROUP, (await game_of(runner, game_id)).table_message_id)
        await dan.press_and_settle(tbl, CARDS, quiet=0.05)
        view = live_ephemeral(api, GROUP, dan)
        data = lowest_bid(api, view)
        clock.advance(3601)
        await wait_for(lambda: bool(api.find_messages(GROUP, "ran out of time")))
        await api.settle(quiet=0.3)
        game = await game_of(runner, game_id)
        if (await to_act(runner, game_id)) != dan.id:
            for message in api.ephemeral_messages(GROUP, dan.id):
                assert move_version(api, message) is None, message.text
            assert not named(api, GROUP, dan), [m.text for m in named(api, GROUP, dan)]
        if view in api.ephemeral_messages(GROUP, dan.id):
            answer = await api.wait_answer(await dan.press_raw_on(view, data))
            await api.settle(quiet=0.2)
            assert answer.get("text"), answer
            assert (await game_of(runner, game_id)).version == game.version
    assert not failures(caplog), failures(caplog)
