"""Building and playing Coyote states with the special actions on, for the engine tests of
the classic masks and the feathers variant coins (``test_specials_availability``,
``test_masks_turn_order``, ``test_masks_double_draw1``, ``test_feathers_coins``,
``test_specials_edge_cases``).

States are built by editing the plain JSON state directly, always keeping every card of the
deck in exactly one place (:func:`assert_conserved`, checked after every move of :func:`play`).
"""

from __future__ import annotations

import copy
import json
from collections import Counter

import pytest

from engine.core import Action, RuleError
from engine.coyote import CoyoteGame, get_edition

GAME = CoyoteGame()
CALL = Action("call")
CARD_PLACES = ("extra", "face_up", "void")


def make(edition: str, hands: list[str | None], *, top: tuple[str, ...] = (), turn: int = 0,
         lives: list[int] | None = None, seed: int = 7, specials: bool = True) -> dict:
    """A state of ``edition`` with specials on, the given hands and ``top`` as the top of the
    draw pile (the rest of the deck below it, sorted). ``lives``: a 0 means eliminated (give
    that seat a ``None`` hand)."""
    seats = len(hands)
    state = GAME.new_state(seats, seed, {"edition": edition, "specials": specials})
    deck = Counter(get_edition(edition).deck)
    deck.subtract(Counter(c for c in hands if c is not None))
    deck.subtract(Counter(top))
    assert all(v >= 0 for v in deck.values()), "hands/top use more cards than the deck has"
    state["hands"] = list(hands)
    state["draw"] = list(top) + sorted(deck.elements())
    state["discard"] = []
    if lives is not None:
        assert all((h is None) == (life == 0) for h, life in zip(hands, lives, strict=True))
        state["lives"] = list(lives)
        state["out"] = [s for s in range(seats) if lives[s] == 0]
        if state["masks"]:
            state["masks"] = [specials and edition == "classic" and life > 0 for life in lives]
    state["turn"] = turn
    state["starter"] = turn
    state["bids"] = []
    assert_conserved(state)
    return state


def all_cards(state: dict) -> Counter:
    cards = [c for c in state["hands"] if c is not None]
    for key in CARD_PLACES:
        for pile in state[key]:
            cards += pile
    return Counter(cards + state["draw"] + state["discard"])


def assert_conserved(state: dict) -> None:
    assert all_cards(state) == Counter(get_edition(state["edition"]).deck)
    assert json.loads(json.dumps(state)) == state


def play(state: dict, *moves: tuple[int, Action]) -> tuple[dict, list]:
    events: list = []
    for seat, action in moves:
        before = copy.deepcopy(state)
        new, evs = GAME.apply(state, seat, action)
        assert state == before, "apply mutated its input"
        state = new
        assert_conserved(state)
        events.extend(evs)
    return state, events


def bid(n: int, special: str | None = None, target: int | None = None) -> Action:
    return Action("bid", n, special=special, target=target)


def mask(name: str) -> Action:
    return Action("special", special=name)


coin = mask


def guess(card: str | None) -> Action:
    return Action("special", special="guess", guess=card)


def rejects(state: dict, seat: int, action: Action, code: str) -> RuleError:
    """Assert ``action`` raises ``RuleError(code)`` and leaves ``state`` unchanged."""
    before = copy.deepcopy(state)
    with pytest.raises(RuleError) as exc:
        GAME.apply(state, seat, action)
    assert exc.value.code == code, exc.value
    assert state == before
    assert action not in GAME.legal_actions(state, seat)
    return exc.value


def types(events) -> list[str]:
    return [e.type for e in events]


def showdown(events) -> dict:
    [ev] = [e for e in events if e.type == "showdown"]
    return ev.data


def lost(events) -> list[dict]:
    return [e.data for e in events if e.type == "life_lost"]


def specials_in(actions: list[Action]) -> set[str]:
    return {a.special for a in actions if a.special is not None}
