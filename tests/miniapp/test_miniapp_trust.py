"""Can a player trust the Mini App's screens, and can anyone make it reveal a hidden card
or crash? (The real bot against the fake Bot API, PostgreSQL; games seeded, played through
the league service or the page.)

- the end screen marks as "you" exactly the reader's own line, by place, whatever the
  players are called (a long name, a name another begins with, two players of one name);
- on the end screen a right-to-left name's Elo change reads as in the group's final message
  ("كات · −20", the sign before the number): the name is isolated in its own element;
- the profile's Elo chart names each point's day as the group's history and the chat's
  ``/profile`` chart do, in the group's time zone;
- an id of thousands of digits in any path (``/game/…``, ``/replay/…``, ``/profile/…``) is
  a 4xx, with or without initData, never a 500;
- a player of one group sees nothing of another group's games or league; no query string
  gets another seat's view; the replay of a running Coyote game shows cards only where a
  showdown showed them, the same for everyone; a finished game's replay and history give
  the final message's places and Elo changes (Coyote and Koira), and a Koira league is its
  own; odd paths, query strings and move bodies are 4xx; the pages in Korean, Japanese and
  Spanish hold no English; names with HTML and right-to-left overrides stay plain text on
  the table and the replay; the tournament pages and a move want genuine, fresh initData
  too."""

from __future__ import annotations

import random
import re
from contextlib import asynccontextmanager
from datetime import UTC, datetime

import pytest

from engine import GAMES
from league.match.lobby import AI_NAMES
from league.store.snapshots import UserRef
from telegram_app.render.results import place_mark, ranked
from tests.clock import Clock
from tests.e2e.harness import bot_table, wait_for
from tests.miniapp.conftest import Client
from tests.miniapp.koira import NAMES, service_of
from tests.miniapp.server import miniapp_server

GROUP = -100561
OTHER_GROUP = -100562
BIDI = str.maketrans("", "", "\u2068\u2069")


async def coyote_game(runner, group: int = GROUP, names: dict[int, str] | None = None,
                      options: dict | None = None, seed: int = 7, thread: int = 0):
    """A started Coyote game of users 1–3 (``names``, else Ann, Bob, Cat) in ``group``
    (its topic ``thread``), through the league service, dealt from ``seed``."""
    names = names or NAMES
    service = service_of(runner)
    service.new_seed = lambda: seed
    ids = sorted(names)
    lobby = await service.open_lobby(group, "Mini league", thread,
                                     UserRef(ids[0], names[ids[0]]),
                                     kind="coyote", options=options or {})
    for user_id in ids[1:]:
        await service.join(lobby.id, UserRef(user_id, names[user_id]))
    return (await service.start(lobby.id, ids[0])).game


async def computer_move(runner, game_id: int, seed: int) -> bool:
    """The player on turn makes the move a computer player would; ``False`` once over."""
    service = service_of(runner)
    game = await service.get(game_id)
    if game.status != "running":
        return False
    rules = GAMES[game.kind]
    seat = rules.current_seat(game.state)
    action = rules.ai_action(rules.view(game.state, seat), random.Random(seed))
    await service.act(game_id, game.at_seat(seat).user_id, game.version, action)
    return True


async def play_out(runner, game_id: int) -> None:
    step = 0
    while await computer_move(runner, game_id, step):
        step += 1
        assert step < 2000


def final_lines(api, group: int) -> list[str]:
    """The places of the group's last "is over!" message, one line each."""
    text = (api.find_messages(group, "is over!")[-1].text or "").translate(BIDI)
    lines = text.split("\n")
    start = next(i for i, line in enumerate(lines) if "is over!" in line) + 2
    return lines[start:lines.index("", start)]


# --- the end screen, the chart's days, long ids --------------------------------------------------

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


HUGE = "9" * 5000


async def test_an_id_of_thousands_of_digits_is_4xx(mini) -> None:
    """Every path with an id answers 4xx to an id past Python's 4300-digit limit of
    ``int()`` (``test_api.py`` tries 20 digits), with or without initData. Before the fix the
    routes' own ``{id:int}`` conversion raised before the handler and before initData was
    checked (anyone could send it): a 500 and an ERROR with a traceback in the log."""
    api, players, runner, client = mini
    answers = {}
    for method, path in (("GET", f"game/{HUGE}"), ("GET", f"game/{HUGE}/moves"),
                         ("GET", f"game/{HUGE}/events"), ("POST", f"game/{HUGE}/move"),
                         ("GET", f"replay/{HUGE}"), ("GET", f"profile/{HUGE}")):
        for who, headers in (("nobody", {}), ("Ann", client.auth(1))):
            response = await client.http.request(
                method, client.base + "api/" + path, headers=headers,
                json={"version": 1, "action": {"kind": "call"}} if method == "POST" else None)
            answers[(method, path.replace(HUGE, "9…9"), who)] = response.status_code
    assert {k: s for k, s in answers.items() if not 400 <= s < 500} == {}


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


