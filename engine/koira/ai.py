"""Koira's computer player: decides from one seat's view only.

It sees what that seat's player sees (``engine.koira.views.view``): its hand and won pile
(but an R3 shuffled share's cards), the trick, the trump once known, every count, the cards
publicly known to lie with each player, and the cards that left the game (but a removed
player's cards nobody saw). Deterministic for a given ``rng`` (the generator only breaks
exact ties). Source of the rules: ``shared/rules/koira.md``.

Phase 1: win tricks that carry high cards and trumps with the cheapest card that wins,
dump the lowest card on a trick it cannot win (or turn up the stock rather than give a good
card away), and play a known trump only where it wins back. Phase 2: lead low cards and long
sequences, beat with the cheapest play that beats, and pick up rather than spend a high trump
on a cheap trick while hands are still full.
"""

from __future__ import annotations

import random

from engine.core import JSON, Action
from engine.koira.cards import DECK, play_beats, rank, sequences, suit

SHED = 0.75
"""Phase 2: the worth of getting rid of one card (against the usefulness of the cards spent)."""
TEMPO = 0.4
"""Phase 2: the worth of winning a trick, and so leading the next."""
CARD_COST = 0.35
"""Phase 1: what one more card to shed in phase 2 costs, against its worth (:func:`worth`)."""
SPARE_TRUMP = 0.8
"""Phase 2: the extra price of spending a trump of J or higher while every other player still
holds more than 3 cards."""
TAKEN = 0.3
"""Phase 2: how much the usefulness of picked-up cards makes up for picking them up."""
STALL = 3
"""Phase 2: after this many pick-ups per player in the game with no card leaving the game,
the play is going round in circles (nothing in the rules ends it): a computer player then
plays a random legal move more and more often, and never picks up when it can beat (but it
always goes out when it can, :func:`going_out`)."""


def worth(card: str, trump: str | None) -> float:
    """How useful ``card`` is to hold in phase 2: 0 (a 2) … 1 (an ace), plus 1 for a trump."""
    return (rank(card) - 2) / 12 + (1.0 if trump is not None and suit(card) == trump else 0.0)


def legal_plays(view: JSON) -> list[Action]:
    """The legal actions of the view's seat, worked out from the view alone (the same list
    as ``KoiraGame.legal_actions``)."""
    hand = view["hand"] or []
    if view["phase"] == 1:
        actions = [Action("play", cards=(c,)) for c in hand]
        if view["can_stock"]:
            actions.append(Action("stock"))
        return actions
    options = view["options"]
    plays = [(c,) for c in hand] + sequences(hand, options["min_sequence"],
                                             options["trump_ends_trick"])
    top = view["trick"][-1]["cards"] if view["trick"] else None
    if top is not None:
        plays = [p for p in plays if play_beats(p, top, view["trump"])]
    actions = [Action("play", cards=p) for p in plays]
    if top is not None:
        actions.append(Action("pickup"))
    return actions


def choose_action(view: JSON, rng: random.Random, level: str = "normal") -> Action:
    """The action for ``view``'s seat (it must be their turn). ``level``: ``"random"`` picks
    any legal action; anything else plays the heuristics above."""
    legal = legal_plays(view)
    if not legal:
        raise ValueError("no legal action: not this seat's turn")
    if level == "random" or len(legal) == 1:
        return rng.choice(legal)
    unstuck = _unstick(view, legal, rng)
    if unstuck is not None:
        return unstuck
    scored = _phase1_scores(view, legal) if view["phase"] == 1 else _phase2_scores(view, legal)
    best = max(score for score, _ in scored)
    return rng.choice([a for score, a in scored if score >= best - 1e-9])


def going_out(view: JSON, legal: list[Action]) -> Action | None:
    """Phase 2: the play of ``legal`` that empties the hand, if any (R14: out and safe at
    once; going out is never worse, as the koira is the last holding cards)."""
    if view["phase"] != 2:
        return None
    size = len(view["hand"] or [])
    return next((a for a in legal if a.kind == "play" and len(a.cards or ()) == size), None)


def _unstick(view: JSON, legal: list[Action], rng: random.Random) -> Action | None:
    """A random move (a play rather than a pick-up) once phase 2 goes round in circles
    (:data:`STALL`), with a chance growing with the pick-ups; else ``None``. A play that
    goes out (:func:`going_out`) is always chosen then."""
    players = max(1, sum(view["in_game"]))
    excess = view["quiet"] - STALL * players
    if view["phase"] != 2 or excess < 0:
        return None
    out = going_out(view, legal)
    if out is not None:
        return out
    if rng.random() > min(0.9, 0.3 + excess / 20):
        return None
    plays = [a for a in legal if a.kind == "play"]
    return rng.choice(plays or legal)


# --- phase 1 -------------------------------------------------------------------------------
def _unseen(view: JSON) -> list[str]:
    """Cards this seat has not seen: not in its hand or pile, the trick, known elsewhere, or
    out of the game. An R3 shuffled share's cards on its pile and a removed player's cards
    nobody saw (``None`` in the view) count as unseen."""
    seen = set(view["hand"] or []) | set(view["pile"] or []) | set(view["discarded"])
    seen.discard(None)
    seen |= {c for p in view["trick"] for c in p["cards"]}
    seen |= {c for known in view["known"] for c in known}
    return [c for c in DECK if c not in seen]


