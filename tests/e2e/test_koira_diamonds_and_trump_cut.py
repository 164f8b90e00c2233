"""A Japanese Koira group through the real Application against the fake Bot API
(PostgreSQL, a fixed seed): a diamond typed with the symbol a Japanese phone offers for
ダイヤ (「７◆」, 「◇Ｑ」) is played, and a trick a trump ends early (R17
``trump_ends_trick``) is told as ended by the trump, not as complete."""

from __future__ import annotations

from engine.core import Action
from engine.koira.cards import suit
from league.store.snapshots import GameSnapshot
from telegram_app.i18n import n_, use_language
from tests.bot.koira.test_diamonds_and_trump_cut import COMPLETE, CUT
from tests.e2e.group_play_common import fake_api  # noqa: F401 (the api fixture)
from tests.e2e.harness import BotRunner
from tests.e2e.koira_play import KOIRA, service_of
from tests.e2e.test_ja_ko_players import GROUP, full_width
from tests.e2e.test_koira_typed_refusals import (
    advance,
    hand,
    japanese_game,
    typed_plays,
)
from tests.fakebot import FakeBotAPI


async def test_diamonds_typed_with_the_japanese_diamond_symbols_are_played(
        api: FakeBotAPI, pg_db, pg_url: str) -> None:
    """A Japanese player types a diamond of their hand as their phone writes ダイヤ: 「７◆」
    (U+25C6, suit last), later 「◇Ｑ」 (U+25C7, suit first, as ダイヤのQ). Before the fix the
    bot answered "7H や 10S のように入力してください" and nothing was played; now each is the
    diamond it names."""
    runner = BotRunner(api, pg_url)
    try:
        players = await japanese_game(api, runner)
        spellings = [lambda c: full_width(c[:-1]) + "◆", lambda c: "◇" + full_width(c[:-1])]
        for spelled in spellings:
            await typed_plays(api, runner, players, lambda g, s: g.state["phase"] == 1 and any(
                suit(c) == "D" for c in hand(g, s)), spelled, lambda c: suit(c) == "D")
    finally:
        await runner.stop()


def _cut(game: GameSnapshot, seat: int) -> Action | None:
    """A trump play of ``seat`` that ends the trick before its count (R17), if any."""
    state = game.state
    if state["phase"] != 2 or not state["trick"] or state["lead_trump"]:
        return None
    lying = sum(len(p[1]) for p in state["trick"])
    return next((a for a in KOIRA.legal_actions(state, seat)
                 if a.kind == "play" and a.cards and suit(a.cards[0]) == state["trump"]
                 and lying + len(a.cards) < state["need"]), None)


async def test_a_trick_a_trump_ends_early_is_told_so_in_the_group(
        api: FakeBotAPI, pg_db, pg_url: str) -> None:
    """Phase 2 of a game with ``trump_ends_trick`` (R17), in a quiet group (the default: its
    table, edited in place, opens with the move that ended the last trick): a player cuts a
    plain trick with a trump before it holds its count of cards (R9). Before the fix the
    group read only 「🗑 トリック完了：2枚がゲームから除かれます（最後に出したのは⁨さくら⁩
    さん）。」 ("The trick is complete … played last"), a trick called complete short of its
    count with no word of the trump; now it is told that the trump ended the trick early."""
    runner = BotRunner(api, pg_url)
    try:
        await japanese_game(api, runner, "/newgame koira trump_ends_trick")
        game, seat = await advance(api, runner, lambda g, s: _cut(g, s) is not None)
        action = _cut(game, seat)
        assert action is not None and action.cards
        n = sum(len(p[1]) for p in game.state["trick"]) + len(action.cards)
        await service_of(runner).act(1, game.at_seat(seat).user_id, game.version, action)
        await api.settle(quiet=0.2)
        name = f"\u2068{game.at_seat(seat).name}\u2069"
        with use_language("ja"):
            cut = n_(*CUT, n).format(n=n, name=name)
            complete = n_(*COMPLETE, n).format(n=n, name=name)
        texts = [m.text or "" for m in api.bot_messages(GROUP)]
        assert any(cut in t for t in texts), texts[-1]
        assert not any(complete in t for t in texts), texts[-1]
    finally:
        await runner.stop()
