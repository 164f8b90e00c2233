"""Can a player trust the Mini App's screens? (The real bot against the fake Bot API,
PostgreSQL; games seeded, played through the league service or the page.)

- the end screen marks as "you" exactly the reader's own line, by place, whatever the
  players are called (a long name, a name another begins with, two players of one name);
- on the end screen a right-to-left name's Elo change reads as in the group's final message
  ("كات · −20", the sign before the number): the name is isolated in its own element;
- the profile's Elo chart names each point's day as the group's history and the chat's
  ``/profile`` chart do, in the group's time zone;
- a finished game's replay and history give the final message's places and Elo changes
  (Coyote and Koira), and a Koira league is its own; the pages in Korean, Japanese and
  Spanish hold no English; names with HTML and right-to-left overrides stay plain text on
  the table and the replay."""

from __future__ import annotations

import re
from contextlib import asynccontextmanager
from datetime import UTC, datetime

import pytest

from league.match.lobby import AI_NAMES
from telegram_app.render.results import place_mark, ranked
from tests.clock import Clock
from tests.e2e.harness import bot_table, wait_for
from tests.miniapp.conftest import Client
from tests.miniapp.koira import service_of
from tests.miniapp.miniapp_trust_helpers import (
    BIDI,
    GROUP,
    computer_move,
    coyote_game,
    final_lines,
    play_out,
)
from tests.miniapp.server import miniapp_server


@pytest.mark.parametrize("names", [
    {11: "Alex", 12: "Alexandra Konstantinou-Smith", 13: "Cat"},  # a long name, its prefix
    {11: "Alex", 12: "Alex", 13: "Cat"},  # two people of one name
], ids=["long-name", "same-name"])
async def test_the_end_screen_marks_the_readers_own_line(mini, names) -> None:
    """Each player's end screen marks as "you" exactly the line of their own place (the
    page highlights it), whatever the players are called. Before the fix the page matched
    lines by a name cut to 24 characters: the long name was never "you" (its prefix "Alex"
    took its line), and both Alexes got the first Alex's line."""
    api, players, runner, client = mini
    game = await coyote_game(runner, names=names)
    await play_out(runner, game.id)
    game = await service_of(runner).get(game.id)
    order = [p.user_id for _place, p in ranked(game)]
    marked = {}
    for user_id in names:
        page = (await client.get(f"game/{game.id}", user_id)).json()
        assert [r["name"].split(" · ")[0] for r in page["result"]] == \
            [names[u] for u in order], page["result"]
        marked[user_id] = [r["you"] for r in page["result"]]
    assert marked == {u: [o == u for o in order] for u in names}, (order, marked)


@asynccontextmanager
async def mini_at(pg_url: str, clock: Clock, group: int):
    """The bot on ``clock`` with the Mini App served: ``(api, players, runner, client)``."""
    async with bot_table(pg_url, group, "Mini league", ["Ann", "Bob", "Cat"],
                         clock=clock) as (api, players, runner):
        async with miniapp_server(runner.app) as base:
            client = Client(base, api.token)
            try:
                yield api, players, runner, client
            finally:
                await client.http.aclose()


async def test_the_elo_charts_days_are_the_groups_days(pg_db, pg_url) -> None:
    """A group in Tokyo finishes a rated game at 05:00 on Tuesday 5 May (20:00 UTC on
    Monday). Its history says May 5 (the group's day, as /history and the chat's /profile
    chart do), and so does the profile's chart on the page. Before the fix the chart
    labelled that game's point with its UTC day, May 4."""
    clock = Clock(datetime(2026, 5, 4, 20, 0, tzinfo=UTC))
    async with mini_at(pg_url, clock, GROUP) as (api, players, runner, client):
        service = service_of(runner)
        await service.set_chat_setting(GROUP, "Mini league", "timezone", "Asia/Tokyo")
        game = await coyote_game(runner)
        await play_out(runner, game.id)
        when = clock.now.timestamp()
        history = (await client.get(f"chat/{GROUP}/history", 1, auth_date=when)).json()
        assert history["games"][0]["date"] == "May 5", history
        profile = (await client.get(f"profile/1?chat={GROUP}&game=coyote", 1,
                                    auth_date=when)).json()
        assert len(profile["points"]) == 1
        assert profile["points"][-1]["day"] == "May 5, 2026", profile["points"]


