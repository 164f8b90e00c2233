"""Coyote to the letter: every worked scenario of ``shared/rules/coyote.md``, via ``apply``."""

from __future__ import annotations

from collections import Counter

import pytest

from engine.coyote import get_edition
from tests.engine.coyote_game_helpers import play
from tests.engine.coyote_rulings_helpers import CALL, all_cards, bid, lives_lost, make, showdown

CLASSIC_SCENARIOS = [
    # cards, top, last bid, total, loser ("caller" / "bidder")
    (["5", "10", "3"], (), 18, 18, "caller"),
    (["5", "10", "3"], (), 19, 18, "bidder"),
    (["x2", "-5", "2"], (), 1, -6, "bidder"),
    (["max0", "10", "10", "5"], (), 15, 15, "caller"),
    (["max0", "-5", "-10"], (), 1, -15, "bidder"),
    (["?", "4", "5"], ("10",), 19, 19, "caller"),
    (["?", "max0", "15", "3"], ("20",), 18, 18, "caller"),
    (["?", "5", "5"], ("x2",), 20, 20, "caller"),
    (["night", "5", "4"], (), 10, 9, "bidder"),
    (["10", "5", "max0", "x2", "?"], ("4",), 18, 18, "caller"),
]
FEATHER_SCENARIOS = [
    (["x2", "5", "3", "-5"], (), 12, 11, "bidder"),
    (["max-", "10", "7"], (), 1, -3, "bidder"),
    (["?", "x2", "4", "-10"], ("6",), 10, 10, "caller"),
]
POKER_SCENARIOS = [
    (["A", "5", "3"], 9, 9, None),
    (["K", "5", "5", "3"], 7, 8, "caller"),
    (["J", "K", "5", "4", "2"], 12, 12, None),
]


def _scenario_id(s) -> str:
    return ",".join(s[0]) + (f"|top={s[1][0]}" if len(s) == 5 and s[1] else "") + \
        f"|bid={s[-3]}"


def _play_scenario(edition: str, cards: list[str], top: tuple[str, ...], last_bid: int):
    state = make(edition, cards, top=top, turn=0)
    before = list(state["lives"])
    new, events = play(state, (0, bid(last_bid)), (1, CALL))
    return state, before, new, events


@pytest.mark.parametrize(("cards", "top", "last_bid", "total", "loser"), CLASSIC_SCENARIOS,
                         ids=[_scenario_id(s) for s in CLASSIC_SCENARIOS])
def test_classic_worked_scenario(cards, top, last_bid, total, loser):
    _, before, new, events = _play_scenario("classic", cards, top, last_bid)
    data = showdown(events)
    assert data["total"] == total
    seat = {"caller": 1, "bidder": 0}[loser]
    assert data["loser"] == seat
    assert lives_lost(events) == {seat: 1}
    assert new["lives"][seat] == before[seat] - 1
    # "Next round: the loser of the showdown starts."
    assert new["starter"] == seat and new["turn"] == seat
    assert sum(all_cards(new).values()) == 36


def test_classic_worked_scenario_night_reshuffles_everything_before_next_deal():
    """``night, 5, 4 | bid 10 | total 9 | bidder; full reshuffle before the next deal``."""
    state = make("classic", ["night", "5", "4"], turn=0)
    new, events = play(state, (0, bid(10)), (1, CALL))
    assert showdown(events)["total"] == 9
    assert showdown(events)["loser"] == 0
    reasons = [e.data["reason"] for e in events if e.type == "reshuffled"]
    assert "night" in reasons
    # every card (table and old discards) went back before the deal: nothing left discarded
    assert new["discard"] == []
    assert all_cards(new) == Counter(get_edition("classic").deck)


def test_classic_without_night_used_cards_go_to_discard():
    """Turn structure 6: "Used cards go to the discard pile"."""
    state = make("classic", ["5", "10", "3"], turn=0)
    new, _ = play(state, (0, bid(18)), (1, CALL))
    assert Counter(new["discard"]) == Counter(["5", "10", "3"])


@pytest.mark.parametrize(("cards", "top", "last_bid", "total", "loser"), FEATHER_SCENARIOS,
                         ids=[_scenario_id(s) for s in FEATHER_SCENARIOS])
def test_feathers_worked_scenario(cards, top, last_bid, total, loser):
    _, before, new, events = _play_scenario("feathers", cards, top, last_bid)
    data = showdown(events)
    assert data["total"] == total
    seat = {"caller": 1, "bidder": 0}[loser]
    assert data["loser"] == seat
    assert lives_lost(events) == {seat: 1}
    # feathers: "the winner of the showdown ... starts"
    winner = 1 - seat
    assert new["starter"] == winner and new["turn"] == winner


@pytest.mark.parametrize(("cards", "last_bid", "total", "result"), POKER_SCENARIOS,
                         ids=[",".join(s[0]) + f"|bid={s[1]}" for s in POKER_SCENARIOS])
def test_poker_deck_worked_scenario(cards, last_bid, total, result):
    _, before, new, events = _play_scenario("poker-deck", cards, (), last_bid)
    data = showdown(events)
    assert data["total"] == total
    if result is None:
        # "total equal to the bid: nobody is penalised and a new round is dealt"
        assert data["loser"] is None
        assert lives_lost(events) == {}
        assert new["lives"] == before
        assert not new["over"] and new["round"] == 2
        assert new["starter"] == 1  # "on a draw, the caller"
    else:
        seat = {"caller": 1, "bidder": 0}[result]
        assert data["loser"] == seat
        assert lives_lost(events) == {seat: 1}
        assert new["starter"] == seat  # "the penalised player starts"


def test_poker_q_draw_becomes_k_and_takes_effect():
    """"a J or K drawn this way takes effect"; order Q, then K, then J."""
    state = make("poker-deck", ["Q", "5", "3"], top=("K",), turn=0)
    _, events = play(state, (0, bid(3)), (1, CALL))
    assert showdown(events)["total"] == 3  # K removes the 5


def test_poker_q_draws_j_doubles_after_k():
    state = make("poker-deck", ["Q", "K", "5", "4"], top=("J",), turn=0)
    _, events = play(state, (0, bid(8)), (1, CALL))
    assert showdown(events)["total"] == 8  # K removes 5, J doubles 4


def test_poker_total_above_bid_caller_penalised_below_bidder():
    state = make("poker-deck", ["A", "2", "3"], turn=0)
    _, events = play(state, (0, bid(5)), (1, CALL))
    assert showdown(events)["loser"] == 1
    _, events = play(state, (0, bid(7)), (1, CALL))
    assert showdown(events)["loser"] == 0


def test_poker_all_23_cards_reshuffled_every_round():
    state = make("poker-deck", ["A", "2", "3"], turn=0)
    new, events = play(state, (0, bid(5)), (1, CALL))
    assert new["discard"] == []
    assert len(new["draw"]) == 23 - 3
