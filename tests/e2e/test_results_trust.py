"""Results players can trust (a fresh pair of eyes): games played through the real bot, then
every screen that tells their outcome compared with what the league stored and with what
should be true — the final group message, each player's last private message, /standings
(this week, last week, season), /rating, /history, /replay, /top and the Mini App's league
pages; a cancelled game, a player who left, languages and names."""

from __future__ import annotations

import asyncio
import math
import re
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select

from engine import GAMES
from league.store.models import GamePlayer
from league.store.rating_models import RatingEvent
from league.tables.ratings import shown_change
from telegram_app.services import KEY
from tests.clock import Clock
from tests.e2e.harness import (
    bot_table,
    choose,
    move_version,
    mover,
    open_lobby,
    play_turn,
    press_move,
    private_turn_message,
    wait_for,
)
from tests.e2e.test_game_end import _places
from tests.fakebot import FakeBotAPI, FakeUser, parse_html
from tests.miniapp.server import init_data, miniapp_server

GROUP = -100431
ORDINALS = {1: "1st", 2: "2nd", 3: "3rd", 4: "4th"}
LINE = re.compile(r"^(🥇|🥈|🥉|\d+\.) (\S+)(?: 🐕)?(?: · ([+−]\d+|±0) \(Elo (\d+)(\??)\))?$")


def plain(text: str | None) -> str:
    """A message as read: no markup, no bidi isolation marks around names."""
    return parse_html(text or "")[0].replace("\u2068", "").replace("\u2069", "")


def signed(value: int) -> str:
    return f"+{value}" if value > 0 else f"−{-value}" if value < 0 else "±0"


def places_of(final: str) -> dict[str, tuple[int, str | None, int | None, bool]]:
    """``{name: (place, change, rating after, provisional)}`` from a final message (names
    with markup or right-to-left text too: ``LINE`` reads any name without a space)."""
    return _places(final, LINE)


async def ask(api: FakeBotAPI, user: FakeUser, command: str, expect: str,
              chat: int = GROUP) -> str:
    before = len(api.find_messages(chat, expect))
    await user.send(chat, command)
    await wait_for(lambda: len(api.find_messages(chat, expect)) > before)
    await api.settle(quiet=0.05)
    return plain(api.find_messages(chat, expect)[-1].text)


async def lives_two(api: FakeBotAPI, admin: FakeUser) -> None:
    await admin.send(GROUP, "/settings")
    await wait_for(lambda: bool(api.find_messages(GROUP, "Defaults for new games")))
    await admin.press_and_settle(api.find_messages(GROUP, "Defaults for new games")[-1],
                                 "Coyote · ❤️ Lives: 3", quiet=0.05)


async def play_out(api: FakeBotAPI, players: list[FakeUser], overs: int) -> None:
    for _ in range(400):
        if len(api.find_messages(GROUP, "is over!")) > overs:
            break
        assert await play_turn(api, players, GROUP)
    await wait_for(lambda: len(api.find_messages(GROUP, "is over!")) > overs, timeout=60)
    await api.settle(quiet=0.1)


async def events_of(runner, game_id: int) -> dict[int, RatingEvent]:
    async with runner.app.bot_data[KEY].db.sessions() as session:
        return {e.user_id: e for e in await session.scalars(
            select(RatingEvent).where(RatingEvent.game_id == game_id))}


async def seats_of(runner, game_id: int) -> dict[int, GamePlayer]:
    async with runner.app.bot_data[KEY].db.sessions() as session:
        return {p.user_id: p for p in await session.scalars(
            select(GamePlayer).where(GamePlayer.game_id == game_id))}


async def play_to_the_end(api: FakeBotAPI, runner, players: list[FakeUser],
                          game_id: int = 1) -> None:
    """``players`` play game ``game_id`` to its end, whatever the group's language (the
    harness's :func:`play_turn` waits for the English "is over!")."""
    service = runner.app.bot_data[KEY].service
    for _ in range(400):
        if (await service.get(game_id)).status == "finished":
            return
        offers = [(move_version(api, m) or 0, i, u, m) for i, u in enumerate(players)
                  if (m := private_turn_message(api, u)) is not None]
        if not offers:
            await asyncio.sleep(0.02)
            continue
        pressed, _i, user, message = max(offers, key=lambda o: (o[0], -o[1]))
        answer = await press_move(api, user, message, choose(api, message))
        assert not answer.get("show_alert"), answer
        for _ in range(3000):
            if any(private_turn_message(api, u, pressed) for u in players) or \
                    (await service.get(game_id)).status == "finished":
                break
            await asyncio.sleep(0.01)
    raise AssertionError("the game did not end")


