"""Koira's phase-2 rulings (R9–R20) through the engine contract."""

from __future__ import annotations

import random

import pytest

from engine.core import RuleError
from tests.engine.koira_helpers import GAME, act, phase2, play, plays


def test_phase_2_begins_with_won_piles() -> None:
    """Phase 2: the won piles become the hands; the last phase-1 winner leads; R9: a player
    who won nothing is still in the game with an empty hand."""
    state, _ = GAME.new_game(6, 11)
    rng = random.Random(11)
    while state["phase"] == 1:
        seat = GAME.current_seat(state)
        before = state
        state, events = GAME.apply(state, seat, rng.choice(GAME.legal_actions(state, seat)))
    assert any(e.type == "phase_changed" for e in events)
    assert sum(len(h) for h in state["hands"]) == 52
    assert all(set(pile) <= set(state["hands"][s]) for s, pile in enumerate(before["piles"]))
    assert state["piles"] == [[]] * 6 and state["stock"] == []
    assert GAME.still_playing(state) == list(range(6))
    leader = GAME.current_seat(state)
    assert leader == state["last_winner"] or not state["hands"][state["last_winner"]]
    assert GAME.progress(state)["phase"] == 2


def test_r9_trick_size_fixed_and_a_lead_may_complete_it() -> None:
    """R9: a trick is complete as soon as it holds as many cards as players in the game when
    it began (a sequence counts every card); a lead can complete it at once."""
    state = phase2([["5C", "6C", "7C", "2D"], ["KD"], ["QD"]], trump="S")
    state, events = play(state, 0, "5C", "6C", "7C")
    assert next(e for e in events if e["type"] == "trick_over")["seat"] == 0
    assert state["trick"] == [] and GAME.current_seat(state) == 0
    assert {"5C", "6C", "7C"} <= set(state["discarded"])


def test_r9_empty_hand_must_pick_up() -> None:
    """R9, R13: a player in the game with no cards can only pick up on a trick."""
    state = phase2([["5C", "2D"], [], ["QD"]], trump="S", turn=1, trick=[(0, ["5C"])])
    assert plays(state, 1) == {"pickup"}


def test_r10_sequences_and_singles_beat_each_other() -> None:
    """R10: a play beats the top when its lowest card beats the top's highest: a sequence on
    a single, a single on a sequence, any trump single on a plain sequence."""
    hand = ["10C", "JC", "QC", "KC", "9C", "3S"]
    state = phase2([["9H"], hand, ["2D"]], trump="S", turn=1, trick=[(0, ["8C"])])
    legal = plays(state, 1)
    assert ("9C", "10C", "JC", "QC", "KC") in legal and ("10C", "JC") in legal
    assert ("3S",) in legal
    state = phase2([["9H"], ["JC", "QC", "KC", "3S", "10D"], ["2D"]], trump="S", turn=1,
                   trick=[(0, ["8C", "9C", "10C"])])
    legal = plays(state, 1)
    assert ("JC",) in legal and ("JC", "QC") in legal and ("3S",) in legal
    assert ("10D",) not in legal
    state = phase2([["9H"], ["9C", "10C", "JC"], ["2D"]], trump="S", turn=1,
                   trick=[(0, ["10C"])])
    assert ("9C", "10C", "JC") not in plays(state, 1)  # its lowest, 9♣, does not beat 10♣
    trumped = phase2([["9H"], ["4S", "5S", "AH"], ["2D"]], trump="S", turn=1,
                     trick=[(0, ["2S", "3S"])])
    assert plays(trumped, 1) == {("4S",), ("5S",), ("4S", "5S"), "pickup"}


def test_r11_pick_up_takes_the_bottom_play_whole() -> None:
    """R11: the "lowest" play is the earliest still lying in the trick; a sequence is
    picked up whole."""
    state = phase2([["AD"], ["2C"], ["KD", "3H"], ["4H"]], trump="S", turn=2,
                   trick=[(0, ["5C", "6C"]), (1, ["7C"])], need=5)
    state, events = act(state, 2, "pickup")
    assert events[0]["cards"] == ["5C", "6C"]
    assert state["trick"] == [[1, ["7C"], False]]


def test_r12_after_a_pick_up_the_next_player_acts() -> None:
    """R12: after a pick-up the next player clockwise still in the game must beat the new
    top or pick up; if the trick is empty, they lead a new trick."""
    state = phase2([["AD"], ["3C", "4H"], ["KD", "3H"], ["4D"]], trump="S", turn=2,
                   trick=[(0, ["5C"]), (1, ["7C"])], out=[3], need=4)
    state, _ = act(state, 2, "pickup")
    assert GAME.current_seat(state) == 0 and plays(state, 0) == {"pickup"}
    state, events = act(state, 0, "pickup")
    assert events[-1]["type"] == "trick_started" and events[-1]["leader"] == 1
    assert state["trick"] == [] and state["need"] == 3
    assert plays(state, 1) == {("3C",), ("4H",)}  # a lead: no pick-up


def test_r13_lead_skips_empty_hands() -> None:
    """R13: a pick-up empties the trick; the next player holds no card, so the one after
    them leads."""
    state = phase2([["5C", "6D"], [], ["3H", "4C"]], trump="S", turn=2, trick=[(0, ["9H"])],
                   need=3)
    state, events = act(state, 2, "pickup")
    assert events[-1] == {"type": "trick_started", "phase": 2, "trick": 21, "leader": 0}
    assert GAME.current_seat(state) == 0


