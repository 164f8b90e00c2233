"""Koira presses from the group: a stranger's 🎴, double taps, old keyboards, 🎴 at the end."""

from __future__ import annotations

from tests.e2e.group_koira_helpers import (
    GROUP,
    NAMES,
    end_checks,
    group_turn,
    live,
    mover_of,
    open_table,
    peek_button,
    play_one,
    table_message,
)
from tests.e2e.group_play_common import (
    current,
    fake_api,  # noqa: F401 (the api fixture)
    tr,
)
from tests.e2e.koira_play import KOIRA, moves


async def test_presses_on_the_group_view_in_korean(api, sqlite_url) -> None:
    """A non-player's 🎴; a double tap on an ephemeral move; an old keyboard pressed after
    the turn moved on: each answered in Korean, nothing shown to the wrong person, and the
    pressed message left without live buttons."""
    language = "ko"
    names = NAMES[language][:3]
    t = await open_table(api, sqlite_url, [language] * 3, [False] * 3, names=names)
    eve = api.add_user(9, "이브", language_code="ko")
    faults: list[str] = []
    try:
        table = table_message(api)
        sends = len(api.calls("sendMessage"))
        answer = await eve.press_and_settle(table, peek_button(api, table), quiet=0.05)
        if answer.get("text") != tr("ko", "You are not playing in this game."):
            faults.append(f"a stranger's 🎴: {answer!r}")
        if len(api.calls("sendMessage")) != sends:
            faults.append("a stranger's 🎴 sent something")
        # a double tap of one move on the ephemeral message
        game = await current(t)
        user = mover_of(t, game)
        message = await group_turn(t, user, game.version)
        data = next((d for _, d in moves(api, message) if d.startswith("ky:")))
        first = await user.press_raw_on(message, data)
        second = await user.press_raw_on(message, data)
        answers = [await api.wait_answer(first), await api.wait_answer(second)]
        await api.settle(quiet=0.1)
        if answers[1].get("show_alert") or \
                answers[1].get("text") != tr("ko", "You already moved this turn."):
            faults.append(f"a double tap: {answers!r}")
        if (await current(t)).version != game.version + 1:
            faults.append("a double tap made two moves?")
        # the old keyboard, pressed two turns later
        old = data
        await play_one(t)
        game = await current(t)
        eph = live(api, user)
        if eph is not None:
            answer = await api.wait_answer(await user.press_raw_on(eph, old))
            await api.settle(quiet=0.1)
            if any(ord(c) < 128 and c.isalpha() for c in answer.get("text", "")):
                faults.append(f"an old keyboard's press answered in English: {answer!r}")
            eph = live(api, user)
            if eph is not None and moves(api, eph) and \
                    mover_of(t, await current(t)) is not user:
                faults.append("the old keyboard's message kept move buttons")
        if (await current(t)).version != game.version:
            faults.append("an old keyboard made a move")
        assert not faults, faults
    finally:
        await t.runner.stop()


async def test_the_tables_button_after_going_out_and_after_the_end(api, sqlite_url) -> None:
    """Japanese: a player who got rid of their cards (safe) presses 🎴; after the end, a
    press of 🎴 on the closed tables (a client that did not redraw them yet) and of a
    stale ephemeral keyboard: answers in Japanese that fit what happened; no ephemeral
    message left."""
    language = "ja"
    names = NAMES[language][:4]
    t = await open_table(api, sqlite_url, [language] * 4, [False] * 4, names=names)
    faults: list[str] = []
    try:
        safe_answer = None
        tables: list[tuple[int, str]] = []  # every table's message id and its 🎴 data
        while True:
            tbl = table_message(api)
            if tbl is not None and (tbl.message_id, peek_button(api, tbl)) not in tables:
                tables.append((tbl.message_id, peek_button(api, tbl)))
            game = await current(t)
            if game.status != "running":
                break
            out = [s for s in range(4) if s not in KOIRA.still_playing(game.state)]
            if out and safe_answer is None:
                safe = next(u for u in t.players if u.id == game.at_seat(out[0]).user_id)
                if live(api, safe) is not None and moves(api, live(api, safe)):
                    faults.append("the safe player's ephemeral message keeps move buttons")
                safe_answer = await safe.press_and_settle(tbl, peek_button(api, tbl),
                                                          quiet=0.05)
                if live(api, safe) is not None:
                    faults.append("a safe player was sent an ephemeral message")
            await play_one(t)
        await api.settle(quiet=0.1)
        faults += end_checks(api, t, language, 0)
        # 'You are out of this game' fits one who left or was removed: told to one who won
        # their way out (safe, placed) it reads as if they had been thrown out.
        removed = tr("ja", "You are out of this game: follow the rest on the table.")
        if safe_answer is None:
            faults.append("nobody went out before the end?")
        elif safe_answer.get("text") == removed or "1" not in (safe_answer.get("text") or ""):
            faults.append(f"a safe player's 🎴 is not told their place: {safe_answer!r}")
        for message_id, data in tables:
            answer = await api.wait_answer(await t.players[1].press_raw(GROUP, message_id,
                                                                        data))
            text = answer.get("text") or ""
            if not text or any("a" <= c.lower() <= "z" for c in text):
                faults.append(f"🎴 on a closed table after the end: {answer!r}")
        assert not faults, faults
    finally:
        await t.runner.stop()
