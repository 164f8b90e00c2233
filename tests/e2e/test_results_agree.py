"""Results players can trust: a finished game's numbers read alike on every screen. Each
game's final message in the group (places, Elo changes such as +12 and −8, the Elo after
them, "?" while provisional) is the reference; each player's last private message of the
game, /history, /replay, /standings (week and season), /rating and the Mini App's history,
replay, end screen, standings and profile (its Elo chart too) must say the same.

Explored with this file before it was cut down (all agreed, but the chart): Coyote and
Koira; a player removed for timeouts after a move; a computer seat (nobody rated, no Elo
anywhere, "you came 2nd of 4."); a shared first place (poker-deck, a leaver); a game over
by a timeout's removal; a game begun on Sunday 23:55 and over on Monday 00:05 (Monday's
week everywhere, last week's table and post without it); a second group (its tables and
history its own, Elo one per game); the 10th rated game (no "?" from it on).

The games are played through the bot's own match service (the moves the buttons would make;
the presenter tells the group and the players as it does for a press); what is read is what
the bot sends, and what the Mini App serves and draws.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime
from urllib.parse import quote

import httpx
import pytest

from tests.e2e.harness import wait_for
from tests.e2e.league_screens_helpers import (
    GROUP,
    OTHER,
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
from tests.fakebot import FakeBotAPI, FakeUser, parse_html
from tests.miniapp.browser import chromium, phone
from tests.miniapp.server import init_data, miniapp_server

ORDINALS = {1: "1st", 2: "2nd", 3: "3rd", 4: "4th"}
Shown = dict[str, tuple[int, str | None, int | None, bool]]
"""A final message's places: ``{name: (place, change, Elo after, provisional)}``."""


def plain(text: str | None) -> str:
    """A message as read: no markup, no bidi isolation marks around names."""
    return unmarked(parse_html(text or "")[0])


def elo_of(shown: Shown, name: str) -> str:
    """A rated player's Elo as the final message gives it: ``1513?``."""
    _place, _change, elo, provisional = shown[name]
    return f"{elo}{'?' if provisional else ''}"


def in_order(shown: Shown) -> list[tuple[int, str, str | None]]:
    """``(place, name, change)`` best first (a tie by name: here seats follow names)."""
    return sorted((place, name, change) for name, (place, change, *_x) in shown.items())


def auth(api: FakeBotAPI, user: FakeUser, now: datetime) -> dict[str, str]:
    return {"Authorization": "tma " + init_data(api.token, user.id, user.first_name,
                                                auth_date=now.timestamp())}


async def game_screens(api: FakeBotAPI, runner, users: list[FakeUser], game_id: int,
                       get: Callable) -> Shown:
    """One game's screens against its final message; returns the message's places."""
    final = await final_of(api, game_id)
    shown = places_of(final)
    seated = len((await service(runner).get(game_id)).seated)
    assert {u.first_name for u in users} <= set(shown), shown
    for user in users:  # each one's last private message of the game: place and change
        place, change, *_x = shown[user.first_name]
        said = f"#{game_id} is over: you came {ORDINALS[place]} of {seated} (Elo {change})."

        def last(user: FakeUser = user) -> str:
            return next((plain(m.text) for m in reversed(api.bot_messages(user.id))
                         if f"#{game_id} " in plain(m.text)), "")
        await wait_for(lambda last=last, said=said: said in last(), timeout=10)
    told = ", ".join(f"{place}. {name} ({change})" for place, name, change in in_order(shown))
    history = await ask(api, users[0], "/history", "Last games in this chat")
    assert f"#{game_id} " in history and history.split(f"#{game_id} ")[1].split("\n")[0] \
        .endswith(": " + told), (told, history)
    places = ", ".join(f"{place}. {name}" for place, name, _c in in_order(shown))
    replay = await ask(api, users[0], f"/replay {game_id}", f"Replay of game #{game_id}")
    assert places in replay.splitlines()[-2:], (places, replay)
    # the Mini App: the chat's history, the replay's last lines, each one's end screen
    page = (await get(f"chat/{GROUP}/history", users[1])).json()
    entry = next(g for g in page["games"] if g["id"] == game_id)
    assert [(p["place"], unmarked(p["name"]), p["change"]) for p in entry["places"]] == \
        in_order(shown), entry
    page = (await get(f"replay/{game_id}", users[2])).json()
    assert places in [unmarked(line) for step in page["steps"][-2:] for line in step], page
    for user in users:
        result = (await get(f"game/{game_id}", user)).json()["result"]
        [mine] = [line for line in result if line["you"]]
        assert mine["player"] == user.first_name and \
            f"{mine['mark']} {unmarked(mine['name'])}" in final.splitlines(), (mine, final)
    return shown


