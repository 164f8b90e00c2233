"""Japanese and Spanish Koira players type a move in the private chat that the rules refuse
(the real Application against the fake Bot API, PostgreSQL, a fixed seed): they are told
the rule's reason in their language, as the engine's refusal words it
(``telegram_app/games/koira/errors.py``), not how to type a card, which they did right.
And cards typed the way these players write them: suit first (``♡７``, as Japanese says
"ハートの7"), or with the red heart emoji ``❤️`` of the emoji keyboard."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from engine.koira.cards import rank, suit
from league.store.snapshots import GameSnapshot
from tests.e2e.group_play_common import tr
from tests.e2e.harness import BotRunner, wait_for
from tests.e2e.koira_play import KOIRA, service_of
from tests.e2e.spanish_group import GROUP as ES_GROUP
from tests.e2e.spanish_group import spanish_game
from tests.e2e.test_ja_ko_players import GROUP as JA_GROUP
from tests.e2e.test_ja_ko_players import _play, full_width
from tests.fakebot import FakeBotAPI, FakeUser

SEED = 7
HINT = "Tap a card on the keyboard of your message, or type one such as 7H or 10S (a " \
    "sequence: 5H 6H 7H)."


@pytest.fixture
async def api():
    async with FakeBotAPI() as fake:
        yield fake


async def japanese_game(api: FakeBotAPI, runner: BotRunner, command: str = "/newgame koira"
                        ) -> list[FakeUser]:
    """Three Japanese players in a Japanese group, a Koira game of ``SEED`` started."""
    api.add_group(JA_GROUP, "犬の夜", admins=[1])
    players = [api.add_user(1, "さくら", language_code="ja"),
               api.add_user(2, "けんた", language_code="ja"),
               api.add_user(3, "たろう", language_code="ja")]
    await runner.start()
    service_of(runner).new_seed = lambda: SEED
    await _play(api, players, command)
    return players


async def spanish(api: FakeBotAPI, runner: BotRunner, command: str = "/newgame koira"
                  ) -> list[FakeUser]:
    """Three Spanish players in a Spanish group, a Koira game of ``SEED`` started."""
    api.add_group(ES_GROUP, "Noche de Koira", admins=[1])
    players = [api.add_user(1, "Ana", language_code="es"),
               api.add_user(2, "Beto", language_code="es"),
               api.add_user(3, "Caro", language_code="es")]
    await spanish_game(api, runner, players, command, seed=SEED)
    return players


async def advance(api: FakeBotAPI, runner: BotRunner,
                  stop: Callable[[GameSnapshot, int], bool]) -> tuple[GameSnapshot, int]:
    """Play game 1 as the computer would (seeded by the step) until ``stop(game, seat)``
    holds for the player to act; then every message is out. That game and seat."""
    service = service_of(runner)
    for step in range(600):
        game = await service.get(1)
        seat = KOIRA.current_seat(game.state)
        assert seat is not None, "the game ended before the position came"
        if stop(game, seat):
            await api.settle(quiet=0.1)
            return game, seat
        action = KOIRA.ai_action(KOIRA.view(game.state, seat), random.Random(step))
        await service.act(1, game.at_seat(seat).user_id, game.version, action)
    raise AssertionError("the position did not come")


async def typed_answer(api: FakeBotAPI, runner: BotRunner, user: FakeUser, text: str) -> str:
    """``user`` types ``text`` in their private chat; the bot's answer (nothing moved)."""
    version = (await service_of(runner).get(1)).version
    sent = len(api.bot_messages(user.id))
    await user.send(user.id, text)
    await wait_for(lambda: len(api.bot_messages(user.id)) > sent, timeout=10)
    await api.settle(quiet=0.05)
    assert (await service_of(runner).get(1)).version == version, "the typed move was played"
    return api.bot_messages(user.id)[sent].text or ""


def hand(game: GameSnapshot, seat: int) -> list[str]:
    return list(KOIRA.view(game.state, seat)["hand"] or [])


def user_of(players: list[FakeUser], game: GameSnapshot, seat: int) -> FakeUser:
    return next(u for u in players if u.id == game.at_seat(seat).user_id)


