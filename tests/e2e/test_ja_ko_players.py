"""Japanese and Korean players in one group, through the real Application and the fake Bot
API: what a Japanese keyboard types in the private chat (full-width digits and letters, the
white suit symbols ♡ ♤ ♢ ♧) is read as the move it names, in Coyote and in Koira; and a whole
Koira game in a Japanese group where one Korean reader picked Japanese with /language and
another kept Korean: every text, button and alert in its reader's language, with Japanese
punctuation (no ASCII space before a full-width bracket, lists with 、: before the fix
「山札から引いた枚数：지우 1, さくら 1。」)."""

from __future__ import annotations

import re

import pytest

from telegram_app.i18n import _, use_language
from tests.e2e.harness import BotRunner, mover, private_turn_message, wait_for
from tests.e2e.koira_play import KOIRA, koira_mover, koira_turn, koira_turn_by, service_of
from tests.english_check import log_faults
from tests.fakebot import FakeBotAPI

GROUP = -100781
HANGUL = re.compile(r"[\uac00-\ud7a3]")
KANA = re.compile(r"[\u3040-\u30ff]")


def tr(language: str, message: str) -> str:
    with use_language(language):
        return _(message)


def plain(html: str) -> str:
    return re.sub(r"<[^>]+>", "", html)


def full_width(text: str) -> str:
    """``text`` as a Japanese keyboard in full-width mode types it (``15`` → ``１５``)."""
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)


async def _play(api: FakeBotAPI, players: list, command: str) -> None:
    """Each player starts the bot; the first opens a lobby in the Japanese group with
    ``command``, the others join with its ✋ button and the first starts the game."""
    for user in players:
        await user.start_bot()
    await players[0].send(GROUP, command)
    join = tr("ja", "✋ Join")
    await wait_for(lambda: any(t == join for m in api.bot_messages(GROUP)
                               for t, _d in api.buttons(m)))
    await api.settle(quiet=0.05)
    lobby = api.bot_messages(GROUP)[-1]
    for user in players[1:]:
        await user.press_and_settle(api.get_message(GROUP, lobby.message_id), join)
    await players[0].press_and_settle(api.get_message(GROUP, lobby.message_id),
                                      tr("ja", "▶️ Start"))


@pytest.fixture
async def api():
    async with FakeBotAPI() as fake:
        yield fake


async def test_a_bid_typed_in_full_width_digits_is_a_bid(api: FakeBotAPI, pg_db,
                                                         pg_url: str) -> None:
    """A Japanese player whose keyboard is in full-width mode types their bid, ``１５``.
    Before the fix the bot answered "数を宣言するには、1から99999999999までの整数を入力して
    ください" (a whole number is what they typed) and nothing was bid; now it is a bid of 15,
    as the buttons' 15 would be."""
    api.add_group(GROUP, "コヨーテの夜", admins=[1])
    players = [api.add_user(1, "さくら", language_code="ja"),
               api.add_user(2, "민지", language_code="ko"),
               api.add_user(3, "たろう", language_code="ja-JP")]
    runner = BotRunner(api, pg_url)
    await runner.start()
    try:
        await _play(api, players, "/newgame")
        first = await mover(api, players)
        turn = private_turn_message(api, first)
        assert turn is not None
        await first.send(first.id, full_width("15"))
        bid = plain(tr("ja", "{name} bids <b>{amount}</b>.").format(
            name="", amount=15))  # (a name is isolated by bidi marks: left out)
        await wait_for(lambda: bool(api.find_messages(GROUP, bid)), timeout=10)
        await api.settle(quiet=0.05)
        hint = tr(first.language_code[:2], "To bid, type a whole number from 1 to {max} "
                  "(or use the buttons).").split("{")[0]
        assert not api.find_messages(first.id, hint)
    finally:
        await runner.stop()


