"""The computer player's arithmetic: fast showdown totals and the distribution of the total.

Source: ``shared/rules/coyote.md``, "Edition classic … Scoring, in this order", "Edition
feathers … blue feathers resolved in this order" and "Edition poker-deck … Order: Q, then K,
then J". :func:`fast_total` is the same rule as :func:`engine.coyote.scoring.score` reduced to
integer arithmetic on a small summary; ``tests/engine/test_ai.py`` checks the two agree.

A *summary* of a set of counted cards is the tuple ``(pos, neg, top1, top2, flags)``: the sum
of the positive numbers, the sum of the other numbers, the two highest positive numbers (0 when
missing; ties repeat) and a bit set of the specials present (:data:`X2`, :data:`MAX0`,
:data:`MAXNEG`). A drawing card (``?``/``Q``) adds nothing itself; it draws another card.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter
from collections.abc import Iterable, Sequence
from functools import lru_cache

from engine.coyote.editions import get_edition
from engine.coyote.scoring import DRAWING_CARDS, POKER_VALUES

X2 = 1
MAX0 = 2
MAXNEG = 4

Summary = tuple[int, int, int, int, int]
EMPTY: Summary = (0, 0, 0, 0, 0)

_FLAGS = {
    "classic": {"x2": X2, "max0": MAX0},
    "feathers": {"x2": X2, "max0": MAX0, "max-": MAXNEG},
    "poker-deck": {"J": X2, "K": MAX0},
}


def _card_table(edition: str) -> dict[str, tuple[int, int, bool]]:
    """Per card of the edition: (number value or 0, special flag bits, is a drawing card)."""
    table: dict[str, tuple[int, int, bool]] = {}
    for card in set(get_edition(edition).deck):
        if edition == "poker-deck":
            value = POKER_VALUES.get(card, 0)
        else:
            try:
                value = int(card)
            except ValueError:
                value = 0
        table[card] = (value, _FLAGS[edition].get(card, 0), card == DRAWING_CARDS[edition])
    return table


TABLES = {name: _card_table(name) for name in _FLAGS}
"""``TABLES[edition][card] = (value, flags, draws)``."""


def add(summary: Summary, info: tuple[int, int, bool]) -> Summary:
    """The summary with one more card (``info`` from :data:`TABLES`)."""
    pos, neg, t1, t2, flags = summary
    value, flag, _ = info
    if value > 0:
        pos += value
        if value > t1:
            t1, t2 = value, t1
        elif value > t2:
            t2 = value
    else:
        neg += value
    return pos, neg, t1, t2, flags | flag


def final(edition: str, summary: Summary) -> int:
    """The showdown total of a summary (all drawing already done)."""
    pos, neg, t1, t2, flags = summary
    if edition == "feathers":
        if flags & MAX0 and t1:
            pos -= t1
            t1 = t2
        negated = 0
        if flags & MAXNEG and t1:
            pos -= t1
            negated = t1
        return (2 * pos if flags & X2 else pos) + neg - negated
    total = pos + neg
    if flags & MAX0 and t1:
        total -= t1
    return 2 * total if flags & X2 else total


def _summarize(table: dict[str, tuple[int, int, bool]],
               cards: Iterable[str]) -> tuple[Summary, int]:
    """The summary of ``cards`` and how many draws their drawing cards still owe."""
    summary, pending = EMPTY, 0
    for card in cards:
        info = table[card]
        pending += info[2]
        summary = add(summary, info)
    return summary, pending


def fast_total(edition: str, cards: Sequence[str], draw_pile: Sequence[str] = ()) -> int:
    """The total :func:`engine.coyote.scoring.score` gives, by summary arithmetic.

    ``cards``: the table in rules notation; ``draw_pile``: top first (each drawing card, and
    each drawn one, turns up the next card; an empty pile draws nothing).
    """
    table = TABLES[edition]
    summary, pending = _summarize(table, cards)
    pile = iter(draw_pile)
    while pending:
        pending -= 1
        card = next(pile, None)
        if card is None:
            break
        info = table[card]
        pending += info[2]
        summary = add(summary, info)
    return final(edition, summary)


class Distribution:
    """The distribution of the total, split by the viewer's own (first hidden) card.

    ``own``: list of ``(card or None, weight, totals, tails)`` where ``weight`` is the prior
    probability of that own card (they sum to 1), ``totals`` the possible totals ascending and
    ``tails[i]`` = P(total >= totals[i] | own card) (with a trailing 0). ``card`` is ``None``
    when the viewer has no hidden card. ``low``/``high``: the smallest / largest total;
    ``means``: per own card, the expected total; ``memo``: a scratch dict for callers.
    """

    __slots__ = ("own", "low", "high", "means", "memo", "_tail_cache")

    def __init__(self, own: list[tuple[str | None, float, list[int], list[float]]]) -> None:
        self.own = own
        self.low = min(t[2][0] for t in own)
        self.high = max(t[2][-1] for t in own)
        self.means = [_mean(totals, tails) for _, _, totals, tails in own]
        self.memo: dict = {}
        self._tail_cache: dict[int, list[float]] = {}

    def tails(self, bid: int) -> list[float]:
        """Per own card (order of ``own``), P(total >= bid | own card)."""
        cached = self._tail_cache.get(bid)
        if cached is None:
            cached = [tails[bisect_left(totals, bid)] for _, _, totals, tails in self.own]
            self._tail_cache[bid] = cached
        return cached

    def tail(self, bid: int, weights: Sequence[float] | None = None) -> float:
        """P(total >= bid), with the own-card ``weights`` (default: the prior ones)."""
        per = self.tails(bid)
        if weights is None:
            return sum(w * p for (_, w, _, _), p in zip(self.own, per, strict=True))
        return sum(w * p for w, p in zip(weights, per, strict=True))


def _counts(cards: Iterable[str]) -> tuple[tuple[str, int], ...]:
    return tuple(sorted(Counter(cards).items()))


@lru_cache(maxsize=1024)
def distribution(edition: str, counted: tuple[str, ...], unseen: tuple[tuple[str, int], ...],
                 hidden: int, draw_count: int,
                 discard: tuple[tuple[str, int], ...]) -> Distribution:
    """The total's distribution seen from one seat (cached; all arguments hashable).

    ``counted``: visible cards that count (sorted); ``unseen``: the multiset of cards the viewer
    has not seen, as sorted ``(card, count)`` pairs; ``hidden``: how many counted cards are
    hidden from the viewer (their own card, Draw 1 cards), each drawn from ``unseen``;
    ``draw_count``: the draw pile's size (a drawing card takes from the unseen cards, or from
    the ``discard`` multiset when the pile is empty, as the showdown reshuffles it).
    """
    table = TABLES[edition]
    base, pending = _summarize(table, counted)
    pool = {c: n for c, n in unseen if n > 0}
    discard_pool = {c: n for c, n in discard if n > 0}

    def draws(summary: Summary, pending: int, left: int, bag: dict[str, int],
              weight: float, out: dict[int, float]) -> None:
        size = sum(bag.values()) if pending and left > 0 else 0
        if not size:
            key = final(edition, summary)
            out[key] = out.get(key, 0.0) + weight
            return
        weight /= size
        for card, n in list(bag.items()):
            if not n:
                continue
            info = table[card]
            if pending == 1 and not (info[2] and left > 1):  # the last draw: no recursion
                key = final(edition, add(summary, info))
                out[key] = out.get(key, 0.0) + weight * n
                continue
            bag[card] = n - 1
            draws(add(summary, info), pending - 1 + info[2], left - 1, bag, weight * n, out)
            bag[card] = n

    def slots(summary: Summary, pending: int, todo: int, weight: float,
              out: dict[int, float]) -> None:
        size = sum(pool.values()) if todo else 0
        if size:
            for card, n in list(pool.items()):
                if not n:
                    continue
                info = table[card]
                if todo == 1 and not pending + info[2]:  # the last hidden card, no draws
                    key = final(edition, add(summary, info))
                    out[key] = out.get(key, 0.0) + weight * n / size
                    continue
                pool[card] = n - 1
                slots(add(summary, info), pending + info[2], todo - 1, weight * n / size, out)
                pool[card] = n
        elif draw_count > 0:
            draws(summary, pending, draw_count, pool, weight, out)
        else:
            draws(summary, pending, len(discard), discard_pool, weight, out)

    own: list[tuple[str | None, float, list[int], list[float]]] = []
    if hidden and pool:
        size = sum(pool.values())
        for card, n in sorted(pool.items()):
            info = table[card]
            first = add(base, info)
            if hidden == 1 and not pending + info[2]:  # nothing more to draw: one total
                own.append((card, n / size, [final(edition, first)], [1.0, 0.0]))
                continue
            pool[card] = n - 1
            out: dict[int, float] = {}
            slots(first, pending + info[2], hidden - 1, 1.0, out)
            pool[card] = n
            own.append((card, n / size, *_tails(out)))
    else:
        out = {}
        slots(base, pending, 0, 1.0, out)
        own.append((None, 1.0, *_tails(out)))
    return Distribution(own)


def _mean(totals: list[int], tails: list[float]) -> float:
    return sum(t * (tails[i] - tails[i + 1]) for i, t in enumerate(totals))


def _tails(out: dict[int, float]) -> tuple[list[int], list[float]]:
    totals = sorted(out)
    norm = sum(out.values())
    tails = [0.0] * (len(totals) + 1)
    acc = 0.0
    for i in range(len(totals) - 1, -1, -1):
        acc += out[totals[i]] / norm
        tails[i] = acc
    return totals, tails


def unseen_counts(edition: str, seen: Iterable[str]) -> tuple[tuple[str, int], ...]:
    """The edition's deck minus the ``seen`` cards, as sorted ``(card, count)`` pairs."""
    left = Counter(get_edition(edition).deck)
    left.subtract(seen)
    return tuple((c, n) for c, n in sorted(left.items()) if n > 0)


__all__ = ["Distribution", "TABLES", "add", "distribution", "fast_total", "final",
           "unseen_counts"]


def hold_chance(dist: Distribution, weights: list[float] | None, bid: int) -> float:
    """P(the bid is good: total >= bid), with the own-card ``weights``."""
    if bid <= dist.low:
        return 1.0
    if bid > dist.high:
        return 0.0
    return dist.tail(bid, weights)
