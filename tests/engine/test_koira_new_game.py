"""A new Koira game: its name, player counts, options, the deal and the seed."""

from __future__ import annotations

import pytest

from engine import GAMES
from engine.core import RuleError
from engine.koira.cards import DECK
from tests.engine.koira_helpers import GAME, deck_for


def test_registered_under_its_name() -> None:
    assert GAMES["koira"].name == "koira"
    assert GAME.player_limits() == (3, 8)


@pytest.mark.parametrize("seats", [2, 9, True, "4"])
def test_player_count(seats: object) -> None:
    with pytest.raises(RuleError) as err:
        GAME.new_game(seats, 1)  # type: ignore[arg-type]
    assert err.value.code == "bad_player_count"


@pytest.mark.parametrize("options", [{"tie_split": 1}, {"min_sequence": 4},
                                     {"pickup_single": "yes"}, {"dealer": 5},
                                     {"deck": DECK[:51]}, {"deck": [*DECK[:51], "AS"]}])
def test_bad_options(options: dict) -> None:
    with pytest.raises(RuleError) as err:
        GAME.new_game(5, 1, options)
    assert err.value.code == "bad_option"


def test_deal_from_a_given_deck() -> None:
    """Card notation and dealing: one card at a time clockwise from the seat after the
    dealer; the rest in order is the stock, the next card its top; left of the dealer
    leads."""
    deck = list(DECK)
    state, _ = GAME.new_game(4, 9, {"deck": deck, "dealer": 2})
    assert state["hands"][3] == [deck[0], deck[4], deck[8]]
    assert state["hands"][0] == [deck[1], deck[5], deck[9]]
    assert state["hands"][2] == [deck[3], deck[7], deck[11]]
    assert state["stock"] == deck[12:]
    assert GAME.current_seat(state) == 3
    assert GAME.view(state, None)["trump"] is None


def test_seed_chooses_dealer_and_shuffle() -> None:
    a, _ = GAME.new_game(5, 42)
    b, _ = GAME.new_game(5, 42)
    c, _ = GAME.new_game(5, 43)
    assert a == b and a != c
    assert sorted(c for h in a["hands"] for c in h) + a["stock"] != list(DECK)


def test_deck_for_helper() -> None:
    assert len(set(deck_for([["AS", "KS", "QS"]] * 1))) == 52