async def test_a_coyote_and_a_koira_game_read_the_same_on_every_screen(pg_db, pg_url) -> None:
    """Ann, Bob, Cat and Dan play Coyote; after everyone's first move the next to act runs
    out of time and is removed (rated, placed last). Then Ann, Bob and Cat play Koira.
    Every screen gives each game's places and Elo changes as its final message does, the
    week's and the season's tables sum them (points from the places, games, wins, the Elo
    as the last final message gave it, "?" and all), and another group sees none of it."""
    async with league(pg_url) as (api, players, clock, runner):
        ann, bob, cat, dan = players
        api.add_group(OTHER, "Other", admins=[1])
        async with miniapp_server(runner.app) as base, httpx.AsyncClient(timeout=30) as http:
            async def get(path: str, user: FakeUser) -> httpx.Response:
                return await http.get(f"{base}api/{path}", headers=auth(api, user, clock.now))

            await remove_on_timeout(runner)
            game = await open_game(runner, players, options={"lives": 2})
            await until_all_moved(runner, game.id, {p.id for p in players})
            await time_out(api, clock)
            await play_out(runner, game.id)
            coyote = await game_screens(api, runner, players, game.id, get)
            assert sorted(place for place, *_x in coyote.values()) == [1, 2, 3, 4], coyote
            clock.advance(600)
            game = await open_game(runner, [ann, bob, cat], "koira")
            await play_out(runner, game.id)
            koira = await game_screens(api, runner, [ann, bob, cat], game.id, get)

            for kind, shown in (("coyote", coyote), ("koira", koira)):
                points = {name: sum(1 if place < theirs else .5 if place == theirs else 0
                                    for other, (theirs, *_y) in shown.items() if other != name)
                          for name, (place, *_x) in shown.items()}
                rows = {name: (f"{points[name]:g}", 1, int(place == 1), elo_of(shown, name),
                               change) for name, (place, change, *_x) in shown.items()}
                game_word = "" if kind == "coyote" else " koira"
                for period, title in (("", "Standings this week"),
                                      (" season", "Season standings")):
                    text = await ask(api, ann, f"/standings{game_word}{period}", title)
                    table = table_rows(text)
                    assert {n: row[1:] for n, row in table.items()} == rows, (kind, text)
                    page = (await get(f"chat/{GROUP}/standings?period="
                                      f"{period.strip() or 'week'}&game={kind}", dan)).json()
                    assert [(r["rank"], unmarked(r["name"]), r["points"], r["games"], r["wins"],
                             r["elo"], r["change"]) for r in page["rows"]] == \
                        [(row[0], name, *row[1:]) for name, row in table.items()], page
                for user in players:
                    if user.first_name not in shown:
                        continue
                    place, *_x = shown[user.first_name]
                    card = await ask(api, user, f"/rating{game_word}", "Rated games")
                    assert f"{user.first_name}: Elo {elo_of(shown, user.first_name)}" in card \
                        and f"Rated games: 1 · wins: {int(place == 1)}" in card, card
                    page = (await get(f"profile/{user.id}?chat={GROUP}&game={kind}",
                                      user)).json()
                    assert (page["elo"], page["games"], len(page["points"])) == \
                        (elo_of(shown, user.first_name), 1, 1), page
            # nothing of it in another group's league
            for command, title in (("/standings", "Standings this week"),
                                   ("/standings koira season", "Season standings")):
                text = await ask(api, ann, command, title, OTHER)
                assert "No rated game yet in this period" in text, text
            text = await ask(api, ann, "/history", "Last games in this chat", OTHER)
            assert "No finished game yet." in text, text


@pytest.fixture
async def browser():
    """Headless Chromium (its fixture's name marks the test ``browser``: tests/conftest.py)."""
    async with chromium() as b:
        yield b


def profile_url(base: str, token: str, user: FakeUser, now: datetime) -> str:
    """The Mini App as Telegram opens it on the user's own profile (start parameter "p"),
    signed at ``now`` (the bot's clock)."""
    data = init_data(token, user.id, user.first_name, start_param="p",
                     auth_date=now.timestamp())
    return f"{base}#tgWebAppData={quote(data, safe='')}&tgWebAppStartParam=p" \
           "&tgWebAppVersion=8.0&tgWebAppPlatform=web"


async def test_the_elo_charts_points_say_the_elo_the_final_messages_gave(
        pg_db, pg_url, browser, tmp_path) -> None:
    """Before the fix the Mini App's Elo chart titled each point (what a tap or hover on
    its dot shows) with the Elo unrounded and unmarked, "Mar 4, 2026: 1497.5", where that
    game's final message, /rating and the profile's headline read "Elo 1497?"; and the
    points never said which Elo was provisional. Ann, Bob and Cat play ten quick rated games
    (poker-deck: everyone moves, then one of them leaves, in turn); each point's title must
    give Ann's Elo as that game's final message did ("?" for the first nine, none from the
    tenth)."""
    async with league(pg_url, ("Ann", "Bob", "Cat")) as (api, players, clock, runner):
        ann = players[0]
        finals: list[str] = []
        for index in range(10):
            game = await open_game(runner, players, options={"edition": "poker-deck"})
            await until_all_moved(runner, game.id, {p.id for p in players})
            await leave(api, players[(index + 1) % 3])
            finals.append(elo_of(places_of(await final_of(api, game.id)), "Ann"))
            clock.advance(6 * 3600)
        assert all(e.endswith("?") for e in finals[:9]) and "?" not in finals[9], finals
        assert any(e != finals[0] for e in finals), finals
        card = await ask(api, ann, "/rating", "Rated games")
        assert f"Ann: Elo {finals[-1]}" in card, card
        async with miniapp_server(runner.app) as base:
            page = await phone(browser)
            errors: list[str] = []
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            await page.goto(profile_url(base, api.token, ann, clock.now))
            await page.wait_for_selector(".profile svg.chart circle.dot")
            assert await page.locator(".profile .stat b").first.inner_text() == finals[-1]
            titles = await page.locator("svg.chart circle.dot title").all_text_contents()
            await page.screenshot(path=tmp_path / "profile.png")
            assert errors == []
        assert [re.sub(r"^.*: ", "", t) for t in titles] == finals, (titles, finals)
