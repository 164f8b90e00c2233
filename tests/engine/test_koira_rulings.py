"""The Koira engine against ``shared/rules/koira.md``, to the letter (a rules lawyer's review).

One test (or more) per worked scenario of the rules file, set up exactly, and per ruling
R1–R20, each checked to the letter of the rules text; plus checks that ``view(state, seat)``
never shows another player's hidden cards or the stock's order. Pure engine, fast.
A failing test here means the engine departs from the rules text.
"""

from __future__ import annotations

import json
import random

import pytest

from engine.core import Action, RuleError
from engine.koira.cards import DECK
from tests.engine.koira_helpers import (
    GAME,
    act,
    deal,
    phase1_end,
    phase2,
    play,
    plays,
)


# --- helpers ---------------------------------------------------------------------------------
def _of(events: list[dict], kind: str) -> list[dict]:
    return [e for e in events if e["type"] == kind]


def _singles(state: dict, seat: int) -> set[str]:
    return {p[0] for p in plays(state, seat) if isinstance(p, tuple) and len(p) == 1}


def _seqs(state: dict, seat: int) -> set[tuple[str, ...]]:
    return {p for p in plays(state, seat) if isinstance(p, tuple) and len(p) > 1}


def _raises(code: str, fn, *args) -> None:
    with pytest.raises(RuleError) as err:
        fn(*args)
    assert err.value.code == code


def _with_stock(state: dict, stock: list[str]) -> dict:
    """``state`` (phase 1, nothing played yet) with the stock replaced by ``stock``; the
    cards taken out are set aside on seat 0's won pile so that all 52 stay accounted for."""
    state = json.loads(json.dumps(state))
    held = {c for h in state["hands"] for c in h} | set(stock)
    state["stock"] = list(stock)
    state["piles"][0] = [c for c in DECK if c not in held]
    return state


def _all_cards(state: dict) -> list[str]:
    return (
        [c for h in state["hands"] for c in h] + [c for p in state["piles"] for c in p]
        + list(state["stock"]) + list(state["discarded"])
        + [c for p in state["trick"] for c in p[1]]
    )


# ============================================================================================
# Worked scenarios (koira.md "Worked scenarios"), one test each, set up exactly
# ============================================================================================
def test_scenario_1_kings_tie_replay_3c_vs_7d() -> None:
    """| 4 players, phase 1: 9♣, K♦, 4♠, K♥ | K♦ and K♥ tie: those two play again, 3♣ vs 7♦ →
    the K♥ player wins all 6 cards and leads |"""
    state = deal([["9C", "2S", "2H"], ["KD", "3C", "5S"], ["4S", "3S", "3H"],
                  ["KH", "7D", "4D"]])
    for seat, card in enumerate(["9C", "KD", "4S", "KH"]):
        state, events = play(state, seat, card)
    assert _of(events, "tie") == [{"type": "tie", "seats": [1, 3], "rank": 13}]
    assert not _of(events, "trick_over")
    # only the two tied players play again, in play order (K♦ player first)
    assert GAME.current_seat(state) == 1
    assert GAME.legal_actions(state, 0) == [] and GAME.legal_actions(state, 2) == []
    _raises("not_your_turn", play, state, 3, "7D")
    _raises("not_your_turn", play, state, 0, "2S")
    state, _ = play(state, 1, "3C")
    state, events = play(state, 3, "7D")
    won = _of(events, "trick_over")
    assert len(won) == 1 and won[0]["seat"] == 3
    six = ["9C", "KD", "4S", "KH", "3C", "7D"]
    assert sorted(won[0]["cards"]) == sorted(six)
    assert sorted(state["piles"][3]) == sorted(six)          # face down before the winner
    assert state["piles"][0] == state["piles"][1] == state["piles"][2] == []
    assert not set(six) & {c for h in state["hands"] for c in h}  # never back into a hand
    assert GAME.current_seat(state) == 3                       # the K♥ player leads
    assert _of(events, "trick_started")[-1]["leader"] == 3
    assert all(len(h) == 3 for h in state["hands"])            # everyone refilled to 3


def test_scenario_2_tie_below_the_top_is_no_tie() -> None:
    """| 3 players, phase 1: Q♠, 5♥, 5♦ | Q♠ wins (a tie below the top is no tie) |"""
    for options in ({}, {"tie_split": True}):
        state = deal([["QS", "2S", "3S"], ["5H", "2H", "3H"], ["5D", "2D", "3D"]],
                     **options)
        for seat, card in enumerate(["QS", "5H", "5D"]):
            state, events = play(state, seat, card)
        assert not _of(events, "tie") and not _of(events, "trick_shared")
        assert _of(events, "trick_over")[0]["seat"] == 0
        assert sorted(state["piles"][0]) == ["5D", "5H", "QS"]
        assert GAME.current_seat(state) == 0