@pytest.fixture
async def four(pg_db, pg_url):
    clock = Clock(datetime(2026, 3, 4, 9, 0, tzinfo=UTC))  # a Wednesday
    async with bot_table(pg_url, GROUP, "Trust", ["Ann", "Bob", "Cat", "Dan"], clock=clock,
                         sweep_interval=0.05) as (api, players, runner):
        yield api, players, clock, runner


async def test_a_rated_game_with_a_leaver_reads_the_same_everywhere(four) -> None:
    """Ann, Bob, Cat and Dan play Coyote; Dan makes a move, then /leave; the three others
    play it out. The final message, the private messages, /standings, /rating, /history,
    /replay and the Mini App's pages must give the places and Elo changes the league stored,
    with the engine's order for those who stayed and Dan last, and the arithmetic of
    multiplayer Elo (K 40, provisional "?")."""
    api, players, _clock, runner = four
    ann, bob, cat, dan = players
    await lives_two(api, ann)
    lobby = await open_lobby(api, players, GROUP)
    await ann.press_and_settle(lobby, "▶️ Start")
    while True:
        who = await mover(api, players)
        assert await play_turn(api, players, GROUP)
        if who is dan:
            break
    await api.settle(quiet=0.05)
    await dan.send(GROUP, "/leave")
    await wait_for(lambda: bool(api.find_messages(GROUP, "leaves the game")))
    await api.settle(quiet=0.05)
    await play_out(api, [ann, bob, cat], 0)

    final = plain(api.find_messages(GROUP, "is over!")[-1].text)
    shown = places_of(final)
    assert set(shown) == {"Ann", "Bob", "Cat", "Dan"}, final
    events = await events_of(runner, 1)
    seats = await seats_of(runner, 1)
    game = await runner.app.bot_data[KEY].service.get(1)
    engine_places = GAMES["coyote"].placements(game.state)
    by_name = {p.first_name: p for p in players}
    # places: the engine's order among those who stayed, Dan (who left) last
    stayed = sorted((engine_places[seats[p.id].seat], p.first_name) for p in (ann, bob, cat))
    assert [name for _, name in stayed] == sorted(
        ("Ann", "Bob", "Cat"), key=lambda n: shown[n][0]), (final, engine_places)
    assert shown["Dan"][0] == 4, final
    assert len(events) == 4, "Dan made a move of his own: rated (README)"
    for name, (place, change, rating, provisional) in shown.items():
        e = events[by_name[name].id]
        assert place == e.place == seats[by_name[name].id].placement, (name, final)
        assert change == signed(shown_change(e.before, e.after)), (name, final)
        assert rating == math.floor(e.after + 0.5) and provisional, (name, final)
        assert e.k == 40 and e.before == 1500.0
        # K/(N-1)·(S−E), S from the places, E = 1.5 at equal ratings
        assert abs(e.after - (1500 + 40 / 3 * ({1: 3, 2: 2, 3: 1, 4: 0}[place] - 1.5))) < 1e-9
    assert abs(sum(e.after - e.before for e in events.values())) < 1e-9
    # each player's last private message: their place of 4 and change
    for user in players:
        place, change, _rating, _q = shown[user.first_name]
        await wait_for(lambda user=user: "is over:" in plain(api.bot_messages(user.id)[-1].text))
        text = plain(api.bot_messages(user.id)[-1].text)
        assert f"🐺 Game #1 is over: you came {ORDINALS[place]} of 4 (Elo {change})." in text, \
            (user.first_name, text)

    # /standings: points Σ S (3, 2, 1, 0), Elo after, its change
    week = await ask(api, ann, "/standings", "Standings this week")
    season = await ask(api, ann, "/standings season", "Season standings")
    for table in (week, season):
        for name, (place, change, rating, _q) in shown.items():
            points = {1: "3", 2: "2", 3: "1", 4: "0"}[place]
            assert f"{place}. {name} · {points} · 1 · {int(place == 1)} · {rating}? ({change})" \
                in table, (name, table)
    last = await ask(api, ann, "/standings last", "Standings last week")
    assert "No rated game yet in this period" in last
    # /rating: Elo, rank in this chat (places of one game), games and wins
    for user in players:
        place, _change, rating, _q = shown[user.first_name]
        card = await ask(api, user, "/rating", "Rank in this chat")
        assert f"{user.first_name}: Elo {rating}?" in card, card
        assert f"Rank in this chat: {place}" in card, card
        assert f"Rated games: 1 · wins: {int(place == 1)}" in card, card
    history = await ask(api, ann, "/history", "Last games in this chat")
    told = ", ".join(f"{place}. {name} ({change})" for name, (place, change, _r, _q)
                     in sorted(shown.items(), key=lambda kv: kv[1][0]))
    assert told in history, (told, history)
    replay = await ask(api, ann, "/replay 1", "Replay of game #1")
    assert replay.splitlines()[-1] == ", ".join(
        f"{place}. {name}" for name, (place, *_x) in sorted(shown.items(),
                                                          key=lambda kv: kv[1][0])), replay

    # the Mini App's league pages: the same figures
    import httpx
    async with miniapp_server(runner.app) as base, httpx.AsyncClient(timeout=30) as http:
        def auth(user: FakeUser) -> dict[str, str]:
            return {"Authorization": "tma " + init_data(api.token, user.id, user.first_name,
                                                 auth_date=_clock.now.timestamp())}
        page = (await http.get(f"{base}api/chat/{GROUP}/standings?period=week",
                               headers=auth(dan))).json()
        rows = {r["name"].replace("\u2068", "").replace("\u2069", ""): r for r in page["rows"]}
        for name, (place, change, rating, _q) in shown.items():
            assert (rows[name]["rank"], rows[name]["elo"], rows[name]["change"]) == \
                (place, f"{rating}?", change), (name, rows[name])
        page = (await http.get(f"{base}api/chat/{GROUP}/history", headers=auth(bob))).json()
        [entry] = page["games"]
        assert [(p["place"], p["name"].replace("\u2068", "").replace("\u2069", ""),
                 p["change"]) for p in entry["places"]] == sorted(
            ((place, name, change) for name, (place, change, _r, _q) in shown.items()))
        for user in players:
            page = (await http.get(f"{base}api/profile/{user.id}?chat={GROUP}",
                                   headers=auth(user))).json()
            place, _change, rating, _q = shown[user.first_name]
            assert page["elo"] == f"{rating}?" and page["games"] == 1, page
            assert [p["elo"] for p in page["points"]] == [
                round(events[user.id].after, 1)], page


