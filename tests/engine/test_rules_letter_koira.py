"""The Koira engine to the letter of ``shared/rules/koira.md``: rare situations.

Each test builds a rare situation through the engine's public API (``GAMES``, ``Game.apply``,
``legal_actions``, ``view``) and checks what the rules text says, quoting it with its
``file:line``. Situations the older rulings tests leave open: ties that narrow, shares that
end phase 1, a player going out as the game ends, options interacting (``trump_ends_trick``
with ``min_sequence``, ``pickup_single`` with the trick size).
"""

from __future__ import annotations

import pytest

from tests.engine.koira_helpers import GAME as KOIRA
from tests.engine.koira_helpers import act, deal, phase1_end, phase2, play, plays
from tests.engine.koira_rulings_helpers import _of, _raises, _seqs, _with_stock

# =============================================================================================
# Koira, phase 1
# =============================================================================================


def test_koira_r1_r3_narrowed_tie_is_shared_only_by_the_players_still_tied() -> None:
    """koira.md:55-57 R1 "if it ties again at the top, only those players replay again";
    koira.md:60-63 R3 "one of the players still tied has no card left in hand ... all cards
    of the trick are shuffled and dealt one at a time to the players still tied, in play
    order, onto their won piles"; koira.md:64-65 R4 the first tied player "draw[s] first and
    lead[s] the next trick"; koira.md:74-75 R8 "if the player due to lead has no cards, the
    next player clockwise who has cards leads".

    Three kings tie; in the replay seats 0 and 1 tie again with fives and seat 0 has no card
    left: the 7 cards go 4 to seat 0 and 3 to seat 1, none to seat 2 (tied in the first
    round only). Seat 0 would lead but holds nothing: seat 1 leads."""
    state = phase1_end([["KS", "5S"], ["KH", "5H", "2C"], ["KD", "3D"], ["4C"]], leader=0)
    piles = [len(p) for p in state["piles"]]
    for seat, card in enumerate(["KS", "KH", "KD", "4C"]):
        state, events = play(state, seat, card)
    assert _of(events, "tie")[0]["seats"] == [0, 1, 2]
    state, _ = play(state, 0, "5S")
    state, _ = play(state, 1, "5H")
    state, events = play(state, 2, "3D")
    assert not _of(events, "tie")
    [shared] = _of(events, "trick_shared")
    assert shared["seats"] == [0, 1] and shared["how"] == "shuffled"
    assert shared["counts"] == [4, 3]
    grown = [len(p) - n for p, n in zip(state["piles"], piles, strict=True)]
    assert grown == [4, 3, 0, 0]
    assert state["hands"][0] == [] and KOIRA.current_seat(state) == 1
    assert state["round_seats"] == [1]


@pytest.mark.parametrize("tie_split", [False, True])
def test_koira_r4_shared_last_trick_first_tied_in_play_order_leads_phase_2(
        tie_split: bool) -> None:
    """koira.md:64-65 R4 "A trick shared without a single winner (R3, or `tie_split`) counts
    as won by the first tied player in play order: they draw first and lead the next trick
    (or phase 2)"; koira.md:18-19 "remainder: in seat order from the leader"; koira.md:66-69
    R5 "the lowest onto the won pile of the player who played last in the trick".

    The last phase-1 trick is led by seat 1: K♥ (seat 1), 3♣ (seat 2), K♠ (seat 0); the tie
    cannot break (no cards left). Seat 1, first tied in play order (not seat 0, the lower
    seat), leads phase 2. R3: 3 cards, 2 to seat 1 and 1 to seat 0. R5: each king back to its
    player, the 3♣ to seat 0 (the last to play)."""
    state = phase1_end([["KS"], ["KH"], ["3C"]], leader=1, tie_split=tie_split)
    piles = [list(p) for p in state["piles"]]
    for seat, card in [(1, "KH"), (2, "3C"), (0, "KS")]:
        state, events = play(state, seat, card)
    [shared] = _of(events, "trick_shared")
    assert shared["seats"] == [1, 0]
    if tie_split:
        assert shared["shares"] == {"1": ["KH"], "0": ["KS", "3C"]}
    else:
        assert shared["counts"] == [2, 1]
    assert state["phase"] == 2 and _of(events, "phase_changed")
    assert KOIRA.current_seat(state) == 1
    assert sorted(state["hands"][2]) == sorted(piles[2])  # seat 2 got nothing of the trick
    assert len(state["hands"][1]) == len(piles[1]) + (1 if tie_split else 2)