def test_scenario_3_last_stock_card_is_never_played_blind() -> None:
    """| stock holds 1 card; a player wants to play it blind | not allowed | (Phase 1: "Allowed
    only while the stock holds at least 2 cards, so the last stock card is never played
    blind.")"""
    base = deal([["9C", "2S", "2H"], ["KD", "3C", "5S"], ["4S", "3S", "3H"]])
    one = _with_stock(base, ["AC"])
    assert "stock" not in plays(one, 0)
    _raises("stock_too_small", act, one, 0, "stock")
    for seat in (None, 0, 1, 2):
        assert GAME.view(one, seat)["can_stock"] is False
    # with 2 cards it is allowed; once one is played, the next player may not take the last
    two = _with_stock(base, ["AC", "KC"])
    assert "stock" in plays(two, 0) and GAME.view(two, 0)["can_stock"] is True
    two, events = act(two, 0, "stock")
    assert events[0]["cards"] == ["AC"] and events[0]["from_stock"] is True
    assert two["hands"][0] == ["9C", "2S", "2H"]  # never into the hand
    assert two["stock"] == ["KC"]
    assert "stock" not in plays(two, 1)
    _raises("stock_too_small", act, two, 1, "stock")


def test_scenario_4_last_stock_card_7h_is_trump_and_face_up() -> None:
    """| last stock card drawn is 7♥ | hearts are trump; the drawer keeps 7♥ face up |
    R7: the trump is known to everyone from the moment the last stock card is drawn."""
    state = _with_stock(deal([["2S", "9C", "9D"], ["3S", "10C", "10D"],
                              ["AS", "JC", "JD"]]), ["5C", "7H"])
    for seat in (None, 0, 1, 2):
        assert GAME.view(state, seat)["trump"] is None
    for seat, card in enumerate(["2S", "3S"]):
        state, _ = play(state, seat, card)
    state, events = play(state, 2, "AS")
    # seat 2 wins and draws first (5♣), then seat 0 draws the last card, 7♥
    assert [(e["seat"], e["count"]) for e in _of(events, "cards_drawn")] == [(2, 1), (0, 1)]
    shown = _of(events, "trump_revealed")
    assert shown == [{"type": "trump_revealed", "seat": 0, "card": "7H", "suit": "H"}]
    assert state["phase"] == 1 and "7H" in state["hands"][0]
    for seat in (None, 0, 1, 2):
        view = GAME.view(state, seat)
        assert view["trump"] == "H" and view["trump_card"] == "7H"
        assert view["face_up"] == [0, "7H"]
    assert "7H" in GAME.view(state, 1)["known"][0]
    # "They keep it in hand, face up, and may play it as normal."
    state, _ = play(state, 2, "JC")
    assert ("7H",) in plays(state, 0)
    state, _ = play(state, 0, "7H")
    assert GAME.view(state, 1)["face_up"] is None


def test_scenario_5_what_beats_9_spades_with_hearts_trump() -> None:
    """| trump ♥, top of trick 9♠ | 10♠…A♠ or any ♥ beats it; after 2♥ only a higher ♥
    beats |"""
    spades = [r + "S" for r in ("2", "3", "4", "5", "6", "7", "8", "10", "J", "Q", "K", "A")]
    hearts = [r + "H" for r in ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K",
                                "A")]
    hand = spades + hearts + ["AD", "KD", "AC"]
    state = phase2([["9S", "3C"], hand, ["4D"], ["5D"]], trump="H", turn=1,
                   trick=[(0, ["9S"])])
    assert _singles(state, 1) == {"10S", "JS", "QS", "KS", "AS"} | set(hearts)
    state, events = play(state, 1, "2H")
    assert not _of(events, "trick_over") and GAME.current_seat(state) == 2
    # after 2♥ only a higher ♥ beats: no spade (not even A♠), no other suit
    after = phase2([["3C"], ["4D"], [c for c in hand if c != "2H"], ["5D"]], trump="H",
                   turn=2, trick=[(0, ["9S"]), (1, ["2H"])], need=4)
    assert _singles(after, 2) == set(hearts) - {"2H"}
    _raises("does_not_beat", play, after, 2, "AS")
    _raises("does_not_beat", play, after, 2, "AD")


