"""The computer player: a Coyote decision from one seat's view, for every edition.

The player reads only :meth:`engine.coyote.CoyoteGame.view` output for its own seat, never the
state: its own card, the draw pile and other hidden cards are unknown to it. It computes the
exact distribution of the showdown total (:mod:`engine.coyote.ai_dist`) from the visible cards
and the multiset of unseen ones (the edition's deck minus every card the view shows), reweights
its own possible card by what the other players' bids suggest (they can see it), then:

- calls Coyote when the last bid is unlikely to hold (``shared/rules/coyote.md``, "Turn
  structure" 4, and the poker-deck showdown where an equal total penalises nobody);
- otherwise bids the highest number that is still likely to hold (at least the minimum bid);
- uses a special when it helps ("Mask actions": Pass or Change on a coin-flip decision, Double
  on a bid that is very likely good, Draw 1 on the next player when one more card makes a risky
  bid clearly safer, Reverse when the previous player is likelier than the next one to misjudge
  its bid (they see different cards, and it sees both); "Variant coins": Skip on a coin flip,
  Extra feather as Draw 1, Reverse as the mask, Guess when its own card is (nearly) certain).
  It does not use Shot or Swap: in ``bench/ai_rules_bench.py`` (4,000 paired games), Shot to
  the best-valued player (same model as Reverse) won 78.05 % against the naive players vs
  78.25 % without (se 0.5 %), and Shot together with Reverse no more than Reverse alone; a
  Swap when a fresh feather makes the bid safer never fires against them (their bids only
  ever make its own feather look better than a fresh one), and with a looser margin it was
  within noise (+0.5 %, se 1.3 %).

Weighing one more card (Draw 1, Extra feather) needs the distribution with two hidden cards,
the costliest step (p99 at ten players from 0.17 ms to about 1 ms), so it is computed only
when the bid is risky and such a special is still available.

The decision is a function of ``(view, rng)`` only and is always a legal action.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Any

from engine.core import Action
from engine.coyote.ai_dist import (
    TABLES,
    Distribution,
    distribution,
    hold_chance,
    unseen_counts,
)
from engine.coyote.ai_order import order_values, playing_after
from engine.coyote.editions import MAX_BID, get_edition

View = dict[str, Any]


def _counts(cards: list[str]) -> tuple[tuple[str, int], ...]:
    out: dict[str, int] = {}
    for c in cards:
        out[c] = out.get(c, 0) + 1
    return tuple(sorted(out.items()))


_ESTIMATES: dict[tuple, Distribution] = {}
_ESTIMATES_MAX = 1024


def estimate(view: View, more: int = 0) -> Distribution:
    """The distribution of this round's total as seen by ``view["seat"]``.

    ``more``: cards about to join the total from the top of the draw pile, unknown to the
    viewer now (their Draw 1 on another player, their Extra feather): counted as hidden, so
    the result is what the viewer expects the total to be once they are drawn.

    Counted and visible: every card in ``view["cards"]`` (others' cards, and the viewer's own
    once a right Guess revealed it), the visible Draw 1 cards (``extra``) and the face-up ones;
    counted and hidden: the viewer's own card and their own Draw 1 cards (``None`` in the view).
    Seen but not counted: the discard pile (but its cards the viewer never saw, ``None``: its
    own swapped-away feather after a wrong Guess) and the others' swapped cards (``void``).
    Everything else is unseen and equally likely to be anywhere hidden. Cached per visible
    multiset.
    """
    edition = view["edition"]
    me = view["seat"]
    counted: list[str] = [c for c in view["cards"] if c is not None]
    hidden = 1 if view["cards"][me] is None and view["in_play"][me] else 0
    voids: list[str] = []
    for group in (view["extra"], view["face_up"], view["void"]):
        for cards in group:
            if cards:
                for card in cards:
                    if card is None:
                        hidden += group is view["extra"]
                    elif group is view["void"]:
                        voids.append(card)
                    else:
                        counted.append(card)
    discard = [c for c in view["discard"] if c is not None]
    hidden += more
    draw = min(max(0, view["draw_count"] - more), 4)
    key = (edition, tuple(counted), tuple(discard), tuple(voids), hidden, draw)
    dist = _ESTIMATES.get(key)
    if dist is None:
        if len(_ESTIMATES) >= _ESTIMATES_MAX:
            _ESTIMATES.clear()
        counted.sort()
        dist = distribution(edition, tuple(counted),
                            unseen_counts(edition, counted + discard + voids), hidden, draw,
                            _counts(discard) if discard else ())
        _ESTIMATES[key] = dist
    return dist


@dataclass(frozen=True)
class CoyoteAI:
    """A computer player; the fields are its tuning (probabilities in 0..1).

    - ``call``: call Coyote when the chance of losing the call is below this;
    - ``jump``: bid the highest number whose chance to hold is at least this (tuned with
      ``bench/ai_bench.py``: a near-certain jump only; otherwise the minimum bid, which leaves
      the next player the least room: against the naive players 0.8 won about 45 %, 0.97
      about 73 %);
    - ``trust``: how much the others' bids move the belief about its own card (0: not at all);
    - ``flip``: a decision is a coin flip when both choices lose with at least this chance
      (then Pass/Change/Skip if available);
    - ``double``: use the Double mask when the bid holds with at least this chance;
    - ``guess``: use the Guess coin when its own card is this likely;
    - ``boost``: use Draw 1 or an Extra feather when one more card cuts the chance that its
      bid fails by at least this much;
    - ``reverse``: use Reverse (mask or coin) when the reversed order of play is worth at
      least this much more to its bid (:meth:`_reverse`; above 2 it never does); ``gain``:
      the worth of another player losing a life, its own loss counting 1; ``soft``: how
      sharply (in points) another player's call depends on the total they can see.
    """

    call: float = 0.5
    jump: float = 0.97
    trust: float = 3.0
    flip: float = 0.4
    double: float = 0.92
    guess: float = 0.85
    boost: float = 0.15
    reverse: float = 0.05
    gain: float = 0.5
    soft: float = 2.0

    def __call__(self, view: View, rng: random.Random) -> Action:
        """Same as :meth:`choose`."""
        return self.choose(view, rng)

    def choose(self, view: View, rng: random.Random) -> Action:
        """The action for ``view["seat"]``, whose turn it must be (``view["turn"]``).

        ``view``: :meth:`engine.coyote.CoyoteGame.view` for that seat; ``rng``: the only source
        of chance. Returns a legal :class:`engine.core.Action`; raises ``ValueError`` when it
        is not the viewer's turn or the game is over.
        """
        me = view["seat"]
        if view["over"] or view["turn"] != me or me is None:
            raise ValueError("not this seat's turn")
        edition = get_edition(view["edition"])
        dist = estimate(view)
        weights = self._weights(view, dist)
        bids = view["bids"]
        change = view["change"]
        answering = change is not None and change["target"] == me
        min_bid = view["min_bid"]
        if min_bid > MAX_BID:
            return Action("call")  # the highest bid may only be called (and always can be)

        def call_loss(bid: int) -> float:  # P(the caller is penalised)
            return hold_chance(dist, weights, bid if edition.equal_total_loser == "caller"
                         else bid + 1)

        # the bid to raise to: the highest that still holds with chance >= jump
        target = self._highest(dist, weights, min_bid)
        if target > min_bid and rng.random() < 0.25:
            target -= 1  # a little variety, never below the minimum
        bid_loss = 1.0 - hold_chance(dist, weights, target)

        if view["can_call"]:
            called = bids[-2][1] if answering else bids[-1][1]
            lose_call = call_loss(called)
            if lose_call < self.call or lose_call < bid_loss:
                flip = min(lose_call, bid_loss) >= self.flip
                special = self._dodge(view, me, edition) if flip and not answering else None
                return special or Action("call")
        elif bids and not answering and not view["must_bid"] and bid_loss >= self.flip:
            special = self._dodge(view, me, edition)
            if special:
                return special
        if answering or view["must_bid"]:
            return Action("bid", target)
        special = self._coin_guess(view, me, dist, weights)
        if special:
            return special
        special = self._one_more(view, me, weights, bid_loss)
        if special:
            return special
        if (view["specials"] == "masks" and view["masks"][me] and bids
                and 1.0 - bid_loss >= self.double):
            return Action("bid", target, special="double")
        special = self._reverse(view, me, dist, weights, target)
        if special:
            return special
        return Action("bid", target)

    def _reverse(self, view: View, me: int, dist: Distribution, weights: list[float] | None,
                 bid: int) -> Action | None:
        """Reverse (a mask, or the coin) before bidding ``bid``, when the players before it,
        in reverse order, serve the bid better than those after it. ``coyote.md``, "Mask
        actions" (Reverse: reverse the direction of play, then bid or call as usual) and
        "Variant coins" (Reverse: for the rest of the round; then bid).

        Each order is valued by :func:`engine.coyote.ai_order.order_values`: the first player
        in it answers the bid and sees every card but their own, which this player can see, so
        one neighbour may be likelier than the other to call a good bid or to let a weak one
        pass. Used when the reversed order is worth at least ``reverse`` more.
        """
        masks = view["specials"] == "masks" and view["masks"][me]
        if not (masks or (self._coin_ok(view, me) and "reverse" in view["coins"])) \
                or self.reverse > 2:
            return None
        step = view["direction"]
        after, before = playing_after(view, me, step), playing_after(view, me, -step)
        if len(after) < 2:
            return None
        values = order_values(view, me, dist, weights, bid, [after, before],
                              gain=self.gain, soft=self.soft)
        if values[1] < values[0] + self.reverse:
            return None
        return Action("special", special="reverse")

    def _highest(self, dist: Distribution, weights: list[float] | None, low: int) -> int:
        """The highest bid from ``low`` up that holds with chance >= ``jump`` (else ``low``)."""
        bid = low
        while hold_chance(dist, weights, bid + 1) >= self.jump:
            bid += 1
        return bid

    def _one_more(self, view: View, me: int, weights: list[float] | None,
                  bid_loss: float) -> Action | None:
        """Draw 1 on the next player (masks) or an Extra feather (coins) when one more card in
        the total cuts the chance that its bid fails by at least ``boost`` (then, with Draw 1,
        it bids the highest that holds with chance >= ``jump``; the holder, who answers the
        bid, cannot see the card). ``coyote.md``, "Mask actions" (Draw 1: it counts in the
        total and is visible to everyone but its holder) and "Variant coins" (Extra feather:
        it counts; then bid)."""
        if view["draw_count"] == 0 or bid_loss < self.boost:
            return None
        nxt = None
        if view["specials"] == "masks" and view["masks"][me] and not view["draw1_used"]:
            nxt = _next_seat(view, me)
            if nxt is None:
                return None
        elif not (self._coin_ok(view, me) and "extra" in view["coins"]):
            return None
        dist = estimate(view, 1)
        if weights is not None and len(weights) != len(dist.own):
            weights = None
        bid = self._highest(dist, weights, view["min_bid"])
        loss = 1.0 - hold_chance(dist, weights, bid)
        if loss > bid_loss - self.boost:
            return None
        if nxt is None:
            return Action("special", special="extra")
        return Action("bid", bid, special="draw1", target=nxt)

    def _weights(self, view: View, dist: Distribution) -> list[float] | None:
        """Own-card probabilities given the others' bids this round (they see the card).

        A bidder who sees our card ``c`` expects about ``E[total | c]`` minus their own card
        plus an average unknown card; a bid well above that is unlikely, so each bidder's
        latest bid weighs ``c`` by a logistic likelihood (floor 0.1: bidders bluff and err).
        """
        me = view["seat"]
        if self.trust <= 0 or len(dist.own) == 1:
            return None
        memo = dist.memo
        weights: list[float] | None = None
        cards = view["cards"]
        last: dict[int, int] = {}  # each bidder's latest bid (earlier ones add little)
        for seat, bid in view["bids"]:
            if seat != me:
                last[seat] = bid
        for seat, bid in last.items():
            card = cards[seat]
            key = (self.trust, card, bid)
            factors = memo.get(key)
            if factors is None:
                factors = memo[key] = self._likelihood(view["edition"], dist, card, bid)
            if weights is None:
                weights = [w for _, w, _, _ in dist.own]
            weights = [w * f for w, f in zip(weights, factors, strict=True)]
        if weights is None:
            return None
        norm = sum(weights)
        return [x / norm for x in weights] if norm > 0 else None

    def _likelihood(self, edition: str, dist: Distribution, card: str | None,
                    bid: int) -> list[float]:
        table = TABLES[edition]
        unknown = dist.memo.get("unknown")
        if unknown is None:
            unknown = dist.memo["unknown"] = sum(
                w * table[c][0] for c, w, _, _ in dist.own if c is not None)
        theirs = table[card][0] if card is not None else 0
        scale = self.trust / max(2.0, (dist.high - dist.low) / 6)
        shift = unknown - theirs - bid
        exp = math.exp
        return [0.1 + 0.9 / (1.0 + exp(-z)) if z > -30 else 0.1
                for z in [(mean + shift) * scale for mean in dist.means]]

    def _dodge(self, view: View, me: int, edition: Any) -> Action | None:
        """Pass/Change (masks) or Skip (coins) on a coin-flip decision, when allowed."""
        if view["change"] is not None:
            return None
        if view["specials"] == "masks" and view["masks"][me]:
            if not view["pass_blocked"]:
                return Action("special", special="pass")
            bids = view["bids"]
            if bids and bids[-1][0] != me and view["lives"][bids[-1][0]] > 0:
                return Action("special", special="change")
        if self._coin_ok(view, me) and "skip" in view["coins"]:
            return Action("special", special="skip")
        return None

    def _coin_ok(self, view: View, me: int) -> bool:
        return (view["specials"] == "coins" and view["change"] is None
                and view["coins_usable"] and view["coin_turn"] != me and not view["must_bid"])

    def _coin_guess(self, view: View, me: int, dist: Distribution,
                    weights: list[float] | None) -> Action | None:
        """Guess (coins) when the own card is this likely and two others still play."""
        if not self._coin_ok(view, me) or "guess" not in view["coins"]:
            return None
        if view["cards"][me] is not None or not view["in_play"][me]:
            return None
        active = sum(1 for s, life in enumerate(view["lives"])
                     if life > 0 and not view["safe"][s] and s != me)
        if active < 2:
            return None
        probs = weights or [w for _, w, _, _ in dist.own]
        best = max(range(len(probs)), key=probs.__getitem__)
        card = dist.own[best][0]
        if card is None or probs[best] < self.guess:
            return None
        return Action("special", special="guess", guess=card)


def _next_seat(view: View, me: int) -> int | None:
    """Who plays after ``me`` in the round's direction (alive and not safe), if anyone."""
    n = view["seats"]
    for k in range(1, n):
        seat = (me + k * view["direction"]) % n
        if view["lives"][seat] > 0 and not view["safe"][seat]:
            return seat
    return None


DEFAULT_AI = CoyoteAI()


def choose_action(view: View, rng: random.Random) -> Action:
    """The default computer player's action for ``view["seat"]`` (see :meth:`CoyoteAI.choose`).

    ``view``: ``CoyoteGame().view(state, seat)`` with ``seat`` to act; ``rng``: the source of
    chance. Returns a legal action; raises ``ValueError`` off-turn.
    """
    return DEFAULT_AI.choose(view, rng)


def naive_action(view: View) -> Action:
    """The benchmark's naive player: call Coyote when the visible sum is below the last bid,
    else bid the last bid + 1 (numbers only; specials and its own card ignored)."""
    table = TABLES[view["edition"]]
    seen = 0
    for card in view["cards"]:
        if card is not None:
            seen += table[card][0]
    for group in (view["extra"], view["face_up"]):
        for cards in group:
            seen += sum(table[c][0] for c in cards if c is not None)
    bids = view["bids"]
    if view["can_call"] and bids and seen < bids[-1][1]:
        return Action("call")
    return Action("bid", view["min_bid"])


__all__ = ["CoyoteAI", "DEFAULT_AI", "choose_action", "estimate", "naive_action"]
