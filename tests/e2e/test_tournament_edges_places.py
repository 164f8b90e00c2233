"""Tournaments as players try them, edges included, through the real Application and the
fake Bot API on PostgreSQL: a finished tournament's places, renames, late joiners' byes,
leaving the group mid-round, two tables ending at once.

Each test opens its tournament as a group would (``/tournament``, the sign-up message's
buttons) and waits for what it expects; the seeds are fixed."""

from __future__ import annotations

import logging
import re

from tests.clock import Clock
from tests.e2e.harness import (
    bot_table,
    wait_for,
)
from tests.e2e.test_tournaments import coyote_moves
from tests.e2e.tournament_edges_helpers import (
    DAY,
    GROUP,
    each_moves_once,
    now,
    open_signup,
    plain,
    play_round,
    round_news,
    said,
    service_of,
    told,
)


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
        # /tournament, which the sign-up message said shows the standings, still does
        # (before the fix: only "No tournament is on here.")
        await cat.send(GROUP, "/tournament")
        await wait_for(lambda: bool(said(api, GROUP, "No tournament is on here")))
        shown = plain(said(api, GROUP, "No tournament is on here")[-1].text)
        assert shown.startswith("🏆 Coyote tournament #1\nThis tournament is over.\n"
                                "Final standings:\n1. Ann · 3\n2. Bob · 0.75\n2. Cat · 0.75\n"), \
            shown

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


# --- byes -------------------------------------------------------------------------------------
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