def test_koira_r2_stock_replay_takes_the_stock_to_one_then_nobody_may_play_it() -> None:
    """koira.md:58-59 R2 "A tied player may replay with the top stock card instead of a hand
    card, under the same rule (only while the stock holds at least 2 cards)"; koira.md:20-22
    "so the last stock card is never played blind"; koira.md:70-71 R6 "A player still
    holding 3 draws nothing"; koira.md:25-26 "The player who draws the last stock card shows
    it to everyone; its suit is trump".

    K♠ and K♥ tie; the stock holds A♣ 5♣. Seat 0 replays A♣ from the stock (1 left): seat 1
    may not turn up the last card. A♣ wins all 5 cards; seat 0 draws the last card 5♣:
    clubs are trump, face up in seat 0's hand."""
    state = _with_stock(deal([["KS", "2S", "3S"], ["KH", "2H", "3H"], ["4D", "2D", "3D"]]),
                        ["AC", "5C"])
    for seat, card in enumerate(["KS", "KH", "4D"]):
        state, _ = play(state, seat, card)
    assert "stock" in plays(state, 0)
    state, _ = act(state, 0, "stock")
    assert state["stock"] == ["5C"] and state["hands"][0] == ["2S", "3S"]
    assert "stock" not in plays(state, 1)
    _raises("stock_too_small", act, state, 1, "stock")
    state, events = play(state, 1, "3H")
    [won] = _of(events, "trick_over")
    assert won["seat"] == 0 and sorted(won["cards"]) == sorted(["KS", "KH", "4D", "AC", "3H"])
    assert [(e["seat"], e["count"]) for e in _of(events, "cards_drawn")] == [(0, 1)]
    assert _of(events, "trump_revealed") == [
        {"type": "trump_revealed", "seat": 0, "card": "5C", "suit": "C"}]
    assert KOIRA.view(state, 2)["face_up"] == [0, "5C"] and KOIRA.view(state, None)[
        "trump"] == "C"


def test_koira_r5_every_player_tied_each_takes_back_their_card() -> None:
    """koira.md:66-69 R5 `tie_split`: "Each tied card goes onto its player's won pile; the
    other cards ... go one at a time" — with every player tied there are no other cards, so
    nobody receives more than their own; R4 the first tied player draws first and leads."""
    state = deal([["KS", "2S", "3S"], ["KH", "2H", "3H"], ["KD", "2D", "3D"]], tie_split=True)
    for seat, card in enumerate(["KS", "KH", "KD"]):
        state, events = play(state, seat, card)
    assert state["piles"] == [["KS"], ["KH"], ["KD"]]
    assert _of(events, "cards_drawn")[0]["seat"] == 0 and KOIRA.current_seat(state) == 0


def test_koira_face_up_trump_card_played_in_phase_1_trump_stays() -> None:
    """koira.md:25-26 "its suit is **trump** for phase 2. They keep it in hand, face up, and
    may play it as normal": once played in phase 1 it is no longer face up in a hand, and the
    trump stays for phase 2; in phase 1 it counts by rank only."""
    state = _with_stock(deal([["KS", "5S", "2D"], ["QH", "3H", "4D"], ["2C", "9D", "9C"]]),
                        ["7H"])
    for seat, card in enumerate(["KS", "QH", "2C"]):
        state, _ = play(state, seat, card)
    assert state["face_up"] == [0, "7H"] and state["trump"] == "H"
    state, _ = play(state, 0, "7H")
    assert state["face_up"] is None and state["trump"] == "H"
    state, _ = play(state, 1, "4D")
    state, events = play(state, 2, "9D")
    assert _of(events, "trick_over")[0]["seat"] == 2  # 9♦ beats the trump 7♥ in phase 1


# =============================================================================================
# Koira, phase 2
# =============================================================================================


