"""How an order of play serves a bid: the computer player's model of the others, for its
Reverse ("Mask actions" and "Variant coins" in ``shared/rules/coyote.md``).

A function of the player's view only, like the rest of the AI.
"""

from __future__ import annotations

import math
from typing import Any

from engine.coyote.ai_dist import TABLES, Distribution, hold_chance

View = dict[str, Any]


def playing_after(view: View, me: int, step: int) -> list[int]:
    """The seats that play after ``me`` in direction ``step`` (alive, not safe), in order,
    until the turn would come back to ``me``."""
    n = view["seats"]
    return [seat for seat in ((me + k * step) % n for k in range(1, n))
            if view["lives"][seat] > 0 and not view["safe"][seat]]


def order_values(view: View, me: int, dist: Distribution, weights: list[float] | None,
                 bid: int, orders: list[list[int]], *, gain: float,
                 soft: float) -> list[float]:
    """Per order of the other players (who play after ``bid``, until the turn comes back),
    the expected worth of the bid to this player: +``gain`` when another player loses a
    life, -1 when it does, -1 times its risk when the turn comes back to it.

    The model of another player: they see every counted card but their own (and their
    Draw 1 cards), count an average card for their own, and call a bid above that
    estimate, more surely the further above (a logistic of width ``soft``); who does not
    call bids one more. The first caller's showdown is on ``bid`` (lost by this player
    when its own card, weighted by ``weights``, makes the total fall short); any later
    call costs another player a life; if nobody calls, this player must answer a bid
    ``len(order)`` higher.
    """
    if weights is None or len(weights) != len(dist.own):
        weights = [w for _, w, _, _ in dist.own]
    table = TABLES[view["edition"]]
    cards = view["cards"]
    seen = 0
    for card in cards:
        if card is not None:
            seen += table[card][0]
    for group in (view["extra"], view["face_up"]):
        for extra in group:
            for card in extra:
                if card is not None:
                    seen += table[card][0]
    values = [table[c][0] if c is not None else 0 for c, _, _, _ in dist.own]
    mean = sum(w * v for (_, w, _, _), v in zip(dist.own, values, strict=True))
    seen += round(mean * sum(1 for c in view["extra"][me] if c is None))
    by_value: dict[int, float] = {}
    for w, v in zip(weights, values, strict=True):
        by_value[v] = by_value.get(v, 0.0) + w
    holds = dist.tails(bid)
    shift = mean + 0.5
    memo: dict[int, float] = {}

    def calls(x: int) -> float:  # P(a player who sees x (before their own card) calls 0)
        q = memo.get(x)
        if q is None:
            z = (x + shift) / soft
            q = memo[x] = 1.0 / (1.0 + math.exp(z)) if z < 30 else 0.0
        return q

    def hidden_from(seat: int) -> int:
        card = cards[seat]
        return (table[card][0] if card is not None else 0) + sum(
            table[c][0] for c in view["extra"][seat] if c is not None)

    out = []
    for order in orders:
        first = seen - hidden_from(order[0]) - bid
        total = 0.0
        for w, v, hold in zip(weights, values, holds, strict=True):
            total += w * calls(first + v) * (gain * hold - (1.0 - hold))
        later = [seen - hidden_from(seat) - bid - j for j, seat in enumerate(order)][1:]
        back = 0.0
        for v, w in by_value.items():
            alive = 1.0 - calls(first + v)
            for x in later:
                q = calls(x + v)
                total += w * alive * q * gain
                alive *= 1.0 - q
            back += w * alive
        top = bid + len(order)
        risk = min(1.0 - hold_chance(dist, weights, top + 1), hold_chance(dist, weights, top))
        out.append(total - back * risk)
    return out
