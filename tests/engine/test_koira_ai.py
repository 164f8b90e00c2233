"""The Koira computer player: legal, deterministic, from its view only, and sensible where a
careless player goes wrong (a trick to win or to dump on, a trump to keep, a pick-up)."""

from __future__ import annotations

import random

from engine.core import Action
from engine.koira.ai import choose_action, greedy_action, legal_plays
from tests.engine.koira_helpers import GAME, deal, phase2, play


def decide(state: dict, seat: int, seed: int = 0) -> Action:
    return GAME.ai_action(GAME.view(state, seat), random.Random(seed))


def test_view_legal_plays_match_the_engine() -> None:
    for seed in range(6):
        state, _ = GAME.new_game(3 + seed, seed, {"min_sequence": 2 + seed % 2,
                                                  "trump_ends_trick": seed % 3 == 0})
        rng = random.Random(seed)
        while not state["over"]:
            seat = GAME.current_seat(state)
            legal = GAME.legal_actions(state, seat)
            assert legal_plays(GAME.view(state, seat)) == legal
            action = choose_action(GAME.view(state, seat), random.Random(seed))
            assert action in legal
            assert greedy_action(GAME.view(state, seat), random.Random(1)) in legal
            state, _ = GAME.apply(state, seat, rng.choice([action, rng.choice(legal)]))


def test_deterministic_for_a_seed_and_blind_to_hidden_cards() -> None:
    state = deal([["9C", "2S", "AH"], ["KD", "3C", "2D"], ["4S", "3S", "3H"]])
    first = decide(state, 0, seed=5)
    assert all(decide(state, 0, seed=5) == first for _ in range(5))
    # swap two hidden hands: seat 0's view is unchanged, so is its decision
    other = dict(state, hands=[state["hands"][0], state["hands"][2], state["hands"][1]])
    assert GAME.view(other, 0) == GAME.view(state, 0)
    assert decide(other, 0, seed=5) == first


def test_phase1_wins_a_rich_trick_with_the_cheapest_winner() -> None:
    state = deal([["KS", "2S", "3S"], ["QH", "2H", "3H"], ["AD", "KD", "4C"]])
    state, _ = play(state, 0, "2S")
    state, _ = play(state, 1, "QH")
    assert decide(state, 2) == Action("play", cards=("KD",))


def test_phase1_dumps_the_lowest_on_a_lost_trick() -> None:
    state = deal([["AS", "2S", "3S"], ["9D", "2C", "KH"], ["4D", "5D", "6D"]])
    state, _ = play(state, 0, "AS")
    assert decide(state, 1) == Action("play", cards=("2C",))


def test_phase1_keeps_a_known_trump() -> None:
    state = deal([["AS", "2S", "3S"], ["3H", "5C", "9D"], ["4D", "5D", "6D"]])
    state, _ = play(state, 0, "AS")
    state = dict(state, trump="H", trump_card="2H")
    assert decide(state, 1) == Action("play", cards=("5C",))


def test_phase2_beats_with_the_lowest_card_that_beats() -> None:
    state = phase2([["9S", "2D", "3D", "4D", "5D"], ["10S", "KS", "AH", "2C", "4C"],
                    ["7D", "8D", "9D", "10D", "JD"]], trump="H", turn=1, trick=[(0, ["9S"])])
    assert decide(state, 1) == Action("play", cards=("10S",))


def test_phase2_leads_a_sequence_to_shed_faster() -> None:
    state = phase2([["5C", "6C", "7C", "KD", "AS"], ["2D", "3D", "4D", "5D", "6D"],
                    ["7D", "8D", "9D", "10D", "JD"], ["2S", "3S", "4S", "5S", "6S"]],
                   trump="H")
    action = decide(state, 0)
    assert action.cards is not None and len(action.cards) == 3 and action.cards[0] == "5C"


def test_phase2_picks_up_rather_than_waste_a_high_trump_early() -> None:
    state = phase2([["3C", "2D", "3D", "4D", "5D"], ["AH", "KD", "2S", "4S", "6C"],
                    ["7D", "8D", "9D", "10D", "JD"]], trump="H", turn=1, trick=[(0, ["3C"])])
    # 6♣ beats 3♣ cheaply: it plays that, not the ace of trumps
    assert decide(state, 1) == Action("play", cards=("6C",))
    state = phase2([["3C", "2D", "3D", "4D", "5D"], ["AH", "KD", "2S", "4S", "6D"],
                    ["7D", "8D", "9D", "10D", "JD"]], trump="H", turn=1, trick=[(0, ["3C"])])
    assert decide(state, 1) == Action("pickup")


def test_phase2_goes_out_when_it_can() -> None:
    state = phase2([["3C", "2D", "3D"], ["AH"], ["7D", "8D"]], trump="H", turn=1,
                   trick=[(0, ["3C"])])
    assert decide(state, 1) == Action("play", cards=("AH",))


def test_random_level_plays_legal_moves() -> None:
    state = deal([["9C", "2S", "AH"], ["KD", "3C", "2D"], ["4S", "3S", "3H"]])
    for seed in range(10):
        action = GAME.ai_action(GAME.view(state, 0), random.Random(seed), level="random")
        assert action in GAME.legal_actions(state, 0)
