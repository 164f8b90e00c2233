"""Korean and Japanese players at the feathers and poker-deck editions, through the real
Application and the fake Bot API, with fixed deals (``COYOTE.new_state(seats, seed)``):
what a native player reads in the group and in their private chat at the moments the rules
make special (a right Guess, the top bid, /settings for an edition, an edition typed on a
Japanese keyboard), and showdowns whose specials change the total, counted by hand from the
rules (``shared/rules/coyote.md``)."""

from __future__ import annotations

import re

import pytest

from tests.e2e.harness import BotRunner, wait_for
from tests.e2e.ko_ja_coyote_helpers import CALL, COYOTE, GROUP, full_width, open_table, plain
from tests.fakebot import FakeBotAPI

TOP = "99999999999"  # engine.coyote.editions.MAX_BID


@pytest.fixture
async def api():
    async with FakeBotAPI() as fake:
        yield fake


async def test_a_safe_feather_in_japanese_has_no_space_before_its_bracket(
        api: FakeBotAPI, sqlite_url: str) -> None:
    """Feathers with coins, seed 27: さくら (seat 0, feather 8) opens the round with the
    Guess coin and names 8, right: her feather lies face up and she is safe. Every Japanese
    view of the table (the group's, たろう's and her own private one) marks it as Japanese
    writes a bracket, 「8（セーフ）」. Before the fix the seat line joined it with an ASCII
    space, 「さくら ❤️❤️❤️ · 8 （セーフ）」 (Korean keeps its half-width 「8 (안전)」)."""
    assert COYOTE.new_state(3, 27, {"edition": "feathers"})["hands"][0] == "8"
    table = await open_table(api, sqlite_url, "feathers", ["ja", "ko", "ja"], 27,
                             "🪙 コイン：オフ")
    try:
        await table.coin("guess", "8")
        sakura, minji, taro = table.players
        seen = {"group": table.group_texts()[-1],
                "たろう": plain(api.bot_messages(taro.id)[-1].text),
                "さくら": plain(api.bot_messages(sakura.id)[-1].text),
                "민지": plain(api.bot_messages(minji.id)[-1].text)}
        for who in ("group", "たろう", "さくら"):
            assert "· 8（セーフ）" in seen[who], (who, seen[who])
            assert not re.search(r" [（「『【]", seen[who]), (who, seen[who])
        assert "· 8 (안전)" in seen["민지"], seen["민지"]
    finally:
        await table.runner.stop()


@pytest.mark.parametrize(("opener", "reply"), [
    ("ja", "宣言できるのは99999999999までです。代わりにコヨーテを宣言してください。"),
    ("ko", "99999999999까지만 부를 수 있어요. 대신 코요테를 외치세요."),
], ids=["ja", "ko"])
async def test_a_number_typed_after_the_top_bid_is_told_to_call(
        api: FakeBotAPI, sqlite_url: str, opener: str, reply: str) -> None:
    """Poker-deck, seed 5: the first player types the top bid on a full-width keyboard
    (「９９９９９９９９９９９」, accepted). The next player, whose keyboard now holds only
    🐺 Coyote!, types 「１２」 in the private chat: the bot tells them no higher bid exists
    and to call Coyote. Before the fix it answered 「100000000000以上を宣言してください。」
    (「100000000000 이상을 불러야 해요.」): a bid the bot itself refuses, as its answer to
    「１０００００００００００」 said (only up to 99999999999)."""
    table = await open_table(api, sqlite_url, "poker-deck", [opener, opener, opener], 5)
    try:
        await table.type(full_width(TOP))
        assert (await table.game()).state["bids"][-1][1] == int(TOP)
        user, _message = await table.mover()
        before = len(api.bot_messages(user.id))
        await user.send(user.id, full_width("12"))
        await wait_for(lambda: len(api.bot_messages(user.id)) > before)
        await api.settle(quiet=0.1)
        answer = plain(api.bot_messages(user.id)[-1].text)
        assert reply in answer, answer
        assert "100000000000" not in answer, answer
        assert (await table.game()).state["bids"][-1][1] == int(TOP)  # nothing was bid
    finally:
        await table.runner.stop()


async def feathers_by_default(api: FakeBotAPI, url: str, name: str, language: str):
    """``(runner, admin, the /settings message)``: the group's admin ``name`` opens /settings
    and presses 🃏 Edition once (classic → feathers); the bot running."""
    api.add_group(GROUP, "group", admins=[1])
    admin = api.add_user(1, name, language_code=language)
    await admin.start_bot()
    runner = BotRunner(api, url)
    await runner.start()
    try:
        await admin.send(GROUP, "/settings")
        await wait_for(lambda: any(api.buttons(m) for m in api.bot_messages(GROUP)))
        await api.settle(quiet=0.05)
        message = api.bot_messages(GROUP)[-1]
        press = next(d for t, d in api.buttons(message) if "🃏" in t)
        await admin.press_and_settle(message, press, quiet=0.1)
    except BaseException:
        await runner.stop()
        raise
    return runner, admin, message