def _phase1_scores(view: JSON, legal: list[Action]) -> list[tuple[float, Action]]:
    trump = view["trump"]
    me = view["seat"]
    start = view["round_from"]
    round_cards = [p["cards"][0] for p in view["trick"][start:]]
    top = max((rank(c) for c in round_cards), default=0)
    later = [s for s in view["round_seats"]
             if s != me and s not in {p["seat"] for p in view["trick"][start:]}]
    unseen = _unseen(view)
    counts = _rank_counts(unseen)
    pot = sum(worth(c, trump) - CARD_COST for p in view["trick"] for c in p["cards"])
    scored: list[tuple[float, Action]] = []
    for action in legal:
        if action.kind == "stock":
            # a random card of the unseen ones, and my hand stays whole
            scored.append((_stock_score(view, top, later, unseen, pot), action))
            continue
        card = action.cards[0] if action.cards else ""
        own = worth(card, trump)
        if rank(card) > top:
            p = _win_chance(rank(card), len(later), counts)
            # a won card comes back onto the pile; a high card spent now cannot win later
            score = p * pot - (1 - p) * own - 0.2 * own
        elif rank(card) == top:
            score = -own - 0.3  # a tie: a replay costs another card
        else:
            score = -own  # dumped on someone else's trick: lose the lowest
        scored.append((score, action))
    return scored


def _win_chance(value: int, players_after: int, unseen: list[int]) -> float:
    """The chance that none of ``players_after`` plays a higher rank (each holds about 3
    cards drawn from the unseen ones and shows their best; a tie counts as half).
    ``unseen``: how many unseen cards there are of each rank value (index 0 … 14)."""
    if players_after == 0:
        return 1.0
    total = sum(unseen)
    if not total:
        return 0.5
    higher = sum(unseen[value + 1:]) / total
    equal = unseen[value] / total
    per_player = (1 - higher) ** 3 - 0.5 * equal
    return max(0.0, per_player) ** players_after


def _stock_score(view: JSON, top: int, later: list[int], unseen: list[str],
                 pot: float) -> float:
    """Turning up the stock: a random unseen card takes its chance; no hand card is spent."""
    if not unseen:
        return -0.5
    counts = _rank_counts(unseen)
    total = 0.0
    for card in unseen:
        if rank(card) > top:
            p = _win_chance(rank(card), len(later), counts)
            total += p * pot
    # the price: a random card handed to whoever wins, where a low card of the hand would
    # have burdened them
    return total / len(unseen) - 0.35


def _rank_counts(cards: list[str]) -> list[int]:
    counts = [0] * 15
    for card in cards:
        counts[rank(card)] += 1
    return counts


# --- phase 2 -------------------------------------------------------------------------------
def _phase2_scores(view: JSON, legal: list[Action]) -> list[tuple[float, Action]]:
    trump = view["trump"]
    hand = view["hand"] or []
    trick = view["trick"]
    lying = sum(len(p["cards"]) for p in trick)
    others = [c for s, c in enumerate(view["counts"])
              if view["in_game"][s] and s != view["seat"]]
    early = min(others, default=0) > 3  # nobody close to going out: spare the trumps
    scored: list[tuple[float, Action]] = []
    for action in legal:
        if action.kind == "pickup":
            taken = trick[0]["cards"]
            if view["options"]["pickup_single"]:
                taken = taken[:1]
            score = -SHED * len(taken) - TEMPO + TAKEN * sum(worth(c, trump) for c in taken)
            scored.append((score, action))
            continue
        cards = list(action.cards or ())
        score = SHED * len(cards) - sum(worth(c, trump) for c in cards)
        if len(cards) == len(hand):
            score += 100.0  # out and safe
        if trick and lying + len(cards) >= view["need"]:
            score += TEMPO
        if early and trick and any(suit(c) == trump and rank(c) >= 11 for c in cards):
            score -= SPARE_TRUMP  # a high trump is worth more later than this trick
        if not trick:
            # leading: low cards and long sequences first, keep the high ones to beat with
            score += 0.2 * len(cards) - 0.3 * max(worth(c, trump) for c in cards)
        scored.append((score, action))
    return scored


def greedy_action(view: JSON, rng: random.Random) -> Action:
    """A simple baseline (for the benchmark): beat or win with the lowest card that does
    (a plain card before a trump), else dump the lowest card; in phase 2 pick up when
    nothing single beats; lead the lowest card. It breaks circles as the AI does."""
    unstuck = _unstick(view, legal_plays(view), rng)
    if unstuck is not None:
        return unstuck
    trump = view["trump"]
    hand = sorted(view["hand"] or [], key=lambda c: (suit(c) == trump, rank(c)))
    if view["phase"] == 1:
        plays = view["trick"][view["round_from"]:]
        top = max((rank(p["cards"][0]) for p in plays), default=0)
        winning = [c for c in hand if rank(c) > top]
        return Action("play", cards=((winning or hand)[0],))
    if not view["trick"]:
        return Action("play", cards=(hand[0],))
    top = view["trick"][-1]["cards"]
    beating = [c for c in hand if play_beats((c,), top, trump)]
    return Action("play", cards=(beating[0],)) if beating else Action("pickup")
