"""Tournaments as players and an admin try them, edges included, through the real
Application and the fake Bot API on PostgreSQL: a finished tournament's places, late joiners'
byes, renames, anonymous admins, a table's topic, leaving mid-round, two tables ending at once,
and the texts in Korean, Japanese and Spanish.

Each test opens its tournament as a group would (``/tournament``, the sign-up message's
buttons) and waits for what it expects; the seeds are fixed."""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest

from league.service import MatchService
from telegram_app.services import KEY
from tests.clock import Clock
from tests.e2e.harness import (
    BotRunner,
    bot_table,
    choose,
    move_version,
    mover,
    press_move,
    private_turn_message,
    wait_for,
)
from tests.e2e.messy_telegram_helpers import ANONYMOUS_ADMIN, command
from tests.e2e.test_tournaments import coyote_moves
from tests.english_check import rendering_faults
from tests.fakebot import FakeBotAPI, FakeUser, StoredMessage

GROUP = -100370001
ISOLATES = str.maketrans("", "", "\u2068\u2069")


def plain(text: str | None) -> str:
    """A message's text as read, names without their bidi isolates."""
    return (text or "").translate(ISOLATES)


def said(api: FakeBotAPI, chat_id: int, text: str) -> list[StoredMessage]:
    """The bot's messages in ``chat_id`` whose text holds ``text``."""
    return [m for m in api.bot_messages(chat_id) if text in plain(m.text)]


def now(api: FakeBotAPI, message: StoredMessage) -> StoredMessage:
    """``message`` as it is now."""
    found = api.get_message(message.chat_id, message.message_id)
    assert found is not None
    return found


def service_of(runner: BotRunner) -> MatchService:
    assert runner.app is not None
    return runner.app.bot_data[KEY].service


async def open_signup(api: FakeBotAPI, admin: FakeUser, command: str, presses: list[str],
                      thread_id: int | None = None) -> StoredMessage:
    """``admin`` sends ``command`` and presses ``presses`` on the sign-up message."""
    before = len(said(api, GROUP, "sign-up is open"))
    await admin.send(GROUP, command, thread_id)
    await wait_for(lambda: len(said(api, GROUP, "sign-up is open")) > before)
    await api.settle(quiet=0.05)
    signup = said(api, GROUP, "sign-up is open")[-1]
    for label in presses:
        answer = await admin.press_and_settle(now(api, signup), label, quiet=0.05)
        assert not answer.get("show_alert"), (label, answer)
    return signup


