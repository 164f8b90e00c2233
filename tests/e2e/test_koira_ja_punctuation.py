"""Koira's texts in a Japanese group read with Japanese punctuation (the real Application
against the fake Bot API, PostgreSQL, a fixed seed): no ASCII semicolon between the shares
of a tie (R5, ``tie_split``), no ASCII space between the sentences of /rules koira's
options."""

from __future__ import annotations

import random

import pytest

from telegram_app.i18n import _, use_language
from telegram_app.services import KEY
from tests.e2e.harness import BotRunner, wait_for
from tests.e2e.koira_play import KOIRA, service_of
from tests.e2e.test_ja_ko_players import GROUP, _play
from tests.fakebot import FakeBotAPI

TITLE = "犬の夜"


def tr(message: str) -> str:
    with use_language("ja"):
        return _(message)


@pytest.fixture
async def api():
    async with FakeBotAPI() as fake:
        yield fake


async def test_a_tie_shared_by_its_ranks_lists_the_shares_with_the_japanese_comma(
        api: FakeBotAPI, pg_db, pg_url: str) -> None:
    """R5 (``tie_split``): a phase-1 tie is not replayed; each tied player takes back their
    card and the others are shared out, every card public. Before the fix the note read
    「🔀 同点のカードを分けます：さくら K♦️ 3♣️; たろう K♥️。」, its shares apart by an ASCII
    「; 」 in a Japanese sentence; now by 「、」, as every Japanese list."""
    api.add_group(GROUP, TITLE, admins=[1])
    players = [api.add_user(1, "さくら", language_code="ja"),
               api.add_user(2, "けんた", language_code="ja"),
               api.add_user(3, "たろう", language_code="ja")]
    runner = BotRunner(api, pg_url)
    await runner.start()
    try:
        service = service_of(runner)
        await service.set_chat_setting(GROUP, TITLE, "group_notes", "every_move")
        service.new_seed = lambda: 7
        await _play(api, players, "/newgame koira tie_split")
        heading = tr("🔀 The tie is shared out: {shares}.").split("{")[0]
        for step in range(300):  # (played as the computer would, to the first sorted share)
            game = await service.get(1)
            seat = KOIRA.current_seat(game.state)
            assert seat is not None and game.state["phase"] == 1, "no tie came in phase 1"
            action = KOIRA.ai_action(KOIRA.view(game.state, seat), random.Random(step))
            _state, events = KOIRA.apply(game.state, seat, action)
            await service.act(1, game.at_seat(seat).user_id, game.version, action)
            if any(e.type == "trick_shared" for e in events):
                break
        await wait_for(lambda: bool(api.find_messages(GROUP, heading)))
        await api.settle(quiet=0.05)
        note = api.find_messages(GROUP, heading)[-1].text or ""
        line = next(line for line in note.splitlines() if line.startswith(heading))
        assert ";" not in line and "、" in line, line
    finally:
        await runner.stop()


async def test_rules_with_options_keep_japanese_sentences_together(
        api: FakeBotAPI, pg_db, pg_url: str) -> None:
    """/rules koira with its options, in a Japanese group. Before the fix the options'
    sentences were joined by an ASCII space: 「…最後に出した人が取ります。 切り札以外で…」;
    now each option is a line of its own, so no sentence follows 「。」 after a space."""
    api.add_group(GROUP, TITLE, admins=[1])
    ann = api.add_user(1, "さくら", language_code="ja")
    runner = BotRunner(api, pg_url)
    await runner.start()
    try:
        await runner.app.bot_data[KEY].service.set_chat_setting(GROUP, TITLE, "language", "ja")
        await ann.send(GROUP, "/rules koira tie_split trump_ends_trick pickup_single")
        heading = tr("<b>This game's options:</b> {options}").split("{")[0]
        heading = heading.replace("<b>", "").replace("</b>", "")
        await wait_for(lambda: bool(api.find_messages(GROUP, heading)))
        text = api.find_messages(GROUP, heading)[-1].text or ""
        options = text[text.index(heading):]
        assert "。 " not in options, options
        for sentence in (tr("A trump played on a trick not led with trump ends it at once; "
                            "sequences must start with a 2."),
                         tr("A pick-up takes only the lowest card of the lowest play.")):
            assert sentence in options, options
    finally:
        await runner.stop()
