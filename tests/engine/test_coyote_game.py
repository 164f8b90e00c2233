"""Unit tests of :class:`engine.coyote.CoyoteGame` on hand-built states."""

from __future__ import annotations

import copy
import json
from collections import Counter

import pytest

from engine.core import Action, RuleError
from engine.coyote import CoyoteGame, get_edition

GAME = CoyoteGame()


def make_state(edition: str, hands: list[str | None], *, lives: list[int] | None = None,
               out: list[int] | None = None, turn: int = 0, seed: int = 7,
               draw: list[str] | None = None, discard: list[str] | None = None) -> dict:
    """A state of ``edition`` with the given hands; the rest of the deck forms the draw pile.

    Every card of the deck stays in exactly one place unless ``draw``/``discard`` are given.
    """
    seats = len(hands)
    state = GAME.new_state(seats, seed, {"edition": edition})
    deck = Counter(get_edition(edition).deck)
    deck.subtract(Counter(c for c in hands if c is not None))
    assert all(v >= 0 for v in deck.values()), "hands use more cards than the deck has"
    rest = sorted(deck.elements())
    state["hands"] = list(hands)
    state["draw"] = rest if draw is None else list(draw)
    state["discard"] = [] if discard is None else list(discard)
    if lives is not None:
        state["lives"] = list(lives)
    state["out"] = list(out or [])
    state["turn"] = turn
    state["starter"] = turn
    state["bids"] = []
    return state


def play(state: dict, *moves: tuple[int, Action]) -> tuple[dict, list]:
    events: list = []
    for seat, action in moves:
        state, evs = GAME.apply(state, seat, action)
        events.extend(evs)
    return state, events


def bid(n: int) -> Action:
    return Action("bid", n)


CALL = Action("call")


def event_types(events) -> list[str]:
    return [e.type for e in events]


def showdown_event(events) -> dict:
    [ev] = [e for e in events if e.type == "showdown"]
    return ev.data


# --- creation ---------------------------------------------------------------------------------

@pytest.mark.parametrize(("edition", "seats"), [
    ("classic", 2), ("classic", 11), ("classic", 0), ("feathers", 2), ("feathers", 11),
    ("poker-deck", 2), ("poker-deck", 9),
])
def test_bad_player_count(edition, seats):
    with pytest.raises(RuleError) as exc:
        GAME.new_state(seats, 1, {"edition": edition})
    assert exc.value.code == "bad_player_count"


@pytest.mark.parametrize(("edition", "lives"), [
    ("classic", 1), ("classic", 6), ("classic", 0), ("classic", "3"), ("classic", True),
    ("classic", 3.0), ("feathers", 2), ("feathers", 6), ("poker-deck", 3), ("poker-deck", 5),
])
def test_bad_lives(edition, lives):
    with pytest.raises(RuleError) as exc:
        GAME.new_state(4, 1, {"edition": edition, "lives": lives})
    assert exc.value.code == "bad_lives"


def test_feathers_more_coins_only_at_small_tables():
    """coyote.md, "Edition feathers": "3 eliminate *(option: 4 or 5 with 3–4 players)*"."""
    for seats in (3, 4):
        assert GAME.new_state(seats, 1, {"edition": "feathers", "lives": 5})["lives"] == \
            [5] * seats
    with pytest.raises(RuleError) as exc:
        GAME.new_state(5, 1, {"edition": "feathers", "lives": 4})
    assert exc.value.code == "lives_need_fewer_players"
    assert exc.value.detail == {"lives": 4, "max": 4}
    assert GAME.new_state(10, 1, {"edition": "feathers", "lives": 3})["lives"] == [3] * 10
    assert GAME.new_state(10, 1, {"edition": "classic", "lives": 5})["lives"] == [5] * 10


def test_unknown_edition():
    with pytest.raises(RuleError) as exc:
        GAME.new_state(4, 1, {"edition": "nope"})
    assert exc.value.code == "unknown_edition"


@pytest.mark.parametrize(("edition", "lives"), [("classic", 3), ("feathers", 3),
                                                ("poker-deck", 4)])
