"""Benchmark of Swiss tournament seating and standings (a script, not a test).

Run from the project root: ``.venv/bin/python -m bench.tournament_bench [--players 500]``.
Pure functions, no database. Prints, side by side from one run, each the median of
``--repeats`` timings in milliseconds and its share of the 1 s target:

1. seating one round of ``--players`` entrants at tables of 4 (limits 3 to 10) with the
   history of 4 earlier rounds (``met``), swaps to avoid repeated tables included; with the
   repeated pairs the plain cut would have had and those left after the swaps;
2. the standings (points, Buchholz, Elo) of the same tournament after 5 rounds.

The tournament is simulated with :func:`league.tournaments.swiss.seat` itself and random
places at every table (``--seed``).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable
from fractions import Fraction

from league.tournaments.swiss import (
    BYE,
    Entrant,
    Seating,
    repeated_pairs,
    seat,
    standings,
    table_points,
)

SIZE, LOW, HIGH = 4, 3, 10
TARGET_MS = 1000.0


class Tournament:
    """A simulated tournament: the entrants, who met whom, and each one's opponents."""

    def __init__(self, players: int, seed: int) -> None:
        self.rng = random.Random(seed)
        self.field = [Entrant(i, Fraction(0), float(self.rng.randint(1100, 1900)))
                      for i in range(1, players + 1)]
        self.met: dict[frozenset[int], int] = {}
        self.opponents: dict[int, list[int]] = {e.id: [] for e in self.field}

    def seat(self) -> Seating:
        return seat(self.field, SIZE, LOW, HIGH, self.met)

    def play(self, seating: Seating) -> None:
        """Random places at every table of ``seating``; points, byes and history updated."""
        gained: dict[int, Fraction] = dict.fromkeys(seating.byes, BYE)
        for table in seating.tables:
            gained |= table_points({i: self.rng.randint(1, len(table)) for i in table})
            for n, a in enumerate(table):
                self.opponents[a] += [b for b in table if b != a]
                for b in table[n + 1:]:
                    pair = frozenset((a, b))
                    self.met[pair] = self.met.get(pair, 0) + 1
        self.field = [Entrant(e.id, e.points + gained[e.id], e.elo,
                              e.byes + (e.id in seating.byes)) for e in self.field]


def median_ms(run: Callable[[], object], repeats: int) -> float:
    """The median of ``repeats`` timings of ``run()``, in milliseconds."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> None:
    """Parse the arguments, simulate the tournament, time the two steps and print them."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=500, help="entrants (default 500)")
    parser.add_argument("--repeats", type=int, default=9, help="timings per figure (default 9)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    tour = Tournament(args.players, args.seed)
    for _ in range(4):
        tour.play(tour.seat())
    seating = tour.seat()
    plain = seat(tour.field, SIZE, LOW, HIGH)
    repeats = repeated_pairs(plain.tables, tour.met), repeated_pairs(seating.tables, tour.met)
    seat_ms = median_ms(tour.seat, args.repeats)
    plain_ms = median_ms(lambda: seat(tour.field, SIZE, LOW, HIGH), args.repeats)
    tour.play(seating)
    points = {e.id: e.points for e in tour.field}
    elo = {e.id: e.elo for e in tour.field}
    rows = standings(points, tour.opponents, elo)
    standings_ms = median_ms(lambda: standings(points, tour.opponents, elo), args.repeats)

    print(f"{args.players} players, tables of {SIZE} (limits {LOW}-{HIGH}), median of "
          f"{args.repeats}; target {TARGET_MS:,.0f} ms each")
    print(f"1. seat round 5 (met from 4 rounds, {len(seating.tables)} tables, "
          f"{len(seating.byes)} byes): {seat_ms:8.2f} ms  ({seat_ms / TARGET_MS:.1%} of target)"
          f"  {'OK' if seat_ms < TARGET_MS else 'SLOW'}")
    print(f"   repeated pairs: plain cut {repeats[0]}, after swaps {repeats[1]}; "
          f"the plain cut alone {plain_ms:.2f} ms")
    print(f"2. standings after 5 rounds ({len(rows)} rows):         {standings_ms:8.2f} ms  "
          f"({standings_ms / TARGET_MS:.1%} of target)  "
          f"{'OK' if standings_ms < TARGET_MS else 'SLOW'}")


if __name__ == "__main__":
    main()
