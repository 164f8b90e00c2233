"""Around a game, as players in a group use it, through the real Application against the
fake Bot API on PostgreSQL: 🔁 Rematch tapped late, /notify from an anonymous admin and
"/notify off" where the alerts arrive, the reminder's time on a database server not on UTC,
and the group's reminder after /pause and /resume. Each test failed before its fix."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime

from league.service import MatchService
from telegram_app.services import KEY
from tests.clock import Clock
from tests.e2e.harness import (
    BotRunner,
    bot_table,
    open_lobby,
    press_move,
    private_turn_message,
    wait_for,
)
from tests.e2e.messy_telegram_helpers import ANONYMOUS_ADMIN, anonymous, lowest_bid, table
from tests.e2e.messy_telegram_helpers import GROUP as BASIC
from tests.fakebot import FakeBotAPI, FakeUser

GROUP = -100424201


@asynccontextmanager
async def clocked(pg_url: str, names: list[str], **kwargs
                  ) -> AsyncIterator[tuple[FakeBotAPI, list[FakeUser], Clock, BotRunner]]:
    """``harness.bot_table`` in GROUP (Ann its admin) on a clock moved by hand."""
    clock = Clock(datetime(2026, 5, 4, 9, 0, tzinfo=UTC))
    async with bot_table(pg_url, GROUP, "Around", names, clock=clock, sweep_interval=0.05,
                         **kwargs) as (api, players, runner):
        runner.app.bot_data[KEY].service.new_seed = lambda: 3
        yield api, players, clock, runner


async def everyone_leaves(api: FakeBotAPI, players: list[FakeUser], chat: int = GROUP,
                          thread: int | None = None):
    """The quickest end of a running game: each player but the last sends /leave; returns
    the game's last message (the one with 🔁 Rematch)."""
    for user in players[:-1]:
        before = len(api.find_messages(chat, "leaves the game"))
        await user.send(chat, "/leave", thread_id=thread)
        await wait_for(lambda before=before: len(api.find_messages(chat, "leaves the game"))
                       > before)
        await api.settle(quiet=0.1)
    await wait_for(lambda: bool(api.find_messages(chat, "is over!")))
    await api.settle(quiet=0.1)
    return api.find_messages(chat, "is over!")[-1]


# --- 🔁 Rematch tapped once the rematch has started ------------------------------------------

async def test_a_late_rematch_tap_says_the_rematch_started_not_a_pinned_lobby(pg_db,
                                                                             pg_url) -> None:
    """Game #1 ends; Bob and Cat tap 🔁 Rematch, add a computer player and start game #2.
    Ann, back later, taps 🔁 Rematch under game #1's result. Before the fix she was told
    "A game is already open in this chat — see the pinned lobby above." (``game_open``'s
    text, render/common.py): the bot pins nothing (it never calls pinChatMessage), and there
    is no lobby any more: game #2 is running without her. The answer should name game #2 and
    that it started, not send her looking for a pinned lobby."""
    async with clocked(pg_url, ["Ann", "Bob", "Cat"]) as (api, players, clock, runner):
        ann, bob, cat = players
        lobby = await open_lobby(api, players, GROUP)
        await ann.press_and_settle(lobby, "▶️ Start")
        final = await everyone_leaves(api, players)
        answer = await bob.press_and_settle(final, "🔁 Rematch")
        assert "Rematch!" in answer["text"], answer
        await cat.press_and_settle(final, "🔁 Rematch")
        service = MatchService(pg_db)
        await wait_for(lambda: bool(api.find_messages(GROUP, "new game #2")))
        await api.settle(quiet=0.1)
        lobby2 = api.find_messages(GROUP, "new game #2")[-1]
        await bob.press_and_settle(lobby2, "🤖 Add AI")
        await bob.press_and_settle(api.get_message(GROUP, lobby2.message_id), "▶️ Start")
        assert (await service.get(2)).status == "running"

        answer = await ann.press_and_settle(final, "🔁 Rematch")
        assert not api.calls("pinChatMessage")  # (the bot pins nothing)
        assert "pinned" not in answer["text"], answer["text"]
        assert "#2" in answer["text"], answer["text"]