def test_new_state_defaults(edition, lives):
    state = GAME.new_state(5, 42, {"edition": edition})
    assert state["lives"] == [lives] * 5
    assert state["edition"] == edition
    assert state["round"] == 1
    assert state["bids"] == [] and state["out"] == [] and state["over"] is False
    assert all(c is not None for c in state["hands"])
    assert Counter(state["hands"] + state["draw"] + state["discard"]) == Counter(
        get_edition(edition).deck)
    assert GAME.current_seat(state) == state["starter"]
    assert json.loads(json.dumps(state)) == state


def test_new_state_defaults_to_classic_and_is_deterministic():
    a = GAME.new_state(4, 123)
    assert a["edition"] == "classic"
    assert GAME.new_state(4, 123) == a
    assert GAME.new_state(4, 123, {"lives": 5})["lives"] == [5] * 4


def test_new_state_does_not_mutate_options():
    options = {"edition": "feathers", "lives": 4}
    GAME.new_state(3, 1, options)
    assert options == {"edition": "feathers", "lives": 4}


# --- bids and calls ---------------------------------------------------------------------------

@pytest.mark.parametrize("amount", [0, -1, -100])
def test_opening_bid_must_be_at_least_one(amount):
    state = make_state("classic", ["5", "10", "3"])
    with pytest.raises(RuleError) as exc:
        GAME.apply(state, 0, bid(amount))
    assert exc.value.code == "bid_too_low"
    assert exc.value.detail == {"min_bid": 1}


def test_opening_bid_of_one_is_legal():
    state = make_state("classic", ["5", "10", "3"])
    new, events = GAME.apply(state, 0, bid(1))
    assert new["bids"] == [[0, 1]]
    assert new["turn"] == 1
    assert event_types(events) == ["bid_placed"]
    assert events[0].data == {"seat": 0, "amount": 1}


def test_bids_must_strictly_increase():
    state, _ = play(make_state("classic", ["5", "10", "3"]), (0, bid(5)))
    for amount in (5, 4, -2):
        with pytest.raises(RuleError) as exc:
            GAME.apply(state, 1, bid(amount))
        assert exc.value.code == "bid_too_low"
        assert exc.value.detail == {"min_bid": 6}
    new, _ = GAME.apply(state, 1, bid(6))
    assert new["bids"] == [[0, 5], [1, 6]]
    # there is no maximum bid
    new, _ = GAME.apply(new, 2, bid(10**9))
    assert new["bids"][-1] == [2, 10**9]


def test_calling_before_any_bid():
    state = make_state("classic", ["5", "10", "3"])
    with pytest.raises(RuleError) as exc:
        GAME.apply(state, 0, CALL)
    assert exc.value.code == "no_bid_to_call"


@pytest.mark.parametrize("action", [bid(3), CALL])
def test_wrong_seat(action):
    state, _ = play(make_state("classic", ["5", "10", "3"]), (0, bid(2)))
    for seat in (0, 2):
        with pytest.raises(RuleError) as exc:
            GAME.apply(state, seat, action)
        assert exc.value.code == "not_your_turn"


@pytest.mark.parametrize("action", [
    Action("bid", 2.5), Action("bid", "3"), Action("bid", None), Action("bid", True),
    Action("bid", False), Action("fold"), Action("pass", 3), Action("CALL"), Action(""),
])
def test_bad_action(action):
    state, _ = play(make_state("classic", ["5", "10", "3"]), (0, bid(2)))
    with pytest.raises(RuleError) as exc:
        GAME.apply(state, 1, action)
    assert exc.value.code == "bad_action"


@pytest.mark.parametrize("data", [
    {"kind": "bid", "amount": True}, {"kind": "bid", "amount": 1.5}, {"kind": 3}, {}, [],
    {"kind": "bid", "amount": "4"},
])
def test_action_from_json_rejects_bad_data(data):
    with pytest.raises(RuleError) as exc:
        Action.from_json(data)
    assert exc.value.code == "bad_action"


def test_action_json_round_trip():
    for action in (bid(4), CALL):
        assert Action.from_json(json.loads(json.dumps(action.to_json()))) == action
    assert CALL.to_json() == {"kind": "call"}