async def test_an_arabic_names_elo_change_reads_as_in_the_group(mini, tmp_path) -> None:
    """The group's final message isolates each name (FSI…PDI), so "🥉 كات · −20 (Elo
    1480?)" reads with the minus before the 20, and so does the end screen, drawn in
    Chromium. Before the fix the page dropped the isolates and set the name with its Elo
    change in one ``span.name`` (``table.js:endBox``): after Arabic letters the digits and
    the sign were laid out right to left, and the line read "20− · كات"."""
    from tests.miniapp.browser import chromium, phone
    from tests.miniapp.server import page_url

    api, players, runner, client = mini
    names = {11: "Ann", 12: "Bob", 13: "كات"}
    game = await coyote_game(runner, names=names)
    await play_out(runner, game.id)
    page_json = (await client.get(f"game/{game.id}", 13)).json()
    line = next(r["name"] for r in page_json["result"] if r["name"].startswith("كات"))
    assert re.fullmatch(r"كات · [+−±]\d+ \(Elo \d+\?\)", line), line
    async with chromium() as browser:
        page = await phone(browser)
        await page.goto(page_url(client.base, api.token, 13, "Cat", f"g{game.id}"))
        name = page.locator("[data-testid=result] li", has_text="كات")
        await name.wait_for()
        # the left edge of each character of the change, as laid out (in the text node
        # holding it, wherever the line's elements put it)
        lefts = await name.evaluate(r"""(el) => {
            const walk = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
            let text = walk.nextNode();
            while (text && !/[+−±]\d/.test(text.data)) text = walk.nextNode();
            const s = text.data, at = s.search(/[+−±]\d/);
            const x = (i) => { const r = document.createRange();
              r.setStart(text, i); r.setEnd(text, i + 1);
              return r.getBoundingClientRect().left; };
            return [x(at), x(at + 1)]; }""")
        await name.scroll_into_view_if_needed()
        await page.screenshot(path=tmp_path / "end-arabic-name.png")
    sign, digit = lefts
    assert sign < digit, f"the sign is drawn after the number: {line!r} at {lefts}"


async def test_a_finished_games_replay_and_history_say_what_the_final_message_says(
        mini) -> None:
    api, players, runner, client = mini
    game = await coyote_game(runner, seed=5)
    await play_out(runner, game.id)
    await wait_for(lambda: bool(api.find_messages(GROUP, "is over!")))
    await api.settle()
    told = final_lines(api, GROUP)  # 🥇 Bob · +20 (Elo 1520?)
    page = (await client.get(f"game/{game.id}", 1)).json()
    assert [f"{r['mark']} {r['name']}" for r in page["result"]] == told
    history = (await client.get(f"chat/{GROUP}/history", 1)).json()["games"][0]
    assert history["id"] == game.id
    assert [f"{place_mark(p['place'])} {p['name']} · {p['change']}" for p in history["places"]] \
        == [line.split(" (Elo")[0] for line in told]
    replay = (await client.get(f"replay/{game.id}", 1)).json()
    assert replay["steps"][-1][-1].translate(BIDI) == ", ".join(
        f"{p['place']}. {p['name']}" for p in history["places"])
    standings = (await client.get(f"chat/{GROUP}/standings?game=coyote", 1)).json()
    elo = {row["name"]: row["elo"] for row in standings["rows"]}
    assert {line.split(" ", 1)[1].split(" · ")[0]: line.split("(Elo ")[1].rstrip(")")
            for line in told} == elo


def _texts(value, key: str = "") -> list[tuple[str, str]]:
    """``(key, text)`` of every string a reader reads in a page's JSON (not the codes: a
    card's tone, a game's kind or status, ids, times)."""
    codes = {"tone", "status", "kind", "period", "game", "edition", "layout", "code", "at",
             "deadline", "lang", "suit", "trump_suit", "id"}
    if isinstance(value, dict):
        return [t for k, v in value.items() if k not in codes for t in _texts(v, k)]
    if isinstance(value, list):
        return [t for v in value for t in _texts(v, key)]
    return [(key, value)] if isinstance(value, str) else []


ENGLISH = re.compile(r"\b(the|game|games|round|over|bids?|waiting|replay|standings|week|"
                     r"points|loses|nobody|cards?|turn|your?|players?|place|result|rated|"
                     r"wins|history|this|last|called|out|jump|step|elo of|draw|pile)\b",
                     re.IGNORECASE)


KEPT = re.compile("|".join(["Ann", "Bob", "Cat", *AI_NAMES, "Mini league", "Elo", "MAX",
                             "SHOT", "Telegram", "Buchholz", r"\{\w+\}"]))
"""What a page in any language keeps as it is: names, the group's title, "Elo", the cards'
own marks, the placeholders the page fills."""


@pytest.mark.parametrize("language", ["ko", "ja", "es"])
async def test_the_pages_speak_korean_japanese_and_spanish(mini, language) -> None:
    """A finished and a running Coyote game, a running Koira game: the table, the replay and
    the league pages, read in ``language``, hold no English word (but the players' names,
    the group's title, "Elo" and the cards' own marks)."""
    from tests.miniapp.koira import koira_game

    api, players, runner, client = mini
    finished = await coyote_game(runner, options={"edition": "classic", "specials": True})
    await play_out(runner, finished.id)
    running = await coyote_game(runner, seed=9, thread=3)
    koira = await koira_game(runner, GROUP)
    for step in range(6):
        await computer_move(runner, koira.id, step)
    english = []
    for path in (f"chat/{GROUP}", f"chat/{GROUP}/standings?game=coyote",
                 f"chat/{GROUP}/standings?period=last&game=koira", f"chat/{GROUP}/history",
                 f"profile/1?chat={GROUP}&game=coyote", f"profile/2?chat={GROUP}&game=koira",
                 f"replay/{finished.id}", f"replay/{koira.id}", f"game/{finished.id}",
                 f"game/{running.id}", f"game/{koira.id}", f"chat/{GROUP}/tournaments",
                 "strings"):
        for user_id in (1, 2):
            page = (await client.get(path, user_id, language=language)).json()
            for key, text in _texts(page):
                rest = re.sub(KEPT, "", text)
                if language != "es" and re.search(r"[A-Za-z]{3,}", rest) or \
                        ENGLISH.search(rest):
                    english.append((path, key, text))
    assert english == [], sorted(set(english))


