"""The computer player's levels: every level is legal, decides from the view only and is
deterministic for a seed; the hard player's vectorised model of the others is the normal
player's decision exactly; the easy player rarely uses specials."""

from __future__ import annotations

import copy
import random

import pytest

from engine.core import Action
from engine.coyote import CoyoteGame, get_edition
from engine.coyote.ai import DEFAULT_AI, choose_action, estimate
from engine.coyote.ai_easy import EasyAI
from engine.coyote.ai_hard import HardAI, replay_likelihood
from engine.coyote.ai_levels import LEVELS, choose
from engine.coyote.ai_model import round_model

from .test_ai import hide_differently, random_legal

GAME = CoyoteGame()
EDITIONS = ["classic", "feathers", "poker-deck"]
LEVEL_NAMES = list(LEVELS)


def varied_games(count, seed):
    """(edition, seats, specials, seed) for ``count`` varied games."""
    rng = random.Random(seed)
    for g in range(count):
        edition = EDITIONS[g % 3]
        ed = get_edition(edition)
        seats = rng.randint(3, ed.max_players)
        specials = ed.specials is not None and rng.random() < 0.5
        yield edition, seats, specials, rng.randrange(10**9)


def play(edition, seats, specials, seed, policies, check=None):
    """Play to the end; ``policies[seat]`` is a level name or ``None`` (random legal moves)."""
    state = GAME.new_state(seats, seed, {"edition": edition, "specials": specials})
    rng = random.Random(seed)
    steps = 0
    while not state["over"]:
        seat = state["turn"]
        level = policies[seat]
        if level is None:
            action = random_legal(state, seat, rng)
        else:
            view = GAME.view(state, seat)
            action = choose(view, rng, level)
            if check is not None:
                check(state, seat, view, action, level)
        state, _ = GAME.apply(state, seat, action)  # raises if the action is illegal
        steps += 1
        assert steps < 20000
    return state


def test_levels_and_unknown_level():
    assert LEVEL_NAMES == ["easy", "normal", "hard"]
    state = GAME.new_state(4, 1)
    view = GAME.view(state, state["turn"])
    assert choose(view, random.Random(0)) == choose_action(view, random.Random(0))
    with pytest.raises(ValueError):
        choose(view, random.Random(0), "expert")
    with pytest.raises(ValueError):
        choose(GAME.view(state, (state["turn"] + 1) % 4), random.Random(0), "hard")
    with pytest.raises(ValueError):
        choose(GAME.view(state, (state["turn"] + 1) % 4), random.Random(0), "easy")


@pytest.mark.parametrize("level", LEVEL_NAMES)
def test_every_level_plays_legal_games_against_every_kind_of_player(level):
    """All seats at the level, then the level among the others and random players (who
    create every situation: Change aimed at it, Pass, Skip, Draw 1, Swap, a right Guess)."""
    for edition, seats, specials, seed in varied_games(12, seed=11):
        state = play(edition, seats, specials, seed, [level] * seats)
        assert GAME.placements(state) is not None
    for edition, seats, specials, seed in varied_games(20, seed=12):
        others = ["easy", "normal", "hard", None]
        policies = [others[(s + seed) % 4] for s in range(seats)]
        policies[0] = level
        play(edition, seats, specials, seed, policies)


def test_mixed_table_of_levels_decides_from_the_view_only_and_deterministically():
    checked = {name: 0 for name in LEVEL_NAMES}
    mismatch = []

    def check(state, seat, view, action, level):
        if state["revealed"][seat]:
            return
        other = hide_differently(state, seat, random.Random(sum(checked.values())))
        other_view = GAME.view(other, seat)
        assert other_view == view
        frozen = copy.deepcopy(view)
        for s in (3, 99):
            a = choose(copy.deepcopy(view), random.Random(s), level)
            b = choose(other_view, random.Random(s), level)
            if a != b:
                mismatch.append((level, a, b))
        assert choose(view, random.Random(5), level) == choose(view, random.Random(5), level)
        assert view == frozen, "a level must not modify the view"
        checked[level] += 1

    for edition, seats, specials, seed in varied_games(30, seed=13):
        policies = [LEVEL_NAMES[(s + seed) % 3] for s in range(seats)]
        play(edition, seats, specials, seed, policies, check)
    assert min(checked.values()) > 100
    assert not mismatch


