"""The hard Koira player's look-ahead (engine/koira/ai_rollout.py): its sampled deals fit the
view, its fast simulation follows the engine's phase-2 rules move for move, its rollout
player chooses as the normal player does, and it stays out of phase 1 and the variant it
does not model."""

from __future__ import annotations

import random

import pytest

from engine.core import Action
from engine.koira.ai import STALL, _phase2_scores, choose_action, legal_plays
from engine.koira.ai_rollout import _INDEX, _Sim, rollout_values, sample_hands
from engine.koira.cards import DECK, rank, suit
from tests.engine.koira_helpers import GAME

OPTIONS = [{}, {"pickup_single": True}, {"min_sequence": 3}, {"tie_split": True}]


def phase2_states(seats: int, seed: int, options: dict, count: int = 40):
    """Up to ``count`` phase-2 states of a game of normal players, one per decision."""
    state, _ = GAME.new_game(seats, seed, options)
    rng = random.Random(seed)
    found = []
    for _ in range(5000):
        if state["over"] or len(found) >= count:
            break
        seat = state["turn"]
        view = GAME.view(state, seat)
        if state["phase"] == 2:
            found.append(state)
        state, _ = GAME.apply(state, seat, choose_action(view, rng))
    return found


def sim_of(state: dict) -> _Sim:
    """The simulation of ``state`` with its true hands."""
    view = GAME.view(state, state["turn"])
    trump = view["trump"]
    worth = [(rank(c) - 2) / 12 + (1.0 if suit(c) == trump else 0.0) for c in DECK]
    trick = [(p["seat"], tuple(sorted(_INDEX[c] for c in p["cards"]))) for p in view["trick"]]
    return _Sim(view, [sorted(_INDEX[c] for c in h) for h in state["hands"]], trick, worth)


def names(play: tuple[int, ...]) -> tuple[str, ...]:
    return tuple(DECK[c] for c in play)


@pytest.mark.parametrize("seats", [3, 4, 6, 8])
def test_a_sampled_deal_fits_the_view(seats: int) -> None:
    for state in phase2_states(seats, seats, {}, 15):
        seat = state["turn"]
        view = GAME.view(state, seat)
        hands = sample_hands(view, random.Random(seat))
        assert hands is not None
        assert hands[seat] == view["hand"]
        assert [len(h) for h in hands] == view["counts"]
        for s, known in enumerate(view["known"]):
            if s != seat:
                assert set(known) <= set(hands[s])
        lying = [c for p in view["trick"] for c in p["cards"]]
        everything = [c for h in hands for c in h] + lying + view["discarded"]
        assert sorted(everything) == sorted(DECK)


@pytest.mark.parametrize("options", OPTIONS)
def test_the_simulation_follows_the_engine_move_for_move(options: dict) -> None:
    """From phase-2 positions of 3–8 players, random legal moves in the engine and in the
    simulation: the same legal plays, turns, hands, tricks and players out, the same koira."""
    checked = 0
    for seats in (3, 5, 8):
        for start in phase2_states(seats, 10 * seats + len(options), options, 6):
            state, sim = start, sim_of(start)
            rng = random.Random(seats)
            for _ in range(3000):
                if state["over"]:
                    break
                seat = state["turn"]
                assert sim.turn == seat and not sim.over
                legal = GAME.legal_actions(state, seat)
                plays = {a.cards for a in legal if a.kind == "play"}
                assert {names(p) for p in sim.plays(seat)} == plays
                action = rng.choice(legal)
                state, _ = GAME.apply(state, seat, action)
                if action.kind == "pickup":
                    sim.pickup(seat)
                else:
                    sim.play(seat, tuple(_INDEX[c] for c in action.cards or ()))
                checked += 1
                assert sim.over == state["over"]
                assert [sorted(names(tuple(h))) for h in sim.hands] == \
                    [sorted(h) for h in state["hands"]]
                assert sim.inside == GAME.view(state, None)["in_game"]
                if not state["over"]:
                    assert [(s, names(p)) for s, p in sim.trick] == \
                        [(s, tuple(cards)) for s, cards, _ in state["trick"]]
                    assert sim.need == state["need"]
            assert state["over"]
            assert sim.koira() == GAME.view(state, None)["koira"]
    assert checked > 500


@pytest.mark.parametrize("options", OPTIONS[:3])
def test_the_rollout_player_chooses_as_the_normal_player(options: dict) -> None:
    """Away from circles (no random circle-breaking), the simulation's choice is one of the
    normal player's best-scored actions in the same position."""
    checked = 0
    for seats in (3, 4, 7):
        for state in phase2_states(seats, seats + 40, options, 60):
            view = GAME.view(state, state["turn"])
            if view["quiet"] >= STALL * sum(view["in_game"]):
                continue
            legal = legal_plays(view)
            scored = _phase2_scores(view, legal)
            best = max(score for score, _ in scored)
            tops = {a for score, a in scored if score >= best - 1e-9}
            move = sim_of(state).choose(random.Random(checked))
            chosen = Action("pickup") if move is None else Action("play", cards=names(move))
            assert chosen in tops if len(legal) > 1 else chosen == legal[0]
            checked += 1
    assert checked > 100


def test_rollouts_are_out_of_scope_in_phase_1_and_with_trump_ends_trick() -> None:
    state, _ = GAME.new_game(4, 3)
    view = GAME.view(state, state["turn"])
    assert rollout_values(view, legal_plays(view), random.Random(0), 4) is None
    state = phase2_states(4, 5, {"trump_ends_trick": True}, 1)[0]
    view = GAME.view(state, state["turn"])
    assert rollout_values(view, legal_plays(view), random.Random(0), 4) is None


def test_rollout_values_are_shares_and_deterministic_for_a_seed() -> None:
    state = phase2_states(4, 9, {}, 1)[0]
    view = GAME.view(state, state["turn"])
    legal = legal_plays(view)
    values = rollout_values(view, legal[:3], random.Random(7), 6, budget=10**6)
    assert values is not None and len(values) == len(legal[:3])
    assert all(0.0 <= v <= 1.0 for v in values)
    assert rollout_values(view, legal[:3], random.Random(7), 6, budget=10**6) == values
    assert rollout_values(view, legal[:3], random.Random(7), 6, budget=1) is None