def test_r14_out_at_once_mid_trick() -> None:
    """R14: emptying the hand puts the player out at once, even mid-trick; their cards stay
    in the trick (and may be picked up); turns skip them."""
    state = phase2([["5C", "2D"], ["9C"], ["3H", "4H"], ["6H"]], trump="S", turn=1,
                   trick=[(0, ["8C"])])
    state, events = play(state, 1, "9C")
    assert {"type": "player_out", "seat": 1, "place": 1} in events
    assert state["trick"][-1] == [1, ["9C"], False]
    assert GAME.current_seat(state) == 2 and not GAME.view(state, None)["in_game"][1]
    state, _ = act(state, 2, "pickup")
    assert "8C" in state["hands"][2] and GAME.current_seat(state) == 3
    assert plays(state, 3) == {"pickup"}
    state, _ = act(state, 3, "pickup")
    assert GAME.current_seat(state) == 0 and state["trick"] == []  # the leader after 3


def test_r15_trick_won_by_a_player_going_out() -> None:
    """R15: a complete trick leaves the game even if its winner went out with that play; the
    next player clockwise still in the game leads."""
    state = phase2([["5C", "2D"], ["KD"], ["9C"]], trump="S", turn=2,
                   trick=[(0, ["7C"]), (1, ["8C"])], need=3)
    state, events = play(state, 2, "9C")
    assert [e["type"] for e in events] == ["card_played", "player_out", "trick_over",
                                           "trick_started"]
    assert {"7C", "8C", "9C"} <= set(state["discarded"]) and state["trick"] == []
    assert GAME.current_seat(state) == 0 and state["need"] == 2


def test_r16_nobody_left_holding_cards() -> None:
    """R16 corner: no player in the game holds a card: they are placed clockwise from the
    seat after the last player who went out; the last of them is the koira."""
    state = phase2([[], ["5C", "6C"], [], []], trump="S", turn=1, out=[], need=2)
    state, events = play(state, 1, "5C", "6C")
    assert GAME.is_over(state)
    assert GAME.placements(state) == [4, 1, 2, 3]
    assert events[-1]["koira"] == 0


def test_r17_trump_ends_trick() -> None:
    """R17 ``trump_ends_trick``: a trump on a trick not led with trump ends it at once, won
    by that player who leads next; only sequences starting with a 2 are valid."""
    options = {"trump_ends_trick": True}
    state = phase2([["5C", "2D"], ["3S", "KH"], ["9H", "4C"], ["6H"]], trump="S", turn=1,
                   trick=[(0, ["8C"])], need=4, **options)
    state, events = play(state, 1, "3S")
    assert next(e for e in events if e["type"] == "trick_over")["seat"] == 1
    assert GAME.current_seat(state) == 1 and state["trick"] == []
    led = phase2([["5S", "2D"], ["7S", "KH"], ["9H", "4C"], ["6H"]], trump="S", turn=1,
                 trick=[(0, ["4S"])], need=4, **options)
    led, events = play(led, 1, "7S")
    assert not any(e["type"] == "trick_over" for e in events) and GAME.current_seat(led) == 2
    seqs = phase2([["2C", "3C", "4C", "6C", "7C"], ["KH"], ["9H"]], trump="S", **options)
    assert {p for p in plays(seqs, 0) if len(p) > 1} == {("2C", "3C"), ("2C", "3C", "4C")}
    with pytest.raises(RuleError) as err:
        play(seqs, 0, "6C", "7C")
    assert err.value.code == "bad_sequence"


def test_r18_pickup_single() -> None:
    """R18 ``pickup_single``: only the lowest card of the bottom play is picked up; the rest
    of that sequence stays in the trick and still counts."""
    state = phase2([["9C", "AD"], ["2C"], ["KD", "3H"], ["8C", "4H"]], trump="S", turn=2,
                   trick=[(0, ["5C", "6C"]), (1, ["7C"])], need=4, pickup_single=True)
    state, events = act(state, 2, "pickup")
    assert events[0]["cards"] == ["5C"]
    assert state["trick"] == [[0, ["6C"], False], [1, ["7C"], False]]
    state, events = play(state, 3, "8C")  # 6♣ 7♣ 8♣: 3 of the 4 cards
    assert not any(e["type"] == "trick_over" for e in events)
    state, events = play(state, 0, "9C")
    assert next(e for e in events if e["type"] == "trick_over")["seat"] == 0


def test_r19_phase_2_moves() -> None:
    """R19: no stock play in phase 2; a leader cannot pick up."""
    state = phase2([["5C", "2D"], ["KD"], ["9C"]], trump="S")
    with pytest.raises(RuleError) as err:
        act(state, 0, "stock")
    assert err.value.code == "no_stock_in_phase_2"
    with pytest.raises(RuleError) as err:
        act(state, 0, "pickup")
    assert err.value.code == "nothing_to_pick_up"
    with pytest.raises(RuleError) as err:
        play(state, 0, "2D", "5C")
    assert err.value.code == "bad_sequence"


def test_r20_aces_high_only() -> None:
    """R20: K-A is a sequence, A-2 is not; ``min_sequence`` 3 drops the pairs."""
    state = phase2([["KS", "AS", "2S", "3S"], ["KD"], ["9C"]], trump="H")
    assert {p for p in plays(state, 0) if len(p) > 1} == {("KS", "AS"), ("2S", "3S")}
    with pytest.raises(RuleError):
        play(state, 0, "AS", "2S")
    three = phase2([["KS", "AS", "QS", "3S"], ["KD"], ["9C"]], trump="H", min_sequence=3)
    assert {p for p in plays(three, 0) if len(p) > 1} == {("QS", "KS", "AS")}
