"""The Coyote engine to the letter of ``shared/rules/coyote.md``: rare situations.

Each test builds a rare situation through the engine's public API (``GAMES``, ``Game.apply``,
``legal_actions``, ``view``) and checks what the rules text says, quoting it with its
``file:line``. Situations the older rulings tests leave open: special cards arriving by a
Draw 1, an Extra feather or a ``?``, a Change answered by a call that eliminates, the
``after_elimination`` option, the poker-deck's equal totals and its ``Q`` and ``K``.
"""

from __future__ import annotations

from tests.engine.specials_helpers import CALL, bid, coin, lost, make, showdown, types
from tests.engine.specials_helpers import GAME as COYOTE
from tests.engine.specials_helpers import play as cplay

# =============================================================================================
# Coyote
# =============================================================================================


def test_coyote_change_answered_by_a_call_that_eliminates_the_winner_starts() -> None:
    """coyote.md:62-64 Change: "the previous player must replace their bid with a higher one
    (or ... call Coyote on the bid before theirs, if there is one)"; coyote.md:49-50 "If the
    loser was eliminated, the winner of the showdown starts".

    Seat 1 answers seat 2's Change by calling seat 0's bid of 5; the total 19 holds, so seat 1
    (the caller, on its last life) is eliminated: seat 0, the winner, starts — not seat 2, who
    used Change."""
    state = make("classic", ["5", "10", "3", "1"], lives=[3, 1, 3, 3], turn=0)
    state, _ = cplay(state, (0, bid(5)), (1, bid(6)), (2, coin("change")))
    assert COYOTE.current_seat(state) == 1
    state, events = cplay(state, (1, CALL))
    data = showdown(events)
    assert (data["bid"], data["bidder"], data["caller"], data["loser"]) == (5, 0, 1, 1)
    assert lost(events) == [{"seat": 1, "lives": 0, "amount": 1}]
    assert state["starter"] == 0 and COYOTE.current_seat(state) == 0


def test_coyote_double_on_an_equal_total_costs_the_caller_two_lives() -> None:
    """coyote.md:24 "total ≥ last bid (equal included): ... the **caller** loses";
    coyote.md:56-57 Double: "if the next player calls Coyote on this bid, the loser of that
    showdown loses two lives"."""
    state = make("classic", ["5", "10", "3"], turn=0)
    state, events = cplay(state, (0, bid(18, "double")), (1, CALL))
    assert showdown(events)["total"] == 18
    assert lost(events) == [{"seat": 1, "lives": 1, "amount": 2}]


def test_coyote_draw1_card_is_a_night_full_reshuffle_after_the_showdown() -> None:
    """coyote.md:59-60 Draw 1: the card "counts in the total"; coyote.md:46-47 "`night` —
    counts 0. After this showdown, the draw pile, discard pile and every card in play are
    shuffled together into a new draw pile"."""
    state = make("classic", ["5", "10", "3"], top=("night",), turn=0)
    state, _ = cplay(state, (0, bid(2, "draw1", 2)))
    assert state["extra"][2] == ["night"]
    state, events = cplay(state, (1, CALL))
    assert showdown(events)["total"] == 18
    assert "night" in [e.data["reason"] for e in events if e.type == "reshuffled"]
    assert state["discard"] == []


def test_coyote_draw1_card_is_the_highest_positive_so_max0_zeroes_it() -> None:
    """coyote.md:42 "`max0` — the single highest **positive** number card counts 0" and the
    Draw 1 card "counts in the total" (coyote.md:60): a drawn 15 is the one zeroed."""
    state = make("classic", ["max0", "10", "3"], top=("15",), turn=0)
    state, events = cplay(state, (0, bid(13, "draw1", 1)), (1, CALL))
    data = showdown(events)
    assert data["total"] == 13 and data["loser"] == 1


def test_coyote_x2_doubles_a_negative_draw1_card_too() -> None:
    """coyote.md:45 "`x2` — the sum is doubled, negative cards included": (10 + 3 − 10) × 2."""
    state = make("classic", ["x2", "10", "3"], top=("-10",), turn=0)
    state, events = cplay(state, (0, bid(7, "draw1", 2)), (1, CALL))
    data = showdown(events)
    assert data["total"] == 6 and data["loser"] == 0