async def typed_plays(api: FakeBotAPI, runner: BotRunner, players: list[FakeUser],
                      stop: Callable[[GameSnapshot, int], bool], spelled: Callable[[str], str],
                      which: Callable[[str], bool]) -> None:
    """Play on to the first turn ``stop`` accepts; its player types, as ``spelled`` writes
    it, the first card of their hand ``which`` accepts: it is played."""
    game, seat = await advance(api, runner, stop)
    card = next(c for c in hand(game, seat) if which(c))
    user = user_of(players, game, seat)
    await user.send(user.id, spelled(card))
    await api.settle(quiet=0.2)
    after = await service_of(runner).get(1)
    assert after.version > game.version, (spelled(card), api.bot_messages(user.id)[-1].text)
    assert card not in hand(after, seat), spelled(card)


async def test_a_card_typed_in_full_width_that_does_not_beat_is_told_why(
        api: FakeBotAPI, pg_db, pg_url: str) -> None:
    """Phase 2: a Japanese player types in full width (「９Ｓ」) a card of their hand that
    does not beat the top of the trick. Before the fix the bot answered "メッセージの
    キーボードでカードをタップするか、7H や 10S のように入力してください" — how to type a card,
    which they had typed right; now it says the card does not beat the top and what does
    (a higher card of its suit or a trump, or pick up)."""
    runner = BotRunner(api, pg_url)
    try:
        players = await japanese_game(api, runner)

        def refused_card(game: GameSnapshot, seat: int) -> bool:
            legal = KOIRA.legal_actions(game.state, seat)
            return game.state["phase"] == 2 and bool(game.state["trick"]) and any(
                all(a.cards != (c,) for a in legal) for c in hand(game, seat))

        game, seat = await advance(api, runner, refused_card)
        legal = KOIRA.legal_actions(game.state, seat)
        card = next(c for c in hand(game, seat) if all(a.cards != (c,) for a in legal))
        answer = await typed_answer(api, runner, user_of(players, game, seat),
                                    full_width(card))
        assert tr("ja", HINT) not in answer, answer
        assert tr("ja", "That does not beat the top of the trick: play a higher card of its "
                        "suit or a trump, or pick up.") in answer, answer
    finally:
        await runner.stop()


async def test_cards_typed_in_full_width_that_are_no_sequence_are_told_why(
        api: FakeBotAPI, pg_db, pg_url: str) -> None:
    """Phase 2: a Japanese player types two cards of one suit that are not in a row, as
    their keyboard writes them: 「５Ｈ、７Ｈ」. Before the fix the answer was how to type a
    card; now it is what a sequence is (2 or more cards of one suit in a row)."""
    runner = BotRunner(api, pg_url)
    try:
        players = await japanese_game(api, runner)

        def gap(cards: list[str]) -> tuple[str, str] | None:
            return next(((a, b) for a in cards for b in cards
                         if suit(a) == suit(b) and rank(b) - rank(a) >= 2), None)

        game, seat = await advance(api, runner, lambda g, s: g.state["phase"] == 2
                                   and gap(hand(g, s)) is not None)
        cards = gap(hand(game, seat))
        assert cards is not None
        answer = await typed_answer(api, runner, user_of(players, game, seat),
                                    "、".join(full_width(c) for c in cards))
        assert tr("ja", HINT) not in answer, answer
        assert tr("ja", "A sequence is {min} or more cards of one suit in a row (aces high "
                        "only).").format(min=2) in answer, answer
    finally:
        await runner.stop()


async def test_two_cards_typed_in_phase_1_are_told_one_card(api: FakeBotAPI, pg_db,
                                                            pg_url: str) -> None:
    """Phase 1: a Spanish player types two cards of their hand (``9C 2S``, R19: a phase-1
    play is exactly one card). Before the fix the bot answered "Toca una carta en el
    teclado de tu mensaje o escribe una como 7H o 10S…"; now "En la fase 1 …exactamente una
    carta"."""
    runner = BotRunner(api, pg_url)
    try:
        players = await spanish(api, runner)
        game, seat = await advance(api, runner, lambda g, s: True)
        answer = await typed_answer(api, runner, user_of(players, game, seat),
                                    " ".join(hand(game, seat)[:2]))
        assert tr("es", HINT) not in answer, answer
        assert tr("es", "In phase 1 you play exactly one card.") in answer, answer
    finally:
        await runner.stop()


