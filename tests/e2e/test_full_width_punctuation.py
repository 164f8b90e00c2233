"""Japanese players type a Koira play in the private chat as a Japanese keyboard writes it
in its kana mode: the comma key gives the ideographic comma 「、」 (U+3001), not the ASCII or
the full-width comma, so a sequence of cards reads ``５Ｈ、６Ｈ`` (the real Application
against the fake Bot API, PostgreSQL)."""

from __future__ import annotations

import random

import pytest

from tests.e2e.harness import BotRunner, wait_for
from tests.e2e.koira_play import KOIRA, koira_mover, koira_turn, service_of
from tests.e2e.test_ja_ko_players import GROUP, _play, full_width
from tests.fakebot import FakeBotAPI


@pytest.fixture
async def api():
    async with FakeBotAPI() as fake:
        yield fake


async def test_a_play_of_several_cards_typed_with_the_ideographic_comma(
        api: FakeBotAPI, pg_db, pg_url: str) -> None:
    """さくら (or whoever leads) types a play of two cards the way the Japanese keyboard
    writes "7H,8H": 「７Ｈ、８Ｈ」. Before the fix the bot answered the hint "7H や 10S のように
    入力してください（連続札：5H 6H 7H）" and nothing was played, though the full-width
    letters and digits were read; now the two cards are played, as ``7H,8H`` would be."""
    api.add_group(GROUP, "犬の夜", admins=[1])
    players = [api.add_user(1, "さくら", language_code="ja"),
               api.add_user(2, "けんた", language_code="ja"),
               api.add_user(3, "たろう", language_code="ja")]
    runner = BotRunner(api, pg_url)
    await runner.start()
    try:
        service_of(runner).new_seed = lambda: 7
        await _play(api, players, "/newgame koira")
        service = service_of(runner)
        for step in range(400):  # (phase 1 played as the computer would: to a sequence)
            game = await service.get(1)
            seat = KOIRA.current_seat(game.state)
            plays = [a.cards for a in KOIRA.legal_actions(game.state, seat)
                     if a.kind == "play" and len(a.cards or ()) >= 2]
            if plays:
                break
            action = KOIRA.ai_action(KOIRA.view(game.state, seat), random.Random(step))
            await service.act(1, game.at_seat(seat).user_id, game.version, action)
        assert plays, "no play of several cards came"
        await api.settle(quiet=0.1)
        user, _message = await koira_mover(api, players)
        assert user.id == game.at_seat(seat).user_id
        cards = plays[0]
        sent = len(api.bot_messages(user.id))
        await user.send(user.id, "、".join(full_width(c) for c in cards))
        await wait_for(lambda: any(koira_turn(api, u, game.version) for u in players)
                       or len(api.bot_messages(user.id)) > sent, timeout=10)
        await api.settle(quiet=0.05)
        after = await service_of(runner).get(1)
        hand = KOIRA.view(after.state, seat)["hand"]
        assert not set(cards) & set(hand), (cards, api.bot_messages(user.id)[-1].text)
    finally:
        await runner.stop()
