"""Every game of ``engine.GAMES`` against the :class:`engine.core.Game` contract, in the manner
of OpenSpiel's ``games_sim_test``: random legal play ends; ``apply`` never mutates its
input; states, actions and events round-trip through JSON; replaying the action log rebuilds
the state; no view shows a card its reader may not see; the game-neutral queries agree with
each other. A new game must add its secrecy check to :data:`SECRETS`."""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable
from typing import Any

import pytest

from engine import GAMES
from engine.core import GAME_OVER, Action, Game, RuleError

STEP_BOUND = 20_000
"""Random play must end well before this many moves (Koira takes about 600 at most seats)."""


def _coyote_secrets(state: dict, view: dict, seat: int | None) -> None:
    """Coyote: a seat never sees its own card (unless a right Guess revealed it), its own
    Draw 1 or swapped-away cards, or the draw pile; the public view sees no hidden card."""
    for s in range(state["seats"]):
        hidden = seat is None or s == seat
        if hidden and not state["revealed"][s]:
            assert view["cards"][s] is None
        if hidden:
            assert all(c is None for c in view["extra"][s])
            assert all(c is None for c in view["void"][s])
    assert "draw" not in view and isinstance(view["draw_count"], int)


def _koira_secrets(state: dict, view: dict, seat: int | None) -> None:
    """Koira: the only cards a view names are the reader's own hand and won pile, the trick,
    the cards that left the game, the face-up trump and the cards publicly known to lie with
    a player (won whole, shared by ``tie_split``, picked up)."""
    allowed = {c for p in state["trick"] for c in p[1]} | set(state["discarded"])
    allowed |= {c for known in state["known"] for c in known}
    if state["trump_card"]:
        allowed.add(state["trump_card"])
    if seat is not None:
        allowed |= set(state["hands"][seat]) | set(state["piles"][seat])
    for known_seat, known in enumerate(state["known"]):
        for card in known:  # "known" is true: the card is where it is said to be
            assert card in state["hands"][known_seat] + state["piles"][known_seat]
    text = json.dumps(view)
    from engine.koira.cards import DECK

    shown = {c for c in DECK if f'"{c}"' in text}
    assert shown <= allowed, f"seat {seat} sees {sorted(shown - allowed)}"


SECRETS: dict[str, Callable[[dict, dict, int | None], None]] = {
    "coyote": _coyote_secrets, "koira": _koira_secrets}


