"""The hard Koira player's look-ahead in phase 2: sampled deals played out by the normal player.

In phase 2 the only hidden cards are the other players' hands (and a removed player's cards
that left the game unseen, ``None`` in ``discarded``): every card is in the viewer's hand, the
trick, out of the game or in another hand, whose count is public and some of whose cards are
publicly known (``known``: a pick-up, a trick won whole). So a deal consistent with the view
is the unseen cards shared out at random to fill each other hand up to its count, the rest
out of the game (:func:`sample_hands`). On such a deal the rest of the game is
played out fast (:class:`_Sim`: the rules of ``shared/rules/koira.md`` R9–R16, R18, cards
as ints; about 5 µs a ply, some 10 times the engine's speed) with the normal player's
phase-2 choice (:meth:`_Sim.choose`: :func:`engine.koira.ai._phase2_scores` with its
weights, and its circle-breaking) for every seat, the viewer included, and the viewer's
candidate moves are compared by how often it is *not* the koira (the same deals and the
same rollout seed for every candidate, so the comparison is paired). Against normal
players the model of the others is exact but for their tie-breaks; against anyone else it
is a guess of how they play. ``tests/engine/test_koira_ai_rollout.py`` checks the
simulation against the engine move for move.

Out of scope (the caller plays its heuristics): phase 1, ``trump_ends_trick``. The cost is
bounded by plies simulated (:data:`PLY_BUDGET`), not by the clock, so a decision is the same
on any machine; a function of the view and the ``rng`` only.
"""

from __future__ import annotations

import random

from engine.core import JSON, Action
from engine.koira.ai import SHED, SPARE_TRUMP, STALL, TAKEN, TEMPO, _unseen
from engine.koira.cards import DECK, rank, suit

PLY_BUDGET = 200
"""Plies simulated per decision at most, over all rollouts and candidates."""

Play = tuple[int, ...]
"""A play in the simulation: its cards as ints (:data:`_INDEX`), lowest first."""


def sample_hands(view: JSON, rng: random.Random) -> list[list[str]] | None:
    """A deal of the hidden cards consistent with ``view`` (phase 2): per seat its hand (the
    viewer's own; every other seat its publicly known cards plus unseen ones up to its
    count; the unseen cards left over are those that left the game unseen). ``None`` when
    the view's counts do not add up (a state this does not model)."""
    me = view["seat"]
    unseen = _unseen(view)
    gone = view["discarded"].count(None)  # a removed player's cards nobody saw
    rng.shuffle(unseen)
    hands: list[list[str]] = []
    at = 0
    for s, count in enumerate(view["counts"]):
        if s == me:
            hands.append(list(view["hand"] or []))
            continue
        known = list(view["known"][s])
        extra = count - len(known)
        if extra < 0:
            return None
        hands.append(known + unseen[at:at + extra])
        at += extra
    return hands if at + gone == len(unseen) else None


_INDEX = {card: i for i, card in enumerate(DECK)}
"""A card as an int, 0 … 51 (``DECK`` order: by suit, then rank), so rank and suit are
arithmetic and a hand's sequences are runs of consecutive ints of one suit."""


