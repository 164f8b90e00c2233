"""Koira to the letter: the phase-1 rulings (R1–R8) and text, and how phase 2 begins."""

from __future__ import annotations

import json

from engine.koira.cards import DECK
from tests.engine.koira_helpers import GAME, act, deal, phase1_end, play, plays
from tests.engine.koira_rulings_helpers import _of, _raises, _singles, _with_stock


def test_phase1_suits_do_not_matter_and_highest_rank_wins() -> None:
    """"Suits do not matter and nobody must follow or beat. The highest rank wins the
    trick." Every hand card is playable; a 3 of another suit beats a 2 of the led suit."""
    state = deal([["2C", "KS", "AH"], ["3D", "4S", "5S"], ["2D", "2H", "2S"]])
    assert _singles(state, 0) == {"2C", "KS", "AH"}
    state, _ = play(state, 0, "2C")
    assert _singles(state, 1) == {"3D", "4S", "5S"}  # no need to follow clubs or beat
    state, _ = play(state, 1, "3D")
    state, events = play(state, 2, "2D")
    assert _of(events, "trick_over")[0]["seat"] == 1


def test_phase1_trump_does_not_count_in_phase_1() -> None:
    """Phase 1 compares ranks only, even once the trump is known (R7 only makes it known):
    2♠ with spades trump loses to 3♣."""
    state = phase1_end([["2S"], ["3C"], ["2D"]], leader=0)
    assert state["trump"] == "S"
    for seat, card in enumerate(["2S", "3C", "2D"]):
        state, events = play(state, seat, card)
    assert _of(events, "trick_over")[0]["seat"] == 1


def test_phase1_stock_card_counts_for_the_player_and_can_win() -> None:
    """"a player may turn up the top card of the stock and play it (it cannot go into their
    hand)": the stock card competes like a hand card and its player wins with it."""
    state = deal([["9C", "2S", "2H"], ["KD", "3C", "5S"], ["4S", "3S", "3H"]],
                 stock=["AC", "8D", "8H", "8C"])
    state, _ = play(state, 0, "9C")
    state, _ = act(state, 1, "stock")           # A♣ from the stock
    assert state["hands"][1] == ["KD", "3C", "5S"]
    state, events = play(state, 2, "4S")
    assert _of(events, "trick_over")[0]["seat"] == 1
    assert sorted(state["piles"][1]) == ["4S", "9C", "AC"]
    # R6: the winner still holds 3 cards and draws nothing; seat 2, then seat 0, draw
    assert [(e["seat"], e["count"]) for e in _of(events, "cards_drawn")] == [(2, 1), (0, 1)]


def test_r1_only_the_replay_round_is_compared() -> None:
    """R1: tied players replay in play order; only the replay round's cards are compared
    (the Q♣ of the first round no longer counts); the winner takes every card."""
    state = deal([["KS", "3C", "4S"], ["KH", "2D", "4H"], ["QC", "5C", "6C"],
                  ["2C", "7C", "8C"]])
    for seat, card in enumerate(["KS", "KH", "QC", "2C"]):
        state, _ = play(state, seat, card)
    assert GAME.current_seat(state) == 0
    state, _ = play(state, 0, "3C")
    state, events = play(state, 1, "2D")
    won = _of(events, "trick_over")[0]
    assert won["seat"] == 0 and len(won["cards"]) == 6


def test_r1_second_tie_only_those_players_replay_in_play_order() -> None:
    """R1: "if it ties again at the top, only those players replay again" — three tied, the
    first and third tie again; the middle one is done."""
    state = deal([["9S", "5S", "2S"], ["9H", "4H", "AH"], ["9D", "5D", "3D"],
                  ["2C", "3C", "4C"]])
    for seat, card in enumerate(["9S", "9H", "9D", "2C"]):
        state, _ = play(state, seat, card)
    assert GAME.view(state, None)["tied"] == [0, 1, 2]
    state, _ = play(state, 0, "5S")
    state, _ = play(state, 1, "4H")
    state, events = play(state, 2, "5D")
    assert _of(events, "tie") == [{"type": "tie", "seats": [0, 2], "rank": 5}]
    assert GAME.current_seat(state) == 0 and GAME.legal_actions(state, 1) == []
    state, _ = play(state, 0, "2S")
    state, events = play(state, 2, "3D")
    won = _of(events, "trick_over")[0]
    assert won["seat"] == 2 and len(won["cards"]) == 9


def test_r2_tied_player_replays_from_the_stock_only_while_it_holds_two() -> None:
    """R2: a tied player may replay with the top stock card, only while the stock holds at
    least 2 cards."""
    state = deal([["KS", "2S", "3S"], ["KH", "2H", "3H"], ["4D", "2D", "3D"]])
    for seat, card in enumerate(["KS", "KH", "4D"]):
        state, _ = play(state, seat, card)
    tied = json.loads(json.dumps(state))
    assert "stock" in plays(tied, 0)
    low = json.loads(json.dumps(state))
    extra = low["stock"][1:]
    low["stock"] = low["stock"][:1]
    low["piles"][2] = extra
    assert "stock" not in plays(low, 0)
    _raises("stock_too_small", act, low, 0, "stock")


