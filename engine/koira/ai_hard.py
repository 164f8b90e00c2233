"""The hard Koira computer player: the normal player's scoring (:mod:`engine.koira.ai`) with
a look-ahead in phase 2, an exact endgame and a sense of tempo the normal one lacks.

Decides from one seat's view only (``engine.koira.views.view``), deterministic for a given
``rng`` (it breaks exact ties and the normal player's circle-breaking,
:func:`engine.koira.ai._unstick`, and seeds the look-ahead's deals and rollouts). Source of
the rules: ``shared/rules/koira.md``.

What it adds (:class:`HardAI`; measured with ``bench/koira_ai_levels_bench.py``):

- phase 2, every decision with a choice: its best ``candidates`` moves by the scores below
  are played out on up to ``deals`` deals of the hidden hands consistent with the view, the
  rest of the game by the normal player, within ``plies`` simulated plies in all
  (:mod:`engine.koira.ai_rollout`); the move least often leaving it the koira is played (the
  scores break ties). Phase 2 hides little (the cards of a trick won whole are public), and
  against normal players this took its koira share from 15.8 % to 2.0 %;
- with two players left in phase 2 nothing is hidden (unless a removed player's unseen
  cards left the game: then it does not search): it searches the duel
  (:mod:`engine.koira.ai_duel`) and plays a won line out (this alone took it from the
  normal player's 25 % koira share to about 18 % against three normal players);
- phase 2, a lead that completes the trick at once (R9: as many cards as players in the
  game, so a sequence once few are left) sheds them and leads again: ``finish``;
- phase 2, a pick-up costs more the fewer players are left (``duel``), and the usefulness of
  the cards picked up makes up for more of it (``taken``);
- phase 1, a won card costs less (``card_cost``), a high card spent on a trick more
  (``spend``), and it turns up the stock less readily (``stock``).

The weights were tuned against the normal player (coordinate search, 1,000-game paired
runs). Counting cards for a card's worth in phase 2 (``count``: how few of the cards still
in play beat it) made it worse at every weight tried, so it is off; so did a bonus for
winning cards that extend a sequence of the pile (no gain beyond noise, not kept). The
look-ahead's budget: two candidates did worse than three and four no better, and 400 plies
gained little at twice the decision time, so three candidates and 200 plies (its slowest
decisions stay within the 5 ms target).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from engine.core import JSON, Action
from engine.koira.ai import (
    _rank_counts,
    _unseen,
    _unstick,
    _win_chance,
    going_out,
    legal_plays,
    worth,
)
from engine.koira.ai_duel import duel_values
from engine.koira.ai_rollout import rollout_values
from engine.koira.cards import DECK, rank, suit


@dataclass(frozen=True)
class HardAI:
    """The hard player's weights (phase 1: ``card_cost``, ``spend``, ``tie``, ``stock``;
    phase 2: the rest). ``endgame``: search a duel, within ``duel_nodes`` positions;
    ``candidates``, ``deals``, ``plies``: the look-ahead's moves, sampled deals and budget in
    simulated plies (``candidates`` 1: none), from ``lookahead_from`` players in the game
    on (with two, only where the duel search proves no win, and ``duel_deals`` deals).
    ``count`` mixes a card's rank-worth (0) with its card-counted worth (1); ``finish`` is
    the bonus of a lead that completes the trick; ``duel`` the extra cost per card picked up, times
    (players_before - players in game) / players_before."""

    card_cost: float = 0.25
    spend: float = 0.3
    tie: float = 0.3
    stock: float = 0.5
    shed: float = 0.75
    tempo: float = 0.4
    spare_trump: float = 0.8
    taken: float = 0.6
    lead_len: float = 0.2
    lead_high: float = 0.3
    count: float = 0.0
    finish: float = 2.0
    duel: float = 1.5
    endgame: bool = True
    candidates: int = 3
    deals: int = 12
    lookahead_from: int = 2
    duel_nodes: int = 150
    duel_deals: int = 3
    plies: int = 200

    def choose(self, view: JSON, rng: random.Random) -> Action:
        """The action for ``view``'s seat (it must be their turn); raises ``ValueError``
        off-turn."""
        legal = legal_plays(view)
        if not legal:
            raise ValueError("no legal action: not this seat's turn")
        if len(legal) == 1:
            return legal[0]
        out = going_out(view, legal)
        if out is not None:
            return out  # R14: out and safe, never worse
        values = duel_values(view, legal, self.duel_nodes) if self.endgame else None
        if values is None or max(values) < 1.0:
            # a won duel is played out; anything else may be going round in circles
            unstuck = _unstick(view, legal, rng)
            if unstuck is not None:
                return unstuck
        scored = self._phase1(view, legal) if view["phase"] == 1 else self._phase2(view, legal)
        if values is not None:  # the exact duel first, the heuristics break its ties
            scored = [(value * 1000.0 + score, action)
                      for value, (score, action) in zip(values, scored, strict=True)]
        if (view["phase"] == 2 and self.candidates > 1
                and sum(view["in_game"]) >= self.lookahead_from
                and (values is None or max(values) < 1.0)):
            scored = self._lookahead(view, scored, rng)
        best = max(score for score, _ in scored)
        return rng.choice([a for score, a in scored if score >= best - 1e-9])

    def _lookahead(self, view: JSON, scored: list[tuple[float, Action]],
                   rng: random.Random) -> list[tuple[float, Action]]:
        """The best few actions by ``scored`` played out on sampled deals
        (:mod:`engine.koira.ai_rollout`): how often each leaves me not the koira first,
        the heuristic score breaks ties; the others stay below them."""
        ranked = sorted(range(len(scored)), key=lambda i: -scored[i][0])[:self.candidates]
        # two players: the deal is known (unless a removed player's unseen cards left the
        # game), the rollouts differ only in the tie-breaks
        known = sum(view["in_game"]) <= 2 and None not in view["discarded"]
        deals = self.duel_deals if known else self.deals
        values = rollout_values(view, [scored[i][1] for i in ranked], rng, deals, self.plies)
        if values is None:
            return scored
        out = [(score - 1e7, action) for score, action in scored]
        for i, value in zip(ranked, values, strict=True):
            out[i] = (value * 1e6 + scored[i][0], scored[i][1])
        return out

    # --- phase 1 ---------------------------------------------------------------------------
    def _phase1(self, view: JSON, legal: list[Action]) -> list[tuple[float, Action]]:
        trump = view["trump"]
        me = view["seat"]
        start = view["round_from"]
        played = view["trick"][start:]
        top = max((rank(p["cards"][0]) for p in played), default=0)
        done = {p["seat"] for p in played}
        later = [s for s in view["round_seats"] if s != me and s not in done]
        unseen = _unseen(view)
        counts = _rank_counts(unseen)
        pot = sum(worth(c, trump) - self.card_cost for p in view["trick"] for c in p["cards"])
        scored: list[tuple[float, Action]] = []
        for action in legal:
            if action.kind == "stock":
                scored.append((self._stock(top, len(later), unseen, counts, pot), action))
                continue
            card = action.cards[0] if action.cards else ""
            own = worth(card, trump)
            if rank(card) > top:
                p = _win_chance(rank(card), len(later), counts)
                score = p * pot - (1 - p) * own - self.spend * own
            elif rank(card) == top:
                score = -own - self.tie
            else:
                score = -own
            scored.append((score, action))
        return scored

    def _stock(self, top: int, later: int, unseen: list[str], counts: list[int],
               pot: float) -> float:
        if not unseen:
            return -0.5
        total = sum(_win_chance(rank(c), later, counts) * pot for c in unseen if rank(c) > top)
        return total / len(unseen) - self.stock

    # --- phase 2 ---------------------------------------------------------------------------
    def _phase2(self, view: JSON, legal: list[Action]) -> list[tuple[float, Action]]:
        trump = view["trump"]
        hand = view["hand"] or []
        trick = view["trick"]
        lying = sum(len(p["cards"]) for p in trick)
        others = [c for s, c in enumerate(view["counts"])
                  if view["in_game"][s] and s != view["seat"]]
        early = min(others, default=0) > 3
        value = self._worths(view) if self.count else None

        def w(card: str) -> float:
            base = worth(card, trump)
            return base if value is None else base + self.count * (value(card) - base)

        players = sum(view["in_game"])
        squeeze = self.duel * max(0, view["seats"] - players) / view["seats"]
        scored: list[tuple[float, Action]] = []
        for action in legal:
            if action.kind == "pickup":
                taken = trick[0]["cards"]
                if view["options"]["pickup_single"]:
                    taken = taken[:1]
                score = (-(self.shed + squeeze) * len(taken) - self.tempo
                         + self.taken * sum(w(c) for c in taken))
                scored.append((score, action))
                continue
            cards = list(action.cards or ())
            score = self.shed * len(cards) - sum(w(c) for c in cards)
            if len(cards) == len(hand):
                score += 100.0  # out and safe
            if trick and lying + len(cards) >= view["need"]:
                score += self.tempo
            if early and trick and any(suit(c) == trump and rank(c) >= 11 for c in cards):
                score -= self.spare_trump
            if not trick:
                score += self.lead_len * len(cards) - self.lead_high * max(w(c) for c in cards)
                if len(cards) >= view["need"]:
                    score += self.finish  # R9: the lead completes the trick, I lead again
            scored.append((score, action))
        return scored

    def _worths(self, view: JSON) -> Callable[[str], float]:
        """A card's card-counted worth, 0 … 2: 2 × the share of the cards still in play
        (not out of the game, not in my hand) that do not beat it singly."""
        trump = view["trump"]
        gone = set(view["discarded"]) | set(view["hand"] or [])  # None (unseen): counts as live
        live = [c for c in DECK if c not in gone]
        by_suit: dict[str, list[int]] = {}
        for c in live:
            by_suit.setdefault(suit(c), []).append(rank(c))
        trumps = len(by_suit.get(trump, ())) if trump else 0
        size = max(1, len(live))

        def value(card: str) -> float:
            s, r = suit(card), rank(card)
            higher = sum(1 for v in by_suit.get(s, ()) if v > r)
            beaters = higher if s == trump else higher + trumps
            return 2.0 * (1.0 - beaters / size)

        return value


HARD_AI = HardAI()


def hard_action(view: JSON, rng: random.Random) -> Action:
    """The hard player's action for ``view["seat"]`` (see :class:`HardAI`)."""
    return HARD_AI.choose(view, rng)


__all__ = ["HARD_AI", "HardAI", "hard_action"]