def test_scenario_6_must_pick_up_6_clubs() -> None:
    """| trump ♠, trick [6♣, 9♣], next player has no ♣ above 9 and no ♠ | must pick up 6♣ |"""
    state = phase2([["AD", "2D"], ["KD", "3D"], ["8C", "2C", "AH", "QD"],
                    ["4D"]], trump="S", turn=2, trick=[(0, ["6C"]), (1, ["9C"])])
    assert plays(state, 2) == {"pickup"}
    for card in ("8C", "2C", "AH", "QD"):
        _raises("does_not_beat", play, state, 2, card)
    state, events = act(state, 2, "pickup")
    assert _of(events, "picked_up") == [{"type": "picked_up", "seat": 2, "cards": ["6C"]}]
    assert "6C" in state["hands"][2] and "9C" not in state["hands"][2]
    assert state["trick"] == [[1, ["9C"], False]]
    assert GAME.current_seat(state) == 3  # "Their turn ends."


def test_scenario_7_last_two_players_one_plays_last_card() -> None:
    """| 2 players hold cards; one plays their last card | that player is out; the other is
    the koira |"""
    # 4 seats, seats 0 and 2 already out in that order; seat 3 leads its last card
    state = phase2([[], ["KD", "3S", "4H"], [], ["5C"]], trump="S", turn=3, out=[0, 2])
    state, events = play(state, 3, "5C")
    assert _of(events, "player_out") == [{"type": "player_out", "seat": 3, "place": 3}]
    assert GAME.is_over(state) and GAME.current_seat(state) is None
    assert GAME.placements(state) == [1, 4, 2, 3]
    assert events[-1]["type"] == "game_over" and events[-1]["koira"] == 1
    # and as a beat, mid-trick (R14/R16): seat 0 beats with its last card
    state = phase2([["KC"], ["2D", "3D"], []], trump="S", turn=0, out=[2],
                   trick=[(1, ["9C"])])
    state, events = play(state, 0, "KC")
    assert GAME.is_over(state) and GAME.view(state, None)["koira"] == 1


# ============================================================================================
# Phase 1 rulings and text
# ============================================================================================
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


# ============================================================================================
# Phase 2 rulings
# ============================================================================================
def test_r9_trick_size_fixed_when_a_player_goes_out_mid_trick() -> None:
    """R9: the number that completes a trick is fixed when it begins (4 here, an empty-handed
    player counts); a player going out does not lower it."""
    state = phase2([["5C", "2D"], ["9C"], ["10C", "3H"], []], trump="S", turn=0)
    assert state["need"] == 4
    state, _ = play(state, 0, "5C")
    state, events = play(state, 1, "9C")            # out
    assert _of(events, "player_out") and not _of(events, "trick_over")
    state, events = play(state, 2, "10C")           # 3 cards of 4: not complete
    assert not _of(events, "trick_over") and GAME.current_seat(state) == 3
    state, _ = act(state, 3, "pickup")              # takes 5♣: 2 cards left
    assert GAME.current_seat(state) == 0 and len(state["trick"]) == 2


def test_r9_sequence_cards_each_count_and_lead_completes() -> None:
    """R9: every card of a sequence counts; a lead can complete a trick at once; the cards
    leave the game and the same player leads."""
    state = phase2([["5C", "6C", "7C", "8C", "2D"], ["KD"], ["QD"], ["JD"]], trump="S")
    state, events = play(state, 0, "5C", "6C", "7C", "8C")
    assert _of(events, "trick_over")[0]["seat"] == 0
    assert {"5C", "6C", "7C", "8C"} <= set(state["discarded"])
    assert GAME.current_seat(state) == 0


def test_r9_overshoot_completes() -> None:
    """R9: "at least as many" — a 2-card sequence on 2 cards of a 3-player trick completes
    it (4 ≥ 3); the last player to have played wins."""
    state = phase2([["5C", "2D"], ["6C", "7C", "3D"], ["QD"]], trump="S", turn=1,
                   trick=[(0, ["3C", "4C"])], need=3)
    state, events = play(state, 1, "6C", "7C")
    assert _of(events, "trick_over")[0]["seat"] == 1


