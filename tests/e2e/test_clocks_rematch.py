"""The clocks, 🔁 Rematch and /notify in long games played as real players would, through the
real Application against the fake Bot API on PostgreSQL, on a controlled clock: a rematch
takes the group's settings as they are now, a leaver's note says the place they get, an
alert's late link says the game went on without them, the private reminder goes with its
turn, Koira's lobby tells its pace, a /pause or /resume pings no one again."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime

import pytest

from league.service import MatchService
from telegram_app.services import KEY
from tests.clock import Clock
from tests.e2e.harness import (
    BotRunner,
    bot_table,
    open_lobby,
    play_turn,
    press_move,
    private_turn_message,
    wait_for,
)
from tests.e2e.unreachable import lowest_bid
from tests.fakebot import FakeBotAPI, FakeUser

GROUP = -100777001


@asynccontextmanager
async def table(pg_url: str, names: list[str]
                ) -> AsyncIterator[tuple[FakeBotAPI, list[FakeUser], Clock, BotRunner]]:
    """``harness.bot_table`` in GROUP on a clock moved by hand, with a sweep every 50 ms."""
    clock = Clock(datetime(2026, 5, 4, 9, 0, tzinfo=UTC))
    async with bot_table(pg_url, GROUP, "Clockwork", names, clock=clock, sweep_interval=0.05
                         ) as (api, players, runner):
        yield api, players, clock, runner


async def _everyone_leaves(api: FakeBotAPI, players: list[FakeUser]) -> None:
    """The quickest end of a game: each player but the last sends /leave."""
    for user in players[:-1]:
        before = len(api.find_messages(GROUP, "leaves the game"))
        await user.send(GROUP, "/leave")
        await wait_for(lambda before=before: len(api.find_messages(GROUP, "leaves the game"))
                       > before)
        await api.settle(quiet=0.1)
    await wait_for(lambda: bool(api.find_messages(GROUP, "is over!")))
    await api.settle(quiet=0.1)


# --- 🔁 Rematch and the group's settings --------------------------------------------------------

async def test_a_rematch_follows_the_timeout_policy_the_admin_set_since(pg_db, pg_url) -> None:
    """README: /settings sets "the chat's defaults for new games (pace, timeouts, … the
    group's notes, the stand-in's level …)". After a game in which people let the clock run,
    the admin switches "⏰ On timeout" to "removed" (at the first timeout). A 🔁 Rematch is a
    new game, yet it copies the old game's whole options dict, the group's policies
    included (``LobbyService._open`` skips ``lobby_options`` for a rematch): the rematch, and
    every rematch of it after, keeps "computer plays, removed after 2" (and the old
    group notes and stand-in level) for as long as the group keeps tapping 🔁, whatever the
    admins set. The host cannot see or change these in the lobby either."""
    async with table(pg_url, ["Ann", "Bob", "Cat"]) as (api, players, clock, runner):
        ann, bob, _cat = players
        lobby = await open_lobby(api, players, GROUP)
        await ann.press_and_settle(lobby, "▶️ Start")
        await _everyone_leaves(api, players)
        final = api.find_messages(GROUP, "is over!")[-1]

        await ann.send(GROUP, "/settings")  # Ann is the group's admin
        await wait_for(lambda: bool(api.find_messages(GROUP, "Defaults for new games")))
        settings = api.find_messages(GROUP, "Defaults for new games")[-1]
        await ann.press_and_settle(settings, "⏰ On timeout: computer plays, removed after 2")
        service = MatchService(pg_db)
        assert (await service.chat_settings(GROUP))["timeout_policy"] == "remove"

        answer = await bob.press_and_settle(final, "🔁 Rematch")
        assert "Rematch!" in answer["text"], answer
        rematch = await service.get(2)
        assert rematch.status == "lobby"
        assert rematch.options["timeout_policy"] == "remove", rematch.options


# --- places: what the /leave note promises --------------------------------------------------

async def test_a_leaver_is_placed_where_the_leave_note_said(pg_db, pg_url) -> None:
    """Four play Coyote; one is knocked out (💀, engine place 4); then a player still in the
    game sends /leave, and the group is told "🚪 X leaves the game (placed last among those
    still playing)" (README's /leave row says the same). Three were still playing, so X
    expects 3rd. The final message places X 4th, below the player knocked out earlier
    (``league.tables.places``: "below everyone who stayed"; README's league section: "placed
    last"), and X's Elo change is the 4th place's. The note (and README's /leave row) and the
    result disagree; one of them is wrong."""
    async with table(pg_url, ["Ann", "Bob", "Cat", "Dan"]) as (api, players, clock, runner):
        runner.app.bot_data[KEY].service.new_seed = lambda: 7
        lobby = await open_lobby(api, players, GROUP)
        await players[0].press_and_settle(lobby, "▶️ Start")
        for _ in range(400):
            if api.find_messages(GROUP, "is out of the game"):
                break
            assert await play_turn(api, players, GROUP)
        await api.settle(quiet=0.1)
        service = MatchService(pg_db)
        game = await service.get(1)
        playing = [u for u in players if (p := game.player(u.id)) is not None and p.playing]
        assert len(playing) == 3, [u.first_name for u in playing]
        knocked_out = next(u for u in players if u not in playing)
        leaver, rest = playing[0], playing[1:]
        await leaver.send(GROUP, "/leave")
        await wait_for(lambda: bool(api.find_messages(GROUP, "leaves the game")))
        note = api.find_messages(GROUP, "leaves the game")[-1].text or ""
        for _ in range(400):
            if api.find_messages(GROUP, "is over!"):
                break
            assert await play_turn(api, rest, GROUP)
        await api.settle(quiet=0.1)
        places = {p.user_id: p.placement for p in (await service.get(1)).players}
        # The league places a leaver below everyone who stayed, the player knocked out
        # before them too (league.tables.places): the note says "placed last", not "last
        # among those still playing" (which was 3rd of the three still in the game).
        assert "(placed last)" in note and places[leaver.id] == len(players), (
            note, places, f"knocked out first: {knocked_out.first_name}")


# --- /notify: the alert's link after the lobby is gone ----------------------------------------

async def test_an_alerts_join_link_tapped_after_the_lobby_started_says_so(pg_db, pg_url) -> None:
    """Dan asked for /notify and gets "🔔 A new game of Coyote is open: tap below to join
    it" with "✋ Join game #1" (``/start j1``). The game is asynchronous, so he taps it an hour
    later, when the others have started it already. He gets the bot's generic first-contact
    welcome ("👋 Hi! I run Coyote games in group chats… Add me to a group and send
    /newgame there"), which says nothing of game #1: not that it started without him, nor
    that he is not in it. (The same for a lobby that expired or was cancelled.)"""
    async with table(pg_url, ["Ann", "Bob", "Cat", "Dan"]) as (api, players, clock, runner):
        ann, _bob, _cat, dan = players
        await dan.send(GROUP, "/notify")
        await wait_for(lambda: bool(api.find_messages(GROUP, "when the next game opens")))
        lobby = await open_lobby(api, players[:3], GROUP)
        await wait_for(lambda: any("A new game" in (m.text or "")
                                   for m in api.bot_messages(dan.id)))
        alert = next(m for m in api.bot_messages(dan.id) if "A new game" in (m.text or ""))
        link = next(d for _, d in api.buttons(alert) if d and "start=" in d)
        await ann.press_and_settle(api.get_message(GROUP, lobby.message_id), "▶️ Start")
        clock.advance(600)
        before = len(api.bot_messages(dan.id))
        await dan.start_bot(link.split("start=")[1])
        def answers() -> list[str]:
            return [m.text or "" for m in api.bot_messages(dan.id)[before:]]

        await wait_for(lambda: any("#1" in t or "Add me to a group" in t for t in answers()))
        await api.settle(quiet=0.1)
        assert (await MatchService(pg_db).get(1)).player(dan.id) is None  # (not seated: right)
        assert not any("Add me to a group" in t for t in answers()), answers()
        assert any("#1" in t and "without you" in t for t in answers()), answers()


# --- the clock's private reminder after its turn -------------------------------------------

async def test_the_private_reminder_goes_when_the_computer_played_the_turn(pg_db,
                                                                          pg_url) -> None:
    """The first player lets their turn run out: at three quarters they are reminded in the
    group and privately ("⏳ Bob, it is your turn in game #1: play before 10:00 UTC, or the
    computer plays for you."); at the deadline the computer plays for them. The group's
    reminder is deleted with its turn (README, "Message economy"), but the private one stays,
    the newest message of their private chat: opening it, they read that it is their turn,
    although it is the next player's now and their turn message above it says "Waiting
    for …"."""
    async with table(pg_url, ["Ann", "Bob", "Cat"]) as (api, players, clock, runner):
        ann = players[0]
        runner.app.bot_data[KEY].service.new_seed = lambda: 1
        lobby = await open_lobby(api, players, GROUP)
        await ann.press_and_settle(lobby, "▶️ Start")
        who = next(u for u in players
                   if api.bot_messages(u.id) and "Your turn" in (api.bot_messages(u.id)[-1].text
                                                                  or ""))
        clock.advance(2701)

        def private_reminders() -> list:
            return [m for m in api.bot_messages(who.id) if "it is your turn in game" in
                    (m.text or "")]

        await wait_for(lambda: bool(private_reminders()))
        clock.advance(900)
        await wait_for(lambda: bool(api.find_messages(GROUP, "ran out of time")))
        await api.settle(quiet=0.2)
        assert not api.find_messages(GROUP, "it is your turn in game")  # the group's: gone
        newest = api.bot_messages(who.id)[-1].text or ""
        assert "it is your turn in game" not in newest, newest


# --- Koira: the pace is told nowhere -------------------------------------------------------------

async def test_a_koira_games_start_states_its_pace_as_coyotes_does(pg_db, pg_url) -> None:
    """Coyote's lobby and start message end with the clock ("⏱ standard (1 h a turn)");
    Koira's say only the rule options ("ties replayed · sequences of 2+"), so who plays
    Koira (or joins it from a /notify alert or a 🔁 Rematch) is told nowhere whether a turn
    is one minute or a day until their clock starts (``koira.options.options_line`` has no
    pace; ``coyote.screens.options_line`` has)."""
    async with table(pg_url, ["Ann", "Bob", "Cat"]) as (api, players, clock, runner):
        lobby = await open_lobby(api, players, GROUP, "/newgame koira")
        await players[0].press_and_settle(api.get_message(GROUP, lobby.message_id),
                                          "⏱ Pace: standard")  # → relaxed
        text = api.get_message(GROUP, lobby.message_id).text or ""
        await players[0].press_and_settle(api.get_message(GROUP, lobby.message_id),
                                          "▶️ Start")
        await wait_for(lambda: bool(api.find_messages(GROUP, "started with")))
        started = api.find_messages(GROUP, "started with")[-1].text or ""
        assert "⏱" in text, text
        assert "⏱ relaxed (24 h a turn)" in started, started


@pytest.mark.parametrize("private", [True, False], ids=["private chat", "group only"])
async def test_a_pause_and_a_resume_ping_no_one_again(pg_db, pg_url, private: bool) -> None:
    """/pause and /resume redraw the clock (the table, the private messages); they are no
    move, so the player to act is not pinged again: no new private message (a notification
    for nothing), no new mention in the group for a player the bot cannot write to (Cat,
    who never started it). Once, the sweep took the clock's change for an untold move and
    pinged them again, deleting the ping or reminder before."""
    clock = Clock(datetime(2026, 5, 4, 9, 0, tzinfo=UTC))
    async with bot_table(pg_url, GROUP, "Clockwork", ["Ann", "Bob", "Cat"], clock=clock,
                         sweep_interval=0.05, strangers=0 if private else 1
                         ) as (api, players, runner):
        ann, bob, cat = players
        runner.app.bot_data[KEY].service.new_seed = lambda: 3  # (Ann, Bob, Cat in turn)
        lobby = await open_lobby(api, players, GROUP)
        await ann.press_and_settle(lobby, "▶️ Start")
        if not private:  # (to Cat's turn)
            for user in (ann, bob):
                await wait_for(lambda user=user: private_turn_message(api, user) is not None)
                message = private_turn_message(api, user)
                await press_move(api, user, message, lowest_bid(api, message))
            await wait_for(lambda: bool(api.find_messages(GROUP, "your turn: 🎴")))
        else:
            await wait_for(lambda: private_turn_message(api, ann) is not None)
        await api.settle(quiet=0.3)
        for command, said in (("/pause", "is paused"), ("/resume", "runs again")):
            mark = len(api.requests)
            await ann.send(GROUP, command)
            await wait_for(lambda said=said: bool(api.find_messages(GROUP, said)))
            await asyncio.sleep(1)  # (twenty sweeps)
            await api.settle(quiet=0.3)
            sent = [(r.method, r.params.get("chat_id")) for r in api.requests[mark:]
                    if r.method in ("sendMessage", "deleteMessage")]
            assert sent == [("sendMessage", GROUP)], (command, sent)  # (the answer alone)