# --- checked and holding -----------------------------------------------------------------------

async def _status(client, path: str, user_id: int) -> int:
    """The status of a GET (an event stream is not read past its head)."""
    async with client.http.stream("GET", client.base + "api/" + path,
                                  headers=client.auth(user_id)) as response:
        return response.status_code


async def test_a_player_of_another_group_sees_nothing_of_this_ones(mini) -> None:
    api, players, runner, client = mini
    game = await coyote_game(runner)
    service = service_of(runner)
    dee = await service.open_lobby(OTHER_GROUP, "Other league", 0, UserRef(4, "Dee"),
                                   kind="coyote")
    for path in (f"game/{game.id}", f"game/{game.id}/moves", f"game/{game.id}/events",
                 f"replay/{game.id}", f"chat/{GROUP}", f"chat/{GROUP}/standings",
                 f"chat/{GROUP}/history", f"chat/{GROUP}/tournaments",
                 f"profile/1?chat={GROUP}", f"profile/1?chat={OTHER_GROUP}", "profile/1"):
        assert await _status(client, path, 4) == 403, path
    move = await client.post(f"game/{game.id}/move", 4,
                             {"version": 0, "action": {"kind": "bid", "amount": 1}})
    assert move.status_code == 403 and "table" not in move.json()
    # and the other way round: Ann, of this group, of Dee's
    for path in (f"game/{dee.id}", f"replay/{dee.id}", f"chat/{OTHER_GROUP}/standings",
                 f"profile/4?chat={OTHER_GROUP}", f"profile/4?chat={GROUP}", "profile/4"):
        assert await _status(client, path, 1) == 403, path
    me = (await client.get("me", 4)).json()
    assert me["games"] == [] and [c["id"] for c in me["chats"]] == [OTHER_GROUP]


async def test_no_query_string_gets_another_seats_view(mini) -> None:
    api, players, runner, client = mini
    game = await coyote_game(runner)
    on_turn = game.at_seat(GAMES["coyote"].current_seat(game.state)).user_id
    other = next(u for u in (1, 2, 3) if u != on_turn)
    plain_page = (await client.get(f"game/{game.id}", other)).json()
    assert plain_page["seats"][plain_page["you"]]["cards"][0].get("hidden")
    for query in ("?seat=0", "?seat=1", "?seat=2", f"?user={on_turn}", f"?user_id={on_turn}",
                  "?as=1&you=0", f"?tgWebAppStartParam=g{game.id}&seat=0", "?seat=0&seat=1"):
        assert (await client.get(f"game/{game.id}{query}", other)).json() == plain_page, query
        moves = (await client.get(f"game/{game.id}/moves{query}", other)).json()
        assert moves["controls"] == [], query


async def test_the_replay_of_a_running_coyote_game_shows_no_card_in_play(mini) -> None:
    """Mid-round (round 3 or later, bids on the table): the replay is the same for each
    player and for a member of the chat, and it shows cards exactly where a showdown
    showed them: none of the round in play."""
    api, players, runner, client = mini
    game = await coyote_game(runner, seed=11)
    service = service_of(runner)
    await service.open_lobby(GROUP, "Mini league", 7, UserRef(4, "Dee"), kind="coyote")
    step = 0
    while True:
        current = await service.get(game.id)
        assert current.status == "running", "the game ended before round 3"
        if current.state["round"] >= 3 and len(current.state["bids"]) >= 2:
            break
        await computer_move(runner, game.id, step)
        step += 1
    log = await service.log(game.id)
    showdowns = sum(e["type"] == "showdown" for row in log for e in row.events)
    assert showdowns >= 2
    replays = [(await client.get(f"replay/{game.id}", user)).json() for user in (1, 2, 3, 4)]
    assert all(r == replays[0] for r in replays[1:])
    replay = replays[0]
    assert sum(c is not None for c in replay["cards"]) == showdowns
    lines: list[str] = []
    for kept, new in zip(replay["kept"], replay["steps"], strict=True):
        lines = lines[:kept] + new
    last_round = max(i for i, line in enumerate(lines) if line.startswith("— round"))
    assert lines[last_round] == f"— round {current.state['round']} —"
    assert not any("→ total" in line for line in lines[last_round:]), lines[last_round:]


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