def test_r10_beating_sequences_and_singles() -> None:
    """R10: a play beats the top when its lowest card beats the top's highest card by the
    single-card rule."""
    # plain sequence 8♣9♣10♣ on top; trump ♠
    state = phase2([["2D"], ["JC", "QC", "KC", "10D", "2S", "3S"], ["4D"]],
                   trump="S", turn=1, trick=[(0, ["8C", "9C", "10C"])], need=5)
    legal = plays(state, 1)
    assert {("JC",), ("QC",), ("KC",), ("JC", "QC"), ("QC", "KC"), ("JC", "QC", "KC"),
            ("2S",), ("3S",), ("2S", "3S")} | {"pickup"} == legal
    # a plain play never beats a trump; a trump sequence beats a trump only from above
    state = phase2([["2D"], ["JC", "QC", "4S", "5S", "6S"], ["4D"]], trump="S", turn=1,
                   trick=[(0, ["3S"])], need=5)
    assert plays(state, 1) == {("4S",), ("5S",), ("6S",), ("4S", "5S"), ("5S", "6S"),
                               ("4S", "5S", "6S"), "pickup"}
    # a sequence whose lowest is not above the top's highest does not beat it
    state = phase2([["2D"], ["9C", "10C", "JC"], ["4D"]], trump="S", turn=1,
                   trick=[(0, ["10C"])], need=5)
    assert plays(state, 1) == {("JC",), "pickup"}
    _raises("does_not_beat", play, state, 1, "9C", "10C", "JC")
    _raises("does_not_beat", play, state, 1, "10C", "JC")


def test_r11_pick_up_takes_the_bottom_play_even_if_a_single_is_lower() -> None:
    """R11: the "lowest" play is the bottom one, the earliest still lying in the trick: a
    bottom sequence 5♣6♣ is taken whole."""
    state = phase2([["AD"], ["2C"], ["KD", "3H"], ["4H"], ["5H"]], trump="S", turn=2,
                   trick=[(0, ["5C", "6C"]), (1, ["7C"])], need=6)
    state, events = act(state, 2, "pickup")
    assert _of(events, "picked_up")[0]["cards"] == ["5C", "6C"]
    assert state["trick"] == [[1, ["7C"], False]]
    assert sorted(state["hands"][2]) == sorted(["KD", "3H", "5C", "6C"])


def test_r12_pickup_emptying_trick_next_player_leads() -> None:
    """R12 / "If a pick-up empties the trick, the player after the one who picked up leads
    the next trick" — and the new trick's size counts the players in the game now."""
    state = phase2([["5C", "2D"], ["3H"], ["4H", "6H"]], trump="S", turn=1,
                   trick=[(0, ["9C"])])
    state, events = act(state, 1, "pickup")
    assert _of(events, "trick_over")[0]["seat"] is None
    assert GAME.current_seat(state) == 2 and state["trick"] == []
    assert "pickup" not in plays(state, 2)


def test_r13_empty_hand_cannot_lead_and_can_only_pick_up() -> None:
    """R13: the lead passes over an in-game player holding no cards; on a trick holding
    cards such a player can only pick up. The trick still counts that player (R9)."""
    state = phase2([["KC"], [], ["3H", "4C"], ["5D"]], trump="S", turn=0,
                   trick=[], need=4)
    state, events = play(state, 0, "KC")           # out; the trick holds 1 of 4
    assert GAME.current_seat(state) == 1 and plays(state, 1) == {"pickup"}
    _raises("not_in_hand", play, state, 1, "AC")
    state, events = act(state, 1, "pickup")         # empties the trick
    # the player after seat 1 leads: seat 2
    assert GAME.current_seat(state) == 2 and state["need"] == 3


def test_r13_complete_trick_winner_then_lead_skips_empty() -> None:
    """R15 + R13: a trick completed by a player going out; the next player clockwise still in
    the game holds nothing, so the lead passes on to the next one holding cards."""
    state = phase2([["9C"], [], ["4D", "5D"]], trump="S", turn=0,
                   trick=[(2, ["3C"])], need=2)
    state, events = play(state, 0, "9C")
    assert _of(events, "player_out") and _of(events, "trick_over")[0]["seat"] == 0
    assert GAME.current_seat(state) == 2


