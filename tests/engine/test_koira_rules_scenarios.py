"""Koira's worked scenarios of ``shared/rules/koira.md`` through the engine contract."""

from __future__ import annotations

import random

import pytest

from engine.core import RuleError
from engine.koira.cards import DECK
from tests.engine.koira_helpers import GAME, act, deal, phase2, play, plays


def test_scenario_tie_replayed() -> None:
    """4 players: 9♣, K♦, 4♠, K♥: K♦ and K♥ tie; 3♣ vs 7♦: the K♥ player wins all 6 cards
    and leads."""
    state = deal([["9C", "2S", "2H"], ["KD", "3C", "2D"], ["4S", "3S", "3H"],
                  ["KH", "7D", "3D"]])
    for seat, card in enumerate(["9C", "KD", "4S", "KH"]):
        state, events = play(state, seat, card)
    assert events[-1] == {"type": "tie", "seats": [1, 3], "rank": 13}
    assert GAME.view(state, None)["tied"] == [1, 3]
    assert plays(state, 1) == {("2D",), ("3C",), "stock"}
    assert GAME.legal_actions(state, 0) == []
    state, _ = play(state, 1, "3C")
    state, events = play(state, 3, "7D")
    won = next(e for e in events if e["type"] == "trick_over")
    assert won["seat"] == 3 and sorted(won["cards"]) == sorted(
        ["9C", "KD", "4S", "KH", "3C", "7D"])
    assert sorted(state["piles"][3]) == sorted(won["cards"])
    assert GAME.current_seat(state) == 3


def test_scenario_tie_below_the_top_is_no_tie() -> None:
    """3 players: Q♠, 5♥, 5♦: Q♠ wins."""
    state = deal([["QS", "2S", "3S"], ["5H", "2H", "3H"], ["5D", "2D", "3D"]])
    for seat, card in enumerate(["QS", "5H", "5D"]):
        state, events = play(state, seat, card)
    assert [e for e in events if e["type"] == "tie"] == []
    assert sorted(state["piles"][0]) == sorted(["QS", "5H", "5D"])
    assert GAME.current_seat(state) == 0


def _until(seed: int, seats: int, done) -> dict:
    """Turn up the stock whenever allowed (else a random legal move) from a seeded deal until
    ``done(state)``."""
    state, _ = GAME.new_game(seats, seed)
    rng = random.Random(seed)
    while not done(state):
        assert not state["over"], "the position never came up"
        seat = GAME.current_seat(state)
        legal = GAME.legal_actions(state, seat)
        stock = [a for a in legal if a.kind == "stock"]
        state, _ = GAME.apply(state, seat, stock[0] if stock else rng.choice(legal))
    return state


def test_scenario_last_stock_card_never_played_blind() -> None:
    """The stock holds 1 card: a player may not play it blind (phase 1, R2)."""
    state = _until(3, 4, lambda s: len(s["stock"]) == 1 and not s["over"]
                   and s["phase"] == 1)
    seat = GAME.current_seat(state)
    assert "stock" not in plays(state, seat)
    assert GAME.view(state, seat)["can_stock"] is False
    with pytest.raises(RuleError) as err:
        act(state, seat, "stock")
    assert err.value.code == "stock_too_small"


def test_scenario_last_stock_card_is_trump_and_face_up() -> None:
    """The last stock card drawn is 7♥: hearts are trump; the drawer keeps 7♥ face up.
    R7: everyone knows the trump from that moment, still in phase 1."""
    deck = [c for c in DECK if c != "7H"] + ["7H"]
    state, _ = GAME.new_game(5, 2, {"deck": deck, "dealer": 0})
    rng = random.Random(2)
    events: list = []
    while state["trump"] is None:
        seat = GAME.current_seat(state)
        state, events = GAME.apply(state, seat, rng.choice(GAME.legal_actions(state, seat)))
    shown = next(e.to_json() for e in events if e.type == "trump_revealed")
    drawer = shown["seat"]
    assert shown["card"] == "7H" and shown["suit"] == "H"
    assert state["phase"] == 1 and "7H" in state["hands"][drawer]
    for seat in [None, *range(5)]:
        view = GAME.view(state, seat)
        assert view["trump"] == "H" and view["face_up"] == [drawer, "7H"]
    assert "7H" in GAME.view(state, (drawer + 1) % 5)["known"][drawer]


def test_scenario_what_beats_9_spades() -> None:
    """Trump ♥, top of the trick 9♠: 10♠…A♠ or any ♥ beats it; after 2♥ only a higher ♥."""
    hand = ["8S", "10S", "AS", "2H", "5H", "KD", "QC"]
    state = phase2([["9S", "3C"], hand, ["4D"]], trump="H", turn=1, trick=[(0, ["9S"])])
    singles = {p for p in plays(state, 1) if isinstance(p, tuple) and len(p) == 1}
    assert singles == {("10S",), ("AS",), ("2H",), ("5H",)}
    state, _ = play(state, 1, "2H")
    state2 = phase2([["9S", "3C"], ["4D"], ["3H", "AH", "KS", "3D"]], trump="H", turn=2,
                    trick=[(0, ["9S"]), (1, ["2H"])])
    assert plays(state2, 2) == {("3H",), ("AH",), "pickup"}


def test_scenario_must_pick_up_the_lowest() -> None:
    """Trump ♠, trick [6♣, 9♣]; the next player has no ♣ above 9 and no ♠: must pick up
    6♣."""
    state = phase2([["AD"], ["KD"], ["8C", "QH", "2D"]], trump="S", turn=2,
                   trick=[(0, ["6C"]), (1, ["9C"])], need=4)
    assert plays(state, 2) == {"pickup"}
    with pytest.raises(RuleError) as err:
        play(state, 2, "8C")
    assert err.value.code == "does_not_beat"
    state, events = act(state, 2, "pickup")
    assert events == [{"type": "picked_up", "seat": 2, "cards": ["6C"]}]
    assert "6C" in state["hands"][2] and state["trick"] == [[1, ["9C"], False]]
    assert GAME.current_seat(state) == 0


def test_scenario_last_two_players() -> None:
    """2 players hold cards; one plays their last card: they are out, the other is the
    koira."""
    state = phase2([["5C"], ["KD", "3S"], []], trump="S", turn=0, out=[2])
    state, events = play(state, 0, "5C")
    assert GAME.is_over(state) and GAME.current_seat(state) is None
    assert GAME.placements(state) == [2, 3, 1]
    assert events[-1]["type"] == "game_over" and events[-1]["koira"] == 1
    assert GAME.view(state, None)["koira"] == 1
    assert GAME.still_playing(state) == [1]