@pytest.mark.parametrize("edition", ["classic", "poker-deck"])
def test_hard_players_model_is_the_normal_players_decision(edition):
    """:mod:`engine.coyote.ai_model` against replays of :meth:`CoyoteAI.choose` in the seat
    of every bidder, for every card the viewer might hold, at every bid of many rounds."""
    rng = random.Random(7)
    checked = 0
    for g in range(40):
        seats = rng.randint(3, get_edition(edition).max_players)
        state = GAME.new_state(seats, g, {"edition": edition})
        for _ in range(rng.randint(1, 3 * seats)):
            seat = state["turn"]
            action = choose_action(GAME.view(state, seat), rng)
            if action.kind == "call":
                break
            state, _ = GAME.apply(state, seat, action)
        if state["over"]:
            continue
        me = state["turn"]
        view = GAME.view(state, me)
        cands = [c for c, _, _, _ in estimate(view).own]
        model = round_model(view, cands)
        assert model is not None
        ks = [k for k, (seat, _) in enumerate(view["bids"]) if seat != me]
        if not ks:
            continue
        likely, calls = model.likelihoods(view["bids"], ks, me, view["cards"])
        for k, row, call in zip(ks, likely, calls, strict=True):
            for i, card in enumerate(cands):
                assert row[i] == pytest.approx(replay_likelihood(view, k, card)), (k, card)
                assert not (call[i] and row[i])
                checked += 1
    assert checked > 500


def test_model_is_out_of_scope_with_specials_or_feathers():
    state = GAME.new_state(5, 2, {"edition": "classic", "specials": True})
    view = GAME.view(state, state["turn"])
    assert round_model(view, [c for c, _, _, _ in estimate(view).own]) is None
    state = GAME.new_state(5, 2, {"edition": "feathers"})
    view = GAME.view(state, state["turn"])
    assert round_model(view, [c for c, _, _, _ in estimate(view).own]) is None


def test_hard_reads_normal_players_bids_better_than_the_normal_player():
    """Among normal players, the hard player's belief about its own card puts more weight on
    the card it really holds than the normal player's looser reading does, on average."""
    hard = HardAI()
    normal_total = hard_total = 0.0
    count = 0
    for g in range(60):
        state = GAME.new_state(6, 100 + g, {"edition": "classic"})
        rng = random.Random(g)
        while not state["over"] and state["round"] < 3:
            seat = state["turn"]
            view = GAME.view(state, seat)
            if len(view["bids"]) >= 4:
                dist = estimate(view)
                cards = [c for c, _, _, _ in dist.own]
                mine = cards.index(state["hands"][seat])
                loose = DEFAULT_AI._weights(view, dist)
                sharp = hard._weights(view, dist)
                if loose is not None and sharp is not None:
                    normal_total += loose[mine]
                    hard_total += sharp[mine]
                    count += 1
            state, _ = GAME.apply(state, seat, choose_action(view, rng))
    assert count > 200
    assert hard_total / count > normal_total / count + 0.1


def test_easy_rarely_uses_specials():
    used = {"easy": 0, "normal": 0}
    turns = {"easy": 0, "normal": 0}

    def check(state, seat, view, action, level):
        turns[level] += 1
        used[level] += action.special is not None

    for edition, seats, _, seed in varied_games(30, seed=14):
        if edition == "poker-deck":
            continue
        policies = ["easy" if s % 2 else "normal" for s in range(seats)]
        play(edition, seats, True, seed, policies, check)
    assert used["easy"] / turns["easy"] < 0.4 * used["normal"] / turns["normal"]


def test_easy_is_legal_with_its_habits_at_their_extremes():
    bold = EasyAI(hunch=1.0, nerve=(0.9, 1.0), jump=1.0, jump_max=10, specials=1.0)
    shy = EasyAI(hunch=0.0, nerve=(0.0, 0.01), jump=0.0, specials=0.0)
    for ai in (bold, shy):
        for edition, seats, specials, seed in varied_games(12, seed=15):
            state = GAME.new_state(seats, seed, {"edition": edition, "specials": specials})
            rng = random.Random(seed)
            while not state["over"]:
                seat = state["turn"]
                action = ai(GAME.view(state, seat), rng)
                assert isinstance(action, Action)
                state, _ = GAME.apply(state, seat, action)