def test_r3_unbreakable_tie_shuffled_share_with_remainder_in_play_order() -> None:
    """R3: a round ends tied at the top and a tied player has no card left in hand (the stock
    does not count, though it holds plenty): all cards of the trick are dealt one at a time
    to the tied players in play order onto their won piles (7 cards: 4 and 3). R4: the first
    tied player draws first and leads."""
    state = deal([["KS", "5S", "4S"], ["KH", "5H", "4H"], ["2C", "9D", "9H"]])
    # three rounds tie; then seats 0 and 1 hold no card (the stock still holds 43)
    for seat, card in enumerate(["KS", "KH", "2C"]):
        state, _ = play(state, seat, card)
    state, _ = play(state, 0, "5S")
    state, events = play(state, 1, "5H")
    assert _of(events, "tie")
    assert len(state["stock"]) >= 2
    state, _ = play(state, 0, "4S")
    state, events = play(state, 1, "4H")
    shared = _of(events, "trick_shared")
    assert shared and shared[0]["seats"] == [0, 1] and shared[0]["how"] == "shuffled"
    assert shared[0]["counts"] == [4, 3]
    assert len(state["piles"][0]) == 4 and len(state["piles"][1]) == 3
    assert sorted(state["piles"][0] + state["piles"][1]) == sorted(
        ["KS", "KH", "2C", "5S", "5H", "4S", "4H"])
    assert [e["seat"] for e in _of(events, "cards_drawn")][0] == 0
    assert GAME.current_seat(state) == 0


def test_r3_first_round_tie_with_an_empty_hand_is_shared_not_replayed() -> None:
    """R3 right away: the stock is empty and a tied player has no card left after the first
    round: no replay, the trick is shared between the tied players."""
    state = phase1_end([["KD"], ["KH", "3C"], ["5S", "6S"]], leader=0)
    for seat, card in enumerate(["KD", "KH", "5S"]):
        state, events = play(state, seat, card)
    assert not _of(events, "tie")
    shared = _of(events, "trick_shared")
    assert shared and shared[0]["seats"] == [0, 1] and shared[0]["counts"] == [2, 1]


def test_r4_r5_tie_split_lowest_to_last_player_who_is_tied() -> None:
    """R5 ``tie_split``: tied cards to their players' won piles; the other cards ascending:
    the lowest (2♠) to the player who played last (seat 3, itself tied), then the rest to the
    tied players in play order (5♣ to seat 1). R4: seat 1 counts as winner: draws first and
    leads."""
    state = deal([["5C", "9S", "9H"], ["KD", "2D", "3D"], ["2S", "4D", "4H"],
                  ["KH", "5D", "5H"]], tie_split=True)
    for seat, card in enumerate(["5C", "KD", "2S", "KH"]):
        state, events = play(state, seat, card)
    assert not _of(events, "tie")
    assert sorted(state["piles"][1]) == ["5C", "KD"]
    assert sorted(state["piles"][3]) == ["2S", "KH"]
    assert state["piles"][0] == state["piles"][2] == []
    assert _of(events, "cards_drawn")[0]["seat"] == 1 and GAME.current_seat(state) == 1


def test_r5_tie_split_equal_ranks_in_play_order_round_and_round() -> None:
    """R5: equal ranks keep play order; 3 tied players of 6: others 4♣(seat1) 4♦(seat3)
    2♣(seat5) sorted: 2♣ to the last player (seat 5), then 4♣ to seat 0, 4♦ to seat 2."""
    state = deal([["QS", "2S", "3S"], ["4C", "5S", "6S"], ["QH", "7S", "8S"],
                  ["4D", "9S", "10S"], ["QD", "JS", "KS"], ["2C", "AS", "2H"]],
                 tie_split=True)
    for seat, card in enumerate(["QS", "4C", "QH", "4D", "QD", "2C"]):
        state, _ = play(state, seat, card)
    assert state["piles"][5] == ["2C"]
    assert sorted(state["piles"][0]) == ["4C", "QS"]
    assert sorted(state["piles"][2]) == ["4D", "QH"]
    assert state["piles"][4] == ["QD"]
    assert state["piles"][1] == state["piles"][3] == []


