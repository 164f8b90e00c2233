"""Each reader in their language, through the real Application and the fake Bot API: a Korean
client's /start; a Japanese group whose Spanish-speaking player gets Spanish private messages
and alerts in the same game; /language; the weekly post in the chat's language; the command
menu per language.

Expected texts come from the catalogs (``telegram_app/locales``), each checked to differ from
the English.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest

from telegram_app.i18n import SUPPORTED, _, use_language
from telegram_app.render import texts
from tests.clock import Clock
from tests.e2e.harness import (
    BotRunner,
    mover,
    open_lobby,
    play_turn,
    private_turn_message,
    wait_for,
)
from tests.english_check import rendering_faults
from tests.fakebot import FakeBotAPI, parse_html

GROUP = -100444
SETTINGS = ("⚙️ <b>Defaults for new games in this group</b>\n"
            "League weeks in {tz}; seasons of {weeks} weeks (change with /settings timezone "
            "Area/City or /settings season N).\nTap a setting to change it.")


def tr(language: str, message: str) -> str:
    """``message`` in ``language``, checked to be translated."""
    with use_language(language):
        text = _(message)
    assert text != message or language == "en", f"{message!r} has no {language} translation"
    return text


def piece(language: str, message: str) -> str:
    """The longest literal part of ``message`` in ``language`` as a client shows it (tags and
    placeholders left out): what a plain message text contains."""
    parts = re.split(r"\{[^{}]*\}", re.sub(r"<[^>]+>", "", tr(language, message)))
    return max((p.strip() for p in parts), key=len)


def plain(language: str, html: str) -> str:
    return parse_html(html)[0]


@pytest.fixture
async def api():
    async with FakeBotAPI() as fake:
        yield fake


async def test_a_korean_client_is_answered_in_korean(api: FakeBotAPI, pg_db,
                                                     pg_url: str) -> None:
    kim = api.add_user(11, "김민준", language_code="ko-KR")
    pedro = api.add_user(12, "Pedro", language_code="pt-br")  # no catalog: English
    runner = BotRunner(api, pg_url)
    await runner.start()
    try:
        await kim.start_bot()
        await pedro.start_bot()
        await api.settle()
        with use_language("ko"):
            korean = plain("ko", texts.welcome_text())
        assert api.last_bot_message(kim.id).text == korean
        assert korean != plain("en", texts.welcome_text())
        assert api.last_bot_message(pedro.id).text == plain("en", texts.welcome_text())

        # The command menu: English by default, and one per other language.
        for code in SUPPORTED:
            key = (str(sorted({"type": "default"}.items())), "" if code == "en" else code)
            commands = {c["command"]: c["description"] for c in api.commands[key]}
            assert commands["newgame"] == tr(code, "Open a Coyote lobby")
            assert "language" in commands
        assert {c.params.get("language_code") for c in api.calls("setMyCommands")} >= \
            {None, "ko", "ja", "es"}
    finally:
        await runner.stop()


async def test_a_japanese_group_with_a_spanish_player(api: FakeBotAPI, pg_db,
                                                      pg_url: str) -> None:
    group = api.add_group(GROUP, "コヨーテの夜", admins=[1])
    ann = api.add_user(1, "Ann", language_code="en")  # the admin: the setting, not her client
    bob = api.add_user(2, "Beto", language_code="es-419")
    cat = api.add_user(3, "さくら", language_code="ja")
    players = [ann, bob, cat]
    for user in players:
        await user.start_bot()
    runner = BotRunner(api, pg_url)
    await runner.start()
    try:
        await ann.send(group.id, "/settings language ja")
        await wait_for(lambda: bool(api.find_messages(GROUP, piece("ja", SETTINGS))))
        await ann.send(group.id, "/newgame")
        header = piece("ja", "🐺 <b>Coyote</b> — new game #{id}")
        await wait_for(lambda: bool(api.find_messages(GROUP, header)))
        await api.settle(quiet=0.05)
        lobby = api.find_messages(GROUP, header)[-1]
        join = tr("ja", "✋ Join")
        assert join in [t for t, _ in api.buttons(lobby)]
        answer = await bob.press_and_settle(lobby, join)
        assert answer["text"] == tr("es", "You joined game #{id}.").format(id=1)
        answer = await cat.press_and_settle(lobby, join)
        assert answer["text"] == tr("ja", "You joined game #{id}.").format(id=1)
        await ann.press_and_settle(api.get_message(GROUP, lobby.message_id),
                                   tr("ja", "▶️ Start"))

        # The table in Japanese; each private view in its reader's language.
        table_heading = piece("ja", "🐺 Game #{id} · round {round}")
        await wait_for(lambda: bool(api.find_messages(GROUP, table_heading)))
        await wait_for(lambda: all(api.bot_messages(u.id) for u in players))
        await api.settle(quiet=0.05)
        assert piece("es", "🐺 Game #{id} · round {round}") in api.bot_messages(bob.id)[-1].text
        assert piece("ja", "🐺 Game #{id} · round {round}") in api.bot_messages(cat.id)[-1].text
        assert "🐺 Game #1 · round 1" in api.bot_messages(ann.id)[-1].text
        table = api.find_messages(GROUP, table_heading)[-1]
        peek = tr("ja", "🎴 My cards")  # each one's view in the group, in their language
        await bob.press_and_settle(table, peek)
        assert piece("es", "🐺 Game #{id} · round {round}") in \
            api.ephemeral_messages(GROUP, bob.id)[-1].text
        await cat.press_and_settle(table, peek)
        assert piece("ja", "🐺 Game #{id} · round {round}") in \
            api.ephemeral_messages(GROUP, cat.id)[-1].text
        if private_turn_message(api, bob) is None:  # a move out of turn: a Spanish alert
            # (the table has no move buttons: Beto presses the mover's bid in his own chat)
            turn = next(m for u in players if (m := private_turn_message(api, u)) is not None)
            bid = next(d for _, d in api.buttons(turn) if d and d.startswith("b:"))
            mine = api.bot_messages(bob.id)[-1]
            answer = await api.wait_answer(await bob.press_raw(bob.id, mine.message_id, bid))
            assert answer["show_alert"]
            with use_language("es"):
                from telegram_app.render.common import error_text
                assert answer["text"] == error_text("not_your_turn")

        # Play until a showdown: it is told in Japanese.
        showdown = piece("ja", "Total: <b>{total}</b> · bid: {bid}")
        for _turn in range(60):
            if api.find_messages(GROUP, showdown):
                break
            assert await play_turn(api, players, GROUP)
        assert api.find_messages(GROUP, showdown)
        await api.settle(quiet=0.05)
        # The next round's private message is Beto's, in Spanish.
        spanish_round = tr("es", "🐺 Game #{id} · round {round}").format(id=1, round=2)
        await wait_for(lambda: any(spanish_round in (m.text or "")
                                   for m in api.bot_messages(bob.id)))
        # No English reached the group, Beto or さくら: every text and button the bot sent or
        # edited, and every alert, in the reader's language.
        assert not api.find_messages(GROUP, "new game #")
        languages = {GROUP: "ja", bob.id: "es", cat.id: "ja"}
        names = ("Ann", "Beto", "さくら")
        faults = []
        for entry in api.log:
            language = languages.get(entry.receiver or entry.chat_id or 0)
            if entry.kind == "answer":
                language = {"Beto": "es", "さくら": "ja"}.get(entry.actor)
            if language is None or entry.kind not in ("send", "edit", "answer"):
                continue
            faults += [(entry.kind, run) for run in rendering_faults(
                entry.text or "", language, names, whole=entry.kind == "answer")]
            faults += [("button", run) for row in entry.buttons for label in row
                       for run in rendering_faults(label, language, names, whole=True)]
        assert not faults, faults[:10]
        assert sum(entry.kind == "answer" for entry in api.log) >= 4
    finally:
        await runner.stop()


async def test_the_first_lobby_sets_the_groups_language(api: FakeBotAPI, pg_db,
                                                        pg_url: str) -> None:
    group = api.add_group(-100445, "코요테", admins=[1])
    kim, lee = api.add_user(1, "김", language_code="ko"), api.add_user(2, "이",
                                                                      language_code="es")
    for user in (kim, lee):
        await user.start_bot()
    runner = BotRunner(api, pg_url)
    await runner.start()
    try:
        lobby = await _lobby(api, [kim, lee], group.id, "ko")
        assert tr("ko", "✋ Join") in [t for t, _ in api.buttons(lobby)]
        await kim.send(group.id, "/cancel")  # the next lobby, opened by Lee, stays Korean
        await wait_for(lambda: bool(api.find_messages(group.id, piece(
            "ko", "🐺 Game #{id} was cancelled."))))
        await lee.send(group.id, "/newgame")
        await wait_for(lambda: any(m.message_id != lobby.message_id for m in api.find_messages(
            group.id, piece("ko", "🐺 <b>Coyote</b> — new game #{id}"))))
        await lee.send(group.id, "/help")  # a group's command: the group's language
        with use_language("ko"):
            korean = plain("ko", texts.help_text())
        await wait_for(lambda: any(m.text == korean for m in api.bot_messages(group.id)))

        # The admin's 🌐 button on /settings: the next language, and the message follows.
        await kim.send(group.id, "/settings")
        await wait_for(lambda: bool(api.find_messages(group.id, piece("ko", SETTINGS))))
        settings = api.find_messages(group.id, piece("ko", SETTINGS))[-1]
        button = next(t for t, d in api.buttons(settings) if d and d.startswith("z:0:5:"))
        assert button.endswith("한국어")
        answer = await lee.press_and_settle(settings, button)  # not an admin: refused
        assert answer["text"] == tr("es", "Sorry, only the group's admins can change its "
                                          "settings.")
        await kim.press_and_settle(settings, button)
        now = api.get_message(group.id, settings.message_id)
        assert piece("ja", SETTINGS) in now.text
        assert any(t.endswith("日本語") for t, _ in api.buttons(now))
    finally:
        await runner.stop()


async def _lobby(api: FakeBotAPI, users, group_id: int, language: str):
    await users[0].send(group_id, "/newgame")
    header = piece(language, "🐺 <b>Coyote</b> — new game #{id}")
    await wait_for(lambda: bool(api.find_messages(group_id, header)))
    await api.settle(quiet=0.05)
    return api.find_messages(group_id, header)[-1]


async def test_language_switches_a_user(api: FakeBotAPI, pg_db, pg_url: str) -> None:
    cat = api.add_user(3, "Cat", language_code="en-US")
    runner = BotRunner(api, pg_url)
    await runner.start()
    try:
        await cat.start_bot()
        await api.settle()
        await cat.send(cat.id, "/language")
        await wait_for(lambda: any(api.buttons(m) for m in api.bot_messages(cat.id)))
        chooser = next(m for m in reversed(api.bot_messages(cat.id)) if api.buttons(m))
        assert [t for t, _ in api.buttons(chooser)] == \
            ["✅ English", "한국어", "日本語", "Español"]
        answer = await cat.press_and_settle(chooser, "日本語")
        assert not answer["show_alert"]
        assert [t for t, _ in api.buttons(api.get_message(cat.id, chooser.message_id))] == \
            ["English", "한국어", "✅ 日本語", "Español"]
        await cat.start_bot()  # /start again: the welcome, now in Japanese
        await api.settle()
        with use_language("ja"):
            japanese = plain("ja", texts.welcome_text())
        assert api.last_bot_message(cat.id).text == japanese
        bad = await api.wait_answer(await cat.press_raw(cat.id, chooser.message_id, "u:0:9"))
        assert bad["show_alert"]  # a forged choice changes nothing
        await cat.send(cat.id, "/help")
        await api.settle()
        with use_language("ja"):
            assert api.last_bot_message(cat.id).text == plain("ja", texts.help_text())
    finally:
        await runner.stop()


async def test_the_weekly_post_is_in_the_chats_language(pg_db, pg_url: str) -> None:
    clock = Clock(datetime(2026, 3, 2, 9, 0, tzinfo=UTC))
    async with FakeBotAPI() as api:
        api.add_group(GROUP, "Liga", admins=[1])
        players = [api.add_user(i, name) for i, name in enumerate(["Ann", "Bob", "Cat"], 1)]
        for user in players:
            await user.start_bot()
        runner = BotRunner(api, pg_url, clock=clock, sweep_interval=0.05)
        runner.league_interval = 0.05
        await runner.start()
        try:
            await players[0].send(GROUP, "/settings")
            await wait_for(lambda: bool(api.find_messages(GROUP, "Defaults for new games")))
            settings = api.find_messages(GROUP, "Defaults for new games")[-1]
            await players[0].press_and_settle(settings, "Coyote · ❤️ Lives: 3")  # → 2 lives
            lobby = await open_lobby(api, players, GROUP)
            await players[0].press_and_settle(lobby, "▶️ Start")
            for _turn in range(400):
                if api.find_messages(GROUP, "is over!"):
                    break
                assert await play_turn(api, players, GROUP)
            assert api.find_messages(GROUP, "is over!")
            await players[0].send(GROUP, "/settings language es")
            spanish = piece("es", SETTINGS)
            await wait_for(lambda: bool(api.find_messages(GROUP, spanish)))
            clock.now = datetime(2026, 3, 9, 8, 0, tzinfo=UTC)  # the next Monday
            final = piece("es", "📊 Final standings of the week")
            await wait_for(lambda: bool(api.find_messages(GROUP, final)))
            assert not api.find_messages(GROUP, "Final standings of the week")
        finally:
            await runner.stop()


REMINDER = ("⏳ {name}, it is your turn in game #{id}: play before {time}, or the computer "
            "plays for you.")


async def test_the_sweepers_reminder_speaks_each_readers_language(pg_db, pg_url: str) -> None:
    clock = Clock(datetime(2026, 5, 4, 9, 0, tzinfo=UTC))
    async with FakeBotAPI() as api:
        api.add_group(GROUP, "コヨーテ", admins=[1])
        players = [api.add_user(1, "Ann", language_code="en"),
                   api.add_user(2, "Beto", language_code="es-419"),
                   api.add_user(3, "さくら", language_code="ja")]
        languages = {1: "en", 2: "es", 3: "ja"}
        for user in players:
            await user.start_bot()
        runner = BotRunner(api, pg_url, clock=clock, sweep_interval=0.05)
        await runner.start()
        try:
            await players[0].send(GROUP, "/settings language ja")
            await wait_for(lambda: bool(api.find_messages(GROUP, piece("ja", SETTINGS))))
            lobby = await _lobby(api, players, GROUP, "ja")
            for user in players[1:]:
                await user.press_and_settle(lobby, tr("ja", "✋ Join"), quiet=0.02)
            await players[0].press_and_settle(api.get_message(GROUP, lobby.message_id),
                                              tr("ja", "▶️ Start"))
            turn = await mover(api, players)
            clock.advance(46 * 60)  # three quarters of the standard hour: the reminder
            await wait_for(lambda: bool(api.find_messages(GROUP, piece("ja", REMINDER))))
            own = piece(languages[turn.id], REMINDER)
            await wait_for(lambda: any(own in (m.text or "") for m in api.bot_messages(turn.id)))
        finally:
            await runner.stop()
