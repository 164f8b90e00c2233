"""Coyote showdowns in every edition: who loses a life, who starts next, eliminations, the end."""

from __future__ import annotations

from collections import Counter

import pytest

from engine.core import RuleError
from engine.coyote import get_edition
from tests.engine.coyote_game_helpers import (
    CALL,
    GAME,
    bid,
    event_types,
    make_state,
    play,
    showdown_event,
)


def test_caller_loses_on_equal_total_and_starts_next_round_classic():
    state = make_state("classic", ["5", "10", "3"])
    draw_top = state["draw"][:3]
    new, events = play(state, (0, bid(18)), (1, CALL))
    sd = showdown_event(events)
    assert sd["total"] == 18 and sd["bid"] == 18
    assert sd["bidder"] == 0 and sd["caller"] == 1 and sd["loser"] == 1
    assert new["lives"] == [3, 2, 3]
    assert new["starter"] == 1 and new["turn"] == 1 and GAME.current_seat(new) == 1
    assert new["round"] == state["round"] + 1
    assert new["bids"] == []
    assert new["hands"] == draw_top
    assert sorted(new["discard"]) == sorted(["5", "10", "3"])
    assert "life_lost" in event_types(events) and "round_dealt" in event_types(events)


def test_bidder_loses_when_total_below_bid_and_starts_next_round():
    state = make_state("classic", ["5", "10", "3"])
    new, events = play(state, (0, bid(19)), (1, CALL))
    assert showdown_event(events)["loser"] == 0
    assert new["lives"] == [2, 3, 3]
    assert new["turn"] == 0


def test_later_bidder_and_caller():
    # seat 2 opens, seat 0 raises, seat 1 calls: the bidder is seat 0
    state = make_state("classic", ["5", "10", "3"], turn=2)
    new, events = play(state, (2, bid(10)), (0, bid(30)), (1, CALL))
    sd = showdown_event(events)
    assert (sd["bidder"], sd["caller"], sd["loser"], sd["bid"]) == (0, 1, 0, 30)
    assert new["lives"] == [2, 3, 3]
    assert new["turn"] == 0


def test_eliminated_loser_hands_start_to_winner_classic():
    # caller seat 1 loses its last life; the winner (bidder seat 0) starts, not seat 2
    state = make_state("classic", ["5", "10", "3", "1"], lives=[3, 1, 3, 3])
    new, events = play(state, (0, bid(2)), (1, CALL))
    assert showdown_event(events)["loser"] == 1
    assert "player_eliminated" in event_types(events)
    assert new["lives"] == [3, 0, 3, 3]
    assert new["out"] == [1]
    assert new["turn"] == 0 and new["starter"] == 0
    assert new["hands"][1] is None
    assert all(new["hands"][s] is not None for s in (0, 2, 3))
    assert new["over"] is False


def test_eliminated_bidder_hands_start_to_caller_classic():
    # bidder seat 2 loses its last life; the caller (seat 3) starts
    state = make_state("classic", ["5", "10", "3", "1"], lives=[3, 3, 1, 3], turn=2)
    new, events = play(state, (2, bid(50)), (3, CALL))
    assert showdown_event(events)["loser"] == 2
    assert new["out"] == [2]
    assert new["turn"] == 3


def test_eliminated_player_gets_no_card_and_no_turn():
    state = make_state("classic", ["5", None, "3", "1"], lives=[3, 0, 3, 3], out=[1])
    assert GAME.alive(state) == [0, 2, 3]
    new, _ = play(state, (0, bid(1)))
    assert new["turn"] == 2
    assert GAME.legal_actions(new, 1) == []
    with pytest.raises(RuleError) as exc:
        GAME.apply(new, 1, bid(2))
    assert exc.value.code == "not_your_turn"
    new, _ = play(new, (2, bid(2)), (3, bid(3)))
    assert new["turn"] == 0  # wraps round, skipping nobody alive
    new, events = play(new, (0, CALL))  # total 9 >= 3: caller 0 loses
    assert showdown_event(events)["owners"] == [0, 2, 3]
    assert new["hands"][1] is None
    assert all(new["hands"][s] is not None for s in (0, 2, 3))
    # seat 1 is skipped by turn order in the new round too
    new, _ = play(new, (0, bid(1)))
    assert new["turn"] == 2


