"""Koira to the letter over whole games: an independent model of ``shared/rules/koira.md``.

The other rulings tests (``test_koira_rulings_*``, ``test_koira_rules_*``,
``test_rules_letter_koira``) pin each ruling and worked scenario in one chosen position. These
play seeded games from the deal to the koira through the registry (``GAMES["koira"]``) and
check every move against a model written from the rules text alone, so a ruling broken only
in a position nobody thought of still fails: phase 1 (R1–R8, R19) is replayed by the model
in parallel; in phase 2 (R9–R18, R20) each move's legal actions and outcome are checked.
"""

from __future__ import annotations

import random
from itertools import product

import pytest

from engine import GAMES
from engine.core import Action

GAME = GAMES["koira"]
RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
OPTION_SETS = [{"tie_split": t, "trump_ends_trick": e, "pickup_single": p, "min_sequence": m}
               for t, e, p, m in product((False, True), (False, True), (False, True), (2, 3))]


def rank(card: str) -> int:
    """2 … 14: the ace is high only (R20)."""
    return RANKS.index(card[:-1]) + 2


def clockwise(n: int, start: int) -> list[int]:
    return [(start + k) % n for k in range(n)]


class Phase1:
    """Phase 1 as the rules say it, fed the same moves as the engine."""

    def __init__(self, state: dict) -> None:
        self.n = state["seats"]
        self.hands = [list(h) for h in state["hands"]]
        self.stock = list(state["stock"])
        self.piles: list[list[str]] = [[] for _ in range(self.n)]  # cards known per pile
        self.hidden = [0] * self.n  # R3: how many shuffled cards each pile got
        self.tie_split = state["options"]["tie_split"]
        self.trump: str | None = None
        self.face_up: list | None = None
        self.last_winner: int | None = None
        self.turn: int | None = None
        self._begin((state["dealer"] + 1) % self.n)  # the player left of the dealer leads

    def _begin(self, leader: int) -> None:
        """R8: only players holding cards play the trick; the first of them leads."""
        self.trick: list[tuple[int, str]] = []
        self.round = [s for s in clockwise(self.n, leader) if self.hands[s]]
        self.played: list[tuple[int, str]] = []
        self.turn = self.round[0]

    def legal(self, seat: int) -> set[str]:
        """R19: one hand card, or the stock's top while the stock holds 2 or more."""
        if seat != self.turn:
            return set()
        return set(self.hands[seat]) | ({"stock"} if len(self.stock) >= 2 else set())

    def move(self, seat: int, card: str | None) -> None:
        if card is None:
            card = self.stock.pop(0)  # turned up and played, never into the hand
        else:
            self.hands[seat].remove(card)
        self.trick.append((seat, card))
        self.played.append((seat, card))
        if len(self.played) < len(self.round):
            self.turn = self.round[len(self.played)]
            return
        top = max(rank(c) for _, c in self.played)  # R1: only this round compared
        tied = [s for s, c in self.played if rank(c) == top]  # in play order
        cards = [c for _, c in self.trick]
        if len(tied) == 1:
            self.piles[tied[0]] += cards
        elif self.tie_split:  # R5
            rest = sorted((c for s, c in self.trick if not (s in tied and rank(c) == top)),
                          key=rank)
            for s, c in self.trick:
                if s in tied and rank(c) == top:
                    self.piles[s].append(c)
            if rest:
                self.piles[self.trick[-1][0]].append(rest[0])
                for i, c in enumerate(rest[1:]):
                    self.piles[tied[i % len(tied)]].append(c)
        elif any(not self.hands[s] for s in tied):  # R3: dealt one at a time, hidden
            for i in range(len(cards)):
                self.hidden[tied[i % len(tied)]] += 1
        else:  # R1: only the tied players replay, in play order
            self.round, self.played, self.turn = tied, [], tied[0]
            return
        self.last_winner = tied[0]  # R4
        for s in clockwise(self.n, tied[0]):  # R6, R7
            while len(self.hands[s]) < 3 and self.stock:
                self.hands[s].append(self.stock.pop(0))
                if not self.stock:
                    self.trump, self.face_up = self.hands[s][-1][-1], [s, self.hands[s][-1]]
        if self.stock or any(self.hands):
            self._begin(tied[0])
        else:
            self.turn = None

    def check(self, state: dict) -> None:
        assert state["stock"] == self.stock
        assert state["trump"] == self.trump
        assert state["face_up"] in (self.face_up, None)  # None once played
        if state["phase"] == 1:
            assert [sorted(h) for h in state["hands"]] == [sorted(h) for h in self.hands]
            assert GAME.current_seat(state) == self.turn
            piles = state["piles"]
        else:  # phase 2: the won piles are the hands; the last winner leads (R9, R13)
            assert self.turn is None and self.last_winner is not None
            piles = state["hands"]
            assert GAME.current_seat(state) == next(
                s for s in clockwise(self.n, self.last_winner) if piles[s])
        shuffled = set(state["shuffled"])
        for s in range(self.n):
            assert sorted(c for c in piles[s] if c not in shuffled) == sorted(self.piles[s])
            assert len(piles[s]) == len(self.piles[s]) + self.hidden[s]


def plays_of(hand: list[str], options: dict) -> set[tuple[str, ...]]:
    """Every single card and sequence of ``hand`` (2+ cards, or 3+ with ``min_sequence``, of
    one suit in consecutive rank, lowest first; R17: from a 2 with ``trump_ends_trick``)."""
    found: set[tuple[str, ...]] = {(c,) for c in hand}
    low = max(2, options["min_sequence"])
    for suit in "SHDC":
        run = sorted((c for c in hand if c[-1] == suit), key=rank)
        for i in range(len(run)):
            for j in range(i + low, len(run) + 1):
                seq = run[i:j]
                if all(rank(b) == rank(a) + 1 for a, b in zip(seq, seq[1:], strict=False)) \
                        and not (options["trump_ends_trick"] and rank(seq[0]) != 2):
                    found.add(tuple(seq))
    return found


