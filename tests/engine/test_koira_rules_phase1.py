"""Koira's phase-1 rulings (R1–R8, R19) through the engine contract."""

from __future__ import annotations

import random

import pytest

from engine.core import Action, RuleError
from tests.engine.koira_helpers import GAME, act, deal, play, plays


def test_r1_replay_compares_only_its_round_and_ties_again() -> None:
    """R1: the replay's cards only are compared; a new tie at the top replays again among
    those players only, in play order."""
    state = deal([["KS", "5S", "4S"], ["KH", "5H", "8H"], ["KD", "3D", "QC"],
                  ["2C", "3C", "4C"]])
    for seat, card in enumerate(["KS", "KH", "KD", "2C"]):
        state, _ = play(state, seat, card)
    assert GAME.view(state, None)["tied"] == [0, 1, 2]
    state, _ = play(state, 0, "5S")
    state, _ = play(state, 1, "5H")
    state, events = play(state, 2, "3D")  # lower than 5 though Q beats both: not played
    assert events[-1] == {"type": "tie", "seats": [0, 1], "rank": 5}
    assert GAME.current_seat(state) == 0
    state, _ = play(state, 0, "4S")
    state, events = play(state, 1, "8H")
    assert next(e for e in events if e["type"] == "trick_over")["seat"] == 1
    assert len(state["piles"][1]) == 9


def test_r2_tied_player_may_replay_from_the_stock() -> None:
    """R2: a tied player may replay with the stock's top; it never enters the hand. R6: a
    player still holding 3 cards draws nothing."""
    state = deal([["KS", "2S", "3S"], ["KH", "2H", "3H"], ["4D", "2D", "3D"]],
                 stock=["AC", "5C", "6C", "7C"])
    for seat, card in enumerate(["KS", "KH", "4D"]):
        state, _ = play(state, seat, card)
    state, events = act(state, 0, "stock")
    assert events[0] == {"type": "card_played", "seat": 0, "cards": ["AC"], "phase": 1,
                         "from_stock": True}
    assert state["hands"][0] == ["2S", "3S"]
    state, events = play(state, 1, "2H")
    assert next(e for e in events if e["type"] == "trick_over")["seat"] == 0
    # seat 0 (the winner) draws first: 1 card; seat 1 needs 2; seat 2 needs 1
    assert state["hands"][0] == ["2S", "3S", "5C"]
    assert state["hands"][1] == ["3H", "6C", "7C"]


def test_r3_unbreakable_tie_is_shuffled_onto_won_piles() -> None:
    """R3: a round ends tied at the top and a tied player has no card left in hand (the
    stock does not count): the trick is shuffled and dealt one at a time to the tied players
    in play order, onto their won piles. R4: the first tied player draws first and leads."""
    state = deal([["KS", "5S", "4S"], ["KH", "5H", "4H"], ["2C", "9D", "9H"],
                  ["3C", "9C", "9S"]], stock=["AC", "AD", "AH", "2D"])
    for seat, card in enumerate(["KS", "KH", "2C", "3C"]):
        state, _ = play(state, seat, card)
    for card in ("5", "4"):
        state, _ = play(state, 0, card + "S")
        state, events = play(state, 1, card + "H")
    shared = next(e for e in events if e["type"] == "trick_shared")
    assert shared["seats"] == [0, 1] and shared["counts"] == [4, 4]
    assert "cards" not in shared  # who got which card stays hidden
    assert sorted(state["piles"][0] + state["piles"][1]) == sorted(
        ["KS", "KH", "2C", "3C", "5S", "5H", "4S", "4H"])
    assert state["hands"][0] == ["AC", "AD", "AH"]  # R4: seat 0 draws first
    assert GAME.current_seat(state) == 0
    assert GAME.view(state, 1)["known"][0] == []
    # the receiver knows how many cards it got, not which (they were shuffled unseen)
    assert GAME.view(state, 0)["pile"] == [None] * len(state["piles"][0])