def test_coyote_draw1_then_question_mark_turns_up_the_next_card() -> None:
    """coyote.md:39-40 "`?` — turn up the top card of the draw pile" at the showdown: the
    Draw 1 already took the old top (4), so `?` turns up the 10: 4 + 5 + 3 + 10."""
    state = make("classic", ["?", "5", "3"], top=("4", "10"), turn=0)
    state, events = cplay(state, (0, bid(22, "draw1", 1)), (1, CALL))
    data = showdown(events)
    assert data["drawn"] == ["10"] and data["total"] == 22 and data["loser"] == 1


def test_coyote_after_elimination_next_option_wraps_past_an_eliminated_seat() -> None:
    """coyote.md:49-50 "If the loser was eliminated, the winner of the showdown starts
    *(option: the next surviving player after the loser)*": loser seat 4, seat 0 is already
    out, so the next survivor is seat 1 (the winner, seat 3, by default)."""
    for after, expected in (("winner", 3), ("next", 1)):
        state = make("classic", [None, "5", "10", "3", "1"], lives=[0, 3, 3, 3, 1], turn=3,
                     specials=False)
        state["options"]["after_elimination"] = after
        state, events = cplay(state, (3, bid(1)), (4, CALL))
        assert lost(events) == [{"seat": 4, "lives": 0, "amount": 1}]
        assert state["starter"] == expected and COYOTE.current_seat(state) == expected


def test_feathers_question_mark_turns_up_0b_which_reshuffles_all_30() -> None:
    """coyote.md:78 "`?` — turn up the top feather and add it (a blue one takes effect)";
    coyote.md:83 "`0b` — counts 0; after the showdown all 30 feathers are reshuffled"."""
    state = make("feathers", ["?", "5", "3"], top=("0b",), turn=0, specials=False)
    state, events = cplay(state, (0, bid(8)), (1, CALL))
    assert showdown(events)["total"] == 8
    assert "night" in [e.data["reason"] for e in events if e.type == "reshuffled"]
    assert state["discard"] == [] and len(state["draw"]) == 30 - 3


def test_feathers_swapped_away_question_mark_draws_nothing() -> None:
    """coyote.md:95-96 Swap: "the old one no longer counts": a swapped-away `?` turns up
    nothing at the showdown."""
    state = make("feathers", ["?", "5", "3"], top=("4", "10"), turn=0)
    state, _ = cplay(state, (0, coin("swap")), (0, bid(12)))
    state, events = cplay(state, (1, CALL))
    data = showdown(events)
    assert data["drawn"] == [] and data["total"] == 12 and data["loser"] == 1


def test_feathers_extra_feather_max_minus_takes_effect() -> None:
    """coyote.md:92 Extra feather: "turn the top feather face up in front of you; it counts";
    coyote.md:80 "`max-` — the highest remaining green feather counts negative": −10 + 7 + 1."""
    state = make("feathers", ["10", "7", "1"], top=("max-",), turn=0)
    state, events = cplay(state, (0, coin("extra")), (0, bid(1)), (1, CALL))
    data = showdown(events)
    assert data["total"] == -2 and data["loser"] == 0


def test_poker_equal_total_at_three_penalties_nobody_is_penalised() -> None:
    """coyote.md:111-114 "total equal to the bid: nobody is penalised and a new round is
    dealt. The player who takes the **4th** penalty card ends the game": a player holding 3
    penalty cards survives a draw; the caller starts."""
    state = make("poker-deck", ["A", "5", "3"], lives=[1, 4, 4], turn=0, specials=False)
    state, events = cplay(state, (0, bid(9)), (1, CALL))
    assert showdown(events)["loser"] is None and lost(events) == []
    assert not state["over"] and state["lives"] == [1, 4, 4]
    assert state["starter"] == 1
    assert "game_over" not in types(events)


def test_poker_q_draws_the_highest_card_and_k_removes_it() -> None:
    """coyote.md:107-109 "`Q` is replaced by a random card from those not dealt this round
    ... `K` removes the single highest card ... Order: Q, then K, then J": the 5 the Q turns
    up is the highest and K removes it: 3 is left, above the bid of 2: the caller."""
    state = make("poker-deck", ["Q", "K", "3"], top=("5",), turn=0, specials=False)
    state, events = cplay(state, (0, bid(2)), (1, CALL))
    data = showdown(events)
    assert data["total"] == 3 and data["loser"] == 1