class _Sim:
    """A phase-2 position played out fast (mutable; the engine's rules, phase2.py), cards as
    ints (:data:`_INDEX`), every hand sorted. ``left``: players in the game; ``lying``: cards
    in the trick."""

    def __init__(self, view: JSON, hands: list[list[int]], trick: list[tuple[int, Play]],
                 worth: list[float]) -> None:
        self.n = view["seats"]
        self.trump = _SUITS.index(view["trump"]) if view["trump"] in _SUITS else -1
        self.low = max(2, view["options"]["min_sequence"])
        self.single = view["options"]["pickup_single"]
        self.worth = worth
        self.hands = hands
        self.inside = list(view["in_game"])
        self.left = sum(self.inside)
        self.trick = trick
        self.lying = sum(len(p) for _, p in trick)
        self.need = view["need"]
        self.turn: int = view["turn"]
        self.out = list(view["out"])
        self.quiet = view["quiet"]
        self.over = False

    def _next(self, seat: int) -> int:
        n, inside = self.n, self.inside
        for k in range(1, n + 1):
            s = (seat + k) % n
            if inside[s]:
                return s
        return seat

    def _lead(self, start: int) -> None:
        n = self.n
        self.trick = []
        self.lying = 0
        for k in range(n):
            s = (start + k) % n
            if self.inside[s] and self.hands[s]:
                self.need = self.left
                self.turn = s
                return
        self.over = True  # R16 corner: nobody in the game holds a card

    def koira(self) -> int:
        """The koira's seat once over (R16, with its corner case)."""
        left = [s for s in range(self.n) if self.inside[s]]
        if len(left) <= 1:
            return left[0] if left else -1
        start = (self.out[-1] + 1) % self.n if self.out else 0
        return max(left, key=lambda s: (s - start) % self.n)

    def play(self, seat: int, cards: Play) -> None:
        hand = self.hands[seat]
        for c in cards:
            hand.remove(c)
        self.trick.append((seat, cards))
        self.lying += len(cards)
        if not hand:  # R14: out at once
            self.inside[seat] = False
            self.left -= 1
            self.out.append(seat)
            self.quiet = 0
        if self.left <= 1:
            self.over = True
        elif self.lying >= self.need:  # R9: complete; R15: its winner, or the next, leads
            self.quiet = 0
            self._lead(seat if self.inside[seat] else self._next(seat))
        else:
            self.turn = self._next(seat)

    def pickup(self, seat: int) -> None:
        bottom_seat, bottom = self.trick[0]
        taken = bottom[:1] if self.single else bottom  # R18, R11
        rest = bottom[len(taken):]
        if rest:
            self.trick[0] = (bottom_seat, rest)
        else:
            self.trick.pop(0)
        self.lying -= len(taken)
        hand = self.hands[seat]
        hand.extend(taken)
        hand.sort()
        self.quiet += 1
        after = self._next(seat)
        if self.trick:  # R12
            self.turn = after
        else:
            self._lead(after)

    def plays(self, seat: int) -> list[Play]:
        """The cards and sequences ``seat`` may play now (on a trick: those that beat its
        top, R10), as ``KoiraGame.legal_actions`` but for the pick-up."""
        hand = self.hands[seat]
        trick, trump, low = self.trick, self.trump, self.low
        size = len(hand)
        if trick:
            top = trick[-1][1][-1]
            top_suit = top // 13
            if top_suit == trump:
                starts = [i for i in range(size) if hand[i] > top and hand[i] // 13 == trump]
            else:
                starts = [i for i in range(size) if (hand[i] > top and hand[i] // 13 == top_suit)
                          or hand[i] // 13 == trump]
        else:
            starts = list(range(size))
        plays: list[Play] = []
        for i in starts:  # each card, and each sequence it is the lowest card of
            plays.append((hand[i],))
            j = i + 1
            while j < size and hand[j] == hand[j - 1] + 1 and hand[j] % 13:
                j += 1
                if j - i >= low:
                    plays.append(tuple(hand[i:j]))
        return plays

    def step(self, rng: random.Random) -> None:
        """The player to act makes the normal player's choice (:meth:`choose`)."""
        move = self.choose(rng)
        if move is None:
            self.pickup(self.turn)
        else:
            self.play(self.turn, move)

    def choose(self, rng: random.Random) -> Play | None:
        """The normal player's phase-2 choice for the player to act (``None``: pick up):
        :func:`engine.koira.ai.choose_action` with the scores of
        :func:`engine.koira.ai._phase2_scores`, circle-breaking included."""
        seat = self.turn
        plays = self.plays(seat)
        trick, trump, worth = self.trick, self.trump, self.worth
        if trick and not plays:
            return None
        size = len(self.hands[seat])
        excess = self.quiet - STALL * max(1, self.left)
        if excess >= 0 and (trick or len(plays) > 1):
            out = [p for p in plays if len(p) == size]  # going out comes first (R14)
            if out:
                return out[0]
            if rng.random() <= min(0.9, 0.3 + excess / 20):
                return rng.choice(plays)
        best = -1e9
        tied: list[Play | None] = []
        if trick:
            need = self.need - self.lying
            hands, inside = self.hands, self.inside
            early = min((len(hands[s]) for s in range(self.n) if inside[s] and s != seat),
                        default=0) > 3
            taken = trick[0][1][:1] if self.single else trick[0][1]
            best = -SHED * len(taken) - TEMPO + TAKEN * sum(worth[c] for c in taken)
            tied = [None]
            for p in plays:
                k = len(p)
                score = SHED * k - (worth[p[0]] if k == 1 else sum(worth[c] for c in p))
                if k == size:
                    score += 100.0
                if k >= need:
                    score += TEMPO
                if early and p[-1] // 13 == trump and p[-1] % 13 >= 9:  # a trump J or higher
                    score -= SPARE_TRUMP
                if score > best + 1e-9:
                    best, tied = score, [p]
                elif score >= best - 1e-9:
                    tied.append(p)
        else:
            for p in plays:
                k = len(p)
                score = ((SHED + 0.2) * k - 0.3 * worth[p[-1]]
                         - (worth[p[0]] if k == 1 else sum(worth[c] for c in p)))
                if k == size:
                    score += 100.0
                if score > best + 1e-9:
                    best, tied = score, [p]
                elif score >= best - 1e-9:
                    tied.append(p)
        return tied[0] if len(tied) == 1 else rng.choice(tied)


_SUITS = ("S", "H", "D", "C")


def rollout_values(view: JSON, candidates: list[Action], rng: random.Random,
                   deals: int, budget: int = PLY_BUDGET) -> list[float] | None:
    """Per candidate, the share of sampled deals in which the viewer is not the koira after
    playing it, the rest played out by the normal player: ``deals`` deals, or as many whole
    ones as fit in ``budget`` plies in all (a deal cut short counts for no candidate).
    ``None`` when out of scope or not even one deal fits."""
    if view["phase"] != 2 or view["options"]["trump_ends_trick"]:
        return None
    me = view["seat"]
    trump = view["trump"]
    worth = [(rank(c) - 2) / 12 + (1.0 if suit(c) == trump else 0.0) for c in DECK]
    trick = [(p["seat"], tuple(sorted(_INDEX[c] for c in p["cards"]))) for p in view["trick"]]
    moves = [None if a.kind == "pickup" else tuple(sorted(_INDEX[c] for c in a.cards or ()))
             for a in candidates]
    totals = [0.0] * len(candidates)
    spent = 0
    played = 0
    for _ in range(deals):
        hands = sample_hands(view, rng)
        if hands is None:
            return None
        ints = [sorted(_INDEX[c] for c in h) for h in hands]
        seed = rng.getrandbits(32)
        got: list[float] = []
        for move in moves:
            sim = _Sim(view, [list(h) for h in ints], list(trick), worth)
            if move is None:
                sim.pickup(me)
            else:
                sim.play(me, move)
            sim_rng = random.Random(seed)
            while not sim.over and spent < budget:
                sim.step(sim_rng)
                spent += 1
            if not sim.over:
                return [t / played for t in totals] if played else None
            got.append(float(sim.koira() != me))
        totals = [t + g for t, g in zip(totals, got, strict=True)]
        played += 1
    return [t / played for t in totals]


__all__ = ["PLY_BUDGET", "rollout_values", "sample_hands"]
