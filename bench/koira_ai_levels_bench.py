"""Benchmark of the Koira computer player's three levels (a script, not a test).

Run from the project root: ``nice -n 10 python -m bench.koira_ai_levels_bench [--games 2000]``.
Prints, for each level (easy, normal, hard):

1. how often one seat at that level is the koira among four players, against three normal
   players (``--games`` games; target: hard <= 15 %, fair share 25 %), against three
   greedy players (:func:`engine.koira.ai.greedy_action`) and three random-legal ones
   (``--side-games`` each). Every level plays the same seeds, its seat rotating (paired
   seeds); each rate is given with its standard error, and against the normal players the
   paired difference from a normal seat in the same games;
2. its decision time (``view`` excluded) at 8 players, p50/p99/max in milliseconds (target
   p99 <= 5 ms), in all-that-level games: the thread's CPU time (what the decision costs,
   whatever else runs on the shared machine) and the wall clock.
"""

from __future__ import annotations

import argparse
import math
import random
import time
from collections.abc import Callable
from multiprocessing import Pool

from engine.core import Action
from engine.koira import KoiraGame
from engine.koira.ai import greedy_action, legal_plays
from engine.koira.ai_levels import LEVELS

GAME = KoiraGame()
Policy = Callable[[dict, random.Random], Action]
STEP_BOUND = 5000
"""A game still running after this many moves counts as unfinished (reported)."""


def random_player(view: dict, rng: random.Random) -> Action:
    """Any legal action."""
    return rng.choice(legal_plays(view))


OPPONENTS: dict[str, Policy] = {"normal": LEVELS["normal"], "greedy": greedy_action,
                                "random": random_player}


def _koiras(job: tuple[str, str, list[int]]) -> list[int]:
    """Per seed: 1 when the ``level`` seat (seat ``g % 4``) is the koira, 0 when not, -1
    when the game did not end within :data:`STEP_BOUND` moves."""
    level, against, seeds = job
    mine, others = LEVELS[level], OPPONENTS[against]
    out = []
    for g in seeds:
        seat_of_level = g % 4
        state, _ = GAME.new_game(4, g)
        rng = random.Random(g)
        for _ in range(STEP_BOUND):
            if state["over"]:
                break
            seat = state["turn"]
            policy = mine if seat == seat_of_level else others
            state, _ = GAME.apply(state, seat, policy(GAME.view(state, seat), rng))
        else:
            out.append(-1)
            continue
        out.append(int(GAME.placements(state)[seat_of_level] == 4))
    return out


def koiras(level: str, against: str, games: int, seed: int, workers: int) -> list[int]:
    """:func:`_koiras` for seeds ``seed`` .. ``seed + games - 1``, in seed order."""
    chunks = [list(range(seed + i, seed + games, workers)) for i in range(workers)]
    with Pool(workers) as pool:
        parts = pool.map(_koiras, [(level, against, c) for c in chunks])
    by_seed: dict[int, int] = {}
    for chunk, part in zip(chunks, parts, strict=True):
        by_seed.update(zip(chunk, part, strict=True))
    return [by_seed[g] for g in sorted(by_seed)]


def _rate(results: list[int]) -> str:
    done = [r for r in results if r >= 0]
    n = len(done)
    p = sum(done) / max(1, n)
    return (f"{p:6.1%} (se {math.sqrt(p * (1 - p) / max(1, n)):.1%}; unfinished "
            f"{len(results) - n})")


def _paired(a: list[int], b: list[int]) -> str:
    diffs = [x - y for x, y in zip(a, b, strict=True) if x >= 0 and y >= 0]
    n = len(diffs)
    mean = sum(diffs) / n
    se = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (n - 1) / n)
    return f"{mean:+.1%} (se {se:.1%})"


def _times(job: tuple[str, list[int]]) -> list[tuple[float, float]]:
    level, seeds = job
    policy = LEVELS[level]
    wall, cpu = time.perf_counter_ns, time.thread_time_ns
    times: list[tuple[float, float]] = []
    for g in seeds:
        state, _ = GAME.new_game(8, g)
        rng = random.Random(g)
        for _ in range(STEP_BOUND):
            if state["over"]:
                break
            seat = state["turn"]
            view = GAME.view(state, seat)
            start, start_cpu = wall(), cpu()
            action = policy(view, rng)
            times.append(((cpu() - start_cpu) / 1e6, (wall() - start) / 1e6))
            state, _ = GAME.apply(state, seat, action)
    return times


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))]


def main(argv: list[str] | None = None) -> None:
    """Parse the arguments, run the measurements and print them."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000,
                        help="four-player games against three normal players (default 2000)")
    parser.add_argument("--side-games", type=int, default=500,
                        help="games against three greedy / three random players (default 500)")
    parser.add_argument("--timing-games", type=int, default=100,
                        help="8-player games per level for the decision times (default 100)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--levels", default=",".join(LEVELS))
    args = parser.parse_args(argv)
    levels = args.levels.split(",")

    print("1. how often one seat is the koira among four players, paired seeds "
          "(fair share 25%; target: hard <= 15% against three normal)")
    runs = {}
    for level in levels if args.games > 0 else ():
        runs[level] = koiras(level, "normal", args.games, args.seed, args.workers)
        line = f"   {level:6} vs 3 normal ({args.games}): {_rate(runs[level])}"
        if level != "normal" and "normal" in runs:
            diff = _paired(runs[level], runs["normal"])
            line += f"; minus a normal seat in the same games {diff}"
        print(line, flush=True)
    for against in ("greedy", "random") if args.side_games > 0 else ():
        for level in levels:
            got = koiras(level, against, args.side_games, args.seed, args.workers)
            print(f"   {level:6} vs 3 {against} ({args.side_games}): {_rate(got)}", flush=True)

    print(f"2. decision time at 8 players, every seat at the level ({args.timing_games} games "
          "each; target p99 <= 5 ms)")
    for level in levels if args.timing_games > 0 else ():
        chunks = [list(range(args.seed + i, args.seed + args.timing_games, args.workers))
                  for i in range(args.workers)]
        with Pool(args.workers) as pool:
            both = [t for part in pool.map(_times, [(level, c) for c in chunks]) for t in part]
        for name, times in (("CPU", [c for c, _ in both]), ("wall", [w for _, w in both])):
            p99 = _pct(times, 0.99)
            print(f"   {level:6} {name:4} ({len(times):,} decisions): p50 {_pct(times, 0.5):.3f}"
                  f" ms, p99 {p99:.3f} ms, max {max(times):.3f} ms  "
                  f"{'OK' if p99 <= 5.0 else 'MISSED'}", flush=True)


if __name__ == "__main__":
    main()
