"""Property tests: random games of every edition keep the engine's invariants."""

from __future__ import annotations

import copy
import json
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.core import Action
from engine.coyote import CoyoteGame, get_edition, score

GAME = CoyoteGame()
EDITION_NAMES = ["classic", "feathers", "poker-deck"]
MAX_BIDS_PER_ROUND = 12  # after this many bids in a round the strategy must call
POKER_STEP_BOUND = 5000  # poker-deck draws replay a round, so only a generous bound holds


def step_bound(edition: str, seats: int, lives: int) -> int:
    if get_edition(edition).first_out_ends:
        return POKER_STEP_BOUND
    # every showdown costs exactly one life; the game ends with at most one survivor
    return seats * lives * (MAX_BIDS_PER_ROUND + 1)


def choose(state: dict, seat: int, rng: random.Random, call_prob: float) -> Action:
    legal = GAME.legal_actions(state, seat)
    assert legal, "the seat to act has no legal action"
    calls = [a for a in legal if a.kind == "call"]
    bids = [a for a in legal if a.kind == "bid"]
    if calls and (len(state["bids"]) >= MAX_BIDS_PER_ROUND or rng.random() < call_prob):
        return calls[0]
    return rng.choice(bids[:4])


def lists_in(obj):
    """Every list found anywhere inside a JSON value (with the key that holds it)."""
    if isinstance(obj, dict):
        for key, value in obj.items():
            if isinstance(value, list):
                yield key, value
            yield from lists_in(value)
    elif isinstance(obj, list):
        for value in obj:
            if isinstance(value, list):
                yield None, value
            yield from lists_in(value)


def check_invariants(state: dict, edition: str) -> None:
    deck = Counter(get_edition(edition).deck)
    in_hands = [c for c in state["hands"] if c is not None]
    assert Counter(state["draw"] + state["discard"] + in_hands) == deck
    assert json.loads(json.dumps(state)) == state
    n = state["seats"]
    assert all(0 <= life <= state["options"]["lives"] for life in state["lives"])
    assert sorted(state["out"]) == sorted(s for s in range(n) if state["lives"][s] == 0)
    assert len(set(state["out"])) == len(state["out"])
    if state["over"]:
        assert GAME.current_seat(state) is None
        placements = GAME.placements(state)
        assert placements is not None and len(placements) == n
    else:
        assert GAME.placements(state) is None
        turn = GAME.current_seat(state)
        assert turn is not None and state["lives"][turn] > 0
        for s in range(n):
            assert (state["hands"][s] is None) == (state["lives"][s] == 0)
            if s != turn:
                assert GAME.legal_actions(state, s) == []
    draw = state["draw"]
    for seat in [None, *range(n)]:
        view = GAME.view(state, seat)
        assert json.loads(json.dumps(view)) == view
        assert "draw" not in view and "hands" not in view and "seed" not in view
        assert view["draw_count"] == len(draw)
        cards = view["cards"]
        assert len(cards) == n
        if seat is None:
            assert cards == [None] * n
        else:
            assert cards[seat] is None
            for s in range(n):
                if s != seat:
                    assert cards[s] == state["hands"][s]
        if draw:
            for key, value in lists_in(view):
                if key == "discard":
                    assert value == state["discard"]
                    continue
                assert value != draw, f"view key {key!r} reveals the draw pile"


def expected_loser(edition: str, total: int, bid: int, bidder: int, caller: int) -> int | None:
    """The rule text: poker-deck equal -> nobody; else total >= bid -> caller, else bidder."""
    if edition == "poker-deck" and total == bid:
        return None
    return caller if total >= bid else bidder


