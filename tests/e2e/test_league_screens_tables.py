"""Can players trust the league's tables? /standings, /top, /rating (own and replied-to),
/profile (its chart's data) and /history are read against each other and against each
game's final "is over!" message: players removed for timeouts, computer players, shared
places, a rename, one player in two groups, languages and names with markup.

The games are played through the bot's own match service (the moves the buttons would make;
the presenter tells the group and the players as it does for a press); what is read is what
the bot sends to the chat in answer to the commands. The clock is the test's; seeds are
fixed. Where a test once failed, its docstring says what the bot did before the fix.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest

from league.tables.ratings import format_rating, shown_change
from telegram_app.render.results import signed
from tests.e2e.harness import wait_for
from tests.e2e.league_screens_helpers import (
    COYOTE,
    GROUP,
    OTHER,
    TITLE,
    answer_to,
    ask,
    final_of,
    league,
    leave,
    open_game,
    places_of,
    play_out,
    remove_on_timeout,
    service,
    table_rows,
    time_out,
    unmarked,
    until_all_moved,
)
from tests.fakebot.html_check import utf16_len


# ============================================ findings =========================================
async def test_rating_by_reply_and_standings_name_a_renamed_player_alike(
        pg_db, pg_url) -> None:
    """Bob plays a rated game, says "gg", then renames himself Robert (the bot has had no
    update from him since). Ann replies to his "gg" with /rating: the card is Robert's
    (the name Telegram sends with the replied-to message); /standings, sent right after,
    still lists Bob. README: "the bot keeps people's names ... current from every update"
    — the reply's update carried the new name, and the two screens read as two people.
    Before the fix the replied-to author was not among the people whose stored name an
    update refreshes (``members._people_of``), so /standings still read "Bob"."""
    async with league(pg_url) as (api, players, _clock, runner):
        ann, bob, *_rest = players
        game = await open_game(runner, players[:3], options={"lives": 2})
        await play_out(runner, game.id)
        await final_of(api, game.id)
        said = await bob.send(GROUP, "gg")
        await api.settle(quiet=0.05)
        bob.rename("Robert")
        message = api.store_message(
            api.chats[GROUP], from_bot=False, sender_id=ann.id, text="/rating",
            entities=[{"type": "bot_command", "offset": 0, "length": utf16_len("/rating")}],
            reply_to=said.message_id)
        api.enqueue_update({"message": api.message_dict(message)})
        await wait_for(lambda: bool(api.find_messages(GROUP, "Rank in this chat")))
        card = unmarked(api.find_messages(GROUP, "Rank in this chat")[-1].text)
        assert card.startswith("⭐ Robert: Elo"), card
        week = await ask(api, ann, "/standings", "Standings this week")
        assert "Robert" in week, (card.splitlines()[0], week)


async def test_standings_take_the_game_and_period_in_either_order(
        pg_db, pg_url) -> None:
    """Only Koira was played this week. "/standings season koira" (and "/standings last
    koira") answer with Coyote's table ("· Coyote", no rated game), the word "koira"
    dropped without a word, while "/standings chess" gets the usage hint. Before the fix
    the handler read the game from the first word only, then the period from the next."""
    async with league(pg_url) as (api, players, _clock, runner):
        ann = players[0]
        game = await open_game(runner, players[:3], "koira")
        await play_out(runner, game.id)
        await final_of(api, game.id)
        koira = await ask(api, ann, "/standings koira season", "Season standings")
        assert "· Koira" in koira.splitlines()[0] and "Ann" in koira, koira  # (held)
        told = unmarked(await answer_to(api, ann, "/standings season koira"))
        assert "Koira" in told.splitlines()[0] or "Use /standings" in told, told


# ============================================ what held ========================================
async def test_a_player_removed_after_timeouts_reads_the_same_everywhere(pg_db, pg_url) -> None:
    """On timeout: removed. All four move once; then the next to act runs out of time and
    is removed (a move of their own before: rated, placed last). The final message,
    /history, /replay's places and this week's table agree on places, changes and points."""
    async with league(pg_url) as (api, players, clock, runner):
        ann = players[0]
        await remove_on_timeout(runner)
        game = await open_game(runner, players, options={"lives": 2})
        game = await until_all_moved(runner, game.id, {p.id for p in players})
        removed = game.at_seat(COYOTE.current_seat(game.state)).name
        await time_out(api, clock)
        await play_out(runner, game.id)
        shown = places_of(await final_of(api, game.id))
        assert shown[removed][0] == 4 and shown[removed][1] is not None, shown
        history = await ask(api, ann, "/history", "Last games in this chat")
        told = ", ".join(f"{place}. {name} ({change})" for name, (place, change, *_x) in
                         sorted(shown.items(), key=lambda kv: kv[1][0]))
        assert told in history, (told, history)
        replay = await ask(api, ann, f"/replay {game.id}", f"Replay of game #{game.id}")
        assert replay.splitlines()[-1] == ", ".join(
            f"{place}. {name}" for name, (place, *_x) in
            sorted(shown.items(), key=lambda kv: kv[1][0])), replay
        rows = table_rows(await ask(api, ann, "/standings", "Standings this week"))
        points = {1: "3", 2: "2", 3: "1", 4: "0"}
        for name, (place, change, elo, _q) in shown.items():
            assert rows[name] == (place, points[place], 1, int(place == 1), f"{elo}?", change), \
                (name, rows)


async def test_shared_first_places_of_poker_deck_read_the_same_everywhere(pg_db, pg_url) -> None:
    """Poker-deck: the one player out loses, the three others share the win. The final
    message gives three 🥇, /history three "1.", the table three rank-1 rows of 2 points
    and a win each, and each one's /rating counts the win."""
    async with league(pg_url) as (api, players, _clock, runner):
        ann = players[0]
        game = await open_game(runner, players, options={"edition": "poker-deck"})
        await play_out(runner, game.id)
        shown = places_of(await final_of(api, game.id))
        assert sorted(place for place, *_x in shown.values()) == [1, 1, 1, 4], shown
        history = await ask(api, ann, "/history", "Last games in this chat")
        line = next(line for line in history.splitlines() if line.startswith(f"#{game.id} "))
        assert "poker-deck" in line, line
        assert sorted(re.findall(r"(\d+)\. [^,]+", line.split(": ", 1)[1])) == \
            ["1", "1", "1", "4"], line
        rows = table_rows(await ask(api, ann, "/standings", "Standings this week"))
        for name, (place, change, elo, _q) in shown.items():
            assert rows[name] == ((1, "2", 1, 1, f"{elo}?", change) if place == 1
                                  else (4, "0", 1, 0, f"{elo}?", change)), (name, rows)
        for user in players:
            card = await ask(api, user, "/rating", "Rank in this chat")
            wins = int(shown[user.first_name][0] == 1)
            assert f"Rated games: 1 · wins: {wins}" in card, card


async def test_computer_players_are_never_in_the_league(pg_db, pg_url) -> None:
    """README: games with computer seats are not rated. A game of three humans and a
    computer player: no Elo in its final message, in /history only places, no row in the
    table, nobody's /rating changes; /replay shows the seat as a computer player."""
    async with league(pg_url) as (api, players, _clock, runner):
        ann = players[0]
        game = await open_game(runner, players[:3], options={"lives": 2}, computers=1)
        await play_out(runner, game.id)
        final = await final_of(api, game.id)
        assert "Elo" not in final and {"Ann", "Bob", "Cat"} <= set(places_of(final)), final
        history = await ask(api, ann, "/history", "Last games in this chat")
        line = next(line for line in history.splitlines() if line.startswith(f"#{game.id} "))
        assert not re.search(r"\((?:[+−]\d+|±0)\)", line), line
        week = await ask(api, ann, "/standings", "Standings this week")
        assert "No rated game yet in this period" in week, week
        card = await ask(api, ann, "/rating", "Rank in this chat")
        assert "Elo 1500?" in card and "Rated games: 0" in card, card
        replay = await ask(api, ann, f"/replay {game.id}", f"Replay of game #{game.id}")
        assert "🤖" in replay.splitlines()[0], replay


async def test_one_player_in_two_groups_elo_global_tables_per_group(pg_db, pg_url,
                                                                    monkeypatch) -> None:
    """Ann and Bob play in two groups (with Cat here, with Dan there). Elo is one per game:
    the second group's final message starts from the first's; each group's table and
    history hold its own game only; /rating gives the same Elo in both with each group's
    rank ("–" for Dan here); /profile's chart plots both games, in the group's time zone,
    ending at /rating's Elo; Koira's table and chart stay empty."""
    from telegram_app.handlers import league as handlers

    plotted: list[tuple[list, str | None]] = []
    real = handlers.rating_chart_png

    def spy(points, *args, **kwargs):
        plotted.append((list(points), kwargs.get("tz")))
        return real(points, *args, **kwargs)

    monkeypatch.setattr(handlers, "rating_chart_png", spy)
    async with league(pg_url) as (api, players, clock, runner):
        ann, bob, cat, dan = players
        api.add_group(OTHER, "Other", admins=[1])
        await service(runner).set_chat_setting(GROUP, TITLE, "timezone", "Asia/Seoul")
        here = await open_game(runner, [ann, bob, cat], options={"lives": 2})
        await play_out(runner, here.id)
        first = places_of(await final_of(api, here.id))
        clock.advance(3600)
        there = await open_game(runner, [ann, bob, dan], options={"lives": 2}, chat=OTHER)
        await play_out(runner, there.id)
        second = places_of(await final_of(api, there.id, OTHER))
        for name in ("Ann", "Bob"):  # the second game's change starts from the first's Elo
            place, change, elo, _q = second[name]
            assert elo is not None and change is not None
            assert elo - int(change.replace("−", "-").replace("±", "")) == first[name][2]

        for chat, mine, theirs in ((GROUP, first, "Dan"), (OTHER, second, "Cat")):
            rows = table_rows(await ask(api, ann, "/standings", "Standings this week", chat))
            assert set(rows) == set(mine), rows
            assert theirs not in rows
            for name, (_r, _p, games, _w, elo, change) in rows.items():
                now = second.get(name, first.get(name))
                assert games == 1 and elo == f"{now[2]}?" and change == mine[name][1], \
                    (chat, name, rows)
            history = await ask(api, ann, "/history", "Last games in this chat", chat)
            assert f"#{here.id} " in history if chat == GROUP else f"#{there.id} " in history
            assert f"#{there.id} " not in history if chat == GROUP else \
                f"#{here.id} " not in history
        # /rating: one Elo, the rank of each group (the players who played there)
        elo = second["Ann"][2]
        ranks = {}
        for chat, mine in ((GROUP, first), (OTHER, second)):
            card = await ask(api, ann, "/rating", "Rank in this chat", chat)
            assert f"Ann: Elo {elo}?" in card and "Rated games: 2" in card, card
            ranks[chat] = int(re.search(r"Rank in this chat: (\d+)", card).group(1))
            now = {n: second.get(n, first.get(n))[2] for n in mine}
            assert ranks[chat] == 1 + sum(e > elo for n, e in now.items() if n != "Ann"), \
                (chat, now, card)
        dan_here = await ask(api, dan, "/rating", "Rank in this chat")
        assert "Rank in this chat: –" in dan_here and "Rated games: 1" in dan_here, dan_here
        koira = await ask(api, ann, "/standings koira", "Standings this week")
        assert "No rated game yet in this period" in koira, koira
        # /profile: the chart's points are Ann's two games, in the group's zone
        await ann.send(GROUP, "/profile")
        await wait_for(lambda: any(m.kind == "photo" for m in api.messages(GROUP)))
        await ann.send(GROUP, "/profile koira")
        await wait_for(lambda: sum(m.kind == "photo" for m in api.messages(GROUP)) == 2)
        history = await service(runner).rating_history(ann.id, kind="coyote")
        (points, tz), (koira_points, _tz) = plotted
        assert tz == "Asia/Seoul"
        assert points == history and len(points) == 2, points
        assert format_rating(points[-1][1], 2) == f"{elo}?"
        assert koira_points == []
        caption = unmarked([m for m in api.messages(GROUP) if m.kind == "photo"][0].text)
        assert f"Ann: Elo {elo}?" in caption, caption


@pytest.mark.parametrize("language", ["ko", "ja", "es"])
async def test_league_screens_and_posts_in_the_groups_language(pg_db, pg_url,
                                                               language: str) -> None:
    """A group in Korean, Japanese or Spanish plays a rated Coyote and a rated Koira game:
    Koira's table (week and season), /rating koira (with the other game's line), /top koira,
    /history (both games), Koira's /replay, /profile's caption, and next Monday's two
    weekly posts hold no English, and give their dates in the language."""
    from tests.english_check import english_runs

    async with league(pg_url) as (api, players, clock, runner):
        ann = players[0]
        await service(runner).set_chat_setting(GROUP, TITLE, "language", language)
        coyote = await open_game(runner, players[:3], options={"lives": 2})
        await play_out(runner, coyote.id)
        koira = await open_game(runner, players[:3], "koira")
        await play_out(runner, koira.id)
        await api.settle(quiet=0.2)
        texts = {}
        for command in ("/standings koira", "/standings koira season", "/rating koira",
                        "/top koira", "/history", f"/replay {koira.id}"):
            texts[command] = await answer_to(api, ann, command)
        before = len(api.messages(GROUP))
        await ann.send(GROUP, "/profile koira")
        await wait_for(lambda: any(m.kind == "photo" for m in api.messages(GROUP)[before:]))
        texts["/profile koira"] = next(m for m in api.messages(GROUP)[before:]
                                       if m.kind == "photo").text or ""
        before = len(api.bot_messages(GROUP))
        clock.now = datetime(2026, 3, 9, 0, 0, 30, tzinfo=UTC)
        await wait_for(lambda: len(api.bot_messages(GROUP)) >= before + 2)
        await api.settle(quiet=0.3)
        for i, message in enumerate(api.bot_messages(GROUP)[before:]):
            texts[f"post {i}"] = message.text or ""
        names = tuple(p.first_name for p in players)
        found = {key: runs for key, text in texts.items()
                 if (runs := english_runs(text, language, names))}
        assert not found, found
        months = {key: re.findall(r"\b(?:Jan|Feb|Mar|Apr|Mon|Sun|Wed)\b", unmarked(text))
                  for key, text in texts.items()}
        assert not any(months.values()), months


async def test_names_with_markup_on_top_and_profile_and_top_agrees_with_rating(
        pg_db, pg_url) -> None:
    """Players named "<b>Ann</b>", "שרה & Co" and "Cat" + RIGHT-TO-LEFT OVERRIDE play ten
    rated games: /top lists all three, escaped and isolated, in the order and with the Elo
    and wins of their /rating cards, whose overall rank matches /top's."""
    names = ("<b>Ann</b>", "שרה & Co", "Cat\u202e")
    async with league(pg_url, names) as (api, players, clock, runner):
        finals = []
        for _ in range(10):
            game = await open_game(runner, players, options={"lives": 2})
            await play_out(runner, game.id)
            finals.append(await final_of(api, game.id))
            clock.advance(600)
        # "?" while fewer than 10 rated games: the 9th game's end has it, the 10th's not
        assert finals[8].count("?)") == 3 and "provisional" in finals[8], finals[8]
        assert "?)" not in finals[9] and "provisional" not in finals[9], finals[9]
        week = await ask(api, players[0], "/standings", "Standings this week")
        rows = [line for line in week.splitlines() if re.match(r"^\d+\. ", line)]
        assert len(rows) == 3 and all(" · 10 · " in r and "?" not in r for r in rows), week
        before = len(api.find_messages(GROUP, "Leaderboard"))
        await players[1].send(GROUP, "/top")
        await wait_for(lambda: len(api.find_messages(GROUP, "Leaderboard")) > before)
        top_html = api.find_messages(GROUP, "Leaderboard")[-1].html or ""
        assert "<b>Ann" not in top_html and "&lt;b&gt;Ann&lt;/b&gt;" in top_html, top_html
        assert "& Co" not in top_html and "\u202e" not in top_html, top_html
        top = unmarked(api.find_messages(GROUP, "Leaderboard")[-1].text)
        lines = [line for line in top.splitlines() if re.match(r"^\d+\. ", line)]
        assert len(lines) == 3, top
        for user in players:
            card = await ask(api, user, "/rating", "Rank in this chat")
            elo = re.search(r"Elo (\d+)", card).group(1)
            rank = re.search(r"Overall rank: (\d+)", card).group(1)
            wins = re.search(r"wins: (\d+)", card).group(1)
            shown = user.first_name.replace("\u202e", "")
            line = next(line for line in lines if shown in line)
            assert line.startswith(f"{rank}. ") and f"Elo {elo} " in line \
                and "10 games" in line and f"· {wins} win" in line, (line, card)
            assert "?" not in card and "Rated games: 10" in card, card
            last = next(line for line in finals[9].splitlines()
                        if shown in line and "(Elo" in line)
            assert last.endswith(f"(Elo {elo})"), (last, card)
        await players[0].send(GROUP, "/profile")
        await wait_for(lambda: any(m.kind == "photo" for m in api.messages(GROUP)))
        caption = next(m for m in api.messages(GROUP) if m.kind == "photo").html or ""
        assert "<b>Ann" not in caption and "&lt;b&gt;Ann&lt;/b&gt;" in caption, caption


async def test_history_and_final_message_elo_changes_are_the_shown_differences(
        pg_db, pg_url) -> None:
    """Three games in a row for four players with leavers: every Elo change /history and
    the final messages give is the difference of the Elo shown before and after (+20 from
    1500 reads 1520), and the week's change is their sum."""
    async with league(pg_url) as (api, players, _clock, runner):
        ann, _bob, _cat, dan = players
        totals: dict[str, int] = {}
        for round_ in range(3):
            game = await open_game(runner, players, options={"lives": 2})
            if round_ == 1:
                await until_all_moved(runner, game.id, {dan.id})
                await leave(api, dan)
            await play_out(runner, game.id)
            shown = places_of(await final_of(api, game.id))
            for name, (_place, change, _elo, _q) in shown.items():
                assert change is not None, shown
                totals[name] = totals.get(name, 0) + int(
                    change.replace("−", "-").replace("±", ""))
        events = await service(runner).rating_history(ann.id, kind="coyote")
        assert len(events) == 3
        rows = table_rows(await ask(api, ann, "/standings", "Standings this week"))
        for name, total in totals.items():
            assert rows[name][5] == signed(total), (name, total, rows)
        before = 1500.0
        history = await ask(api, ann, "/history", "Last games in this chat")
        for (_at, after), line in zip(events, reversed([
                line for line in history.splitlines() if line.startswith("#")]), strict=True):
            assert f"Ann ({signed(shown_change(before, after))})" in line, (line, before, after)
            before = after