async def test_a_sequence_not_from_a_two_is_told_the_option(api: FakeBotAPI, pg_db,
                                                            pg_url: str) -> None:
    """R17 (``trump_ends_trick``): only sequences whose lowest card is a 2 are valid. A
    Spanish player types a run of two cards of one suit that does not start with a 2. Before
    the fix the answer was how to type a card (and the refusal's own text, "Una escalera son
    2 o más cartas seguidas de un palo", names a rule the run keeps); now it also says that
    in this game sequences must start with a 2."""
    runner = BotRunner(api, pg_url)
    try:
        players = await spanish(api, runner, "/newgame koira trump_ends_trick")

        def run(cards: list[str]) -> tuple[str, str] | None:
            return next(((a, b) for a in cards for b in cards
                         if suit(a) == suit(b) and rank(b) == rank(a) + 1 and rank(a) > 2),
                        None)

        game, seat = await advance(api, runner, lambda g, s: g.state["phase"] == 2
                                   and run(hand(g, s)) is not None)
        cards = run(hand(game, seat))
        assert cards is not None
        answer = await typed_answer(api, runner, user_of(players, game, seat), " ".join(cards))
        assert tr("es", HINT) not in answer, answer
        assert tr("es", "A trump played on a trick not led with trump ends it at once; "
                        "sequences must start with a 2.") in answer, answer
    finally:
        await runner.stop()


async def test_cards_typed_suit_first_or_with_the_heart_emoji_are_played(
        api: FakeBotAPI, pg_db, pg_url: str) -> None:
    """A Japanese player names a card suit first, as Japanese says it (ハートの7: 「♡７」,
    「♠１０」), and later types a heart with the emoji keyboard's red heart (「７❤️」).
    Before the fix both got the hint "7H や 10S のように入力してください" and nothing was
    played; now each is the card it names."""
    runner = BotRunner(api, pg_url)
    try:
        players = await japanese_game(api, runner)
        symbols = {"S": "♠", "H": "♡", "D": "♦", "C": "♧"}
        spellings = [
            (lambda g, s: True, lambda c: symbols[suit(c)] + full_width(c[:-1])),
            (lambda g, s: g.state["phase"] == 1 and any(suit(c) == "H" for c in hand(g, s)),
             lambda c: full_width(c[:-1]) + "❤️"),
        ]
        await typed_plays(api, runner, players, *spellings[0], lambda c: True)
        await typed_plays(api, runner, players, *spellings[1], lambda c: suit(c) == "H")
    finally:
        await runner.stop()


async def test_a_sequence_typed_with_the_japanese_middle_dot_is_played(
        api: FakeBotAPI, pg_db, pg_url: str) -> None:
    """Phase 2: a Japanese player lists the cards of a sequence with 「・」, the list mark a
    Japanese keyboard types on its 「/」 key in kana mode: 「５Ｈ・６Ｈ」. Before the fix the
    bot answered how to type a card and nothing was played; now the sequence is played, as
    「５Ｈ、６Ｈ」 is."""
    runner = BotRunner(api, pg_url)
    try:
        players = await japanese_game(api, runner)

        def sequence(game: GameSnapshot, seat: int) -> tuple[str, ...] | None:
            return next((a.cards for a in KOIRA.legal_actions(game.state, seat)
                         if a.kind == "play" and a.cards and len(a.cards) >= 2), None)

        game, seat = await advance(api, runner, lambda g, s: sequence(g, s) is not None)
        cards = sequence(game, seat)
        assert cards is not None
        user = user_of(players, game, seat)
        await user.send(user.id, "・".join(full_width(c) for c in cards))
        await api.settle(quiet=0.2)
        after = await service_of(runner).get(1)
        assert after.version > game.version, api.bot_messages(user.id)[-1].text
        assert not set(cards) & set(hand(after, seat)), cards
    finally:
        await runner.stop()