async def test_html_and_right_to_left_names_stay_plain_on_the_table_and_the_replay(
        mini) -> None:
    api, players, runner, client = mini
    names = {11: "<b>Ann</b> &amp;", 12: "\u202eBob\u202c", 13: "كات"}
    shown = {"<b>Ann</b> &amp;", "Bob", "كات"}
    game = await coyote_game(runner, names=names)
    page = (await client.get(f"game/{game.id}", 11)).json()
    assert {s["name"] for s in page["seats"]} == shown
    await play_out(runner, game.id)
    for path in (f"game/{game.id}", f"replay/{game.id}"):
        text = (await client.get(path, 12)).text  # (JSON with the characters themselves)
        assert "<b>Ann</b> &amp;" in text and "كات" in text
        assert "&lt;" not in text and "\u202e" not in text and "&amp;amp;" not in text
    replay = (await client.get(f"replay/{game.id}", 12)).json()
    lines = [line.translate(BIDI) for step in replay["steps"] for line in step]
    assert any(line.startswith("<b>Ann</b> &amp;: ") for line in lines), lines[:5]
    assert {c["name"] for entry in replay["cards"] if entry for c in entry["cards"]} <= \
        shown | {"turned up"}
    recent = (await client.get(f"game/{game.id}", 12)).json()["recent"]
    assert all("\u202e" not in line and "&lt;" not in line for line in recent), recent


async def test_a_koira_league_is_its_own_and_its_end_is_the_final_messages(mini) -> None:
    """A group that played one rated Koira game (from the page): its Koira standings, Elo
    and history are that game's; its Coyote league is empty; the end screen, the history
    and the replay's last lines say what the group's final message says."""
    from tests.miniapp.league import play_from_page, rated_koira_game

    api, players, runner, client = mini
    service_of(runner).new_seed = lambda: 7
    koira = await rated_koira_game(runner, GROUP)
    assert await play_from_page(client, runner, players, koira.id) > 0
    await wait_for(lambda: bool(api.find_messages(GROUP, "is over!")))
    await api.settle()
    told = final_lines(api, GROUP)  # 🥉 Cat 🐕 · −20 (Elo 1480?)
    assert len(told) == 3 and sum("🐕" in line for line in told) == 1, told
    for user in players:
        page = (await client.get(f"game/{koira.id}", user.id)).json()
        assert [f"{r['mark']} {r['name']}" for r in page["result"]] == told
        assert [r["you"] for r in page["result"]] == \
            [line.split(" ", 1)[1].startswith(user.first_name) for line in told]
    coyote = (await client.get(f"chat/{GROUP}/standings?game=coyote", 1)).json()
    assert coyote["rows"] == [] and coyote["empty"]
    default = (await client.get(f"chat/{GROUP}/standings", 1)).json()
    assert default["game"] == "koira"
    elo = {row["name"]: row["elo"] for row in default["rows"]}
    assert elo == {line.split(" ", 1)[1].split(" ")[0]: line.split("(Elo ")[1].rstrip(")")
                   for line in told}
    for user in players:
        mine = (await client.get(f"profile/{user.id}?chat={GROUP}&game=coyote", user.id)).json()
        assert mine["points"] == [] and mine["games"] == 0 and mine["elo"] == "1500?"
        theirs = (await client.get(f"profile/{user.id}?chat={GROUP}", 1)).json()
        assert theirs["game"] == "koira" and len(theirs["points"]) == 1
        assert theirs["elo"] == elo[user.first_name]
    history = (await client.get(f"chat/{GROUP}/history", 2)).json()["games"]
    assert [(g["id"], g["kind"]) for g in history] == [(koira.id, "koira")]
    assert [f"{place_mark(p['place'])} {p['name']} · {p['change']}"
            for p in history[0]["places"]] == \
        [line.split(" (Elo")[0].replace(" 🐕", "") for line in told]
    replay = (await client.get(f"replay/{koira.id}", 2)).json()
    lines: list[str] = []
    for kept, new in zip(replay["kept"], replay["steps"], strict=True):
        lines = lines[:kept] + new
    dog = next(line for line in told if "🐕" in line).split(" ", 1)[1].split(" ")[0]
    assert [line.translate(BIDI) for line in lines[-2:]] == [
        ", ".join(f"{p['place']}. {p['name']}" for p in history[0]["places"]),
        f"🐕 koira: {dog}"]
