"""League screens in the group's language, and names with markup or right-to-left text escaped."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest

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
from tests.e2e.results_helpers import GROUP, lives_two, play_out
from tests.e2e.unreachable import plain
from tests.fakebot import FakeBotAPI, FakeUser
from tests.miniapp.server import init_data, miniapp_server


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