def test_koira_r9_next_trick_size_counts_only_the_players_still_in_the_game() -> None:
    """koira.md:78-82 R9 "A trick is complete as soon as the cards lying in it ... are at
    least as many as the players in the game when it began": a player went out in the
    trick before, so the next trick is complete at 3 cards, not 4."""
    state = phase2([["5C", "9H", "2D"], ["6C"], ["7C", "JH", "3D"], ["8C", "3H", "4H"]],
                   trump="S", turn=0, need=4)
    events = []
    for seat, card in enumerate(["5C", "6C", "7C", "8C"]):
        state, evs = play(state, seat, card)
        events += evs
    assert _of(events, "player_out")[0]["seat"] == 1
    assert _of(events, "trick_over")[0]["seat"] == 3
    assert state["need"] == 3 and KOIRA.current_seat(state) == 3
    state, _ = play(state, 3, "3H")
    state, _ = play(state, 0, "9H")
    state, events = play(state, 2, "JH")
    assert _of(events, "trick_over")[0] == {"type": "trick_over", "phase": 2, "trick": 21,
                                            "seat": 2, "cards": ["3H", "9H", "JH"]}


def test_koira_r12_pick_up_turn_skips_a_player_who_is_out() -> None:
    """koira.md:88-89 R12 "After a pick-up the next player clockwise still in the game
    acts: they must beat the new top or pick up; if the pick-up emptied the trick, they lead
    a new trick"; koira.md:93-94 R14 "turns then skip them"."""
    state = phase2([["5D", "2D"], ["3H", "4H"], [], ["9D", "8D"]], trump="S", turn=1,
                   out=[2], trick=[(3, ["5C"]), (0, ["9C"])], need=3)
    state, _ = act(state, 1, "pickup")
    assert state["trick"] == [[0, ["9C"], False]] and KOIRA.current_seat(state) == 3
    state = phase2([["5D", "2D"], ["3H", "4H"], [], ["9D", "8D"]], trump="S", turn=1,
                   out=[2], trick=[(0, ["9C"])], need=3)
    state, events = act(state, 1, "pickup")
    assert _of(events, "trick_over")[0]["seat"] is None
    assert KOIRA.current_seat(state) == 3 and state["trick"] == []


def test_koira_r14_r16_last_card_completes_the_trick_and_ends_the_game() -> None:
    """koira.md:93-100 R14/R15/R16: a player whose play empties their hand is out at once; "A
    complete trick's cards leave the game even if its winner went out with that play"; "The
    game ends as soon as only one player is still in the game; that player is the koira ...
    the others are placed in the order they went out"."""
    state = phase2([["9C"], ["2D", "3D"], []], trump="S", turn=0, out=[2],
                   trick=[(1, ["6C"])], need=2)
    state, events = play(state, 0, "9C")
    assert [e["type"] for e in events] == ["card_played", "player_out", "trick_over",
                                           "game_over"]
    assert _of(events, "trick_over")[0]["seat"] == 0
    assert {"6C", "9C"} <= set(state["discarded"]) and state["trick"] == []
    assert KOIRA.placements(state) == [2, 3, 1] and events[-1]["koira"] == 1


def test_koira_r17_trump_cut_with_the_last_card_ends_the_game() -> None:
    """koira.md:101-103 R17 `trump_ends_trick`: "a trump play ... on a trick whose lead was
    not a trump ends it at once, won by that player"; with R14/R16 the cutter goes out and
    one player is left: the cut trick's cards leave the game and the game ends."""
    state = phase2([["4S"], ["2D", "3D"], []], trump="S", turn=0, out=[2],
                   trick=[(2, ["5C"]), (1, ["6C"])], need=4, trump_ends_trick=True)
    state, events = play(state, 0, "4S")
    assert [e["type"] for e in events] == ["card_played", "player_out", "trick_over",
                                           "game_over"]
    assert _of(events, "trick_over")[0] == {"type": "trick_over", "phase": 2, "trick": 20,
                                            "seat": 0, "cards": ["5C", "6C", "4S"],
                                            "trump_cut": True}  # (3 of its 4 cards)
    assert KOIRA.placements(state) == [2, 3, 1]