async def test_a_cancelled_game_is_not_rated_nor_listed(four) -> None:
    """Ann (the group's admin) cancels a running game after a few moves: nothing is rated,
    no message gives anyone a place or an Elo change, /history and the standings do not
    list it, and /rating still reads 1500 with no rated game."""
    api, players, _clock, runner = four
    ann = players[0]
    lobby = await open_lobby(api, players[:3], GROUP)
    await ann.press_and_settle(lobby, "▶️ Start")
    for _ in range(4):
        assert await play_turn(api, players[:3], GROUP)
    await ann.send(GROUP, "/cancel")
    await wait_for(lambda: bool(api.find_messages(GROUP, "cancelled")))
    await api.settle(quiet=0.1)
    assert await events_of(runner, 1) == {}
    for message in api.bot_messages(GROUP):
        text = plain(message.text)
        assert "Elo" not in text and "🥇" not in text, text
    for user in players[:3]:
        text = plain(api.bot_messages(user.id)[-1].text)
        assert "you came" not in text and "Elo" not in text, text
    history = await ask(api, ann, "/history", "Last games in this chat")
    assert "#1" not in history and "No finished game yet." in history, history
    week = await ask(api, ann, "/standings", "Standings this week")
    assert "No rated game yet in this period" in week, week
    card = await ask(api, players[1], "/rating", "Rank in this chat")
    assert "Elo 1500?" in card and "Rated games: 0 · wins: 0" in card, card