def beats(card: str, top: str, trump: str) -> bool:
    """The single-card rule: a higher card of its suit, or any trump on a plain card."""
    return rank(card) > rank(top) if card[-1] == top[-1] else card[-1] == trump


def in_game(state: dict, seat: int) -> bool:
    return seat not in state["out"] and seat not in state["removed"]


def next_in_game(state: dict, seat: int) -> int:
    return next(s for s in clockwise(state["seats"], seat)[1:] if in_game(state, s))


def check_phase2_legal(state: dict, seat: int) -> None:
    """R10, R13, R19: the plays that beat the top play (any on a lead), and a pick-up only
    on a trick holding cards."""
    options, trick = state["options"], state["trick"]
    expected: set = plays_of(state["hands"][seat], options)
    if trick:
        top = max(trick[-1][1], key=rank)
        expected = {p for p in expected if beats(p[0], top, state["trump"])} | {"pickup"}
    else:
        assert state["hands"][seat], "R13: a player holding no cards cannot lead"
    assert {a.cards or a.kind for a in GAME.legal_actions(state, seat)} == expected


def check_phase2_move(before: dict, seat: int, action: Action, after: dict) -> None:
    """R9, R11, R12, R14–R18: what one phase-2 move does to the trick, the players and turn."""
    options, n = before["options"], before["seats"]
    if action.kind == "pickup":  # R11 the bottom play; R18 only its lowest card
        bottom = before["trick"][0][1]
        taken = bottom[:1] if options["pickup_single"] else bottom
        assert sorted(after["hands"][seat]) == sorted(before["hands"][seat] + taken)
        lying = [p[1] for p in before["trick"]]
        lying[0] = lying[0][len(taken):]
        lying = [cards for cards in lying if cards]
        assert [p[1] for p in after["trick"]] == lying
        nxt = next_in_game(before, seat)
        if lying:  # R12: the next player in the game acts on the trick
            assert after["turn"] == nxt
        else:  # R12 + R13: they lead, or the next in the game holding cards
            assert after["turn"] == next(s for s in clockwise(n, nxt)
                                         if in_game(after, s) and after["hands"][s])
        return
    cards = list(action.cards or ())
    went_out = not [c for c in before["hands"][seat] if c not in cards]
    assert (seat in after["out"]) is went_out  # R14
    left = [s for s in range(n) if in_game(before, s) and not (s == seat and went_out)]
    if len(left) <= 1:  # R16
        places = GAME.placements(after)
        assert after["over"] and places is not None and places[left[0]] == n
        return
    count = sum(len(p[1]) for p in before["trick"]) + len(cards)
    cut = (options["trump_ends_trick"] and bool(before["trick"]) and not before["lead_trump"]
           and cards[0][-1] == before["trump"])  # R17
    if not (cut or count >= before["need"]):  # R9: not complete yet
        assert after["trick"][-1] == [seat, cards, False]
        assert after["turn"] == next_in_game(after, seat)  # R14: skipping who is out
        return
    assert after["trick"] == [] and set(after["discarded"]) >= {  # R9: out of the game
        c for p in before["trick"] for c in p[1]} | set(cards)
    winner = seat if not went_out else next_in_game(after, seat)  # R15
    leader = next((s for s in clockwise(n, winner)
                   if in_game(after, s) and after["hands"][s]), None)  # R13
    if leader is None:  # R16 corner: nobody in the game holds a card
        assert after["over"]
        return
    assert after["turn"] == leader and after["need"] == len(left)  # R9: fixed at its start


@pytest.mark.parametrize("seed", range(48))
def test_whole_games_follow_the_rules_model(seed: int) -> None:
    """Rulings R1–R20 in every position of seeded games (3–8 players, every option set):
    phase 1 replayed by :class:`Phase1`; each phase-2 move's legal actions and outcome
    checked. Moves are chosen at random, with ties and plays preferred so that replays,
    shares, sequences, cuts and players going out all happen."""
    rng = random.Random(seed)
    options = OPTION_SETS[seed % len(OPTION_SETS)]
    state, _ = GAME.new_game(3 + seed % 6, seed, options)
    model = Phase1(state)
    for _step in range(5000):
        if state["over"]:
            break
        seat = GAME.current_seat(state)
        assert seat is not None
        legal = GAME.legal_actions(state, seat)
        action = rng.choice(legal)
        if state["phase"] == 1:
            assert {a.cards[0] if a.cards else "stock" for a in legal} == model.legal(seat)
            round_cards = [p[1][0] for p in state["trick"][state["round_from"]:]]
            if round_cards and rng.random() < 0.5:  # play to the top rank: a tie
                top = max(rank(c) for c in round_cards)
                action = next((a for a in legal if a.cards and rank(a.cards[0]) == top),
                              action)
            after, _ = GAME.apply(state, seat, action)
            model.move(seat, action.cards[0] if action.cards else None)
            model.check(after)
        else:
            check_phase2_legal(state, seat)
            if action.kind == "pickup" and len(legal) > 1 and rng.random() < 0.8:
                action = rng.choice([a for a in legal if a.kind == "play"])
            after, _ = GAME.apply(state, seat, action)
            check_phase2_move(state, seat, action, after)
        state = after
    assert state["over"] and state["phase"] == 2
