"""Benchmark of the Koira computer player (a script, not a test).

Run from the project root: ``python -m bench.koira_ai_bench [--games 2000]``. Prints:

1. how often one AI seat is the koira among four players, against three random-legal players
   and against three greedy players (:func:`engine.koira.ai.greedy_action`: the lowest card
   that beats, else dump the lowest), the AI's seat rotating (a fair share is 25 %; target
   <= 10 % against random players); the greedy player against random ones for reference;
2. the AI's decision time (``view`` excluded) at 8 players in all-AI games, p50/p99 in
   milliseconds (target p99 <= 5 ms), by the wall clock and in CPU time (on a shared
   machine the wall clock's tail is mostly other processes' time slices).
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable

from engine.core import Action
from engine.koira import KoiraGame
from engine.koira.ai import choose_action, greedy_action, legal_plays

GAME = KoiraGame()
Policy = Callable[[dict, random.Random], Action]
STEP_BOUND = 5000
"""A game still running after this many moves counts as unfinished (none did when measured)."""


def _random(view: dict, rng: random.Random) -> Action:
    return rng.choice(legal_plays(view))


POLICIES: dict[str, Policy] = {"ai": choose_action, "greedy": greedy_action, "random": _random}


def koira_rate(games: int, me: str, others: str, seats: int = 4,
               seed: int = 0) -> tuple[float, int]:
    """The share of games in which one ``me`` seat is the koira among ``others``, and how
    many games did not end within :data:`STEP_BOUND` moves."""
    koiras = unfinished = 0
    for g in range(games):
        mine = g % seats
        state, _ = GAME.new_game(seats, seed + g)
        rng = random.Random(seed + g)
        for _ in range(STEP_BOUND):
            if state["over"]:
                break
            seat = state["turn"]
            policy = POLICIES[me if seat == mine else others]
            state, _ = GAME.apply(state, seat, policy(GAME.view(state, seat), rng))
        else:
            unfinished += 1
            continue
        koiras += GAME.placements(state)[mine] == seats
    return koiras / max(1, games - unfinished), unfinished


def decision_times(games: int, seats: int = 8, seed: int = 0) -> tuple[list[float], list[float]]:
    """Every AI decision's time in seconds over ``games`` all-AI games of ``seats``: wall
    clock, and this process's CPU time (which leaves out the time the machine, shared with
    other work, gave to other processes mid-decision). Both sorted."""
    wall: list[float] = []
    cpu: list[float] = []
    for g in range(games):
        state, _ = GAME.new_game(seats, seed + g)
        rng = random.Random(seed + g)
        while not state["over"]:
            seat = state["turn"]
            view = GAME.view(state, seat)
            start, start_cpu = time.perf_counter(), time.process_time()
            action = choose_action(view, rng)
            cpu.append(time.process_time() - start_cpu)
            wall.append(time.perf_counter() - start)
            state, _ = GAME.apply(state, seat, action)
    return sorted(wall), sorted(cpu)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--timing-games", type=int, default=200)
    args = parser.parse_args()
    for me, others in (("ai", "random"), ("ai", "greedy"), ("greedy", "random")):
        start = time.perf_counter()
        rate, unfinished = koira_rate(args.games, me, others)
        print(f"{me} vs 3 {others}: koira in {rate:.1%} of {args.games} four-player games "
              f"(fair 25 %; unfinished {unfinished}) [{time.perf_counter() - start:.0f} s]")
    for label, times in zip(("wall clock", "CPU time"), decision_times(args.timing_games),
                            strict=True):
        p50, p99 = times[len(times) // 2], times[int(len(times) * 0.99)]
        print(f"AI decision at 8 players ({label}): p50 {p50 * 1000:.3f} ms, p99 "
              f"{p99 * 1000:.3f} ms, max {times[-1] * 1000:.3f} ms over {len(times)} "
              "decisions (target p99 <= 5 ms)")


if __name__ == "__main__":
    main()
