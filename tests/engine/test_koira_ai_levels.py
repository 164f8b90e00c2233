"""The Koira computer player's levels: every level is legal, decides from the view only, is
deterministic for a seed and plays whole games to the end; the hard player's endgame search
finds a won duel; both games list their levels."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.core import Action
from engine.coyote import CoyoteGame
from engine.koira.ai import choose_action
from engine.koira.ai_duel import _Search, duel_values
from engine.koira.ai_levels import LEVELS, choose
from tests.engine.koira_helpers import GAME, phase2, rehide

LEVEL_NAMES = list(LEVELS)
OPTIONS = [{}, {"tie_split": True}, {"trump_ends_trick": True}, {"pickup_single": True},
           {"min_sequence": 3}]


def play(seats: int, seed: int, options: dict, levels: list[str | None], check=None) -> dict:
    """Play to the end; ``levels[seat]`` is a level name or ``None`` (random legal moves)."""
    state, _ = GAME.new_game(seats, seed, options)
    rng = random.Random(seed)
    for _ in range(5000):
        if state["over"]:
            return state
        seat = state["turn"]
        level = levels[seat]
        if level is None:
            action = rng.choice(GAME.legal_actions(state, seat))
        else:
            view = GAME.view(state, seat)
            action = choose(view, rng, level)
            if check is not None:
                check(state, seat, view, action, level)
        state, _ = GAME.apply(state, seat, action)  # raises if the action is illegal
    raise AssertionError("the game did not end")


def test_both_games_list_their_levels_and_refuse_others() -> None:
    assert GAME.ai_levels == CoyoteGame.ai_levels == ("easy", "normal", "hard")
    assert tuple(LEVELS) == GAME.ai_levels
    state, _ = GAME.new_game(4, 1)
    view = GAME.view(state, state["turn"])
    assert GAME.ai_action(view, random.Random(0)) == choose_action(view, random.Random(0))
    for level in GAME.ai_levels + ("random",):
        assert GAME.ai_action(view, random.Random(0), level) in GAME.legal_actions(
            state, state["turn"])
    with pytest.raises(ValueError):
        GAME.ai_action(view, random.Random(0), "expert")
    for level in GAME.ai_levels:
        with pytest.raises(ValueError):
            GAME.ai_action(GAME.view(state, (state["turn"] + 1) % 4), random.Random(0), level)


@pytest.mark.parametrize("level", LEVEL_NAMES)
def test_every_level_is_legal_view_only_and_deterministic(level: str) -> None:
    """All seats at the level and mixed tables, every option; at each decision: legal, the
    same for the same seed, and the same when the hidden cards lie elsewhere."""
    checked = [0]

    def check(state, seat, view, action, lvl):
        assert action in GAME.legal_actions(state, seat)
        seed = len(view["discarded"]) * 31 + seat
        again = choose(view, random.Random(seed), lvl)
        assert choose(GAME.view(state, seat), random.Random(seed), lvl) == again
        other = rehide(state, seat, random.Random(seed))
        assert GAME.view(other, seat) == view
        assert choose(GAME.view(other, seat), random.Random(seed), lvl) == again
        checked[0] += 1

    for g, options in enumerate(OPTIONS):
        seats = 3 + g
        play(seats, 100 + g, options, [level] * seats, check)
        mixed = [level, None, "easy", "hard", "normal", None, level, "hard"][:seats]
        play(seats, 200 + g, options, mixed, check)
    assert checked[0] > 200


@settings(max_examples=25, deadline=None)
@given(seats=st.integers(3, 8), seed=st.integers(0, 10**6),
       option=st.sampled_from(OPTIONS),
       levels=st.lists(st.sampled_from(LEVEL_NAMES + [None]), min_size=8, max_size=8))
def test_any_table_of_levels_plays_to_the_end(seats, seed, option, levels) -> None:
    state = play(seats, seed, option, levels[:seats])
    places = GAME.placements(state)
    assert places is not None and sorted(places) == list(range(1, seats + 1))


def test_hard_finds_the_won_move_of_a_duel() -> None:
    """Two players left, trump ♥, seat 0 to lead holding 5♠ 6♠ and K♣; seat 1 holds A♣.
    The 5-6♠ sequence completes the trick at once (two players: R9), seat 0 leads again
    and its last card, the K♣, puts it out (R14). Leading the K♣ first lets the A♣ beat it
    and go out."""
    state = phase2([["5S", "6S", "KC"], ["AC"], []], trump="H", out=[2])
    view = GAME.view(state, 0)
    legal = GAME.legal_actions(state, 0)
    values = duel_values(view, legal)
    assert values is not None
    by_action = dict(zip(legal, values, strict=True))
    assert by_action[Action("play", cards=("5S", "6S"))] == 1.0
    lone_king = _Search("H", 2).after(Action("play", cards=("KC",)),
                                      (("5S", "6S", "KC"), ("AC",)), (), 2)
    assert lone_king == -1.0
    assert choose(view, random.Random(0), "hard") == Action("play", cards=("5S", "6S"))


def test_duel_search_is_out_of_scope_with_more_players_or_variants() -> None:
    state = phase2([["5S", "6S"], ["AC"], ["2D"]], trump="H")
    view = GAME.view(state, 0)
    assert duel_values(view, GAME.legal_actions(state, 0)) is None
    state = phase2([["5S", "6S"], ["AC"], []], trump="H", out=[2], pickup_single=True)
    assert duel_values(GAME.view(state, 0), GAME.legal_actions(state, 0)) is None


def test_a_duel_the_search_calls_won_is_won_whatever_the_other_plays() -> None:
    """Soundness of the endgame's model of the rules against the engine: from every
    position where the search says the hard seat has a forced win, it goes out first
    against random moves (before that, the others play the normal AI)."""
    from engine.koira.ai_hard import HARD_AI

    won = 0
    for seed in range(150):
        state, _ = GAME.new_game(3, seed)
        rng = random.Random(seed)
        sure = False
        while not state["over"]:
            seat = state["turn"]
            legal = GAME.legal_actions(state, seat)
            if seat == 0:
                view = GAME.view(state, 0)
                values = duel_values(view, legal)
                sure = sure or (values is not None and max(values) == 1.0)
                action = HARD_AI.choose(view, rng)
            elif sure:
                action = rng.choice(legal)
            else:
                action = choose_action(GAME.view(state, seat), rng)
            state, _ = GAME.apply(state, seat, action)
        if sure:
            won += 1
            assert GAME.placements(state)[0] != 3, seed
    assert won >= 10
