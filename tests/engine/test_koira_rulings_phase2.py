"""Koira to the letter: the phase-2 rulings (R9–R20) and sequences."""

from __future__ import annotations

from engine.core import Action
from tests.engine.koira_helpers import GAME, act, deal, phase2, play, plays
from tests.engine.koira_rulings_helpers import _of, _raises, _seqs, _singles


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


def test_r9_a_player_removed_before_the_lead_is_not_counted() -> None:
    """R9 counts "the players in the game when it began": a trick begins with its lead.
    Before the fix a player removed (a leave, timeouts) while another was about to lead
    was still counted, so the next trick of three players needed four cards."""
    state = phase2([["5C", "2D"], ["9C", "3D"], ["10C", "3H"], ["JC", "4H"]], trump="S",
                   turn=0)
    assert state["need"] == 4
    state, _ = GAME.apply(state, 2, Action("resign"))
    assert state["need"] == 3 and GAME.current_seat(state) == 0
    state, _ = play(state, 0, "5C")
    state, _ = play(state, 1, "9C")
    state, events = play(state, 3, "JC")            # 3 cards of 3: complete
    assert _of(events, "trick_over")[0]["seat"] == 3