def test_turn_skips_eliminated_seat_on_wrap():
    state = make_state("classic", [None, "5", "3", "1"], lives=[0, 3, 3, 3], out=[0], turn=3)
    new, _ = play(state, (3, bid(1)))
    assert new["turn"] == 1


def test_game_over_and_placements_classic():
    # seat 2 already out; seat 1 (caller) loses its last life: seat 0 is the survivor
    state = make_state("classic", ["5", "10", None], lives=[1, 1, 0], out=[2])
    new, events = play(state, (0, bid(3)), (1, CALL))
    assert new["over"] is True
    assert new["out"] == [2, 1]
    assert GAME.current_seat(new) is None
    assert GAME.placements(new) == [1, 2, 3]
    assert event_types(events)[-1] == "game_over"
    assert events[-1].data == {"placements": [1, 2, 3]}
    assert GAME.legal_actions(new, 0) == []
    assert GAME.legal_actions(new, 1) == []
    with pytest.raises(RuleError) as exc:
        GAME.apply(new, 0, bid(1))
    assert exc.value.code == "game_over"
    assert GAME.view(new, None)["placements"] == [1, 2, 3]


def test_placements_reverse_elimination_order_five_players():
    state = make_state("classic", [None, "5", None, "10", None],
                       lives=[0, 2, 0, 1, 0], out=[2, 0, 4], turn=3)
    assert GAME.placements(state) is None
    new, _ = play(state, (3, bid(16)), (1, CALL))  # 15 < 16: bidder 3 out
    assert new["over"] is True
    assert new["out"] == [2, 0, 4, 3]
    assert GAME.placements(new) == [4, 1, 5, 2, 3]


def test_poker_equal_total_nobody_loses():
    state = make_state("poker-deck", ["A", "5", "3"])
    new, events = play(state, (0, bid(9)), (1, CALL))
    sd = showdown_event(events)
    assert sd["total"] == 9 and sd["loser"] is None and sd["lives_lost"] == 0
    assert "life_lost" not in event_types(events)
    assert new["lives"] == [4, 4, 4]
    assert new["over"] is False
    assert new["turn"] == 1  # on a draw, the caller starts
    assert new["round"] == state["round"] + 1
    assert all(c is not None for c in new["hands"])


def test_poker_total_above_bid_caller_penalised_and_starts():
    state = make_state("poker-deck", ["K", "5", "5", "3"])
    new, events = play(state, (0, bid(7)), (1, CALL))
    assert showdown_event(events)["total"] == 8
    assert new["lives"] == [4, 3, 4, 4]
    assert new["turn"] == 1


def test_poker_total_below_bid_bidder_penalised_and_starts():
    state = make_state("poker-deck", ["K", "5", "5", "3"], turn=2)
    new, events = play(state, (2, bid(9)), (3, CALL))
    assert showdown_event(events)["total"] == 8
    assert new["lives"] == [4, 4, 3, 4]
    assert new["turn"] == 2


def test_poker_reshuffles_every_round():
    state = make_state("poker-deck", ["K", "5", "5", "3"])
    new, events = play(state, (0, bid(7)), (1, CALL))
    assert "reshuffled" in event_types(events)
    assert new["discard"] == []
    assert Counter(new["draw"] + [c for c in new["hands"] if c]) == Counter(
        get_edition("poker-deck").deck)


def test_poker_first_elimination_ends_game():
    state = make_state("poker-deck", ["K", "5", "5", "3"], lives=[4, 1, 2, 3])
    new, events = play(state, (0, bid(7)), (1, CALL))
    assert new["over"] is True
    assert new["lives"] == [4, 0, 2, 3]
    assert new["out"] == [1]
    assert GAME.placements(new) == [1, 4, 1, 1]
    assert GAME.current_seat(new) is None
    assert event_types(events)[-1] == "game_over"


def test_feathers_winner_starts_when_bidder_loses():
    state = make_state("feathers", ["x2", "5", "3", "-5"])
    new, events = play(state, (0, bid(12)), (1, CALL))
    sd = showdown_event(events)
    assert sd["total"] == 11 and sd["loser"] == 0
    assert new["lives"] == [2, 3, 3, 3]
    assert new["turn"] == 1  # the caller won