def _seat_counts(game: Game) -> list[int]:
    low, high = game.player_limits()
    return sorted({low, (low + high) // 2, high})


CASES = [(name, seats, seed) for name, game in sorted(GAMES.items())
         for seats in _seat_counts(game) for seed in (1, 2)]


def test_every_game_has_a_secrecy_check() -> None:
    assert set(GAMES) <= set(SECRETS)


def _random_game(game: Game, seats: int, seed: int, check: bool) -> tuple[dict, list, dict]:
    """Play a random legal game; check the contract at each step when ``check``. Returns the
    final state, the action log [(seat, action JSON)] and the options."""
    options: dict[str, Any] = {}
    state, events = game.new_game(seats, seed, options)
    json.dumps([e.to_json() for e in events])
    rng = random.Random(seed * 7919 + seats)
    log: list[tuple[int, dict]] = []
    for _ in range(STEP_BOUND):
        if game.is_over(state):
            break
        seat = game.current_seat(state)
        assert seat is not None and seat in game.still_playing(state)
        legal = game.legal_actions(state, seat)
        assert legal, "the seat to act has no legal action"
        for other in range(seats):
            if other != seat:
                assert game.legal_actions(state, other) == []
        action = rng.choice(legal)
        assert Action.from_json(json.loads(json.dumps(action.to_json()))) == action
        if check:
            frozen = copy.deepcopy(state)
            for viewer in [None, *range(seats)]:
                SECRETS[game.name](state, game.view(state, viewer), viewer)
            assert json.loads(json.dumps(state)) == state
            json.dumps(game.progress(state))
        new, events = game.apply(state, seat, action)
        if check:
            assert state == frozen, "apply changed its input"
        json.dumps([e.to_json() for e in events])
        log.append((seat, action.to_json()))
        state = new
    else:
        pytest.fail(f"{game.name} did not end in {STEP_BOUND} random moves")
    return state, log, options


@pytest.mark.parametrize(("name", "seats", "seed"), CASES)
def test_random_play(name: str, seats: int, seed: int) -> None:
    game = GAMES[name]
    state, log, options = _random_game(game, seats, seed, check=seed == 1)
    assert game.current_seat(state) is None
    places = game.placements(state)
    assert places is not None and len(places) == seats and min(places) == 1
    assert len(game.still_playing(state)) <= 1
    # replaying the log from the same seed rebuilds the same state
    replay, _ = game.new_game(seats, seed, options)
    for seat, action in log:
        replay, _ = game.apply(replay, seat, Action.from_json(action))
    assert replay == state
    with pytest.raises(RuleError):
        game.apply(state, log[-1][0], Action.from_json(log[-1][1]))  # over: refused


@pytest.mark.parametrize("name", sorted(GAMES))
def test_queries_agree(name: str) -> None:
    game = GAMES[name]
    low, _ = game.player_limits()
    state, _ = game.new_game(low, 5)
    assert not game.is_over(state) and game.placements(state) is None
    assert game.still_playing(state) == list(range(low))
    assert isinstance(game.progress(state), dict)
    assert game.hand_number(state) == 1  # the deal at the start is the first hand
    settings = game.setting_specs()
    assert [s.name for s in settings[len(settings) - len(game.option_specs()):]] == [
        s.name for s in game.option_specs()]
    choices = game.option_choices()
    specs = game.option_specs()
    assert [s.name for s in specs] == list(choices)
    for spec in specs:
        assert spec.default == choices[spec.name][0] and set(spec.values) == set(
            choices[spec.name])
        assert isinstance(spec.label, str) and json.dumps(spec.to_json())
    seat = game.current_seat(state)
    assert seat is not None
    legal = game.legal_actions(state, seat)
    rng = random.Random(3)
    assert game.ai_action(game.view(state, seat), rng) in legal
    assert game.ai_action(game.view(state, seat), random.Random(3), level="normal") in legal
    assert game.stand_in_action(state, seat, random.Random(3)) in legal


@pytest.mark.parametrize("name", sorted(GAMES))
def test_hand_number_only_grows(name: str) -> None:
    """``hand_number`` never goes down in a game, and a new hand number comes with a new
    deal: it rises at most by one a move."""
    game = GAMES[name]
    low, _ = game.player_limits()
    state, _ = game.new_game(low, 11)
    rng = random.Random(11)
    seen = [game.hand_number(state)]
    for _ in range(STEP_BOUND):
        if game.is_over(state):
            break
        seat = game.current_seat(state)
        assert seat is not None
        state, _ = game.apply(state, seat, rng.choice(game.legal_actions(state, seat)))
        seen.append(game.hand_number(state))
    assert all(0 <= b - a <= 1 for a, b in zip(seen, seen[1:], strict=False))
    assert seen[-1] > seen[0]  # a whole game deals more than once


@pytest.mark.parametrize("name", sorted(GAMES))
def test_game_over_event_and_resign(name: str) -> None:
    """Resigning every seat but one ends any game with a ``game_over`` event; the removed
    seats are placed below the one left."""
    game = GAMES[name]
    low, _ = game.player_limits()
    state, _ = game.new_game(low, 8)
    events: list = []
    for seat in range(1, low):
        state, events = game.apply(state, seat, Action("resign"))
        assert events[0].type == "player_removed"
    assert game.is_over(state) and events[-1].type == GAME_OVER
    places = game.placements(state)
    assert places is not None and places[0] == 1


def test_secrecy_checks_bite() -> None:
    """The checks above would notice a leak: another seat's card in a view."""
    koira = GAMES["koira"]
    state, _ = koira.new_game(4, 3)
    view = koira.view(state, 0)
    view["hand"] = view["hand"] + [state["hands"][1][0]]
    with pytest.raises(AssertionError):
        _koira_secrets(state, view, 0)
    coyote = GAMES["coyote"]
    cstate, _ = coyote.new_game(3, 3)
    cview = coyote.view(cstate, 0)
    cview["cards"][0] = "X"
    with pytest.raises(AssertionError):
        _coyote_secrets(cstate, cview, 0)
