"""Koira's cards as players read them: ``10H`` → ``10♥️`` (rules notation in
``shared/rules/koira.md`` "Card notation"), and as they type them (:func:`typed_card`). Card
labels are notation, the same in every language; suit names are translated."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from engine.koira.cards import SUITS, is_card, sorted_hand, suit
from telegram_app.i18n import _

SUIT_SYMBOLS = {"S": "♠️", "H": "♥️", "D": "♦️", "C": "♣️"}
"""Suit letter → its symbol in emoji presentation (U+FE0F), so hearts and diamonds are red
on every client."""


def card_label(card: str) -> str:
    """``"10H"`` → ``"10♥️"``; anything that is not a card comes back unchanged."""
    if len(card) < 2 or card[-1] not in SUIT_SYMBOLS:
        return card
    return card[:-1] + SUIT_SYMBOLS[card[-1]]


def cards_label(cards: Iterable[str], sep: str = " ") -> str:
    """Several cards, in the order given: ``["5H", "6H"]`` → ``"5♥️ 6♥️"``."""
    return sep.join(card_label(c) for c in cards)


def suit_name(letter: str | None) -> str:
    """A suit's name with its symbol (``"H"`` → ``"♥️ hearts"``); ``""`` for ``None``."""
    names = {"S": lambda: _("♠️ spades"), "H": lambda: _("♥️ hearts"),
             "D": lambda: _("♦️ diamonds"), "C": lambda: _("♣️ clubs")}
    return names[letter]() if letter in names else ""


def trump_rule() -> str:
    """What a trump does, in one sentence (rules, phase 2): said where the trump is first
    marked (the private view, the note of its reveal, the Mini App's ★)."""
    return _("Trump: in phase 2 a trump beats any card of another suit; only a higher trump "
             "beats a trump.")


def by_suit(hand: Sequence[str]) -> list[list[str]]:
    """``hand`` sorted by suit then rank (♠ ♥ ♦ ♣, low to high), one list per suit held."""
    ordered = sorted_hand(hand)
    return [[c for c in ordered if suit(c) == s] for s in SUITS
            if any(suit(c) == s for c in ordered)]


def hand_label(hand: Sequence[str]) -> str:
    """A hand, sorted, suits apart: ``"3♠️ 9♠️ · 5♥️"``."""
    return " · ".join(cards_label(group) for group in by_suit(hand))


SUIT_WORDS = {"♠": "S", "♥": "H", "♦": "D", "♣": "C", "S": "S", "H": "H", "D": "D", "C": "C",
              "♤": "S", "♡": "H", "♢": "D", "♧": "C", "❤": "H", "◆": "D", "◇": "D"}
"""A typed card's suit: its letter or symbol (the white symbols too, which Japanese keyboards
offer for スペード, ハート, ダイヤ, クラブ as often as the black ones; the diamonds ◆ ◇
(U+25C6, U+25C7), which Japanese players often type for ダイヤ in place of ♦; and the
emoji keyboard's red heart ❤️, the heart most players find first). No other letters: a
Spanish ``C`` would be clubs or corazones."""


def typed_card(word: str) -> str | None:
    """One typed card, rank then suit (``7H``, ``10♠``) or suit first (``♡7``, ``H7``: how
    Japanese names a card, ハートの7); ``None`` if it names none. (No word reads both ways:
    no rank begins with a suit's letter or symbol.) Suit first takes a suit symbol, or a
    letter before a number: two letters (``ha``, ``sa``, ``DJ``) are words of a chat, not a
    card, unless the rank comes first (``AH``)."""
    word = word.upper().replace("\ufe0f", "").replace("\ufe0e", "")  # (emoji or text style)
    if len(word) < 2:
        return None
    card = word[:-1] + SUIT_WORDS.get(word[-1:], "?")
    if is_card(card):
        return card
    if word[:1].isalpha() and not word[1:2].isdigit():
        return None
    card = word[1:] + SUIT_WORDS.get(word[:1], "?")
    return card if is_card(card) else None
