"""Throughput of the whole bot as an operator sees it: the real bot process
(``python -m bench.bot_process``, i.e. ``python -m telegram_app``) against PostgreSQL with
100,000 finished games and the fake Bot API (``tests/fakebot``) adding a delay to every call;
four scripted human players per group press as soon as their keyboard appears, or a set time
after it (🐺 Coyote! asks first: that press is no move and not counted, its "Yes" is; the
calls and transactions of both count toward the moves').

``.venv/bin/python -m bench.throughput_bench [--seconds 30] [--concurrency N]
[--finished 100000] [--only NAMES] [--repeat K] [--profile DIR] [--no-pgbench] [--markdown]
[--dump DIR]``.
Prints, per setting: presses/s; what a player feels, from the press (the moment the scripted
player's callback query is queued at the fake Bot API): press → answer (the bot's
``answerCallbackQuery`` for that press reaching the fake Bot API: the arrival of its request,
before the fake's added delay) and press → the next player's keyboard, p50/p95, also as
multiples of the round trip (the fake's added delay per call); press → fetched (the
``getUpdates`` call that handed the press to the bot returned; a diagnostic); rate-limited Bot
API calls per move (all, in the group), bot CPU per press, database transactions per press,
sequential scans of the tables that grow with games, the load average before and after; then
each target with its figure and "met" / "missed"; then single-client ``pgbench`` TPS
measured in the same run (before and after the settings: the machine is shared).

The targets: press → answer p50 ≤ 1.5 and p95 ≤ 2.5 round trips, press → next keyboard p50
≤ 3 round trips (settings with a delay); ≥ 15 presses/s with 150 ms calls and 50 groups; one
busy group changes the others' presses/s by < 10 % and their press → keyboard p95 by < 10 % +
100 ms (the busy setting against its base run in the same invocation: run both, e.g.
``--only "limits on,busy"``); ≤ 3 rate-limited calls a move, ≤ 1 of them in the group; ≤ 3
transactions a press.

The main setting (150 ms calls, 50 groups pressing at once) is a closed loop: each group
presses again as soon as it can, so its latency is about groups / presses per second, and
every millisecond of CPU the machine spends on a press lengthens it, this process's too
(the players and the fake Bot API, which in production are Telegram's; shown as ``bench cpu
ms/press``: the players wait on the fake's log of their own chats, not on its every request).
The paced setting, the same 50 groups whose players think 3 s before each press (about
14 presses/s: about the 30 messages a second one bot token may send, at 3 calls a move),
tells what players feel at a real bot's load; it has the same figures and no presses/s
target.

``--only`` takes comma-separated parts of setting names (a setting runs if its name contains
one): ``"150 ms"`` is the main setting alone, ``"no delay"`` the first, ``"limits on,busy"``
the third and fourth, ``"think"`` the paced one (``"150 ms,think"``: the main setting, then
the paced one). ``--markdown`` also prints one table row per target (with the date, the
machine, the commit and the command) for ``docs/benchmarks.md``; the commit is
``BENCH_COMMIT`` if set, else ``git rev-parse --short HEAD`` of the tree the bot runs from,
``+dirty`` when its code has uncommitted changes. ``--dump DIR`` writes each setting's
presses and Bot API calls of the window (times relative to its start) to
``DIR/<setting>.json``, to read a press's path call by call.

The bot runs as deployed (its ``LaneProcessor``); ``--concurrency N`` sets
``UPDATE_CONCURRENCY`` (default: the bot's own, 16 on PostgreSQL). ``--repeat K`` runs each
setting K times (the spread of a shared machine). ``--profile DIR`` has the bot write a
cProfile of the measured window and its transactions by origin
(:mod:`bench.bot_process`) to ``DIR/<setting>.prof`` / ``.xacts.json``; cProfile slows
the bot, so take the other figures from a run without it.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shlex
import time
from pathlib import Path

from bench.pg import throwaway_database
from bench.throughput_machine import bot_commit, machine_summary, pgbench_tps
from bench.throughput_measure import run_setting, seed_finished_games
from bench.throughput_settings import SETTINGS, Setting
from bench.throughput_targets import Target, targets


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--concurrency", type=int, default=None)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--profile", default="", help="a directory for profiles (slower)")
    parser.add_argument("--no-pgbench", action="store_true")
    parser.add_argument("--finished", type=int, default=100_000)
    parser.add_argument("--only", default="",
                        help="run the settings whose name has one of these (comma-separated)")
    parser.add_argument("--markdown", action="store_true",
                        help="also print a table row per target for docs/benchmarks.md")
    parser.add_argument("--dump", default="",
                        help="a directory for each setting's presses and calls (JSON)")
    args = parser.parse_args()
    # (the command that measures, for the table: without the options that only print or save)
    words = [".venv/bin/python", "-m", "bench.throughput_bench"]
    for name, value in vars(args).items():
        if name not in ("markdown", "dump") and value != parser.get_default(name):
            words += [f"--{name.replace('_', '-')}"] if value is True else \
                [f"--{name}", f"{value:g}" if isinstance(value, float) else str(value)]
    command = shlex.join(words)
    measured: list[tuple[Setting, list[Target]]] = []
    print(f"{time.strftime('%Y-%m-%d %H:%M')} · {os.cpu_count()} cores · load average "
          f"{'/'.join(f'{x:.1f}' for x in os.getloadavg())} · update concurrency "
          f"{args.concurrency or 'default'} · {args.seconds:.0f} s a setting")
    if not args.no_pgbench:
        tps = await asyncio.to_thread(pgbench_tps)
        print(f"pgbench, one client: {tps:.0f} TPS (load average {os.getloadavg()[0]:.1f})"
              if tps else "pgbench not found")
    async with throwaway_database() as db:
        url = db.url.replace("postgresql+psycopg://", "postgresql://")
        started = time.monotonic()
        await asyncio.to_thread(seed_finished_games, url, args.finished)
        print(f"seeded {args.finished} finished games in {time.monotonic() - started:.0f} s")
        runs = [(n, setting) for n, setting in enumerate(SETTINGS)
                if not args.only or any(part in setting.name
                                        for part in args.only.split(","))]
        latest: dict[str, dict[str, float]] = {}  # setting name -> its latest figures
        for k, (n, setting) in enumerate(runs * args.repeat):
            hooks = {}
            if args.profile:
                stem = Path(args.profile) / f"{n}-{k}"
                stem.parent.mkdir(parents=True, exist_ok=True)
                hooks = {"BENCH_PROFILE": f"{stem}.prof", "BENCH_XACTS": f"{stem}.xacts.json"}
            dump = Path(args.dump) / f"{n}-{k}.json" if args.dump else None
            figures = await run_setting(setting, url, args.seconds, args.concurrency,
                                        offset=(k + 1) * 100_000, hooks=hooks, dump=dump)
            latest[setting.name] = figures
            rt = f", round trip {setting.delay * 1000:.0f} ms" if setting.delay else ""
            print(f"\n{setting.name}{rt}", flush=True)
            for key, value in figures.items():
                shown = f"{value:.2f}" if isinstance(value, float) else value
                print(f"  {key:>26}: {shown}")
            found = targets(setting, figures, latest.get(setting.base))
            measured.append((setting, found))
            print("  targets:")
            for target in found:
                print(f"    {target.verdict:>12}  {target.what}: {target.figure}")
    if not args.no_pgbench:
        tps = await asyncio.to_thread(pgbench_tps)
        print(f"\npgbench, one client: {tps:.0f} TPS (load average {os.getloadavg()[0]:.1f})"
              if tps else "\npgbench not found")
    if args.markdown:
        when = f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {bot_commit()}"
        machine = machine_summary()
        print("\n| target | setting | figure | status | measured | machine | command |\n"
              "| --- | --- | --- | --- | --- | --- | --- |")
        for setting, found in measured:
            for target in found:
                print(f"| {target.what} | {setting.name} | {target.figure} | "
                      f"{target.verdict} | {when} | {machine} | "
                      f"`{command}` |")


if __name__ == "__main__":
    asyncio.run(main())
