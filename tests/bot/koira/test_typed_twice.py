"""A Koira card typed twice (``7H 7H``, ``7h, 7H``): the player holds it."""

from __future__ import annotations

from engine.core import Action
from telegram_app.games.koira.errors import error_text
from telegram_app.games.koira.ui import KOIRA
from tests.bot.koira.helpers import snapshot
from tests.engine.koira_helpers import phase2


def test_a_held_card_typed_twice_is_not_denied() -> None:
    """Before the fix ``7H 7H`` in phase 2 answered "That card is not in your hand." to a
    player holding 7♥️ (the engine's ``not_in_hand`` for a repeated card, worded as if the
    card were not held); a card typed twice is that card."""
    game = snapshot(phase2([["5H", "6H", "7H", "9S"], ["2C", "3C"], ["4D", "AD"]], trump="S"))
    for text in ("7H 7H", "7h, 7H", "7♥️ 7H"):
        answer = KOIRA.typed(game, 0, text)
        assert answer != error_text("not_in_hand"), text
        assert answer == Action("play", cards=("7H",)), text


def test_two_letters_are_a_card_only_rank_first() -> None:
    """Suit first reads a suit symbol (``♡A``) or a letter before a number (``H7``); before
    the fix the chat words ``ha``, ``ca``, ``da``, ``sa`` and ``DJ`` were played as A♥️, A♣️,
    A♦️, A♠️ and J♦️. Rank first stays as it was (``AH``, ``as``: the ace of spades), and a
    text-style heart (U+FE0E) reads like the emoji one."""
    from telegram_app.games.koira.words import typed_card
    for word in ("ha", "Ca", "da", "SA", "DJ", "hola", "H", "10", "♡"):
        assert typed_card(word) is None, word
    for word, card in (("♡A", "AH"), ("H7", "7H"), ("s10", "10S"), ("AH", "AH"),
                       ("as", "AS"), ("7♥\ufe0e", "7H"), ("7♥\ufe0f", "7H"), ("♥️7", "7H")):
        assert typed_card(word) == card, word