def check_showdown(before: dict, after: dict, caller: int, evs: list[dict], edition: str) -> None:
    """Cross-check a showdown against the scoring function and the rule text."""
    [sd] = [e for e in evs if e["type"] == "showdown"]
    bidder, bid = before["bids"][-1]
    table = [c for c in before["hands"] if c is not None]
    assert (sd["bidder"], sd["caller"], sd["bid"]) == (bidder, caller, bid)
    assert [c["card"] for c in sd["cards"][: len(table)]] == table
    if not any(e["type"] == "reshuffled" and e["reason"] == "draw_for_special" for e in evs):
        assert sd["total"] == score(edition, table, before["draw"]).total
    loser = expected_loser(edition, sd["total"], bid, bidder, caller)
    assert sd["loser"] == loser
    expected_lives = list(before["lives"])
    if loser is not None:
        expected_lives[loser] -= 1
    assert after["lives"] == expected_lives
    if after["over"]:
        return
    winner = None if loser is None else (caller if loser == bidder else bidder)
    if edition == "classic":
        starter = loser if after["lives"][loser] > 0 else winner
    elif edition == "feathers":
        starter = winner
    else:
        starter = caller if loser is None else loser
    assert after["turn"] == starter


def run_game(edition: str, seats: int, seed: int, choice_seed: int, call_prob: float,
             lives: int | None = None, check: bool = True):
    options = {"edition": edition} if lives is None else {"edition": edition, "lives": lives}
    state = GAME.new_state(seats, seed, options)
    lives = state["options"]["lives"]
    if check:
        check_invariants(state, edition)
    rng = random.Random(choice_seed)
    actions: list[tuple[int, Action]] = []
    events: list[dict] = []
    bound = step_bound(edition, seats, lives)
    while not state["over"]:
        assert len(actions) < bound, "the game did not end within the step bound"
        seat = GAME.current_seat(state)
        action = choose(state, seat, rng, call_prob)
        before = copy.deepcopy(state) if check else None
        new, evs = GAME.apply(state, seat, action)
        if check:
            assert state == before, "apply mutated its input"
            check_invariants(new, edition)
            assert new["step"] == state["step"] + 1
        evs_json = [e.to_json() for e in evs]
        if check and action.kind == "call":
            check_showdown(state, new, seat, evs_json, edition)
        assert json.loads(json.dumps(evs_json)) == evs_json
        events.extend(evs_json)
        actions.append((seat, action))
        state = new
    return state, actions, events


def replay(edition: str, seats: int, seed: int, actions, lives: int):
    state = GAME.new_state(seats, seed, {"edition": edition, "lives": lives})
    events: list[dict] = []
    for seat, action in actions:
        state, evs = GAME.apply(state, seat, action)
        events.extend(e.to_json() for e in evs)
    return state, events


@pytest.mark.parametrize("edition", EDITION_NAMES)
@settings(max_examples=60, deadline=None)
@given(data=st.data(), seed=st.integers(0, 2**31), choice_seed=st.integers(0, 2**31),
       call_prob=st.floats(0.15, 0.9))
def test_random_games_keep_invariants(edition, data, seed, choice_seed, call_prob):
    ed = get_edition(edition)
    seats = data.draw(st.integers(3, ed.max_players), label="seats")
    lives = data.draw(st.integers(*ed.lives_range), label="lives")
    final, actions, events = run_game(edition, seats, seed, choice_seed, call_prob, lives)

    # the game ended properly
    assert final["over"] is True
    assert events[-1]["type"] == "game_over"
    placements = GAME.placements(final)
    assert events[-1]["placements"] == placements
    if ed.first_out_ends:
        assert len(final["out"]) == 1
        assert sorted(placements) == [1] * (seats - 1) + [seats]
    else:
        assert len(final["out"]) == seats - 1
        assert sorted(placements) == list(range(1, seats + 1))
        assert placements[final["out"][-1]] == 2

    # determinism: the same seed and actions rebuild the same state and events
    again, again_events = replay(edition, seats, seed, actions, lives)
    assert again == final
    assert again_events == events


@pytest.mark.parametrize("edition", EDITION_NAMES)
@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**31), choice_seed=st.integers(0, 2**31))
def test_same_inputs_same_game(edition, seed, choice_seed):
    seats = get_edition(edition).min_players
    a = run_game(edition, seats, seed, choice_seed, 0.5, check=False)
    b = run_game(edition, seats, seed, choice_seed, 0.5, check=False)
    assert a == b
