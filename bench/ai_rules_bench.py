"""Paired benchmark of a rule of the Coyote computer player (a script, not a test).

Run from the project root: ``python -m bench.ai_rules_bench --games 4000 --new '{}' --old
'{"reverse": 9}' --mixed`` (the default player against one that never reverses). Both
players are :class:`engine.coyote.ai.CoyoteAI` with the given fields. Prints, per
configuration, the win rate of one seat of each player against five naive players over the
same seeds (the seat rotating), the paired difference and its standard error; with
``--mixed``, also the share of six-player all-AI games one ``new`` seat wins against five
``old`` ones (fair share 1/6).
"""

from __future__ import annotations

import argparse
import json
import math
from multiprocessing import Pool

from bench.ai_bench import GAME, _naive, play
from engine.coyote.ai import CoyoteAI


def _wins(args: tuple) -> list[int]:
    fields, options, seeds, mixed = args
    ai = CoyoteAI(**fields[0])
    other = CoyoteAI(**fields[1]) if mixed else _naive
    out = []
    for g in seeds:
        seat = g % 6
        policies = [other] * 6
        policies[seat] = ai
        state = play(6, g, policies, options)
        out.append(int(GAME.placements(state)[seat] == 1))
    return out


def run(fields: list[dict], options: dict, games: int, seed: int, mixed: bool = False,
        workers: int = 2) -> list[int]:
    """Per game (seeds ``seed`` .. ``seed + games - 1``), 1 when the tested seat won."""
    chunks = [list(range(seed + i, seed + games, workers)) for i in range(workers)]
    with Pool(workers) as pool:
        parts = pool.map(_wins, [(fields, options, c, mixed) for c in chunks])
    by_seed = {}
    for chunk, part in zip(chunks, parts, strict=True):
        by_seed.update(zip(chunk, part, strict=True))
    return [by_seed[g] for g in sorted(by_seed)]


def main(argv: list[str] | None = None) -> None:
    """Parse the arguments and print the paired comparison."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=4000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--new", default="{}")
    parser.add_argument("--old", default="{}")
    parser.add_argument("--editions", default="classic,feathers")
    parser.add_argument("--mixed", action="store_true")
    args = parser.parse_args(argv)
    new, old = json.loads(args.new), json.loads(args.old)
    for edition in args.editions.split(","):
        options = {"edition": edition, "specials": True}
        a = run([new], options, args.games, args.seed)
        b = run([old], options, args.games, args.seed)
        n = len(a)
        diffs = [x - y for x, y in zip(a, b, strict=True)]
        mean = sum(diffs) / n
        se = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (n - 1) / n)
        print(f"{edition}: vs naive, {n} games: new {sum(a) / n:.2%}, old {sum(b) / n:.2%}, "
              f"diff {mean:+.2%} (se {se:.2%})", flush=True)
        if args.mixed:
            m = run([new, old], options, args.games, args.seed, mixed=True)
            p = sum(m) / n
            print(f"{edition}: 1 new vs 5 old AIs, {n} games: new wins {p:.2%} "
                  f"(se {math.sqrt(p * (1 - p) / n):.2%}; fair 16.67%)", flush=True)


if __name__ == "__main__":
    main()