def test_feathers_winner_starts_when_caller_loses():
    state = make_state("feathers", ["x2", "5", "3", "-5"])
    new, events = play(state, (0, bid(11)), (1, CALL))
    assert showdown_event(events)["loser"] == 1
    assert new["lives"] == [3, 2, 3, 3]
    assert new["turn"] == 0  # the bidder won


def test_feathers_equal_total_caller_loses():
    state = make_state("feathers", ["max-", "10", "7"])
    new, events = play(state, (0, bid(1)), (1, bid(2)), (2, CALL))
    assert showdown_event(events)["total"] == -3
    assert new["lives"] == [3, 2, 3]  # -3 < 2: bidder seat 1 loses
    assert new["turn"] == 2


def test_night_reshuffles_everything_in_game():
    state = make_state("classic", ["night", "5", "4"])
    new, events = play(state, (0, bid(10)), (1, CALL))
    assert showdown_event(events)["reshuffle_all"] is True
    assert {"type": "reshuffled", "reason": "night"} in [e.to_json() for e in events]
    assert new["discard"] == []
    assert new["lives"] == [2, 3, 3]  # 9 < 10
    assert Counter(new["draw"] + [c for c in new["hands"] if c]) == Counter(
        get_edition("classic").deck)


def test_question_mark_draws_top_of_draw_pile_in_game():
    state = make_state("classic", ["?", "4", "5"])
    state["draw"].remove("10")
    state["draw"].insert(0, "10")
    new, events = play(state, (0, bid(19)), (1, CALL))
    sd = showdown_event(events)
    assert sd["drawn"] == ["10"] and sd["total"] == 19
    assert new["lives"] == [3, 2, 3]
    assert "10" in new["discard"]
    assert Counter(new["draw"] + new["discard"] + [c for c in new["hands"] if c]) == Counter(
        get_edition("classic").deck)


def test_question_mark_with_empty_draw_reshuffles_discard_first():
    deck = Counter(get_edition("classic").deck)
    deck.subtract(["?", "4", "5"])
    state = make_state("classic", ["?", "4", "5"], draw=[], discard=sorted(deck.elements()))
    new, events = play(state, (0, bid(1)), (1, CALL))
    assert {"type": "reshuffled", "reason": "draw_for_special"} in [e.to_json() for e in events]
    assert len(showdown_event(events)["drawn"]) == 1
    assert Counter(new["draw"] + new["discard"] + [c for c in new["hands"] if c]) == Counter(
        get_edition("classic").deck)


def test_question_mark_with_both_piles_empty_counts_zero():
    state = make_state("classic", ["?", "4", "5"], draw=[], discard=[])
    new, events = play(state, (0, bid(9)), (1, CALL))
    sd = showdown_event(events)
    assert sd["drawn"] == [] and sd["total"] == 9
    assert new["lives"] == [3, 2, 3]


def test_short_draw_pile_is_refilled_from_discard():
    deck = Counter(get_edition("classic").deck)
    deck.subtract(["1", "2", "3", "4", "5"])
    state = make_state("classic", ["1", "2", "3"], draw=["4", "5"],
                       discard=sorted(deck.elements()))
    new, events = play(state, (0, bid(1)), (1, CALL))
    assert {"type": "reshuffled", "reason": "short_draw_pile"} in [e.to_json() for e in events]
    assert all(c is not None for c in new["hands"])
    assert Counter(new["draw"] + new["discard"] + new["hands"]) == Counter(
        get_edition("classic").deck)


def test_after_elimination_option_picks_the_next_survivor():
    # coyote.md, classic: "If the loser was eliminated, the winner of the showdown starts
    # (option: the next surviving player after the loser)".
    for after, expected in (("winner", 1), ("next", 3)):
        state = make_state("classic", ["5", "10", "3", "4"], lives=[3, 3, 1, 3], turn=1)
        state["options"]["after_elimination"] = after
        state, _ = play(state, (1, bid(1)))
        new, _ = GAME.apply(state, 2, CALL)  # total >= 1: caller 2 loses its last life
        assert new["lives"][2] == 0 and new["starter"] == expected
