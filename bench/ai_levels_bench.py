"""Benchmark of the Coyote computer player's three levels (a script, not a test).

Run from the project root: ``nice -n 10 python -m bench.ai_levels_bench [--games 2000]``.
Prints, for each level (easy, normal, hard):

1. its win rate in six-player classic games (no special actions) as one seat against five
   opponents of a kind: five normal players (``--games`` games; the target: hard >= 25 %,
   fair share 16.7 %), five naive players and five random players (``--side-games`` each).
   Every level plays the same seeds with its seat rotating (paired seeds); each rate is
   given with its standard error, and against the normal players the paired difference from
   a normal seat in the same games;
2. its decision time at 10 players, p50/p99/max in milliseconds (target p99 <= 5 ms), in
   games where every seat plays that level (classic, no special actions: the hard player's
   costliest case), with the caches as a long-running process has them: the thread's CPU
   time (what the decision costs, whatever else runs on the machine) and the wall clock.
"""

from __future__ import annotations

import argparse
import math
import random
import time
from multiprocessing import Pool

from bench.ai_bench import GAME, Policy, _naive, _pct, play
from engine.core import Action
from engine.coyote.ai_levels import LEVELS
from engine.coyote.editions import MAX_BID

OPTIONS = {"edition": "classic"}


def random_player(view: dict, rng: random.Random) -> Action:
    """A random but legal player from the view: calls a third of the time it may, else bids
    the minimum or up to two more."""
    if view["can_call"] and (rng.random() < 0.33 or view["min_bid"] > MAX_BID):
        return Action("call")
    return Action("bid", min(MAX_BID, view["min_bid"] + rng.randrange(3)))


OPPONENTS: dict[str, Policy] = {"normal": LEVELS["normal"], "naive": _naive,
                                "random": random_player}


def _wins(job: tuple[str, str, list[int]]) -> list[int]:
    level, against, seeds = job
    out = []
    for g in seeds:
        seat = g % 6
        policies = [OPPONENTS[against]] * 6
        policies[seat] = LEVELS[level]
        state = play(6, g, policies, OPTIONS)
        out.append(int(GAME.placements(state)[seat] == 1))
    return out


def wins(level: str, against: str, games: int, seed: int, workers: int) -> list[int]:
    """Per game (seeds ``seed`` .. ``seed + games - 1``), 1 when the ``level`` seat won."""
    chunks = [list(range(seed + i, seed + games, workers)) for i in range(workers)]
    with Pool(workers) as pool:
        parts = pool.map(_wins, [(level, against, c) for c in chunks])
    by_seed: dict[int, int] = {}
    for chunk, part in zip(chunks, parts, strict=True):
        by_seed.update(zip(chunk, part, strict=True))
    return [by_seed[g] for g in sorted(by_seed)]


def _rate(results: list[int]) -> str:
    n = len(results)
    p = sum(results) / n
    return f"{p:6.1%} (se {math.sqrt(p * (1 - p) / n):.1%})"


def _paired(a: list[int], b: list[int]) -> str:
    n = len(a)
    diffs = [x - y for x, y in zip(a, b, strict=True)]
    mean = sum(diffs) / n
    se = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (n - 1) / n)
    return f"{mean:+.1%} (se {se:.1%})"


def _times(job: tuple[str, list[int]]) -> list[tuple[float, float]]:
    level, seeds = job
    policy = LEVELS[level]
    times: list[tuple[float, float]] = []
    wall, cpu = time.perf_counter_ns, time.thread_time_ns

    def timed(view: dict, rng: random.Random) -> Action:
        start, start_cpu = wall(), cpu()
        action = policy(view, rng)
        times.append(((cpu() - start_cpu) / 1e6, (wall() - start) / 1e6))
        return action

    for g in seeds:
        play(10, g, [timed] * 10, OPTIONS)
    return times


def main(argv: list[str] | None = None) -> None:
    """Parse the arguments, run the measurements and print them."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000,
                        help="games against five normal players (default 2000)")
    parser.add_argument("--side-games", type=int, default=500,
                        help="games against five naive / five random players (default 500)")
    parser.add_argument("--decision-games", type=int, default=30,
                        help="10-player games per level for the decision times (default 30)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--levels", default=",".join(LEVELS))
    args = parser.parse_args(argv)
    levels = args.levels.split(",")

    if args.games <= 0:
        levels_for_games: list[str] = []
    else:
        levels_for_games = levels
        print("1. win rate of one seat in six-player classic games, paired seeds "
              "(fair share 16.7%; target: hard >= 25% against five normal)")
    runs = {}
    for level in levels_for_games:
        runs[level] = wins(level, "normal", args.games, args.seed, args.workers)
    for level in levels_for_games:
        line = f"   {level:6} vs 5 normal ({args.games}): {_rate(runs[level])}"
        if level != "normal" and "normal" in runs:
            diff = _paired(runs[level], runs["normal"])
            line += f"; minus a normal seat in the same games {diff}"
        print(line, flush=True)
    for against in ("naive", "random") if args.side_games > 0 else ():
        for level in levels:
            got = wins(level, against, args.side_games, args.seed, args.workers)
            print(f"   {level:6} vs 5 {against} ({args.side_games}): {_rate(got)}", flush=True)

    print(f"2. decision time at 10 players, every seat at the level ({args.decision_games} "
          "classic games each; target p99 <= 5 ms)")
    for level in levels:
        chunks = [list(range(args.seed + i, args.seed + args.decision_games, args.workers))
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