async def told(service: MatchService, cup_id: int, target: int,
               timeout: float = 30) -> None:  # noqa: ASYNC109
    """Wait until tournament ``cup_id`` told the group announcement ``target`` (a round's,
    or ``rounds + 1``: the final one) or later."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while (await service.tournament(cup_id)).told_round < target:
        if loop.time() > deadline:
            raise TimeoutError(f"tournament {cup_id} did not tell announcement {target}")
        await asyncio.sleep(0.02)


def round_news(api: FakeBotAPI, cup_id: int, round_: int, rounds: int) -> list[StoredMessage]:
    return said(api, GROUP, f"tournament #{cup_id}: round {round_} of {rounds}")


async def each_moves_once(api: FakeBotAPI, players: list[FakeUser]) -> None:
    """In a casual game of the group: whoever is to act presses a move, until every one of
    ``players`` moved at least once."""
    moved: set[int] = set()
    for _ in range(40):
        if len(moved) == len(players):
            return
        user = await mover(api, players)
        message = private_turn_message(api, user)
        assert message is not None
        pressed = move_version(api, message) or 0
        answer = await press_move(api, user, message, choose(api, message))
        assert not answer.get("show_alert"), answer
        moved.add(user.id)
        await wait_for(lambda p=pressed: any(private_turn_message(api, u, p) for u in players))
    raise AssertionError("not everyone got a turn")


# --- a finished tournament's places ---------------------------------------------------------
async def test_a_finished_tournaments_places_stay_as_its_final_message_told(
        pg_db, pg_url) -> None:
    """Three players, three rounds, one table of three each round: each moves, then Bob and
    Cat /leave, so Ann wins every table and Bob and Cat share its last place (README: a
    player who left shares the last place with any other who did). The final message gives
    Bob and Cat the same place (points, Buchholz and Elo all equal: 🥈 each). Then Cat beats
    Bob in an ordinary game. The finished tournament's places must not move: Bob's /history
    should still say "place 2 of 3". Before the fix it said "place 3 of 3" (the standings'
    Elo tie-break read each player's current Elo, which the later game had moved); now the
    Elo of the tournament's end is kept (``tournament_entries.final_elo``)."""
    clock = Clock()
    async with bot_table(pg_url, GROUP, "Cup", ["Ann", "Bob", "Cat"], clock=clock,
                         sweep_interval=0.1) as (api, players, runner):
        ann, bob, cat = players
        service = service_of(runner)
        service.new_seed = lambda: 20260302
        signup = await open_signup(api, ann, "/tournament coyote",
                                   ["🔢 Fewer rounds", "🔢 Fewer rounds"])
        for user in (bob, cat):
            await user.press_and_settle(now(api, signup), "✋ Join", quiet=0.05)
        answer = await ann.press_and_settle(now(api, signup), "▶️ Start", quiet=0.05)
        assert not answer.get("show_alert"), answer
        for round_ in (1, 2, 3):
            await wait_for(lambda r=round_: len(round_news(api, 1, r, 3)) == 1)
            await coyote_moves(api, service, players, 1, round_, each=1)
            for user in (bob, cat):
                await user.send(GROUP, "/leave")
                await api.settle(quiet=0.05)
        await wait_for(lambda: bool(said(api, GROUP, "tournament #1 is over!")))
        await api.settle(quiet=0.05)
        final = plain(said(api, GROUP, "tournament #1 is over!")[0].text)
        assert "🥇 Ann · 3" in final and "🥈 Bob · 0.75" in final and "🥈 Cat · 0.75" in final, \
            final
        told = {s.entry.name: s.place for s in (await service.tournament(1)).standings}
        assert told == {"Ann": 1, "Bob": 2, "Cat": 2}, told

        # An ordinary game afterwards: everyone moves, then Ann and Bob leave: Cat wins.
        await ann.send(GROUP, "/newgame")
        await wait_for(lambda: bool(said(api, GROUP, "new game #")))
        await api.settle(quiet=0.05)
        lobby = said(api, GROUP, "new game #")[-1]
        for user in (bob, cat):
            await user.press_and_settle(now(api, lobby), "✋ Join", quiet=0.05)
        await ann.press_and_settle(now(api, lobby), "▶️ Start", quiet=0.05)
        await each_moves_once(api, players)
        for user in (ann, bob):
            await user.send(GROUP, "/leave")
            await api.settle(quiet=0.05)
        await wait_for(lambda: bool(said(api, GROUP, "🥇 Cat")))
        await api.settle(quiet=0.05)

        after = {s.entry.name: s.place for s in (await service.tournament(1)).standings}
        await bob.send(GROUP, "/history")
        await wait_for(lambda: bool(said(api, GROUP, "Tournaments of Bob")))
        history = plain(said(api, GROUP, "Tournaments of Bob")[-1].text)
        line = next(x for x in history.splitlines() if x.startswith("🏆 #1 · "))
        assert line.endswith("place 2 of 3") and after == told, (
            f"the final message placed Bob 2nd of 3 ({told}); after one later game his "
            f"/history says {line!r} and the finished tournament's standings are {after}")


# --- names ----------------------------------------------------------------------------------
async def test_a_player_renamed_after_joining_is_named_as_now(pg_db, pg_url) -> None:
    """README: "Names are the ones players have now: the bot keeps people's names current
    from every update." Bob joins the sign-up, then renames himself Robert and says hello in
    the group (the bot sees the new name), Cat joins, Ann starts. The sign-up message, the
    round's announcement and Bob's table should say Robert; they say Bob (the entry keeps
    the name it joined with, and the table is dealt with it). Before the fix all four said
    Bob: a rename reached the game players' names only, never the tournament's entries."""
    async with bot_table(pg_url, GROUP, "Cup", ["Ann", "Bob", "Cat"],
                         sweep_interval=0.1) as (api, players, runner):
        ann, bob, cat = players
        service_of(runner).new_seed = lambda: 11
        signup = await open_signup(api, ann, "/tournament coyote", [])
        await bob.press_and_settle(now(api, signup), "✋ Join", quiet=0.05)
        bob.rename("Robert")
        await bob.send(GROUP, "hello all")
        await api.settle(quiet=0.05)
        await cat.press_and_settle(now(api, signup), "✋ Join", quiet=0.05)
        await ann.press_and_settle(now(api, signup), "▶️ Start", quiet=0.05)
        await wait_for(lambda: len(round_news(api, 1, 1, 5)) == 1
                       and bool(said(api, GROUP, "🏆 Tournament #1 · Round 1 · Table 1")))
        await api.settle(quiet=0.05)
        shown = {
            "the sign-up message": plain(now(api, signup).text),
            "round 1's announcement": plain(round_news(api, 1, 1, 5)[0].text),
            "the table": plain(said(api, GROUP, "🏆 Tournament #1 · Round 1 · Table 1")[-1].text),
            "Ann's private message": plain(api.bot_messages(ann.id)[-1].text),
        }
        stale = [where for where, text in shown.items()
                 if "Robert" not in text or re.search(r"\bBob\b", text)]
        assert not stale, f"Bob's old name in {stale}: {shown}"


# --- an anonymous admin -----------------------------------------------------------------------
async def test_an_anonymous_admin_can_cancel_a_running_tournament(pg_db, pg_url) -> None:
    """README: /cancel ends a game for "an admin", and the bot counts an anonymous admin
    (a message sent as the group) as one for /cancel, /pause and /settings. /tournament
    cancel 1 sent that way must cancel it (cancelling is not playing, nor opening); before
    the fix it was answered "Anonymous admins cannot play: please post as yourself to open a
    tournament." and the tournament ran on."""
    async with bot_table(pg_url, GROUP, "Cup", ["Ann", "Bob", "Cat"],
                         sweep_interval=0.1) as (api, players, runner):
        ann, bob, cat = players
        signup = await open_signup(api, ann, "/tournament coyote", [])
        for user in (bob, cat):
            await user.press_and_settle(now(api, signup), "✋ Join", quiet=0.05)
        await ann.press_and_settle(now(api, signup), "▶️ Start", quiet=0.05)
        await wait_for(lambda: len(round_news(api, 1, 1, 5)) == 1)
        await api.settle(quiet=0.05)
        before = len(api.bot_messages(GROUP))
        data = command(api, GROUP, ANONYMOUS_ADMIN["id"], "/tournament cancel 1")
        data["from"] = ANONYMOUS_ADMIN
        data["sender_chat"] = api.chats[GROUP].to_dict()
        api.enqueue_update({"message": data})
        await wait_for(lambda: len(api.bot_messages(GROUP)) > before)
        await api.settle(quiet=0.1)
        answer = plain(api.bot_messages(GROUP)[before].text)
        status = (await service_of(runner).tournament(1)).status
        assert status == "cancelled" and "Tournament #1 was cancelled." in answer, (
            f"an anonymous admin's /tournament cancel 1: {answer!r}; the tournament is "
            f"{status}")


# --- a table's own forum topic ----------------------------------------------------------------
@asynccontextmanager
async def forum(pg_url: str, names: list[str], clock: Clock | None = None
                ) -> AsyncIterator[tuple[FakeBotAPI, list[FakeUser], BotRunner, int]]:
    """A forum supergroup the bot administers (user 1 its admin), players who started the
    bot, the bot, and a topic "Cup" opened by the admin: ``(api, players, runner, topic)``."""
    async with FakeBotAPI() as api:
        api.add_group(GROUP, "Club", type="supergroup", is_forum=True, admins=[1],
                      bot_admin=True)
        players = [api.add_user(i, name) for i, name in enumerate(names, start=1)]
        for user in players:
            await user.start_bot()
        runner = BotRunner(api, pg_url, sweep_interval=0.1,
                           **({"clock": clock} if clock is not None else {}))
        await runner.start()
        try:
            home = api.create_topic(GROUP, "Cup", by=players[0])
            await api.settle(quiet=0.05)
            yield api, players, runner, home
        finally:
            await runner.stop()


async def koira_tables_in_topics(api: FakeBotAPI, players: list[FakeUser], runner: BotRunner,
                                 home: int) -> int:
    """Ann opens a Koira tournament in the topic, the others join, she starts it; returns the
    forum topic of round 1's table 1 once its table is posted there."""
    ann = players[0]
    signup = await open_signup(api, ann, "/tournament koira", [], thread_id=home)
    for user in players[1:]:
        await user.press_and_settle(now(api, signup), "✋ Join", quiet=0.05)
    await ann.press_and_settle(now(api, signup), "▶️ Start", quiet=0.05)
    await wait_for(lambda: bool(said(api, GROUP, "🏆 Tournament #1 · Round 1 · Table 1")))
    await api.settle(quiet=0.05)
    cup = await service_of(runner).tournament(1)
    thread = cup.tables_of(1)[0].thread_id
    assert thread != home and api.chats[GROUP].topics[thread].endswith("Round 1 · Table 1")
    return thread


async def test_rules_in_a_koira_tables_topic_explain_koira(pg_db, pg_url) -> None:
    """README: /rules without a game gives "the open game's rules". In a forum each table of
    a Koira tournament has a topic of its own; /rules sent there answered with Coyote's rules
    before the fix (the topic's open game was looked up with tournament tables left out, so
    the default game's rules came)."""
    async with forum(pg_url, ["Ann", "Bob", "Cat"]) as (api, players, runner, home):
        table = await koira_tables_in_topics(api, players, runner, home)
        bob = players[1]
        before = len(api.topic_messages(GROUP, table))
        await bob.send(GROUP, "/rules", table)
        await wait_for(lambda: len(api.topic_messages(GROUP, table)) > before)
        answer = plain(api.topic_messages(GROUP, table)[before].text)
        assert answer.startswith("Koira (3–8 players"), answer[:200]


async def test_admin_commands_in_a_tables_topic_see_its_game(pg_db, pg_url) -> None:
    """The admin sends /pause, then /cancel, in the forum topic of a tournament table whose
    game runs there. README lists both for "the game" of the topic; before the fix the bot
    answered "There is no running game here." and "There is no open game here." while the
    table's game (with its clock) ran in that very topic. Now it says why a tournament table
    cannot be paused or cancelled alone, and names /tournament cancel ID (the whole
    tournament)."""
    async with forum(pg_url, ["Ann", "Bob", "Cat"]) as (api, players, runner, home):
        table = await koira_tables_in_topics(api, players, runner, home)
        ann = players[0]
        answers = {}
        for text in ("/pause", "/cancel"):
            before = len(api.topic_messages(GROUP, table))
            await ann.send(GROUP, text, table)
            await wait_for(lambda b=before: len(api.topic_messages(GROUP, table)) > b)
            await api.settle(quiet=0.05)
            answers[text] = plain(api.topic_messages(GROUP, table)[before].text)
        game = await service_of(runner).get(
            (await service_of(runner).tournament(1)).tables_of(1)[0].game_id)
        assert game.status == "running"
        denials = {t: a for t, a in answers.items() if "There is no" in a}
        assert not denials, f"in the topic of a running table: {denials}"
        assert all("/tournament cancel 1" in a for a in answers.values()), answers


# --- languages ------------------------------------------------------------------------------
def data_like(api: FakeBotAPI, message: StoredMessage, pattern: str) -> str:
    """The callback data of ``message``'s first button matching ``pattern`` (a regex)."""
    found = [d for _, d in api.buttons(message) if d and re.fullmatch(pattern, d)]
    assert found, (pattern, api.buttons(message))
    return found[0]


def signup_of(api: FakeBotAPI) -> StoredMessage | None:
    """The group's latest message with a tournament's ✋ Join."""
    return next((m for m in reversed(api.bot_messages(GROUP))
                 if any(d and d.startswith("tj:") for _, d in api.buttons(m))), None)


@pytest.mark.parametrize("language", ["ko", "ja", "es"])
async def test_a_tournament_leaves_no_english_in_a_groups_language(pg_db, pg_url,
                                                                   language: str) -> None:
    """A group whose players all write in ``language``: the admin opens a Coyote tournament
    (three rounds, two computer players), two friends join (one of them twice), nobody moves:
    the computer finishes the tables at each deadline, all three are no-shows, then
    withdrawn, and the tournament ends early. /tournament, /rules tournament and /history on
    the way. Every text, button and alert the bot sent is in the group's language."""
    clock = Clock()
    async with FakeBotAPI() as api:
        api.add_group(GROUP, "Club", admins=[1])
        names = {"ko": ["민지", "서준", "하나"], "ja": ["さくら", "はると", "ゆい"],
                 "es": ["Ana", "Beto", "Carla"]}[language]
        players = [api.add_user(i, n, language_code=language) for i, n in enumerate(names, 1)]
        ann, bob, cat = players
        for user in players:
            await user.start_bot()
        runner = BotRunner(api, pg_url, clock=clock, sweep_interval=0.1)
        await runner.start()
        try:
            service = service_of(runner)
            service.new_seed = lambda: 5
            await ann.send(GROUP, "/tournament coyote")
            await wait_for(lambda: signup_of(api) is not None)
            await api.settle(quiet=0.05)
            signup = signup_of(api)
            for pattern in (r"to:1:0:4:\d+", r"to:1:0:3:\d+", r"ta:1:\d+", r"ta:1:\d+"):
                query = await ann.press_raw(GROUP, signup.message_id,
                                            data_like(api, now(api, signup), pattern))
                assert not (await api.wait_answer(query)).get("show_alert")
                await api.settle(quiet=0.05)
            for user in (bob, cat, bob):
                await user.press_and_settle(now(api, signup), "tj:1", quiet=0.05)
            await ann.press_and_settle(now(api, signup), data_like(api, now(api, signup),
                                                                   r"ts:1:\d+"), quiet=0.05)
            await told(service, 1, 1)
            for round_ in (1, 2):
                await api.settle(quiet=0.05)
                await cat.send(GROUP, "/tournament")
                await api.settle(quiet=0.05)
                clock.advance(86400 + 1)
                await told(service, 1, round_ + 1)
            await api.settle(quiet=0.1)
            cup = await service.tournament(1)
            assert cup.status == "finished" and cup.round == 2, (cup.status, cup.round)
            await bob.send(GROUP, "/rules tournament")
            await bob.send(GROUP, "/history")
            await api.settle(quiet=0.1)
        finally:
            await runner.stop()
        ai = tuple(e.name for e in cup.entries if e.is_ai)
        faults = []
        for entry in api.log:
            if entry.kind not in ("send", "edit", "answer"):
                continue
            if entry.kind != "answer" and (entry.receiver or entry.chat_id) != GROUP:
                continue
            faults += [(entry.kind, run) for run in rendering_faults(
                entry.text or "", language, (*names, *ai), whole=entry.kind == "answer")]
            faults += [("button", run) for row in entry.buttons for label in row
                       for run in rendering_faults(label, language, (*names, *ai), whole=True)]
        assert len(api.bot_messages(GROUP)) > 10
        assert not any(e.active for e in cup.entries if not e.is_ai)  # (the notes were told)
        assert not faults, faults[:10]


# --- byes -------------------------------------------------------------------------------------
DAY = 86400


async def play_round(api: FakeBotAPI, service: MatchService, clock: Clock,
                     humans: list[FakeUser], round_: int) -> None:
    """The humans seated in round ``round_`` of tournament 1 move once each at their tables,
    then the round's deadline passes (the computer finishes the tables)."""
    await told(service, 1, round_)
    await api.settle(quiet=0.05)
    cup = await service.tournament(1)
    seated = {e for t in cup.tables_of(round_) for e in t.entries}
    playing = [u for u in humans if (entry := cup.entry_of(u.id)) is not None
               and entry.id in seated]
    if playing:
        await coyote_moves(api, service, playing, 1, round_, each=1)
    await api.settle(quiet=0.05)
    clock.advance(DAY + 1)


async def test_a_late_joiner_does_not_sit_out_twice(pg_db, pg_url) -> None:
    """/rules tournament: "Who sits out a round gets a bye worth ½ point, and nobody sits out
    twice"; README and the sign-up: each round a late joiner missed "counts as a bye (½
    point)". A Feathers tournament with 4 lives (tables of at most 4): Ann and three
    computer players start (one table of four), Eve joins during round 1. From round 2 five
    players leave one out each round: four byes for five players over rounds 2–5, so Eve,
    who already sat out round 1, need not sit out again. She does (the seating counts only
    the byes it gave: a late joiner's missed rounds are not counted), while someone else
    never sits out. Before the fix Eve sat out rounds 1 and 3 and Wile never; now a late
    joiner's missed rounds count as byes for the seating too."""
    clock = Clock()
    async with bot_table(pg_url, GROUP, "Cup", ["Ann", "Eve"], clock=clock,
                         sweep_interval=0.1) as (api, players, runner):
        ann, eve = players
        service = service_of(runner)
        service.new_seed = lambda: 7
        signup = await open_signup(api, ann, "/tournament coyote feathers",
                                   ["❤️ Lives: 3", *["🤖 Add AI"] * 3])
        assert "❤️ Lives: 4" in plain(now(api, signup).text)
        await ann.press_and_settle(now(api, signup), "▶️ Start", quiet=0.05)
        await told(service, 1, 1)
        answer = await eve.press_and_settle(now(api, signup), "✋ Join", quiet=0.05)
        assert "each round you missed counts as a bye" in answer["text"], answer
        for round_ in range(1, 6):
            await play_round(api, service, clock, players, round_)
        await told(service, 1, 6)
        await api.settle(quiet=0.05)
        cup = await service.tournament(1)
        assert cup.status == "finished"
        out: dict[str, list[int]] = {e.name: [] for e in cup.entries}
        for r in cup.results:
            if r.game_id is None:
                assert r.points == 0.5
                out[cup.entry(r.entry_id).name].append(r.round)
        for round_ in range(2, 6):  # (each round's bye is announced)
            [bye] = cup.byes_of(round_)
            news = plain(round_news(api, 1, round_, 5)[0].text)
            assert f"☕ Bye (½ point): {'🤖 ' if bye.is_ai else ''}{bye.name}" in news, news
        twice = {name: rounds for name, rounds in out.items() if len(rounds) > 1}
        never = [name for name, rounds in out.items() if not rounds]
        assert not twice, f"rounds sat out: {out}; twice: {twice}, never: {never}"


# --- a player who leaves the group mid-round; names with HTML and right-to-left text ---------
BOLD = "<b>Bob</b> & Co"
RTL = "دانيال\u202e"  # (with a right-to-left override of his own)


async def test_a_seated_player_who_leaves_the_group_is_withdrawn_and_placed_last(
        pg_db, pg_url, caplog) -> None:
    """Four players at one table, all of whom moved; a non-admin's ▶️ Start and ✖️ Cancel
    change nothing. Then Dan leaves the group mid-game: he is out of his table (placed last:
    he had moved, so no no-show), withdrawn from the tournament, at no table of round 2, and
    marked withdrawn in its standings; the others play on. Names are shown escaped and
    isolated wherever they appear (an HTML-like name, a right-to-left one)."""
    caplog.set_level(logging.INFO)
    clock = Clock()
    async with bot_table(pg_url, GROUP, "Cup", ["Ann", BOLD, "Cat", RTL], clock=clock,
                         sweep_interval=0.1) as (api, players, runner):
        ann, bob, cat, dan = players
        service = service_of(runner)
        service.new_seed = lambda: 3
        signup = await open_signup(api, ann, "/tournament coyote",
                                   ["🔢 Fewer rounds", "🔢 Fewer rounds"])
        for user in (bob, cat, dan):
            await user.press_and_settle(now(api, signup), "✋ Join", quiet=0.05)
        for label in ("▶️ Start", "✖️ Cancel", "🤖 Add AI"):
            answer = await cat.press_and_settle(now(api, signup), label, quiet=0.05)
            assert answer.get("show_alert") and "opened the tournament" in answer["text"], \
                (label, answer)
        text = plain(now(api, signup).text)
        assert (await service.tournament(1)).status == "signup"
        assert f"2. {BOLD}" in text and "4. دانيال\n" in text, text
        await ann.press_and_settle(now(api, signup), "▶️ Start", quiet=0.05)
        await told(service, 1, 1)
        await coyote_moves(api, service, players, 1, 1, each=1)
        api.user_leaves(dan, GROUP)
        await api.settle(quiet=0.1)
        cup = await service.tournament(1)
        entry = cup.entry_of(dan.id)
        assert entry is not None and not entry.active
        game = await service.get(cup.tables_of(1)[0].game_id)
        assert game.status == "running" and not game.player(dan.id).playing
        assert "Players (3):" in plain(now(api, signup).text)
        clock.advance(DAY + 1)
        await told(service, 1, 2)
        await api.settle(quiet=0.05)
        cup = await service.tournament(1)
        [result] = [r for r in cup.results if r.entry_id == entry.id]
        assert (result.round, result.place, result.points, result.no_show) == (1, 4, 0, False)
        assert [len(t.entries) for t in cup.tables_of(2)] == [3]
        assert entry.id not in cup.tables_of(2)[0].entries
        news = round_news(api, 1, 2, 3)[0]
        assert "دانيال · 0 (withdrawn)" in plain(news.text), news.text
        assert f"{BOLD}" in plain(news.text) and "&lt;b&gt;Bob&lt;/b&gt; &amp; Co" in news.html
        assert f"tg://user?id={dan.id}" not in news.html  # (at no table: not called)
        assert "\u202e" not in news.html and "\u2068دانيال\u2069" in news.html
    assert not [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]


# --- two tables ending at once --------------------------------------------------------------
async def test_two_tables_that_end_before_one_tick_seat_the_next_round_once(
        pg_db, pg_url) -> None:
    """Six players at two tables of three; everyone moves, then two players of each table
    /leave, so both tables end while no sweep runs (its interval is an hour); the bot then
    restarts and its first tick finds both over at once. Round 1 is scored once (each
    table's points add up to 1.5: the winner 1, the two who left share the last place, ¼
    each), round 2 is seated once and announced once."""
    names = ["Ann", "Bob", "Cat", "Dan", "Eve", "Fay"]
    async with bot_table(pg_url, GROUP, "Cup", names, sweep_interval=3600) as (
            api, players, runner):
        service = service_of(runner)
        service.new_seed = lambda: 9
        ann = players[0]
        signup = await open_signup(api, ann, "/tournament coyote",
                                   ["🔢 Fewer rounds", "🔢 Fewer rounds", "🪑 Smaller tables"])
        for user in players[1:]:
            await user.press_and_settle(now(api, signup), "✋ Join", quiet=0.05)
        await ann.press_and_settle(now(api, signup), "▶️ Start", quiet=0.05)
        await told(service, 1, 1)
        cup = await service.tournament(1)
        assert [len(t.entries) for t in cup.tables_of(1)] == [3, 3]
        await coyote_moves(api, service, players, 1, 1, each=1)
        by_entry = {cup.entry_of(u.id).id: u for u in players}
        leavers = [by_entry[e] for t in cup.tables_of(1) for e in t.entries[1:]]
        for user in leavers:
            await user.send(GROUP, "/leave")
        await api.settle(quiet=0.1)
        tables = [await service.get(t.game_id) for t in cup.tables_of(1)]
        assert [t.status for t in tables] == ["finished", "finished"]
        assert (await service.tournament(1)).round == 1  # (no tick ran)
        await runner.stop()
        runner.sweep_interval = 0.1
        await runner.start()
        await told(service, 1, 2)
        await api.settle(quiet=0.2)
        cup = await service.tournament(1)
        assert cup.round == 2 and len(cup.tables_of(2)) == 2
        assert len(round_news(api, 1, 2, 3)) == 1
        for table in cup.tables_of(1):
            points = sorted(r.points for r in cup.results if r.game_id == table.game_id)
            assert points == [0.25, 0.25, 1.0], points
        left = {cup.entry_of(u.id).id for u in leavers}
        assert all(r.points == 0.25 for r in cup.results if r.round == 1 and r.entry_id in left)