def test_legal_actions():
    state = make_state("classic", ["5", "10", "3"])
    acts = GAME.legal_actions(state, 0)
    assert Action("call") not in acts
    assert acts[0] == bid(1)
    assert GAME.legal_actions(state, 1) == []
    state, _ = play(state, (0, bid(7)))
    acts = GAME.legal_actions(state, 1)
    assert acts[0] == CALL
    assert acts[1] == bid(8)
    assert all(a.amount > 7 for a in acts if a.kind == "bid")
    for action in acts:
        GAME.apply(state, 1, action)  # every listed action is legal


# --- purity -----------------------------------------------------------------------------------

@pytest.mark.parametrize("moves", [
    [(0, bid(3))],
    [(0, bid(18)), (1, CALL)],
    [(0, bid(19)), (1, CALL)],
])
def test_apply_leaves_input_unchanged(moves):
    state = make_state("classic", ["5", "10", "3"])
    for seat, action in moves:
        before = copy.deepcopy(state)
        new, _ = GAME.apply(state, seat, action)
        assert state == before
        assert new is not state
        state = new


def test_apply_result_shares_no_mutable_parts_with_input():
    state, _ = play(make_state("classic", ["5", "10", "3"]), (0, bid(4)))
    before = copy.deepcopy(state)
    new, _ = GAME.apply(state, 1, CALL)
    # mutate every list in the new state; the old one must not notice
    for value in new.values():
        if isinstance(value, list):
            value.append("junk")
    assert state == before


@pytest.mark.parametrize(("seat", "action"), [
    (0, bid(0)), (1, bid(3)), (0, CALL), (0, Action("bid", 1.5)), (0, Action("fold")),
])
def test_rule_error_changes_nothing(seat, action):
    state = make_state("classic", ["5", "10", "3"])
    before = copy.deepcopy(state)
    with pytest.raises(RuleError):
        GAME.apply(state, seat, action)
    assert state == before


# --- showdowns, lives, next starter -----------------------------------------------------------

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


# --- views ------------------------------------------------------------------------------------

def test_view_hides_own_card_and_shows_others():
    state = make_state("classic", ["5", "10", "3"])
    for seat in range(3):
        cards = GAME.view(state, seat)["cards"]
        assert cards[seat] is None
        assert [c for s, c in enumerate(cards) if s != seat] == [
            c for s, c in enumerate(state["hands"]) if s != seat]
    public = GAME.view(state, None)
    assert public["cards"] == [None, None, None]
    assert public["draw_count"] == len(state["draw"])
    assert "draw" not in public and "hands" not in public and "seed" not in public


@pytest.mark.parametrize("seat", [-1, 3, 10])
def test_view_bad_seat(seat):
    state = make_state("classic", ["5", "10", "3"])
    with pytest.raises(RuleError) as exc:
        GAME.view(state, seat)
    assert exc.value.code == "bad_seat"


def test_events_carry_no_hidden_card():
    state = make_state("classic", ["5", "10", "3"])
    _, events = play(state, (0, bid(18)), (1, CALL))
    for ev in events:
        if ev.type != "showdown":
            blob = json.dumps(ev.to_json())
            assert "hands" not in blob and "draw\"" not in blob
    dealt = [e for e in events if e.type == "round_dealt"]
    assert dealt and set(dealt[0].data) == {"round", "starter", "seats"}


def test_after_elimination_option_picks_the_next_survivor():
    # coyote.md, classic: "If the loser was eliminated, the winner of the showdown starts
    # (option: the next surviving player after the loser)".
    for after, expected in (("winner", 1), ("next", 3)):
        state = make_state("classic", ["5", "10", "3", "4"], lives=[3, 3, 1, 3], turn=1)
        state["options"]["after_elimination"] = after
        state, _ = play(state, (1, bid(1)))
        new, _ = GAME.apply(state, 2, CALL)  # total >= 1: caller 2 loses its last life
        assert new["lives"][2] == 0 and new["starter"] == expected


def test_after_elimination_is_a_classic_option_only():
    with pytest.raises(RuleError) as err:
        GAME.new_state(4, 7, {"edition": "poker-deck", "after_elimination": "next"})
    assert err.value.code == "bad_option"
    assert "after_elimination" in GAME.option_choices({"edition": "classic"})
    assert "after_elimination" not in GAME.option_choices({"edition": "feathers"})