def test_r4_r5_tie_split_shares_the_trick() -> None:
    """R5 ``tie_split``: no replay; tied cards back to their players' won piles; the rest
    ascending: the lowest to the trick's last player, then round the tied players. R4: the
    first tied player counts as the winner."""
    state = deal([["9C", "2S", "2H"], ["KD", "3C", "2D"], ["4S", "3S", "3H"],
                  ["KH", "7D", "3D"], ], stock=["AC", "AD"], tie_split=True)
    for seat, card in enumerate(["9C", "KD", "4S", "KH"]):
        state, events = play(state, seat, card)
    assert not any(e["type"] == "tie" for e in events)
    assert sorted(state["piles"][1]) == ["9C", "KD"]
    assert sorted(state["piles"][3]) == ["4S", "KH"]
    assert state["hands"][1] == ["3C", "2D", "AC"] and GAME.current_seat(state) == 1


def test_r5_tie_split_round_and_round() -> None:
    """R5 with more cards than tied players: 5 players, tie of seats 0 and 2, last player
    seat 4."""
    state = deal([["AS", "2S", "3S"], ["2C", "4S", "5S"], ["AH", "6S", "7S"],
                  ["3C", "8S", "9S"], ["4C", "10S", "JS"]], tie_split=True)
    for seat, card in enumerate(["AS", "2C", "AH", "3C", "4C"]):
        state, _ = play(state, seat, card)
    assert state["piles"][4] == ["2C"]
    assert sorted(state["piles"][0]) == ["3C", "AS"]
    assert sorted(state["piles"][2]) == ["4C", "AH"]


def test_r6_refill_order_after_a_replay() -> None:
    """R6: clockwise from the winner, each draws all they need before the next."""
    state = deal([["9C", "2S", "2H"], ["KD", "3C", "2D"], ["4S", "3S", "3H"],
                  ["KH", "7D", "3D"]], stock=["AC", "AD", "AH", "AS", "KC", "KS"])
    for seat, card in [(0, "9C"), (1, "KD"), (2, "4S"), (3, "KH"), (1, "3C"), (3, "7D")]:
        state, events = play(state, seat, card)
    drawn = [(e["seat"], e["count"]) for e in events if e["type"] == "cards_drawn"]
    assert drawn == [(3, 2), (0, 1), (1, 2), (2, 1)]
    assert state["hands"][3] == ["3D", "AC", "AD"]
    assert state["hands"][0] == ["2S", "2H", "AH"]
    assert state["hands"][1] == ["2D", "AS", "KC"]
    assert state["hands"][2] == ["3S", "3H", "KS"]


def _phase1_trick_starts(seed: int, seats: int):
    """Every phase-1 trick start of a random game: (state before, events, state after)."""
    state, _ = GAME.new_game(seats, seed)
    rng = random.Random(seed)
    while not state["over"] and state["phase"] == 1:
        seat = GAME.current_seat(state)
        before = state
        state, events = GAME.apply(state, seat, rng.choice(GAME.legal_actions(state, seat)))
        if any(e.type == "trick_started" and e.data["phase"] == 1 for e in events):
            yield before, events, state


def test_r8_empty_hands_sit_out_and_lead_passes() -> None:
    """R8: a player with no cards when a phase-1 trick begins sits it out; if the player due
    to lead has none, the next player clockwise with cards leads."""
    passed = 0
    for seed in range(40):
        for _, _events, state in _phase1_trick_starts(seed, 5):
            winner = state["last_winner"]
            holders = [s for s in range(5) if state["hands"][s]]
            order = [(winner + k) % 5 for k in range(5)]
            assert state["round_seats"] == [s for s in order if s in holders]
            assert GAME.current_seat(state) == state["round_seats"][0]
            passed += winner not in holders
    assert passed > 0, "no trick led past an empty hand in these games"


def test_r19_phase_1_moves() -> None:
    """R19: one card per play in phase 1; no pick-up in phase 1."""
    state = deal([["9C", "2S", "2H"], ["KD", "3C", "2D"], ["4S", "3S", "3H"]])
    with pytest.raises(RuleError) as err:
        GAME.apply(state, 0, Action("play", cards=("2S", "2H")))
    assert err.value.code == "one_card_only"
    with pytest.raises(RuleError) as err:
        act(state, 0, "pickup")
    assert err.value.code == "no_pickup_in_phase_1"
    with pytest.raises(RuleError) as err:
        play(state, 0, "KD")
    assert err.value.code == "not_in_hand"
    with pytest.raises(RuleError) as err:
        play(state, 1, "KD")
    assert err.value.code == "not_your_turn"
    assert plays(state, 0) == {("9C",), ("2S",), ("2H",), "stock"}
