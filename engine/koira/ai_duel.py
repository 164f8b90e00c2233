"""The hard Koira player's endgame: with two players left in phase 2 nothing is hidden.

Every card is then in the viewer's hand, the trick, the other player's hand or out of the
game (``discarded``): the phase-1 piles have become hands (``shared/rules/koira.md``,
"Phase 2"), the stock is empty and a removed player's cards left the game. So the other
hand is the deck less the rest, and the duel is a game of perfect information (unless some
of a removed player's cards left the game unseen, ``None`` in ``discarded``: then the other
hand is not known and the duel is out of scope): a
depth- and node-limited minimax (alpha-beta) finds the moves that go out first (the other is
then the koira, R16).

Rules modelled (two players, R9–R14): a play must beat the top (R10); the trick is complete
once it holds ``need`` cards, its last player leads next (R9, so with two players a lead of
a sequence completes it at once); a pick-up takes the bottom play (R11) and if it empties
the trick the other player leads (R12), and a player with no cards cannot lead (R13); a
player whose hand empties is out at once and wins the duel (R14). Out of scope (the caller
plays its heuristics): ``pickup_single``, ``trump_ends_trick``, anything but two players,
cards that left the game unseen.

A function of the view only and deterministic (no chance at all).
"""

from __future__ import annotations

from engine.core import JSON, Action
from engine.koira.cards import DECK, play_beats, rank, sequences

Hand = tuple[str, ...]
Trick = tuple[tuple[int, Hand], ...]

NODES = 600
"""The search's budget in positions; past it the duel counts as unsolved (the caller falls
back on its heuristics). Chosen so that a decision stays well under 5 ms."""
DEPTH = 14
"""Plies searched; a position deeper down is scored by the card counts (:func:`_guess`)."""


class _Budget(Exception):
    pass


def duel_values(view: JSON, legal: list[Action], nodes: int = NODES) -> list[float] | None:
    """Per action of ``legal``, its value for the viewer (+1: it goes out first whatever the
    other does, −1: the other can make it the koira, between: unsolved within
    :data:`DEPTH`, guessed from the counts), or ``None`` when out of scope or nothing is
    sure within ``nodes`` positions searched (default :data:`NODES`). The actions are
    searched cheapest first; once one wins, or past the budget, the ones not proven won or
    lost count 0."""
    options = view["options"]
    if view["phase"] != 2 or options["pickup_single"] or options["trump_ends_trick"] \
            or None in view["discarded"]:  # a removed player's unseen cards: hand not known
        return None
    me = view["seat"]
    players = [s for s, inside in enumerate(view["in_game"]) if inside]
    if len(players) != 2 or me not in players:
        return None
    other = players[0] if players[1] == me else players[1]
    mine = tuple(view["hand"] or [])
    lying = [c for p in view["trick"] for c in p["cards"]]
    gone = set(view["discarded"]) | set(mine) | set(lying)
    theirs = tuple(c for c in DECK if c not in gone)
    if len(theirs) != view["counts"][other]:
        return None  # not the duel this module assumes (a state it does not know)
    trick: Trick = tuple((0 if p["seat"] == me else 1, tuple(p["cards"]))
                         for p in view["trick"])
    search = _Search(view["trump"], options["min_sequence"], nodes)
    order = {move: i for i, move in enumerate(search._moves(mine, trick))}
    values: list[float | None] = [None] * len(legal)
    complete = True
    for i in sorted(range(len(legal)), key=lambda i: order.get(legal[i].cards, len(order))):
        try:
            values[i] = search.after(legal[i], (mine, theirs), trick, view["need"])
        except _Budget:
            complete = False
            break
        if values[i] == 1.0:
            break  # a won move: the others need no search
    if complete and None not in values:
        return values  # type: ignore[return-value]
    if not any(v in (1.0, -1.0) for v in values):
        return None
    # past the budget or stopped at a win: only what is sure counts, the rest is neutral
    return [v if v in (1.0, -1.0) else 0.0 for v in values]