@pytest.mark.parametrize("language", ["ko", "ja", "es"])
async def test_league_screens_speak_the_groups_language(pg_db, pg_url, language: str) -> None:
    """A group set to Korean, Japanese or Spanish plays a rated game: its final message,
    /standings, /rating, /history, /top and /replay, and the Mini App's league pages for a
    reader of that language, hold no English (tests/english_check.py) and format numbers
    (a half point) the language's way."""
    from tests.english_check import english_runs

    clock = Clock(datetime(2026, 3, 4, 9, 0, tzinfo=UTC))
    async with bot_table(pg_url, GROUP, "Idiomas", ["Ann", "Bob", "Cat", "Dan"], clock=clock,
                         sweep_interval=0.05) as (api, players, runner):
        ann, bob, cat, dan = players
        await lives_two(api, ann)
        await ann.send(GROUP, f"/settings language {language}")
        await api.settle(quiet=0.1)
        before = len(api.bot_messages(GROUP))
        await ann.send(GROUP, "/newgame")
        await wait_for(lambda: len(api.bot_messages(GROUP)) > before)
        await api.settle(quiet=0.05)
        lobby = api.bot_messages(GROUP)[-1]
        join = next(t for t, _d in api.buttons(lobby) if t.startswith("✋"))
        for user in players[1:]:
            await user.press_and_settle(api.get_message(GROUP, lobby.message_id), join,
                                        quiet=0.02)
        start = next(t for t, _d in api.buttons(api.get_message(GROUP, lobby.message_id))
                     if t.startswith("▶️"))
        await ann.press_and_settle(api.get_message(GROUP, lobby.message_id), start)
        moved: set[int] = set()
        while not {cat.id, dan.id} <= moved:  # Cat and Dan move, then leave: they share 3rd
            moved.add((await mover(api, players)).id)
            assert await play_turn(api, players, GROUP)
        for leaver in (cat, dan):
            before = len(api.bot_messages(GROUP))
            await leaver.send(GROUP, "/leave")
            await wait_for(lambda before=before: len(api.bot_messages(GROUP)) > before)
            await api.settle(quiet=0.05)
        await play_to_the_end(api, runner, [ann, bob])
        await api.settle(quiet=0.2)
        names = ("Ann", "Bob", "Cat", "Dan")
        texts = {"final": api.bot_messages(GROUP)[-1].text or ""}
        for command in ("/standings", "/standings season", "/rating", "/history", "/top",
                        "/replay 1"):
            before = len(api.bot_messages(GROUP))
            await ann.send(GROUP, command)
            await wait_for(lambda before=before: len(api.bot_messages(GROUP)) > before)
            await api.settle(quiet=0.05)
            texts[command] = api.bot_messages(GROUP)[-1].text or ""
        found = {key: runs for key, text in texts.items()
                 if (runs := english_runs(text, language, names))}
        half = {"ko": "0.5", "ja": "0.5", "es": "0,5"}[language]
        assert half in plain(texts["/standings"]), texts["/standings"]
        import httpx
        async with miniapp_server(runner.app) as base, httpx.AsyncClient(timeout=30) as http:
            auth = {"Authorization": "tma " + init_data(
                api.token, bob.id, "Bob", language=language,
                auth_date=clock.now.timestamp())}
            for path in (f"chat/{GROUP}/standings?period=week", f"chat/{GROUP}/history",
                         f"profile/{bob.id}?chat={GROUP}", "replay/1"):
                page = (await http.get(f"{base}api/{path}", headers=auth)).json()
                strings = []

                def walk(value, strings=strings) -> None:
                    if isinstance(value, str):
                        strings.append(value)
                    elif isinstance(value, dict):
                        for k, v in value.items():
                            if k not in ("kind", "game", "period"):
                                walk(v)
                    elif isinstance(value, list):
                        for v in value:
                            walk(v)
                walk(page)
                if runs := english_runs("\n".join(strings), language, names):
                    found[path] = runs
        assert not found, found


def test_last_weeks_table_gives_last_weeks_change_once_the_player_played_again() -> None:
    """Ann's only game last week took her from 1500.0 to 1510.4: its final message, her
    private message and /history read "+10 (Elo 1510?)". This week she played once more
    (1510.4 → 1510.7). /standings last (and the Mini App's "last week", the same renderer)
    should still read last week's change, +10 — it reads +11, with Elo 1511: the change is
    worked out from her rating now, not from the ratings of the period
    (render.league.rating_change: shown_change(now − Σ period, now))."""
    from league.tables.queries import Standings
    from league.tables.ratings import RatingChange
    from league.tables.standings import GameResult, table
    from telegram_app.i18n import use_language
    from telegram_app.render.league import standings_text
    from telegram_app.render.results import signed as shown_signed

    start = datetime(2026, 2, 23, tzinfo=UTC)
    game = RatingChange("ann", 1500.0, 1510.4, 40, 2.0, 1.74)
    other = RatingChange("bob", 1500.0, 1489.6, 40, 1.0, 1.26)
    last_week = GameResult(1, start + timedelta(days=2), {"ann": game, "bob": other},
                           {"ann": 1, "bob": 2})
    told = shown_signed(shown_change(game.before, game.after))  # the final message's
    assert told == "+10"
    now = {"ann": 1510.7, "bob": 1489.6}  # Ann's game this week: +0.3
    rows = table([last_week], now)
    with use_language("en"):
        text = plain(standings_text(Standings("last", start, start + timedelta(weeks=1), rows,
                                              {"ann": "Ann", "bob": "Bob"},
                                              {"ann": 2, "bob": 1})))
    line = next(line for line in text.splitlines() if "Ann" in line)
    assert line.endswith(f"({told})"), (line, "last week's only game of Ann read " + told)