# --- /notify from an anonymous admin ---------------------------------------------------------

async def test_notify_from_an_anonymous_admin_subscribes_no_one(pg_db, pg_url) -> None:
    """An admin who posts anonymously (as the group: ``from`` is Telegram's
    GroupAnonymousBot, ``sender_chat`` the group) sends /notify. Before the fix the bot
    subscribed GroupAnonymousBot (user 1087968824) to the group's alerts and answered with a
    link to "Open a private chat with me and press Start" (a chat no one can open), as
    /notify never looks at ``sender_chat`` (handlers/notify.py), where /newgame, /rating and
    /tournament tell an anonymous admin to post as themselves."""
    async with table(pg_url) as (api, players, runner, clock):
        await api.settle(quiet=0.1)
        before = len(api.bot_messages(BASIC))
        anonymous(api, BASIC, "/notify")
        await wait_for(lambda: len(api.bot_messages(BASIC)) > before)
        await api.settle(quiet=0.1)
        answer = api.bot_messages(BASIC)[-1].text or ""
        assert not await MatchService(pg_db).subscribed(BASIC, ANONYMOUS_ADMIN["id"])
        assert "press Start" not in answer, answer


async def test_notify_off_in_the_private_chat_is_not_answered_with_how_to_subscribe(
        pg_db, pg_url) -> None:
    """Bob subscribed with /notify in the group; the alerts arrive in his private chat, so
    that is where he sends "/notify off" to stop them. Before the fix the bot answered "Send
    /notify in a group: I will tell you here when a new game opens there." (handlers/
    notify.py checks the chat before it reads "off"): the way to subscribe, to someone
    stopping, and his subscription stays without a word on how to end it (the alert itself
    says nothing of /notify off either). Now "/notify off" there stops every group's alerts,
    and each alert says so."""
    async with clocked(pg_url, ["Ann", "Bob", "Cat"]) as (api, players, clock, runner):
        bob = players[1]
        await bob.send(GROUP, "/notify")
        await wait_for(lambda: bool(api.find_messages(GROUP, "when the next game opens")))
        before = len(api.bot_messages(bob.id))
        await bob.send(bob.id, "/notify off")
        await wait_for(lambda: len(api.bot_messages(bob.id)) > before)
        answer = api.bot_messages(bob.id)[-1].text or ""
        assert "I will tell you here when a new game opens" not in answer, answer
        assert answer == "OK: no more messages about new games.", answer
        assert not await MatchService(pg_db).subscribed(GROUP, bob.id)


# --- the reminder's time on a PostgreSQL server whose TimeZone is not UTC ---------------------

async def test_the_reminder_says_the_deadline_in_utc_whatever_the_servers_zone(
        pg_db, pg_url) -> None:
    """PostgreSQL hands timestamptz values back in the session's TimeZone (the server's
    default, often the host's zone, e.g. Asia/Seoul). The table and the private message
    convert the deadline to UTC for their fallback ("⏱ Turn ends May 4 10:00 UTC"), but the
    reminder formats it as it came (``render/turns.py``: ``deadline_at.strftime("%H:%M
    UTC")``). Before the fix, a turn due at 10:00 UTC was reminded as "play before 19:00
    UTC" to every client that shows the fallback: nine hours off."""
    url = pg_url + ("&" if "?" in pg_url else "?") + "options=-c%20TimeZone%3DAsia%2FSeoul"
    async with clocked(url, ["Ann", "Bob", "Cat"]) as (api, players, clock, runner):
        lobby = await open_lobby(api, players, GROUP)
        await players[0].press_and_settle(lobby, "▶️ Start")
        await api.settle(quiet=0.1)
        table_text = api.bot_messages(GROUP)[-1].text or ""
        assert "10:00 UTC" in table_text, table_text  # (09:00 + one hour, standard pace)
        clock.advance(2701)
        await wait_for(lambda: bool(api.find_messages(GROUP, "it is your turn in game")))
        reminder = api.find_messages(GROUP, "it is your turn in game")[-1].text or ""
        assert "play before 10:00 UTC" in reminder, reminder


# --- /pause and /resume after the turn's reminder ---------------------------------------------

