"""Building Koira tables for tests: a deck that deals given hands, phase-2 positions, and a
state with the cards hidden from one seat dealt out differently (`rehide`)."""

from __future__ import annotations

import random
from typing import Any

from engine.core import Action
from engine.koira import KoiraGame
from engine.koira.cards import DECK

GAME = KoiraGame()


def deck_for(hands: list[list[str]], stock: list[str] | None = None) -> list[str]:
    """A 52-card deck (top first) that, dealt by the last seat (dealer ``n - 1``), gives seat
    ``s`` the cards ``hands[s]`` (3 each) and puts ``stock`` on top of the stock; the other
    cards follow in deck order."""
    n = len(hands)
    assert all(len(h) == 3 for h in hands)
    dealt = [hands[i % n][i // n] for i in range(3 * n)]
    top = list(stock or [])
    used = set(dealt) | set(top)
    assert len(used) == len(dealt) + len(top), "a card is given twice"
    return dealt + top + [c for c in DECK if c not in used]


def deal(hands: list[list[str]], stock: list[str] | None = None, **options: Any) -> dict:
    """A new game dealt so that seat ``s`` holds ``hands[s]``; seat 0 leads."""
    state, _ = GAME.new_game(len(hands), 1, {"deck": deck_for(hands, stock),
                                             "dealer": len(hands) - 1, **options})
    return state


def play(state: dict, seat: int, *cards: str) -> tuple[dict, list[dict]]:
    """``seat`` plays ``cards``; returns the new state and its events as JSON."""
    new, events = GAME.apply(state, seat, Action("play", cards=tuple(cards)))
    return new, [e.to_json() for e in events]


def act(state: dict, seat: int, kind: str) -> tuple[dict, list[dict]]:
    """``seat`` plays the stock's top (``"stock"``) or picks up (``"pickup"``)."""
    new, events = GAME.apply(state, seat, Action(kind))
    return new, [e.to_json() for e in events]


def phase2(hands: list[list[str]], *, trump: str, turn: int = 0,
           trick: list[tuple[int, list[str]]] | None = None, out: list[int] | None = None,
           need: int | None = None, lead_trump: bool | None = None, **options: Any) -> dict:
    """A phase-2 position: ``hands`` per seat, the ``trick`` so far (seat, cards), ``out``
    seats; every other card has left the game (so all 52 stay accounted for)."""
    n = len(hands)
    state, _ = GAME.new_game(n, 1, dict(options))
    trick = trick or []
    out = out or []
    held = {c for h in hands for c in h} | {c for _, cards in trick for c in cards}
    state.update({
        "phase": 2, "hands": [list(h) for h in hands], "stock": [],
        "piles": [[] for _ in range(n)], "known": [[] for _ in range(n)],
        "discarded": [c for c in DECK if c not in held], "trump": trump,
        "trump_card": "2" + trump, "face_up": None,
        "trick": [[s, list(cards), False] for s, cards in trick], "round_seats": [],
        "round_from": 0, "turn": turn, "out": list(out), "trick_no": 20,
    })
    state["need"] = need if need is not None else n - len(out)
    if lead_trump is None:
        lead_trump = bool(trick) and trick[0][1][0][-1] == trump
    state["lead_trump"] = lead_trump
    return state


def plays(state: dict, seat: int) -> set[tuple[str, ...] | str]:
    """The legal actions of ``seat`` as card tuples (``"pickup"``/``"stock"`` by name)."""
    return {a.cards if a.cards is not None else a.kind
            for a in GAME.legal_actions(state, seat)}


def phase1_end(hands: list[list[str]], *, leader: int = 0, **options: Any) -> dict:
    """A phase-1 position with the stock empty and a new trick led by ``leader`` (who won the
    trick before; R8: only the players holding cards play it): ``hands`` per seat, every
    other card on the won piles, dealt round the seats; spades are trump."""
    from engine.koira import phase1

    n = len(hands)
    state, _ = GAME.new_game(n, 1, dict(options))
    held = {c for h in hands for c in h}
    rest = [c for c in DECK if c not in held]
    state.update({
        "hands": [list(h) for h in hands], "stock": [], "piles": [rest[s::n] for s in range(n)],
        "known": [[] for _ in range(n)], "trump": "S", "trump_card": "2S", "face_up": None,
        "trick": [], "trick_no": 20, "last_winner": leader,
    })
    phase1.start_trick(state, leader, [])
    return state


def rehide(state: dict, seat: int, rng: random.Random) -> dict:
    """``state`` with the cards hidden from ``seat`` dealt out differently: the other
    seats' hand and pile cards that are not publicly known, and the stock, shuffled into
    the same places (same counts)."""
    keep = {c for s, known in enumerate(state["known"]) if s != seat for c in known}
    if state["face_up"] is not None:
        keep.add(state["face_up"][1])
    if state["trump_card"] is not None:
        keep.add(state["trump_card"])
    slots = []
    for s in range(state["seats"]):
        if s != seat:
            slots += [("hands", s, i) for i, c in enumerate(state["hands"][s]) if c not in keep]
            slots += [("piles", s, i) for i, c in enumerate(state["piles"][s]) if c not in keep]
    cards = [state[k][s][i] for k, s, i in slots] + list(state["stock"])
    rng.shuffle(cards)
    other = dict(state, hands=[list(h) for h in state["hands"]],
                 piles=[list(p) for p in state["piles"]])
    for (k, s, i), card in zip(slots, cards, strict=False):
        other[k][s][i] = card
    other["stock"] = cards[len(slots):]
    return other
