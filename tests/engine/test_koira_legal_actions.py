"""Koira actions ``apply`` accepts: never malformed ones, exactly those ``legal_actions`` lists."""

from __future__ import annotations

import random

import pytest

from engine.core import Action, RuleError
from engine.koira.cards import DECK
from tests.engine.koira_helpers import GAME, deal


@pytest.mark.parametrize("action", [Action("play"), Action("play", cards=()),
                                    Action("play", cards=("ZZ",)), Action("bid", 3),
                                    Action("play", 3, cards=("9C",)),
                                    Action("stock", cards=("9C",)), Action("resign", 1)])
def test_malformed_actions(action: Action) -> None:
    state = deal([["9C", "2S", "2H"], ["KD", "3C", "2D"], ["4S", "3S", "3H"]])
    with pytest.raises(RuleError) as err:
        GAME.apply(state, 0, action)
    assert err.value.code == "bad_action"


def test_legal_actions_are_exactly_what_apply_accepts() -> None:
    """``legal_actions`` lists exactly the legal actions: every card of the deck, every
    combination of hand cards (lowest first, and a pair reversed), the stock and a pick-up
    are tried on positions of random games; apply accepts just the listed ones."""
    from itertools import combinations

    from engine.koira.cards import sort_key

    checked = 0
    for seed in range(8):
        options = {"min_sequence": 2 + seed % 2, "trump_ends_trick": seed % 3 == 0,
                   "pickup_single": seed % 2 == 0}
        state, _ = GAME.new_game(3 + seed % 4, seed, options)
        rng = random.Random(seed)
        step = 0
        while not state["over"]:
            seat = GAME.current_seat(state)
            legal = GAME.legal_actions(state, seat)
            hand = sorted(state["hands"][seat], key=sort_key)
            if step % 5 == 0 and len(hand) <= 9:
                candidates = [Action("stock"), Action("pickup")]
                candidates += [Action("play", cards=(c,)) for c in DECK]
                for size in range(2, len(hand) + 1):
                    candidates += [Action("play", cards=combo)
                                   for combo in combinations(hand, size)]
                candidates += [Action("play", cards=pair[::-1])
                               for pair in combinations(hand, 2)]
                accepted = []
                for action in candidates:
                    try:
                        GAME.apply(state, seat, action)
                    except RuleError:
                        continue
                    accepted.append(action)
                assert sorted(map(repr, accepted)) == sorted(map(repr, legal))
                checked += 1
            state, _ = GAME.apply(state, seat, rng.choice(legal))
            step += 1
    assert checked > 100