def test_r6_refill_clockwise_from_winner_until_stock_runs_out() -> None:
    """R6: refilling goes clockwise from the winner, each drawing all they need before the
    next; the stock runs out part way and the player who draws the last card shows it
    (trump)."""
    state = _with_stock(deal([["2S", "2H", "2D"], ["3S", "3H", "3D"], ["AS", "4H", "4D"],
                              ["5S", "5H", "5D"]]), ["6C", "7C", "8C", "9C", "JH"])
    state, _ = play(state, 0, "2S")
    state, _ = play(state, 1, "3S")
    state, _ = act(state, 2, "stock")  # 6♣ from the stock; seat 2 keeps 3 cards
    state, events = play(state, 3, "5S")
    # 6♣ (seat 2's stock card) beats 5♠: seat 2 wins, holds 3, draws nothing;
    # then seat 3 (1), seat 0 (1), seat 1 (1): 7♣ 8♣ 9♣; J♥ stays
    assert _of(events, "trick_over")[0]["seat"] == 2
    assert [(e["seat"], e["count"]) for e in _of(events, "cards_drawn")] == [
        (3, 1), (0, 1), (1, 1)]
    assert state["stock"] == ["JH"] and state["trump"] is None
    # next trick: seat 2 leads and wins; it alone needs a card and draws the last one
    for seat, card in [(2, "AS"), (3, "5H"), (0, "2H"), (1, "3H")]:
        state, events = play(state, seat, card)
    assert [(e["seat"], e["count"]) for e in _of(events, "cards_drawn")] == [(2, 1)]
    assert _of(events, "trump_revealed")[0]["seat"] == 2 and state["trump"] == "H"


def test_r6_r7_winner_draws_two_and_the_second_is_the_last_stock_card() -> None:
    """R6 + "The player who draws the last stock card shows it to everyone": the winner of a
    replayed trick needs 2 cards and takes both remaining stock cards; the second, 7♥, is
    the last one: hearts are trump, known to all at once (R7); nobody else draws."""
    state = _with_stock(deal([["KS", "5S", "2D"], ["KH", "3H", "4D"], ["2C", "9D", "9C"]]),
                        ["5C", "7H"])
    for seat, card in enumerate(["KS", "KH", "2C"]):
        state, _ = play(state, seat, card)
    state, _ = play(state, 0, "5S")
    state, events = play(state, 1, "3H")
    assert _of(events, "trick_over")[0]["seat"] == 0
    assert [(e["seat"], e["count"]) for e in _of(events, "cards_drawn")] == [(0, 2)]
    assert _of(events, "trump_revealed") == [
        {"type": "trump_revealed", "seat": 0, "card": "7H", "suit": "H"}]
    assert sorted(state["hands"][0]) == sorted(["2D", "5C", "7H"])
    assert GAME.view(state, 2)["face_up"] == [0, "7H"]


def test_r8_empty_hand_sits_out_and_lead_passes_clockwise() -> None:
    """R8: a player with no cards when a phase-1 trick begins sits it out; the player due
    to lead has none, so the next player clockwise with cards leads."""
    state = phase1_end([["4C"], [], ["9D", "2H"], ["5S"]], leader=1)
    assert GAME.current_seat(state) == 2 and state["round_seats"] == [2, 3, 0]
    state, _ = play(state, 2, "9D")
    state, _ = play(state, 3, "5S")
    state, events = play(state, 0, "4C")
    assert _of(events, "trick_over")[0]["seat"] == 2
    # next trick: only seat 2 holds cards; it plays alone and wins it
    assert state["round_seats"] == [2]
    state, events = play(state, 2, "2H")
    assert _of(events, "trick_over")[0]["seat"] == 2
    assert state["phase"] == 2 and GAME.current_seat(state) == 2


def test_phase2_begins_with_won_piles_and_empty_handed_player_must_pick_up() -> None:
    """Phase 2: "Each player takes up the cards they won in phase 1 as their new hand. A
    player who won nothing still takes part with an empty hand (and so must pick up in the
    first trick). The winner of the last phase-1 trick leads the first phase-2 trick.\""""
    state = phase1_end([["KD"], ["2C"], ["3C"]], leader=0)
    rest = [c for c in DECK if c not in ("KD", "2C", "3C")]
    state["piles"] = [rest[:20], rest[20:], []]
    for seat, card in enumerate(["KD", "2C", "3C"]):
        state, events = play(state, seat, card)
    assert state["phase"] == 2 and _of(events, "phase_changed")
    assert sorted(state["hands"][0]) == sorted(rest[:20] + ["KD", "2C", "3C"])
    assert state["hands"][2] == [] and GAME.still_playing(state) == [0, 1, 2]
    assert GAME.current_seat(state) == 0 and state["need"] == 3
    state, _ = play(state, 0, "8H")
    state, _ = play(state, 1, "9H")
    assert GAME.current_seat(state) == 2 and plays(state, 2) == {"pickup"}


def test_phase2_trump_known_from_phase_1_carries_over() -> None:
    """R7 and phase 2: the trump revealed in phase 1 is the trump of phase 2."""
    state = phase1_end([["KD"], ["2C"], ["3C"]], leader=0)
    state["trump"], state["trump_card"] = "D", "QD"
    for seat, card in enumerate(["KD", "2C", "3C"]):
        state, _ = play(state, seat, card)
    assert state["phase"] == 2 and GAME.view(state, 1)["trump"] == "D"
