"""Benchmark of the Coyote computer player (a script, not a test).

Run from the project root: ``python -m bench.ai_bench [--games 2000]``. Prints:

1. the win rate of one AI seat against five naive players (:func:`engine.coyote.ai.naive_action`)
   over six-player classic games, the AI's seat rotating (target >= 40 %; chance is 1/6); then
   the same with special actions on, in classic (masks) and feathers (coins);
2. full all-AI six-player classic games per second on one core (target >= 1,000), split into
   the AI's share and the engine's share (``view`` + ``apply``);
3. the AI's decision time at 10 players, p50/p99 in milliseconds (target p99 <= 2 ms), with the
   distribution cache as a long-running process has it, and with the cache cleared before
   every decision (the worst case).
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable

from engine.core import Action
from engine.coyote import CoyoteGame
from engine.coyote.ai import choose_action, naive_action
from engine.coyote.ai_dist import distribution

GAME = CoyoteGame()
Policy = Callable[[dict, random.Random], Action]


def _naive(view: dict, rng: random.Random) -> Action:
    return naive_action(view)


def play(seats: int, seed: int, policies: list[Policy], options: dict | None = None) -> dict:
    """Play one game to the end; ``policies[seat]`` decides for each seat. The final state."""
    state = GAME.new_state(seats, seed, options or {"edition": "classic"})
    rng = random.Random(seed)
    while not state["over"]:
        seat = state["turn"]
        action = policies[seat](GAME.view(state, seat), rng)
        state, _ = GAME.apply(state, seat, action)
    return state


def win_rate(games: int, seed: int = 0, ai: Policy = choose_action,
             options: dict | None = None) -> float:
    """The share of six-player games (classic unless ``options`` say otherwise) one AI seat
    (``ai``) wins against five naive players; the AI's seat rotates."""
    wins = 0
    for g in range(games):
        ai_seat = g % 6
        policies: list[Policy] = [_naive] * 6
        policies[ai_seat] = ai
        state = play(6, seed + g, policies, options)
        wins += GAME.placements(state)[ai_seat] == 1
    return wins / games


def games_per_second(games: int, seed: int = 0) -> tuple[float, float, float]:
    """All-AI six-player classic games: (games/s in all, games/s counting only the AI's
    decisions, games/s counting only the engine's ``view`` + ``apply``)."""
    clock = time.perf_counter
    ai_time = 0.0

    def timed(view: dict, rng: random.Random) -> Action:
        nonlocal ai_time
        start = clock()
        action = choose_action(view, rng)
        ai_time += clock() - start
        return action

    start = clock()
    for g in range(games):
        play(6, seed + g, [timed] * 6)
    total = clock() - start
    return games / total, games / ai_time, games / (total - ai_time)


def decision_times(games: int, seed: int = 0, cold: bool = False) -> list[float]:
    """Every AI decision's duration (ms) in all-AI 10-player classic games, specials on."""
    times: list[float] = []
    clock = time.perf_counter_ns

    def timed(view: dict, rng: random.Random) -> Action:
        if cold:
            distribution.cache_clear()
        start = clock()
        action = choose_action(view, rng)
        times.append((clock() - start) / 1e6)
        return action

    for g in range(games):
        play(10, seed + g, [timed] * 10, {"edition": "classic", "specials": g % 2 == 1})
    return times


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main(argv: list[str] | None = None) -> None:
    """Parse the arguments, run the three measurements and print them."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000, help="win-rate games (default 2000)")
    parser.add_argument("--speed-games", type=int, default=1000,
                        help="games for the games/s figure (default 1000)")
    parser.add_argument("--decision-games", type=int, default=200,
                        help="10-player games for the decision times (default 200)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    rate = win_rate(args.games, args.seed)
    print(f"1. win rate, 1 AI vs 5 naive, {args.games} six-player classic games: "
          f"{rate:.1%}  (target >= 40%; chance 16.7%)  {'OK' if rate >= 0.40 else 'MISSED'}")

    specials = [(name, win_rate(args.games // 2, args.seed, options={
        "edition": name, "specials": True})) for name in ("classic", "feathers")]
    print(f"   with special actions on ({args.games // 2} games each; the naive players use "
          "none): " + ", ".join(f"{name} {rate:.1%}" for name, rate in specials))

    speed, ai_only, engine_only = games_per_second(args.speed_games, args.seed)
    print(f"2. all-AI six-player classic games/s (1 core, {args.speed_games} games): "
          f"{speed:,.0f}  (target >= 1,000)  {'OK' if speed >= 1000 else 'MISSED'}")
    print(f"   split: the AI's decisions alone {ai_only:,.0f} games/s; the engine's "
          f"view + apply alone {engine_only:,.0f} games/s")

    warm = decision_times(args.decision_games, args.seed)
    p50, p99 = _pct(warm, 0.50), _pct(warm, 0.99)
    print(f"3. AI decision at 10 players ({len(warm):,} decisions): p50 {p50:.3f} ms, "
          f"p99 {p99:.3f} ms, max {max(warm):.3f} ms  (target p99 <= 2 ms)  "
          f"{'OK' if p99 <= 2.0 else 'MISSED'}")
    cold = decision_times(max(1, args.decision_games // 4), args.seed, cold=True)
    print(f"   cold cache every decision ({len(cold):,}): p50 {_pct(cold, 0.5):.3f} ms, "
          f"p99 {_pct(cold, 0.99):.3f} ms, max {max(cold):.3f} ms")


if __name__ == "__main__":
    main()