@pytest.mark.parametrize(("language", "edition", "coins"), [
    ("ko", "코요테 · 🃏 에디션: 깃털", "코요테 · 🪙 코인: 끔"),
    ("ja", "コヨーテ · 🃏 エディション：羽根", "コヨーテ · 🪙 コイン：オフ"),
], ids=["ko", "ja"])
async def test_settings_name_the_feathers_special_actions_coins(
        api: FakeBotAPI, sqlite_url: str, language: str, edition: str, coins: str) -> None:
    """/settings in a group, its admin presses 🃏 Edition once (classic → feathers). The
    feathers' special actions are the coins, as its lobby's button says (🪙 코인: 끔,
    🪙 コイン：オフ); before the fix /settings still offered 「코요테 · 🎭 특수 기능: 끔」
    (「コヨーテ · 🎭 スペシャル：オフ」), 🎭 being the classic edition's masks."""
    runner, _admin, message = await feathers_by_default(
        api, sqlite_url, "민지" if language == "ko" else "さくら", language)
    try:
        labels = [t for t, _d in api.buttons(api.get_message(GROUP, message.message_id))]
        assert edition in labels, labels
        assert coins in labels, labels
        assert not [t for t in labels if "🎭" in t], labels
    finally:
        await runner.stop()


async def test_an_edition_typed_in_full_width_letters_is_that_edition(
        api: FakeBotAPI, sqlite_url: str) -> None:
    """A Japanese keyboard in full-width mode types the edition after the command as
    「ｆｅａｔｈｅｒｓ」 or 「ｐｏｋｅｒ－ｄｅｃｋ」. Before the fix /newgame answered
    「「ｆｅａｔｈｅｒｓ」というエディションはありません。次から選んでください：classic、
    feathers、poker-deck。」 (the word they read is in the list) and /rules told the classic
    edition's rules; now they are the feathers lobby and the poker deck's rules."""
    api.add_group(GROUP, "コヨーテの夜", admins=[1])
    sakura = api.add_user(1, "さくら", language_code="ja")
    await sakura.start_bot()
    runner = BotRunner(api, sqlite_url)
    await runner.start()
    try:
        await sakura.send(GROUP, "/rules ｐｏｋｅｒ－ｄｅｃｋ")
        await wait_for(lambda: bool(api.bot_messages(GROUP)))
        await api.settle(quiet=0.05)
        assert "トランプ（23枚" in plain(api.bot_messages(GROUP)[-1].text)
        await sakura.send(GROUP, "/newgame ｆｅａｔｈｅｒｓ")
        await wait_for(lambda: len(api.bot_messages(GROUP)) > 1)
        await api.settle(quiet=0.05)
        lobby = plain(api.bot_messages(GROUP)[-1].text)
        assert "羽根 · ライフ3" in lobby, lobby
    finally:
        await runner.stop()


# --- checked right: a special card that changes the total, counted from the rules ----------

@pytest.mark.parametrize(("edition", "seed", "opener", "lines", "result"), [
    # Q turns up K: K removes the highest card (4), so 4→0 + A = 1 = the bid: nobody.
    ("poker-deck", 96, "ko", ["4 → 0 (K로 제거됨)", "뒤집은 카드: K (0으로 셈)"],
     "합계: 1 · 부른 수: 1\n합계가 부른 수와 같아요: 아무도 벌점을 받지 않아요."),
    # K removes the 2, J doubles what is left: (0) × 2 = 0 < 1: the bidder.
    ("poker-deck", 2, "ja", ["2 → 0（Kで取り除かれる）", "J（合計を2倍）"],
     "合計：0 · 宣言：1\n宣言が大きすぎました："),
    # ? turns up MAX→0, which zeroes the 10; ×2 doubles nothing left: 0 < 1: the bidder.
    ("feathers", 285, "ja", ["10 → 0（MAX→0）", "めくった羽根：MAX→0（0と数える）"],
     "合計：0 · 宣言：1\n宣言が大きすぎました："),
    # MAX→− makes the 10 count −10, which ×2 does not double: −10 < 1.
    ("feathers", 93, "ko", ["10 → −10 (MAX→−)", "×2 (아직 양수인 초록 깃털을 두 배로)"],
     "합계: −10 · 부른 수: 1\n부른 수가 너무 높았어요:"),
], ids=["poker-Q-turns-up-K", "poker-K-and-J", "feathers-?-turns-up-MAX0", "feathers-MAX-"])
async def test_a_special_card_changes_the_total_as_the_rules_count(
        api: FakeBotAPI, sqlite_url: str, edition: str, seed: int, opener: str,
        lines: list[str], result: str) -> None:
    """The round's first player bids 1 and the next calls Coyote: the group's showdown, in
    the opener's language, shows each special card's effect and the total and loser the
    rules give (worked by hand in the comments). Passed before any change here."""
    other = "ja" if opener == "ko" else "ko"
    table = await open_table(api, sqlite_url, edition, [opener, other, opener], seed)
    try:
        await table.press("1")
        await table.press(CALL)
        shown = table.showdown()
        for line in lines:
            assert line in shown, shown
        assert result in shown, shown
    finally:
        await table.runner.stop()


async def test_rules_with_no_game_open_tell_the_groups_default_edition(
        api: FakeBotAPI, sqlite_url: str) -> None:
    """An admin sets the group's edition to feathers in /settings (🃏 once: classic →
    feathers), then asks /rules and /rules coyote with no game open. Before the fix both told
    the classic edition's rules, although the group's next /newgame plays feathers; now they
    tell the feathers (「<b>羽根</b>（羽根30本）」), and /rules poker-deck still the poker deck."""
    runner, sakura, _message = await feathers_by_default(api, sqlite_url, "さくら", "ja")
    try:
        for command, told in (("/rules", "羽根30本"), ("/rules coyote", "羽根30本"),
                              ("/rules poker-deck", "トランプ（23枚")):
            count = len(api.bot_messages(GROUP))
            await sakura.send(GROUP, command)
            await wait_for(lambda count=count: len(api.bot_messages(GROUP)) > count)
            await api.settle(quiet=0.05)
            assert told in plain(api.bot_messages(GROUP)[-1].text), command
    finally:
        await runner.stop()