class _Search:
    def __init__(self, trump: str | None, min_sequence: int, budget: int = NODES) -> None:
        self.trump = trump
        self.min_sequence = min_sequence
        self.budget = budget
        self.nodes = 0
        self.solved: dict[tuple, float] = {}  # positions won (+1) or lost (-1) for sure

    def after(self, action: Action, hands: tuple[Hand, Hand], trick: Trick,
              need: int) -> float:
        """The value of the viewer (player 0, to act) taking ``action``."""
        if action.kind == "pickup":
            return self._pickup(0, hands, trick, need, DEPTH, -2.0, 2.0)
        return self._play(0, tuple(action.cards or ()), hands, trick, need, DEPTH, -2.0, 2.0)

    def _moves(self, hand: Hand, trick: Trick) -> list[Hand | None]:
        """Plays that beat the top (cheapest first), then ``None`` for a pick-up."""
        plays: list[Hand] = [(c,) for c in hand]
        plays += sequences(hand, self.min_sequence)
        if trick:
            top = trick[-1][1]
            plays = [p for p in plays if play_beats(p, top, self.trump)]
        # a lead: the longest first (with two players a sequence completes the trick and
        # leads again); on a trick: the cheapest that beats
        plays.sort(key=lambda p: (-len(p), rank(p[-1])) if not trick else (rank(p[0]), len(p)))
        moves: list[Hand | None] = list(plays)
        if trick:
            moves.append(None)
        return moves

    def _value(self, turn: int, hands: tuple[Hand, Hand], trick: Trick, need: int,
               depth: int, alpha: float, beta: float) -> float:
        self.nodes += 1
        if self.nodes > self.budget:
            raise _Budget
        if not hands[turn] and not trick:
            turn = 1 - turn  # R13: no cards, no lead
        key = (hands, trick, need, turn)
        known = self.solved.get(key)
        if known is not None:
            return known
        if depth == 0:
            return _guess(hands)
        best = -2.0 if turn == 0 else 2.0
        for move in self._moves(hands[turn], trick):
            if move is None:
                got = self._pickup(turn, hands, trick, need, depth - 1, alpha, beta)
            else:
                got = self._play(turn, move, hands, trick, need, depth - 1, alpha, beta)
            if turn == 0:
                best = max(best, got)
                alpha = max(alpha, got)
            else:
                best = min(best, got)
                beta = min(beta, got)
            if alpha >= beta or best == (1.0 if turn == 0 else -1.0):
                break
        if best in (1.0, -1.0):  # a guess is strictly inside: these are exact
            self.solved[key] = best
        return best

    def _play(self, turn: int, cards: Hand, hands: tuple[Hand, Hand], trick: Trick,
              need: int, depth: int, alpha: float, beta: float) -> float:
        left = tuple(c for c in hands[turn] if c not in cards)
        if not left:
            return 1.0 if turn == 0 else -1.0  # R14: out, the other is the koira
        new = (left, hands[1]) if turn == 0 else (hands[0], left)
        trick = trick + ((turn, cards),)
        if sum(len(p) for _, p in trick) >= need:  # R9: complete, the last player leads
            return self._value(turn, new, (), 2, depth, alpha, beta)
        return self._value(1 - turn, new, trick, need, depth, alpha, beta)

    def _pickup(self, turn: int, hands: tuple[Hand, Hand], trick: Trick, need: int,
                depth: int, alpha: float, beta: float) -> float:
        taken = trick[0][1]
        grown = tuple(sorted(hands[turn] + taken, key=DECK.index))
        new = (grown, hands[1]) if turn == 0 else (hands[0], grown)
        rest = trick[1:]
        # R12: the other player acts next, on what is left or leading a new trick
        return self._value(1 - turn, new, rest, need if rest else 2, depth, alpha, beta)


def _guess(hands: tuple[Hand, Hand]) -> float:
    """An unsolved position: fewer cards than the other is better, strictly inside ±1."""
    mine, theirs = len(hands[0]), len(hands[1])
    return 0.8 * (theirs - mine) / (theirs + mine + 1)


__all__ = ["DEPTH", "NODES", "duel_values"]