async def test_cards_typed_on_a_japanese_keyboard_are_played(api: FakeBotAPI, pg_db,
                                                             pg_url: str) -> None:
    """Koira players type a card in the private chat as a Japanese keyboard writes it:
    full-width (``１０Ｈ``), or with the white suit symbol it offers for ハート (``10♡``).
    Before the fix both got the hint "7H や 10S のように入力してください" and the card was
    not played; now each is the card it names."""
    api.add_group(GROUP, "犬の夜", admins=[1])
    players = [api.add_user(1, "さくら", language_code="ja"),
               api.add_user(2, "민수", language_code="ko"),
               api.add_user(3, "けんた", language_code="ja")]
    runner = BotRunner(api, pg_url)
    await runner.start()
    try:
        service_of(runner).new_seed = lambda: 7
        await _play(api, players, "/newgame koira")
        symbols = {"S": "♤", "H": "♡", "D": "♢", "C": "♧"}
        for spelled in (full_width, lambda card: card[:-1] + symbols[card[-1]]):
            user, _message = await koira_mover(api, players)
            game = await service_of(runner).get(1)
            seat = game.player(user.id).seat
            card = KOIRA.view(game.state, seat)["hand"][0]
            await user.send(user.id, spelled(card))
            await wait_for(lambda v=game.version: any(koira_turn(api, u, v) for u in players),
                           timeout=10)  # (the next player's keyboard: the card was played)
            after = await service_of(runner).get(1)
            assert card not in KOIRA.view(after.state, seat)["hand"], spelled(card)
            await api.settle(quiet=0.05)
    finally:
        await runner.stop()




async def test_a_japanese_group_with_korean_readers(api: FakeBotAPI, pg_db, pg_url: str) -> None:
    """A Koira game, to its end, in a group whose language is Japanese (its first lobby's
    opener's): 지우's app is Korean but they chose 日本語 with /language; 민수 (a name with
    markup) kept Korean. The group reads Japanese, 지우's private chat and alerts Japanese,
    민수's Korean; no English anywhere, and no ASCII space before a full-width bracket."""
    api.add_group(GROUP, "犬の夜", admins=[1])
    sakura = api.add_user(1, "さくら", language_code="ja")
    minsu = api.add_user(2, "<b>민수</b>", language_code="ko")
    jiwoo = api.add_user(3, "지우", language_code="ko")
    for user in (sakura, minsu, jiwoo):
        await user.start_bot()
    runner = BotRunner(api, pg_url)
    await runner.start()
    try:
        await api.settle(quiet=0.05)
        await jiwoo.send(jiwoo.id, "/language")
        await wait_for(lambda: any(t.endswith("日本語") for m in api.bot_messages(jiwoo.id)
                                   for t, _d in api.buttons(m)))
        choice = api.bot_messages(jiwoo.id)[-1]
        await jiwoo.press_and_settle(choice, "日本語", quiet=0.05)
        chosen = len(api.log)  # (지우's /start and /language were Korean: their app's)
        service_of(runner).new_seed = lambda: 7
        await sakura.send(GROUP, "/newgame koira")
        join = tr("ja", "✋ Join")
        await wait_for(lambda: any(t == join for m in api.bot_messages(GROUP)
                                   for t, _d in api.buttons(m)))
        await api.settle(quiet=0.05)
        lobby = api.bot_messages(GROUP)[-1]
        for user in (minsu, jiwoo):
            await user.press_and_settle(api.get_message(GROUP, lobby.message_id), join)
        await sakura.press_and_settle(api.get_message(GROUP, lobby.message_id),
                                      tr("ja", "▶️ Start"))
        over = tr("ja", "🏁 Koira #{id} is over!").format(id=1)
        turns = 0
        while (await service_of(runner).get(1)).status == "running":
            await koira_turn_by(api, runner, [sakura, minsu, jiwoo], GROUP, over=over)
            turns += 1
            assert turns < 300
        for command in ("/history", "/standings koira", "/rules koira"):
            before = len(api.bot_messages(GROUP))
            await minsu.send(GROUP, command)
            await wait_for(lambda before=before: len(api.bot_messages(GROUP)) > before)
        await api.settle(quiet=0.1)
        languages = {GROUP: "ja", sakura.id: "ja", jiwoo.id: "ja", minsu.id: "ko"}
        names = ("さくら", "<b>민수</b>", "민수", "지우")
        faults = log_faults(api.log[chosen:], languages, {1: "ja", 2: "ko", 3: "ja"}, names)
        assert not faults, faults[:20]
        for entry in api.log[chosen:]:
            language = languages.get(entry.chat_id or 0) if entry.kind != "answer" else \
                {1: "ja", 2: "ko", 3: "ja"}.get(entry.actor)
            if entry.kind not in ("send", "edit", "answer") or not entry.text:
                continue
            text = entry.text
            for name in names:
                text = text.replace(name, "")
            if language == "ja":
                assert not HANGUL.search(text), text
                assert not re.search(r" [（「『【]", text), text
                assert ", " not in text, text  # (a list: 「さくら、지우」)
            elif language == "ko":
                assert not KANA.search(text.replace("犬の夜", "")), text
        assert api.find_messages(GROUP, tr("ja", "🏁 Koira #{id} is over!").format(id=1))
    finally:
        await runner.stop()
