"""A Koira game in a Korean group with a Spanish and a Japanese player (names
with HTML and right-to-left text), to the end, then 🔁, /replay, /standings koira,
/top koira, /history: no English in any text, button or alert, every HTML text valid."""

from __future__ import annotations

import pytest

from telegram_app.i18n import _, use_language
from tests.e2e.harness import BotRunner, wait_for
from tests.e2e.koira_play import koira_turn_by, service_of
from tests.english_check import log_faults
from tests.fakebot import FakeBotAPI

GROUP = -100445
BOB, CAT = "<i>Beto</i> & co", "سارة‏"


def tr(language: str, message: str) -> str:
    with use_language(language):
        return _(message)


@pytest.fixture
async def api():
    async with FakeBotAPI() as fake:
        yield fake


async def test_a_koira_game_in_three_languages(api: FakeBotAPI, pg_db, pg_url: str) -> None:
    group = api.add_group(GROUP, "개의 밤", admins=[1])
    ann = api.add_user(1, "Ann", language_code="en")
    bob = api.add_user(2, BOB, language_code="es")
    cat = api.add_user(3, CAT, language_code="ja")
    for user in (ann, bob, cat):
        await user.start_bot()
    runner = BotRunner(api, pg_url)
    await runner.start()
    try:
        await ann.send(group.id, "/settings language ko")
        await api.settle(quiet=0.1)
        service_of(runner).new_seed = lambda: 7
        await cat.send(group.id, "/newgame koira")
        header = tr("ko", "🐕 <b>Koira</b> — new game #{id}").split("#")[0].replace(
            "<b>", "").replace("</b>", "").strip()
        await wait_for(lambda: bool(api.find_messages(GROUP, header)))
        await api.settle(quiet=0.05)
        lobby = api.find_messages(GROUP, header)[-1]
        await bob.press_and_settle(lobby, tr("ko", "✋ Join"), quiet=0.02)
        await cat.press_and_settle(api.get_message(GROUP, lobby.message_id),
                                   tr("ko", "🤖 Add AI"))
        await cat.press_and_settle(api.get_message(GROUP, lobby.message_id),
                                   tr("ko", "▶️ Start"))
        turns = 0
        while (await service_of(runner).get(1)).status == "running":
            await koira_turn_by(api, runner, [bob, cat], GROUP,
                                over=tr("ko", "🏁 Koira #{id} is over!").format(id=1))
            turns += 1
            assert turns < 300
        await api.settle(quiet=0.1)
        final = api.bot_messages(GROUP)[-1]
        await cat.press_and_settle(final, tr("ko", "🔁 Rematch"))
        for command in ("/replay 1", "/standings koira", "/top koira", "/history",
                        "/rules koira", "/help"):
            before = len(api.bot_messages(GROUP))
            await bob.send(GROUP, command)
            await wait_for(lambda before=before: len(api.bot_messages(GROUP)) > before)
        await api.settle(quiet=0.1)
        languages = {GROUP: "ko", bob.id: "es", cat.id: "ja"}
        names = ("Ann", BOB, CAT, "Beto", "co", "سارة")
        faults = log_faults(api.log, languages, {BOB: "es", CAT: "ja"}, names)
        assert not faults, faults[:20]
        # the names shown as typed (escaped, not read as HTML) in the notes and the replay
        assert api.find_messages(GROUP, BOB) and api.find_messages(GROUP, "سارة")
        assert sum(entry.kind == "edit" and entry.chat_id == bob.id for entry in api.log) > 3
    finally:
        await runner.stop()