@pytest.mark.parametrize("path", [
    f"chat/{GROUP}/standings?period=week&period=season", f"chat/{GROUP}/standings?period=%00",
    f"chat/{GROUP}/standings?game=%00", f"chat/{GROUP}/standings?game=coyote%00",
    f"chat/{GROUP}/standings?game=%3Cscript%3E", f"chat/{GROUP}/standings?game=" + "x" * 6000,
    f"chat/{GROUP}/standings?game=coyote&game=nope", "profile/1?chat=%2B1", "profile/1?chat=1e5",
    "profile/1?chat=--1", "profile/1?chat=-", "profile/1?chat=%EF%BC%91", "profile/1?chat=%00",
    "profile/1?game=koira%00", "profile/2?chat=", "chat/%EF%BC%91/standings", "chat/-0/history",
    "chat/%20-1/history", "chat/0x10/history", "tournament/0", "tournament/-1",
    "tournament/abc", "tournament/99999999999", "tournament/%00", "replay/0", "game/0",
    "game/0/moves", "game/00001", "replay/-1", "profile/-1", "game/1/move", "me/extra",
    "strings?x=" + "%" * 2000, "../../etc/passwd", "static/../../__init__.py",
    f"chat/{GROUP}/standings?" + "&".join(f"k{i}=v" for i in range(1500))])
async def test_odd_paths_and_query_strings_are_never_500(mini, path) -> None:
    api, players, runner, client = mini
    await coyote_game(runner)
    response = await client.http.get(client.base + "api/" + path, headers=client.auth(1))
    assert response.status_code < 500, (path[:80], response.status_code, response.text[:200])
    assert (await client.get("me", 1)).status_code == 200


async def test_odd_move_bodies_are_4xx_and_change_nothing(mini) -> None:
    """(A good move with a byte-order mark, or in UTF-16, is read as the move, as
    ``json.loads`` reads bytes: harmless, not asserted.)"""
    api, players, runner, client = mini
    game = await coyote_game(runner)
    on_turn = game.at_seat(GAMES["coyote"].current_seat(game.state)).user_id
    url = client.base + f"api/game/{game.id}/move"
    headers = client.auth(on_turn)
    good = b'{"version": %d, "action": {"kind": "bid", "amount": 1}}' % game.version
    statuses = {}
    for body, content_type in (
            (b" " * 4000, "application/json"), (b" " * 5000, "application/json"),
            (good + b" " * 5000, "application/json"),
            (b"version=1&action=x", "application/x-www-form-urlencoded"),
            (good.replace(b"1}}", b"1, \"target\": 0}}"), "application/json"),
            (good.replace(b"\"bid\"", b"\"bid\\u0000\""), "application/json"),
            (good.replace(b"1}}", b"1, \"special\": \"shot\", \"target\": 99}}"),
             "application/json"),
            (good.replace(b"1}}", b"1.0}}"), "application/json"),
            (good.replace(b"1}}", b"true}}"), "application/json"),
            (good.replace(b"1}}", b"1, \"amount\": \"x\"}}"), "application/json")):
        response = await client.http.post(url, content=body, headers={
            **headers, "Content-Type": content_type})
        statuses[body[:70]] = response.status_code
    assert {k: s for k, s in statuses.items() if not 400 <= s < 500} == {}
    assert (await service_of(runner).get(game.id)).version == game.version


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


async def test_the_pages_not_probed_elsewhere_want_genuine_fresh_init_data(mini) -> None:
    """The tournament pages, a POST and a profile with a chat, beside the endpoints
    ``test_api.py`` tries: initData of another bot, a day and a second old, or ten minutes
    ahead (past the five minutes' slack) is 401 there too."""
    import time

    from tests.miniapp.server import init_data

    api, players, runner, client = mini
    game = await coyote_game(runner)
    now = time.time()
    refused = [init_data("1:another-bot", 1, "Ann"),
               init_data(api.token, 1, "Ann", auth_date=now - 86_401),
               init_data(api.token, 1, "Ann", auth_date=now + 600)]
    for data in refused:
        headers = {"Authorization": "tma " + data}
        for path in (f"chat/{GROUP}/tournaments", "tournament/1", f"profile/2?chat={GROUP}",
                     f"replay/{game.id}", f"chat/{GROUP}/standings?game=koira"):
            response = await client.http.get(client.base + "api/" + path, headers=headers)
            assert response.status_code == 401, (path, response.text)
        response = await client.http.post(
            client.base + f"api/game/{game.id}/move", headers=headers,
            json={"version": game.version, "action": {"kind": "bid", "amount": 1}})
        assert response.status_code == 401 and "table" not in response.json()
    fresh = init_data(api.token, 1, "Ann", auth_date=now - 86_000)  # (within the day)
    response = await client.http.get(client.base + f"api/chat/{GROUP}/standings",
                                      headers={"Authorization": "tma " + fresh})
    assert response.status_code == 200
    assert (await service_of(runner).get(game.id)).version == game.version
