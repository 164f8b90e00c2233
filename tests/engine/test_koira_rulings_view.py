"""Koira whole games: every card accounted for, and ``view`` hides others' cards and the stock."""

from __future__ import annotations

import json
import random

import pytest

from engine.koira.cards import DECK
from tests.engine.koira_helpers import GAME


def _all_cards(state: dict) -> list[str]:
    return (
        [c for h in state["hands"] for c in h] + [c for p in state["piles"] for c in p]
        + list(state["stock"]) + list(state["discarded"])
        + [c for p in state["trick"] for c in p[1]]
    )


def _random_states(seed: int, seats: int, options: dict | None = None):
    state, _ = GAME.new_game(seats, seed, options or {})
    rng = random.Random(seed)
    yield state
    while not state["over"]:
        seat = GAME.current_seat(state)
        state, _ = GAME.apply(state, seat, rng.choice(GAME.legal_actions(state, seat)))
        yield state


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_view_never_shows_hidden_cards_or_stock_order(seed: int) -> None:
    """view(state, seat) shows no card of the stock, and another player's hand or won pile
    only as far as publicly known (``known``); views are identical when hidden cards are
    swapped between another hand and the stock, or the stock is reordered."""
    options = {"tie_split": seed == 2}
    checked = 0
    for i, state in enumerate(_random_states(seed, 4, options)):
        assert sorted(_all_cards(state)) == sorted(DECK)
        if i % 3:
            continue
        for seat in range(4):
            view = GAME.view(state, seat)
            text = json.dumps(view)
            for card in state["stock"]:
                assert f'"{card}"' not in text, (card, "stock card shown")
            for other in range(4):
                if other == seat:
                    continue
                hidden = set(state["hands"][other]) | set(state["piles"][other])
                hidden -= set(state["known"][other])
                if state["face_up"] and state["face_up"][0] == other:
                    hidden.discard(state["face_up"][1])
                for card in hidden:
                    assert f'"{card}"' not in text, (card, "hidden card of", other)
                # swap one hidden hand card of ``other`` with a stock card: same view
                secret = [c for c in state["hands"][other] if c in hidden]
                if secret and state["stock"]:
                    twin = json.loads(json.dumps(state))
                    a, b = secret[0], twin["stock"][-1]
                    h = twin["hands"][other]
                    h[h.index(a)] = b
                    twin["stock"][-1] = a
                    assert GAME.view(twin, seat) == view
            # phase 2: swap hidden hand cards of two other players (same counts)
            others = [o for o in range(4) if o != seat]
            pairs = [(o, c) for o in others for c in state["hands"][o]
                     if c not in state["known"][o]
                     and not (state["face_up"] and state["face_up"][1] == c)]
            if len({o for o, _ in pairs}) >= 2:
                (o1, c1) = pairs[0]
                o2, c2 = next(p for p in pairs if p[0] != o1)
                twin = json.loads(json.dumps(state))
                h1, h2 = twin["hands"][o1], twin["hands"][o2]
                h1[h1.index(c1)], h2[h2.index(c2)] = c2, c1
                assert GAME.view(twin, seat) == view
            if len(state["stock"]) > 1:
                twin = json.loads(json.dumps(state))
                twin["stock"].reverse()
                assert GAME.view(twin, seat) == view
            checked += 1
    assert checked > 50
