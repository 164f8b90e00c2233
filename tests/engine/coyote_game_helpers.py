"""Hand-built Coyote states and moves for the ``CoyoteGame`` unit tests and the rulings tests."""

from __future__ import annotations

from collections import Counter

from engine.core import Action
from engine.coyote import CoyoteGame, get_edition

GAME = CoyoteGame()


def make_state(edition: str, hands: list[str | None], *, lives: list[int] | None = None,
               out: list[int] | None = None, turn: int = 0, seed: int = 7,
               draw: list[str] | None = None, discard: list[str] | None = None) -> dict:
    """A state of ``edition`` with the given hands; the rest of the deck forms the draw pile.

    Every card of the deck stays in exactly one place unless ``draw``/``discard`` are given.
    """
    seats = len(hands)
    state = GAME.new_state(seats, seed, {"edition": edition})
    deck = Counter(get_edition(edition).deck)
    deck.subtract(Counter(c for c in hands if c is not None))
    assert all(v >= 0 for v in deck.values()), "hands use more cards than the deck has"
    rest = sorted(deck.elements())
    state["hands"] = list(hands)
    state["draw"] = rest if draw is None else list(draw)
    state["discard"] = [] if discard is None else list(discard)
    if lives is not None:
        state["lives"] = list(lives)
    state["out"] = list(out or [])
    state["turn"] = turn
    state["starter"] = turn
    state["bids"] = []
    return state


def play(state: dict, *moves: tuple[int, Action]) -> tuple[dict, list]:
    events: list = []
    for seat, action in moves:
        state, evs = GAME.apply(state, seat, action)
        events.extend(evs)
    return state, events


def bid(n: int) -> Action:
    return Action("bid", n)


CALL = Action("call")


def event_types(events) -> list[str]:
    return [e.type for e in events]


def showdown_event(events) -> dict:
    [ev] = [e for e in events if e.type == "showdown"]
    return ev.data
