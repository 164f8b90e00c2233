"""Coyote states and event readers for the rules-lawyer tests (``test_coyote_rulings_*``)."""

from __future__ import annotations

from collections import Counter

import pytest

from engine.core import Action, RuleError
from engine.coyote import CoyoteGame, get_edition

GAME = CoyoteGame()
CALL = Action("call")


def make(edition: str, hands: list[str | None], *, top: tuple[str, ...] = (), turn: int = 0,
         lives: list[int] | None = None, options: dict | None = None,
         specials: bool = False, seed: int = 11) -> dict:
    """A state with the given hands (seat order) and ``top`` on top of the draw pile; the rest
    of the deck lies below it, sorted. A ``0`` in ``lives`` is an eliminated seat (hand None)."""
    seats = len(hands)
    opts = {"edition": edition, **(options or {})}
    if specials:
        opts["specials"] = True
    state = GAME.new_state(seats, seed, opts)
    deck = Counter(get_edition(edition).deck)
    deck.subtract(Counter(c for c in hands if c is not None))
    deck.subtract(Counter(top))
    assert all(v >= 0 for v in deck.values()), "hands/top use more cards than the deck has"
    state["hands"] = list(hands)
    state["draw"] = list(top) + sorted(deck.elements())
    state["discard"] = []
    if lives is not None:
        state["lives"] = list(lives)
        state["out"] = [s for s in range(seats) if lives[s] == 0]
        state["masks"] = [bool(m) and lives[s] > 0 for s, m in enumerate(state["masks"])]
    state["turn"] = turn
    state["starter"] = turn
    state["bids"] = []
    return state


def bid(n, special: str | None = None, target: int | None = None) -> Action:
    return Action("bid", n, special=special, target=target)


def special(name: str, guess: str | None = None) -> Action:
    return Action("special", special=name, guess=guess)


def showdown(events) -> dict:
    [ev] = [e for e in events if e.type == "showdown"]
    return ev.data


def lives_lost(events) -> dict[int, int]:
    return {e.data["seat"]: e.data["amount"] for e in events if e.type == "life_lost"}


def rule_error(state: dict, seat: int, action: Action) -> str:
    with pytest.raises(RuleError) as exc:
        GAME.apply(state, seat, action)
    return exc.value.code


def all_cards(state: dict) -> Counter:
    cards = [c for c in state["hands"] if c is not None]
    for key in ("extra", "face_up", "void"):
        for pile in state[key]:
            cards += pile
    return Counter(cards + state["draw"] + state["discard"])
