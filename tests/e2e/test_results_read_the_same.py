"""Places and Elo changes read alike everywhere: a leaver, a cancel, last week, Koira."""

from __future__ import annotations

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
from tests.e2e.harness import bot_table, mover, open_lobby, play_turn, wait_for
from tests.e2e.results_helpers import GROUP, lives_two, play_out
from tests.e2e.test_game_end import _places
from tests.e2e.unreachable import plain
from tests.fakebot import FakeBotAPI, FakeUser
from tests.miniapp.server import init_data, miniapp_server

ORDINALS = {1: "1st", 2: "2nd", 3: "3rd", 4: "4th"}
LINE = re.compile(r"^(🥇|🥈|🥉|\d+\.) (\S+)(?: 🐕)?(?: · ([+−]\d+|±0) \(Elo (\d+)(\??)\))?$")


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


async def events_of(runner, game_id: int) -> dict[int, RatingEvent]:
    async with runner.app.bot_data[KEY].db.sessions() as session:
        return {e.user_id: e for e in await session.scalars(
            select(RatingEvent).where(RatingEvent.game_id == game_id))}


async def seats_of(runner, game_id: int) -> dict[int, GamePlayer]:
    async with runner.app.bot_data[KEY].db.sessions() as session:
        return {p.user_id: p for p in await session.scalars(
            select(GamePlayer).where(GamePlayer.game_id == game_id))}


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