def test_r14_player_out_mid_trick_cards_stay_and_can_be_picked_up() -> None:
    """R14: out at once; the cards they played stay in the trick; others may pick them up;
    turns skip them."""
    state = phase2([["5C", "6C"], ["AH", "2H"], ["9H", "8D"], ["2D", "3D"]], trump="S",
                   turn=0, trick=[(3, ["4C"])], need=4)
    state, events = play(state, 0, "5C", "6C")    # out with a sequence
    assert _of(events, "player_out")[0]["seat"] == 0
    assert state["trick"][-1] == [0, ["5C", "6C"], False]
    assert not _of(events, "trick_over")          # 3 of 4 cards
    assert GAME.current_seat(state) == 1
    state, _ = act(state, 1, "pickup")             # takes 4♣; trick [5♣6♣]
    state, events = act(state, 2, "pickup")        # takes 5♣6♣ (a sequence, whole)
    assert _of(events, "picked_up")[0]["cards"] == ["5C", "6C"]
    assert GAME.current_seat(state) == 3 and state["trick"] == []
    state, _ = play(state, 3, "2D")
    assert GAME.current_seat(state) == 1           # seat 0 is skipped


def test_r15_winner_went_out_next_player_leads() -> None:
    """R15: a complete trick's cards leave the game even if its winner went out with that
    play; the next player clockwise still in the game leads."""
    state = phase2([["5C", "2D"], ["7D"], ["9C"], ["AH", "2H"]], trump="S", turn=2,
                   trick=[(0, ["6C"]), (1, ["7C"])], need=3)
    state, events = play(state, 2, "9C")
    assert _of(events, "player_out")[0]["seat"] == 2
    assert _of(events, "trick_over")[0]["seat"] == 2
    assert {"6C", "7C", "9C"} <= set(state["discarded"]) and state["trick"] == []
    assert GAME.current_seat(state) == 3


def test_r16_corner_case_nobody_in_the_game_holds_a_card() -> None:
    """R16 corner: "if no player still in the game holds a card, they are placed in
    clockwise order from the seat after the last player who went out, and the last of them
    is the koira." Seats 3 and 1 go out (in that order) completing the trick; seats 2 and 0
    remain empty-handed: from seat 2: 2, then 0 — seat 0 is the koira."""
    state = phase2([[], ["2C", "3C"], [], ["4H", "5H"]], trump="S", turn=3, need=4)
    state, events = play(state, 3, "4H", "5H")
    assert _of(events, "player_out")[0]["seat"] == 3 and not GAME.is_over(state)
    assert GAME.current_seat(state) == 0 and plays(state, 0) == {"pickup"}
    # the corner itself: seat 1 then completes the trick with its last cards
    state = phase2([[], ["6S", "7S"], [], ["4H", "5H"]], trump="S", turn=1, need=4,
                   trick=[(3, ["4H", "5H"])], out=[3])
    state, events = play(state, 1, "6S", "7S")     # trump sequence: 4 cards, complete
    assert GAME.is_over(state)
    assert GAME.placements(state) == [4, 2, 3, 1]
    assert events[-1]["koira"] == 0


def test_r16_others_placed_in_order_they_went_out() -> None:
    """R16: the others are placed in the order they went out; the one left is the koira."""
    state = phase2([["KC"], ["2D", "3D"], [], ["AC"]], trump="S", turn=0, out=[2])
    state, _ = play(state, 0, "KC")                # seat 0 out (2nd)
    assert state["out"] == [2, 0] and not GAME.is_over(state)
    state, _ = act(state, 1, "pickup")             # empties the trick; seat 3 leads
    assert GAME.current_seat(state) == 3
    state, events = play(state, 3, "AC")           # seat 3 out (3rd): seat 1 is the koira
    assert GAME.is_over(state) and GAME.placements(state) == [2, 4, 1, 3]
    assert events[-1]["koira"] == 1


def test_r17_trump_ends_trick_variants() -> None:
    """R17 ``trump_ends_trick``: a trump play (single or sequence) on a trick whose lead was
    not a trump ends it at once, won by that player, who leads next; sequences of any suit
    valid only if their lowest card is a 2."""
    opts = {"trump_ends_trick": True}
    # a trump sequence from 2 cuts a plain trick at once
    state = phase2([["8C", "2D"], ["2S", "3S", "KH"], ["9H", "4C"], ["6H"]], trump="S",
                   turn=1, trick=[(0, ["5C"])], need=4, **opts)
    assert ("2S", "3S") in plays(state, 1)
    state, events = play(state, 1, "2S", "3S")
    won = _of(events, "trick_over")
    assert won and won[0]["seat"] == 1 and GAME.current_seat(state) == 1
    # a trump sequence not from 2 is not valid
    state = phase2([["8C", "2D"], ["5S", "6S", "KH"], ["9H", "4C"], ["6H"]], trump="S",
                   turn=1, trick=[(0, ["5C"])], need=4, **opts)
    assert ("5S", "6S") not in plays(state, 1)
    _raises("bad_sequence", play, state, 1, "5S", "6S")
    # the cut with the player's last card: R15, the next player in the game leads
    state = phase2([["8C", "2D"], ["4S"], ["9H", "4C"], ["6H"]], trump="S",
                   turn=1, trick=[(0, ["5C"])], need=4, **opts)
    state, events = play(state, 1, "4S")
    assert _of(events, "trick_over")[0]["seat"] == 1 and GAME.current_seat(state) == 2
    # trump-led trick: trumps follow the normal rules (no cut)
    state = phase2([["4S", "2D"], ["7S", "KH"], ["9H", "4C"], ["6H"]], trump="S",
                   turn=1, trick=[(0, ["3S"])], need=4, **opts)
    state, events = play(state, 1, "7S")
    assert not _of(events, "trick_over") and GAME.current_seat(state) == 2


