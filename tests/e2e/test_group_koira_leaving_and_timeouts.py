"""Koira from the group: leaving on one's turn, and the clock running out on a turn."""

from __future__ import annotations

from tests.e2e.group_koira_helpers import (
    GROUP,
    NAMES,
    Watch,
    end_checks,
    group_sends,
    group_turn,
    live,
    mover_of,
    open_table,
    peek_button,
    pings,
    play_one,
    play_to_end,
    table_message,
)
from tests.e2e.group_play_common import (
    current,
    fake_api,  # noqa: F401 (the api fixture)
    tr,
)
from tests.e2e.harness import wait_for
from tests.e2e.koira_play import moves
from tests.e2e.messy_telegram_helpers import plain
from tests.english_check import log_faults


async def test_leaving_on_ones_turn_from_the_group(api, sqlite_url) -> None:
    """Korean, four players without a private chat: the one to act, holding their 🎴
    message with its buttons, sends /leave. Their message goes (or loses its buttons), their
    ping goes, the next player is pinged once, and their 🎴 afterwards is refused in
    Korean without showing cards."""
    language = "ko"
    names = NAMES[language]
    t = await open_table(api, sqlite_url, [language] * 4, [False] * 4, names=names)
    faults: list[str] = []
    try:
        for _ in range(3):
            await play_one(t)
        game = await current(t)
        leaver = mover_of(t, game)
        await group_turn(t, leaver, game.version)
        before = len(pings(api, language))
        since = len(api.log)
        await leaver.send(GROUP, "/leave")
        await wait_for(lambda: len(group_sends(api, since)) >= 1)
        await api.settle(quiet=0.3)
        game = await current(t)
        nxt = mover_of(t, game)
        eph = live(api, leaver)
        if eph is not None and moves(api, eph):
            faults.append("the leaver's 🎴 message keeps its move buttons")
        if eph is not None:
            faults.append(f"the leaver's 🎴 message stays: {eph.text[:100]}")
        alive = pings(api, language, alive=True)
        if any(plain(m.text).startswith(leaver.first_name) for m in alive):
            faults.append("the leaver's ping stays")
        new = pings(api, language)[before:]
        named = [m for m in new if plain(m.text).startswith(nxt.first_name)]
        if len(named) != 1:
            faults.append(f"the next player pinged {len(named)} times: "
                          f"{[e.text for e in group_sends(api, since)]}")
        table = table_message(api)
        answer = await leaver.press_and_settle(table, peek_button(api, table), quiet=0.05)
        if answer.get("text") != tr("ko", "You are out of this game: follow the rest on "
                                          "the table."):
            faults.append(f"the leaver's 🎴: {answer!r}")
        if live(api, leaver) is not None:
            faults.append("the leaver was sent their cards")
        await play_to_end(t, Watch(language))
        # (a departure posts a note of its own: the count of posts does not apply)
        faults += [f for f in end_checks(api, t, language, 0) if "group posts" not in f]
        assert not faults, faults
    finally:
        await t.runner.stop()


async def test_a_timeout_of_a_player_without_a_private_chat(api, sqlite_url) -> None:
    """Japanese: the player to act from the group, their 🎴 message open, lets the clock
    run out. The computer plays for them: the buttons leave their message, their ping goes,
    the next player is pinged once; when the turn comes back to them they are pinged
    again."""
    from datetime import UTC, datetime

    from tests.clock import Clock

    language = "ja"
    clock = Clock(datetime(2026, 6, 3, 9, 0, tzinfo=UTC))
    names = NAMES[language][:3]
    t = await open_table(api, sqlite_url, [language] * 3, [False] * 3, names=names,
                         clock=clock)
    faults: list[str] = []
    try:
        for _ in range(2):
            await play_one(t)
        game = await current(t)
        late = mover_of(t, game)
        message = await group_turn(t, late, game.version)
        before = len(pings(api, language))
        clock.advance(3601)
        await wait_for(lambda: any(e.kind == "send" and e.chat_id == GROUP
                                   and "⏰" in (e.text or "") for e in api.log), timeout=20)
        await api.settle(quiet=0.3)
        game = await current(t)
        nxt = mover_of(t, game)
        eph = live(api, late)
        if eph is not None and moves(api, eph) and nxt is not late:
            faults.append("the timed-out player's 🎴 message keeps move buttons")
        if message.is_ephemeral and not message.deleted and moves(api, message) and \
                nxt is not late:
            faults.append("the pressed message keeps move buttons")
        if any(plain(m.text).startswith(late.first_name) for m in
               pings(api, language, alive=True)) and nxt is not late:
            faults.append("the timed-out player's ping stays")
        new = pings(api, language)[before:]
        named = [m for m in new if plain(m.text).startswith(nxt.first_name)]
        if len(named) != 1:
            faults.append(f"after the timeout {nxt.first_name} was pinged {len(named)} "
                          f"times")
        # on to their next turn: pinged again (README: even when it comes straight back)
        for _ in range(12):
            game = await current(t)
            if mover_of(t, game) is late:
                break
            await play_one(t)
        game = await current(t)
        if mover_of(t, game) is late:
            alive = pings(api, language, alive=True)
            if not any(plain(m.text).startswith(late.first_name) for m in alive):
                faults.append("back to the timed-out player: no ping")
        answer = await api.wait_answer(await late.press_raw(
            GROUP, table_message(api).message_id, peek_button(api, table_message(api))))
        if answer.get("show_alert"):
            faults.append(f"🎴 after a timeout: {answer!r}")
        faults += [str(f) for f in log_faults(api.log, {GROUP: language},
                                              {n: language for n in names}, tuple(names))]
        assert not faults, faults
    finally:
        await t.runner.stop()
