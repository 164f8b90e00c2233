"""Showdown scoring for every Coyote edition.

Source: ``shared/rules/coyote.md``: "Edition classic … Scoring, in this order" (``?``, ``max0``,
sum, ``x2``, ``night``), "Edition feathers … blue feathers resolved in this order" (``?``,
``max0``, ``max-``, ``x2``, ``0b``) and "Edition poker-deck … Order: Q, then K, then J".
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from engine.core import JSON, RuleError
from engine.coyote.editions import get_edition

POKER_VALUES = {"A": 1, "2": 2, "3": 3, "4": 4, "5": 5}
DRAWING_CARDS = {"classic": "?", "feathers": "?", "poker-deck": "Q"}


@dataclass
class CardScore:
    """One card's part in a showdown.

    ``card`` in rules notation; ``drawn`` is true for a card turned up from the draw pile (by
    ``?`` or ``Q``); ``face`` is its printed number (``None`` for a special); ``value`` is what
    it finally adds to the total, so the values always sum to the total; ``effects`` names what
    happened to it or what it did, in order (``"draws"``, ``"zeroed"``, ``"negated"``,
    ``"doubled"``, ``"removed"``, ``"replaced"``, ``"doubles"``, ``"counts_zero"``,
    ``"reshuffles"``, ``"draws_nothing"``).
    """

    card: str
    drawn: bool = False
    face: int | None = None
    value: int = 0
    effects: list[str] = field(default_factory=list)

    def to_json(self) -> JSON:
        """``{"card", "drawn", "face", "value", "effects"}``."""
        return {"card": self.card, "drawn": self.drawn, "face": self.face,
                "value": self.value, "effects": list(self.effects)}


@dataclass
class Showdown:
    """The scored table: ``total`` (an int, may be negative), ``cards`` (the table's cards in the
    order given, then the drawn ones), ``drawn`` (cards taken from the draw pile, top first) and
    ``reshuffle_all`` (``night``/``0b``: every card goes back into the draw pile afterwards)."""

    edition: str
    total: int
    cards: list[CardScore]
    drawn: list[str]
    reshuffle_all: bool

    def to_json(self) -> JSON:
        """A JSON object with the fields above."""
        return {"edition": self.edition, "total": self.total,
                "cards": [c.to_json() for c in self.cards], "drawn": list(self.drawn),
                "reshuffle_all": self.reshuffle_all}


def _face(edition: str, card: str) -> int | None:
    if edition == "poker-deck":
        return POKER_VALUES.get(card)
    try:
        return int(card)
    except ValueError:
        return None


def _check_cards(edition: str, cards: Sequence[str]) -> None:
    known = set(get_edition(edition).deck)
    for card in cards:
        if card not in known:
            raise RuleError("unknown_card", card=card, edition=edition)


def _lay_out(edition: str, cards: Sequence[str], draw_pile: Sequence[str]) -> list[CardScore]:
    """The table's cards plus those turned up by drawing cards (a drawn one may draw again)."""
    drawer = DRAWING_CARDS[edition]
    pile = list(draw_pile)
    laid = [CardScore(c, face=_face(edition, c)) for c in cards]
    i = 0
    while i < len(laid):
        entry = laid[i]
        if entry.card == drawer:
            if pile:
                top = pile.pop(0)
                entry.effects.append("draws" if edition != "poker-deck" else "replaced")
                laid.append(CardScore(top, drawn=True, face=_face(edition, top)))
            else:
                entry.effects.append("draws_nothing")
        i += 1
    for entry in laid:
        if entry.face is not None:
            entry.value = entry.face
    return laid


def _highest(entries: list[CardScore], positive_only: bool = True) -> CardScore | None:
    best: CardScore | None = None
    for e in entries:
        if e.face is None or "removed" in e.effects or "zeroed" in e.effects:
            continue
        if "negated" in e.effects or (positive_only and e.value <= 0):
            continue
        if best is None or e.value > best.value:
            best = e
    return best


def _mark(entries: list[CardScore], card: str, effect: str) -> bool:
    found = False
    for e in entries:
        if e.card == card:
            e.effects.append(effect)
            found = True
    return found


def _classic(laid: list[CardScore]) -> bool:
    if _mark(laid, "max0", "counts_zero") and (top := _highest(laid)):
        top.value = 0
        top.effects.append("zeroed")
    if _mark(laid, "x2", "doubles"):
        for e in laid:
            if e.face is not None and e.value:
                e.value *= 2
                e.effects.append("doubled")
    return _mark(laid, "night", "reshuffles")


def _feathers(laid: list[CardScore]) -> bool:
    if _mark(laid, "max0", "counts_zero") and (top := _highest(laid)):
        top.value = 0
        top.effects.append("zeroed")
    if _mark(laid, "max-", "counts_zero") and (top := _highest(laid)):
        top.value = -top.value
        top.effects.append("negated")
    if _mark(laid, "x2", "doubles"):
        for e in laid:
            if e.face is not None and e.value > 0:
                e.value *= 2
                e.effects.append("doubled")
    return _mark(laid, "0b", "reshuffles")


def _poker(laid: list[CardScore]) -> bool:
    if _mark(laid, "K", "counts_zero") and (top := _highest(laid)):
        top.value = 0
        top.effects.append("removed")
    if _mark(laid, "J", "doubles"):
        for e in laid:
            if e.face is not None and e.value:
                e.value *= 2
                e.effects.append("doubled")
    return False


_RESOLVERS: dict[str, Callable[[list[CardScore]], bool]] = {
    "classic": _classic, "feathers": _feathers, "poker-deck": _poker,
}


def score(edition: str, cards: Sequence[str], draw_pile: Sequence[str] = ()) -> Showdown:
    """Score a showdown.

    ``cards``: the cards on the table, in rules notation (``"10"``, ``"-5"``, ``"x2"``, ``"?"``,
    ``"A"``, ``"Q"`` …). ``draw_pile``: the draw pile, top first; ``?`` (``Q`` in poker-deck)
    turns up its top card, and an empty pile makes it count 0. Returns a :class:`Showdown`.
    Raises ``RuleError("unknown_edition")`` or ``RuleError("unknown_card")``.

    >>> score("classic", ["10", "5", "max0", "x2", "?"], ["4"]).total
    18
    """
    get_edition(edition)
    _check_cards(edition, list(cards) + list(draw_pile))
    laid = _lay_out(edition, cards, draw_pile)
    reshuffle = _RESOLVERS[edition](laid)
    drawn = [e.card for e in laid if e.drawn]
    return Showdown(edition, sum(e.value for e in laid), laid, drawn, reshuffle)