def test_r18_pickup_single_remaining_part_is_top_and_counts() -> None:
    """R18 ``pickup_single``: a pick-up takes only the lowest card of the bottom play; the
    rest of that sequence stays in the trick and still counts."""
    state = phase2([["2D", "3D"], ["AD"], ["7C", "KC"], ["8D"]], trump="S", turn=1,
                   trick=[(0, ["4C", "5C", "6C"])], need=5, pickup_single=True)
    state, events = act(state, 1, "pickup")
    assert _of(events, "picked_up")[0]["cards"] == ["4C"]
    assert state["trick"] == [[0, ["5C", "6C"], False]]
    assert GAME.current_seat(state) == 2
    assert _singles(state, 2) == {"7C", "KC"}       # must beat 6♣, the top's highest
    state, _ = play(state, 2, "7C")                 # 5♣ 6♣ 7♣: 3 of 5
    state, _ = act(state, 3, "pickup")              # takes 5♣
    assert state["trick"] == [[0, ["6C"], False], [2, ["7C"], False]]


def test_r19_phase_rules_for_actions() -> None:
    """R19: phase 1 one card; pick-ups only in phase 2 on a trick holding cards; no stock
    play in phase 2."""
    state = deal([["9C", "2S", "2H"], ["KD", "3C", "2D"], ["4S", "3S", "3H"]])
    _raises("one_card_only", GAME.apply, state, 0, Action("play", cards=("2S", "2H")))
    _raises("no_pickup_in_phase_1", act, state, 0, "pickup")
    state = phase2([["5C", "2D"], ["KD"], ["9C"]], trump="S")
    _raises("nothing_to_pick_up", act, state, 0, "pickup")
    _raises("no_stock_in_phase_2", act, state, 0, "stock")


def test_r20_aces_high_only() -> None:
    """R20: K-A is a sequence, A-2 is not; an ace beats a king."""
    state = phase2([["KS", "AS", "2S", "3S"], ["KD"], ["9C"]], trump="H")
    assert _seqs(state, 0) == {("KS", "AS"), ("2S", "3S")}
    _raises("bad_sequence", play, state, 0, "AS", "2S")
    _raises("bad_sequence", play, state, 0, "AS", "2S", "3S")
    state = phase2([["2D"], ["AC", "2C"], ["9H"]], trump="H", turn=1, trick=[(0, ["KC"])])
    assert _singles(state, 1) == {"AC"}


def test_min_sequence_three() -> None:
    """"A sequence is 2 or more cards ... (option: minimum 3)"."""
    state = phase2([["5C", "6C", "7C", "9D"], ["KD"], ["9C"]], trump="H", min_sequence=3)
    assert _seqs(state, 0) == {("5C", "6C", "7C")}
    _raises("bad_sequence", play, state, 0, "5C", "6C")
    state = phase2([["5C", "6C", "7C", "9D"], ["KD"], ["9C"]], trump="H")
    assert _seqs(state, 0) == {("5C", "6C"), ("6C", "7C"), ("5C", "6C", "7C")}


def test_phase2_may_pick_up_even_when_able_to_beat() -> None:
    """"A player who cannot, or does not want to, beat must pick up"."""
    state = phase2([["2D"], ["AC", "2C"], ["9H"]], trump="H", turn=1, trick=[(0, ["KC"])])
    assert "pickup" in plays(state, 1)
    state, events = act(state, 1, "pickup")
    assert "KC" in state["hands"][1]


# ============================================================================================
# Whole games: conservation and hidden information in view()
# ============================================================================================
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