async def test_after_a_pause_the_groups_reminder_does_not_keep_the_old_deadline(
        pg_db, pg_url) -> None:
    """Ann's turn (09:00, standard pace) is reminded at 09:45: "⏳ Ann, it is your turn in
    game #1: play before 10:00 UTC, or the computer plays for you." The admin pauses at
    09:50 and resumes two hours later: the table now says "⏱ Turn ends May 4 12:00 UTC"
    (ten minutes left). Before the fix the group's reminder stayed as it was, the newest
    message under the table, still telling everyone to play before 10:00, a time long
    past (the private copy's ⏳ line went with the redraw; the group's was neither edited nor
    deleted): Ann, reading it at 11:55, takes her turn for lost."""
    async with clocked(pg_url, ["Ann", "Bob", "Cat"]) as (api, players, clock, runner):
        ann = players[0]  # (seed 3: Ann opens; she is the group's admin too)
        lobby = await open_lobby(api, players, GROUP)
        await ann.press_and_settle(lobby, "▶️ Start")
        await api.settle(quiet=0.2)
        clock.advance(2701)
        await wait_for(lambda: bool(api.find_messages(GROUP, "it is your turn in game")))
        reminder = api.find_messages(GROUP, "it is your turn in game")[-1]
        assert "play before 10:00 UTC" in (reminder.text or ""), reminder.text
        clock.advance(300)
        await ann.send(GROUP, "/pause")
        await wait_for(lambda: bool(api.find_messages(GROUP, "is paused")))
        await api.settle(quiet=0.2)
        clock.advance(7200)
        await ann.send(GROUP, "/resume")
        await wait_for(lambda: bool(api.find_messages(GROUP, "runs again")))
        await api.settle(quiet=0.2)
        game = await MatchService(pg_db).get(1)
        assert game.deadline_at is not None and game.deadline_at.astimezone(UTC).hour == 12
        table_text = api.get_message(GROUP, game.table_message_id).text or ""
        assert "12:00 UTC" in table_text, table_text
        shown = api.get_message(GROUP, reminder.message_id)
        assert shown.deleted or "10:00 UTC" not in (shown.text or ""), shown.text


async def test_after_a_pause_a_player_without_a_private_chat_is_pinged_again(
        pg_db, pg_url) -> None:
    """Cat never started the bot; her turn is reminded in the group (the reminder replaces
    her ping). /pause deletes the reminder (its time is past once the clock stops);
    /resume pings her again, with no time in it, so the group still names who must act.
    Before the fix the reminder stayed through both, naming a time long past."""
    async with clocked(pg_url, ["Ann", "Bob", "Cat"], strangers=1) as (
            api, players, clock, runner):
        ann, bob, cat = players  # (seed 3: Ann, Bob, Cat in turn)
        lobby = await open_lobby(api, players, GROUP)
        await ann.press_and_settle(lobby, "▶️ Start")
        for user in (ann, bob):
            await wait_for(lambda user=user: private_turn_message(api, user) is not None)
            message = private_turn_message(api, user)
            assert message is not None
            await press_move(api, user, message, lowest_bid(api, message))
        await wait_for(lambda: bool(api.find_messages(GROUP, "your turn: 🎴")))
        clock.advance(2701)
        await wait_for(lambda: bool(api.find_messages(GROUP, "it is your turn in game")))
        await api.settle(quiet=0.2)
        reminder = api.find_messages(GROUP, "it is your turn in game")[-1]
        await ann.send(GROUP, "/pause")
        await wait_for(lambda: bool(api.find_messages(GROUP, "is paused")))
        await api.settle(quiet=0.2)
        assert api.get_message(GROUP, reminder.message_id).deleted
        assert not api.find_messages(GROUP, "your turn: 🎴")  # (nobody acts while paused)
        await ann.send(GROUP, "/resume")
        await wait_for(lambda: bool(api.find_messages(GROUP, "runs again")))
        await api.settle(quiet=0.2)
        pings = api.find_messages(GROUP, "your turn: 🎴")
        assert len(pings) == 1 and "Cat" in (pings[0].text or ""), [m.text for m in pings]
