"""Koira's cards, their notation and the beating rules.

Source: ``shared/rules/koira.md`` ("Card notation", "Phase 2 — shedding", R10, R17, R20).
A card is a string, rank then suit letter: ``AS`` ``KH`` ``10D`` ``2C`` (suits ``S`` ♠,
``H`` ♥, ``D`` ♦, ``C`` ♣). Ranks run A (high), K, Q, J, 10 … 2 (low); aces are high only.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
"""Ranks from low to high (R20: the ace is high only)."""
SUITS = ("S", "H", "D", "C")
"""Suit letters in display order (♠ ♥ ♦ ♣)."""
RANK_VALUE = {r: i for i, r in enumerate(RANKS, start=2)}
"""Rank → value: ``2`` … ``10``, J 11, Q 12, K 13, A 14."""
DECK = tuple(r + s for s in SUITS for r in RANKS)
"""The 52 cards, by suit then rank."""
_DECK_SET = frozenset(DECK)


def is_card(card: object) -> bool:
    """Whether ``card`` is one of the 52 card strings."""
    return isinstance(card, str) and card in _DECK_SET


def rank(card: str) -> int:
    """The rank value of ``card`` (2 … 14)."""
    return RANK_VALUE[card[:-1]]


def suit(card: str) -> str:
    """The suit letter of ``card``."""
    return card[-1]


def card_of(value: int, suit_letter: str) -> str:
    """The card of rank value ``value`` (2 … 14) in ``suit_letter``."""
    return RANKS[value - 2] + suit_letter


def sort_key(card: str) -> tuple[int, int]:
    """Sort by suit (♠ ♥ ♦ ♣), then rank low to high: how hands are shown."""
    return SUITS.index(suit(card)), rank(card)


def sorted_hand(cards: Iterable[str]) -> list[str]:
    """``cards`` sorted by :func:`sort_key`."""
    return sorted(cards, key=sort_key)


def beats(card: str, top: str, trump: str | None) -> bool:
    """Whether ``card`` beats ``top`` by the single-card rule: a higher card of its suit, or
    any trump on a card that is not trump (a trump is beaten only by a higher trump)."""
    if suit(card) == suit(top):
        return rank(card) > rank(top)
    return trump is not None and suit(card) == trump


def play_beats(play: Sequence[str], top: Sequence[str], trump: str | None) -> bool:
    """R10: a play (one card or a sequence, lowest first) beats the top play when its lowest
    card beats the top play's highest card by :func:`beats`."""
    return beats(play[0], max(top, key=rank), trump)


def is_sequence(cards: Sequence[str], min_length: int, from_two: bool = False) -> bool:
    """Whether ``cards`` (lowest first) is a sequence: at least ``min_length`` cards of one
    suit in consecutive rank (R20: K-A is one, A-2 is not). ``from_two`` (R17,
    ``trump_ends_trick``): only sequences whose lowest card is a 2 are valid."""
    if len(cards) < max(2, min_length) or len({suit(c) for c in cards}) != 1:
        return False
    values = [rank(c) for c in cards]
    if from_two and values[0] != 2:
        return False
    return all(b == a + 1 for a, b in zip(values, values[1:], strict=False))


def sequences(hand: Iterable[str], min_length: int,
              from_two: bool = False) -> list[tuple[str, ...]]:
    """Every sequence ``hand`` holds (each lowest first), in suit then rank order: every
    run of consecutive ranks of one suit of ``min_length`` cards or more, and every part of
    such a run that is long enough (R17 ``from_two``: only those starting with a 2)."""
    by_suit: dict[str, list[int]] = {}
    for card in hand:
        by_suit.setdefault(suit(card), []).append(rank(card))
    found: list[tuple[str, ...]] = []
    low = max(2, min_length)
    for s in SUITS:
        values = sorted(by_suit.get(s, ()))
        held = set(values)
        for start in values:
            if from_two and start != 2:
                continue
            end = start
            while end + 1 in held:
                end += 1
                if end - start + 1 >= low:
                    found.append(tuple(card_of(v, s) for v in range(start, end + 1)))
    return found