async def test_names_with_markup_and_right_to_left_text_are_escaped_on_every_screen(
        pg_db, pg_url) -> None:
    """Players named "<i>Ann</i>", "שרה & Co" and "Cat" + RIGHT-TO-LEFT OVERRIDE play a rated
    game: the final message, /standings, /rating, /history, /top and /replay show each name
    escaped (no tag of theirs is read as markup) and inside its own bidi isolate, so the
    override cannot turn the rest of the line around."""
    names = ["<i>Ann</i>", "שרה & Co", "Cat\u202e"]
    clock = Clock(datetime(2026, 3, 4, 9, 0, tzinfo=UTC))
    async with bot_table(pg_url, GROUP, "Names", names, clock=clock,
                         sweep_interval=0.05) as (api, players, runner):
        await lives_two(api, players[0])
        lobby = await open_lobby(api, players, GROUP)
        await players[0].press_and_settle(lobby, "▶️ Start")
        await play_out(api, players, 0)
        texts = {"final": api.find_messages(GROUP, "is over!")[-1].html or ""}
        for command, expect in (("/standings", "Standings this week"),
                                ("/rating", "Rank in this chat"),
                                ("/history", "Last games in this chat"),
                                ("/replay 1", "Replay of game #1")):
            before = len(api.find_messages(GROUP, expect))
            await players[0].send(GROUP, command)
            await wait_for(lambda before=before, expect=expect:
                           len(api.find_messages(GROUP, expect)) > before)
            texts[command] = api.find_messages(GROUP, expect)[-1].html or ""
        for key, text in texts.items():
            assert "<i>Ann</i>" in plain(text), (key, text)  # read as written
            assert "<i>Ann" not in text and "&lt;i&gt;Ann&lt;/i&gt;" in text, (key, text)
            assert "& Co" not in text, (key, text)
            for line in text.splitlines():
                depth = 0
                for ch in line:
                    depth += ch == "\u2068"
                    depth -= ch == "\u2069"
                    assert ch != "\u202e" or depth > 0, (key, line)
                assert depth == 0, (key, line)
        for user in players:  # their own last private message
            text = api.bot_messages(user.id)[-1].html or ""
            assert "<i>Ann" not in text and "& Co" not in text, text


async def test_koira_two_leavers_share_last_place_and_both_are_the_koira(four) -> None:
    """Koira of four: Cat and Dan each make a move, then leave; Ann and Bob play it out. The
    league places Cat and Dan last together (🥉, 🥉: README), and both are rated. The final
    message marks both 🐕 and names both as sharing the koira's place (it used to single out
    the first who left, though Dan came last too)."""
    from tests.e2e.koira_play import koira_mover, koira_turn_by

    api, players, _clock, runner = four
    ann, bob, cat, dan = players
    lobby = await open_lobby(api, players, GROUP, "/newgame koira")
    await ann.press_and_settle(api.get_message(GROUP, lobby.message_id), "▶️ Start")
    moved: set[int] = set()
    while not {cat.id, dan.id} <= moved:
        user, *_rest = await koira_turn_by(api, runner, players, GROUP)
        moved.add(user.id)
    for leaver in (cat, dan):
        before = len(api.find_messages(GROUP, "leaves the game"))
        await leaver.send(GROUP, "/leave")
        await wait_for(lambda before=before: len(
            api.find_messages(GROUP, "leaves the game")) > before)
        await api.settle(quiet=0.05)
    for _ in range(600):
        if api.find_messages(GROUP, "is over!"):
            break
        await koira_mover(api, [ann, bob])
        await koira_turn_by(api, runner, [ann, bob], GROUP)
    await wait_for(lambda: bool(api.find_messages(GROUP, "is over!")), timeout=60)
    await api.settle(quiet=0.1)
    final = plain(api.find_messages(GROUP, "is over!")[-1].text)
    shown = places_of(final)
    assert shown["Cat"][0] == shown["Dan"][0] == 3, final
    marked = [line for line in final.splitlines() if LINE.match(line) and "🐕" in line]
    last = max(place for place, *_x in shown.values())
    assert sorted(name for name, (place, *_x) in shown.items() if place == last) == \
        sorted(name for line in marked for name in places_of(line)) == ["Cat", "Dan"], final
    assert "Cat, Dan share last place" in final, final