def test_koira_r17_a_trump_lead_is_no_cut_and_trumps_then_beat_normally() -> None:
    """koira.md:101-103 R17: "on a trump-led trick trumps follow the normal rules": a trump
    sequence led from 2 does not end the trick; a 4♠ beats 2♠3♠ (its highest is 3♠) and does
    not end it either (3 cards of 4); a lower trump does not beat."""
    state = phase2([["2S", "3S", "9D"], ["4S", "KD"], ["5D", "6D"], ["7D", "8D"]],
                   trump="S", turn=0, need=4, trump_ends_trick=True)
    state, events = play(state, 0, "2S", "3S")
    assert not _of(events, "trick_over") and KOIRA.current_seat(state) == 1
    state, events = play(state, 1, "4S")
    assert not _of(events, "trick_over") and KOIRA.current_seat(state) == 2
    assert plays(state, 2) == {"pickup"}


def test_koira_r17_with_minimum_three_sequences_start_at_2_and_hold_3() -> None:
    """koira.md:35-36 "A **sequence** is 2 or more cards ... *(option: minimum 3)*" with
    koira.md:101-103 R17 "Sequences of any suit are valid only if their lowest card is a 2":
    both options together allow 2-3-4 (and 2-3-4-5), never 2-3 or 3-4-5."""
    state = phase2([["2C", "3C", "4C", "5C", "9D"], ["KD"], ["9C"]], trump="H",
                   trump_ends_trick=True, min_sequence=3)
    assert _seqs(state, 0) == {("2C", "3C", "4C"), ("2C", "3C", "4C", "5C")}
    _raises("bad_sequence", play, state, 0, "2C", "3C")
    _raises("bad_sequence", play, state, 0, "3C", "4C", "5C")


def test_koira_r18_pickup_single_cards_left_still_count_towards_the_trick() -> None:
    """koira.md:104-105 R18 `pickup_single`: "a pick-up takes only the lowest card of the
    bottom play; the rest of that sequence stays in the trick and still counts"; R9 the trick
    is complete at 4 cards lying: 5♣6♣ + 7♣ is 3 (not complete), + 8♣ is 4 (complete, won by
    the last to play)."""
    state = phase2([["2D", "3D"], ["AD", "KD"], ["7C", "KC"], ["8C", "QD"]], trump="S",
                   turn=1, trick=[(0, ["4C", "5C", "6C"])], need=4, pickup_single=True)
    state, _ = act(state, 1, "pickup")
    state, events = play(state, 2, "7C")
    assert not _of(events, "trick_over") and KOIRA.current_seat(state) == 3
    state, events = play(state, 3, "8C")
    assert _of(events, "trick_over")[0]["seat"] == 3
    assert _of(events, "trick_over")[0]["cards"] == ["5C", "6C", "7C", "8C"]


def test_koira_r18_pickup_single_of_a_lone_single_empties_the_trick() -> None:
    """koira.md:104-105 R18 with koira.md:46-47 "If a pick-up empties the trick, the player
    after the one who picked up leads the next trick": a single card is all of its play."""
    state = phase2([["2D", "3D"], ["AD", "KD"], ["7C", "KC"]], trump="S", turn=1,
                   trick=[(0, ["9C"])], pickup_single=True)
    state, events = act(state, 1, "pickup")
    assert _of(events, "picked_up")[0]["cards"] == ["9C"]
    assert state["trick"] == [] and KOIRA.current_seat(state) == 2


def test_koira_r20_runs_up_to_the_ace_and_never_round_the_corner() -> None:
    """koira.md:109 R20 "Aces are high only: K-A is a sequence, A-2 is not": J-Q-K-A and
    its parts are sequences; nothing wraps from A to 2."""
    state = phase2([["JS", "QS", "KS", "AS", "2S"], ["KD"], ["9C"]], trump="H")
    assert _seqs(state, 0) == {("JS", "QS"), ("JS", "QS", "KS"), ("JS", "QS", "KS", "AS"),
                               ("QS", "KS"), ("QS", "KS", "AS"), ("KS", "AS")}
    _raises("bad_sequence", play, state, 0, "KS", "AS", "2S")
