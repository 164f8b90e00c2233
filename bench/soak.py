"""``make soak`` (not part of ``make test``): crash safety from update to message, measured.

Starts its own throwaway PostgreSQL cluster (``initdb`` + ``pg_ctl`` on a free port, as the
``postgres`` user when run as root) and the fake Bot API, then runs three phases against the
real bot process (``python -m telegram_app``):

1. **Kills**: 12 four-player games (one group each, players pressing as soon as their
   keyboard appears) while the bot is SIGKILLed every 5–15 s (counted from its first poll
   after a start) and restarted, until every game ends or ``--minutes`` pass.
2. **Fuzz**: two running games played to the end through webhooks while 5,000 forged callback
   queries and 500 junk texts and commands arrive, one update in ten delivered twice.
3. **Outage**: a game in progress while the cluster is stopped for 20 s; a player presses
   every 2 s meanwhile; then the game goes on to its end.

Prints: games finished / stuck, presses unanswered, bids told twice in their group (the
same bid's line in two group notes, or twice in one: a kill between a note's send and the
record that it was told shows it again), inconsistencies in the database, and the bot's log
lines at ERROR. "Stuck" counts games that did not end in time, and stalls (no new keyboard
for ``STALL`` s, after which a player presses the same keyboard again); a game whose last move
was never shown is re-presented by the sweep (a kill between a move's commit and its
messages must not leave a game stuck).

Usage: ``.venv/bin/python -m bench.soak [--seed N] [--minutes M] [--phases kills,fuzz,outage]
[--think LOW-HIGH]``; ``--think 1.5-3``: the kill phase's players think 1.5 to 3 s before
each move (default ``0-3``), as people do.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

import psycopg

from bench.soak_checks import inconsistencies, told_twice
from bench.soak_cluster import Cluster
from bench.soak_phases import KILL_THINK, phase_fuzz, phase_kills, phase_outage
from bench.soak_players import STALL, Figures
from league.store.db import upgrade
from tests.fakebot import FakeBotAPI

KEPT_LOG = Path(tempfile.gettempdir()) / "coyote-soak-bot.log"  # the bot's log, kept


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--minutes", type=float, default=15.0, help="per phase, at most")
    parser.add_argument("--phases", default="kills,fuzz,outage")
    parser.add_argument("--think", default="-".join(f"{t:g}" for t in KILL_THINK),
                        help="seconds the kill phase's players think a move: LOW-HIGH")
    args = parser.parse_args()
    low, _, high = args.think.partition("-")
    think = (float(low), float(high or low))
    rng = random.Random(args.seed)
    phases = set(args.phases.split(","))
    cluster = Cluster()
    figures = Figures()
    log = cluster.dir / "bot.log"
    started = time.monotonic()
    try:
        await asyncio.to_thread(cluster.init)
        await asyncio.to_thread(cluster.start)
        with psycopg.connect(cluster.url(), autocommit=True) as conn:
            conn.execute("CREATE DATABASE soak")
        url = cluster.url("soak")
        await asyncio.to_thread(upgrade, url)
        async with FakeBotAPI() as api:
            if "kills" in phases:
                await phase_kills(api, url, log, figures, rng, args.minutes, think)
                print(f"kills: done after {time.monotonic() - started:.0f} s", flush=True)
            if "outage" in phases:
                await phase_outage(api, url, log, figures, rng, cluster, args.minutes)
                print(f"outage: done after {time.monotonic() - started:.0f} s", flush=True)
            if "fuzz" in phases:
                await phase_fuzz(api, url, log, figures, rng, args.minutes)
                print(f"fuzz: done after {time.monotonic() - started:.0f} s", flush=True)
            await asyncio.sleep(3)  # late answers of the last presses
            unanswered = [q for q in figures.presses if api.callback_answer(q) is None]
            unanswered_forged = [q for q in figures.forged if api.callback_answer(q) is None]
            alerts: dict[str, int] = {}
            for query in figures.presses:
                answer = api.callback_answer(query) or {}
                if answer.get("show_alert"):
                    key = (answer.get("text") or "")[:60]
                    alerts[key] = alerts.get(key, 0) + 1
            repeats: list[str] = []
            twice = told_twice(api, repeats)
        problems = inconsistencies(url)
        text = log.read_text(errors="replace") if log.exists() else ""
        errors = [line for line in text.splitlines() if " ERROR " in line or " CRITICAL " in line]
    finally:
        if log.exists():
            shutil.copy(log, KEPT_LOG)
        await asyncio.to_thread(cluster.remove)
    print(f"\nsoak (seed {args.seed}, {time.monotonic() - started:.0f} s, "
          f"{figures.kills} kills, kill-phase players thinking {think[0]:g}–{think[1]:g} s)")
    print(f"games finished / stuck:       {figures.finished}/{figures.games - figures.finished}"
          f"  (stalls of {STALL:.0f} s: {figures.stalls})")
    print(f"presses unanswered:           {len(unanswered)} of {len(figures.presses)}")
    print(f"forged presses unanswered:    {len(unanswered_forged)} of {len(figures.forged)}"
          f"  (junk texts {figures.junk}, repeated updates {figures.repeats})")
    for text, count in sorted(alerts.items(), key=lambda a: -a[1])[:6]:
        print(f"  {count:5d} alerts {text!r}")
    print(f"bids told twice in the group: {twice}")
    for repeat in repeats[:5]:
        print(f"  {repeat}")
    print(f"outage answers:               {figures.outage_answers} of "
          f"{figures.outage_presses} presses; recovered after "
          f"{'-' if figures.recovery is None else f'{figures.recovery:.1f} s'}")
    print(f"inconsistencies:              {len(problems)}")
    for problem in problems[:20]:
        print(f"  {problem}")
    print(f"log lines at ERROR:           {len(errors)}  (the bot's log: {KEPT_LOG})")
    for line in errors[:20]:
        print(f"  {line[:200]}")
    ok = (figures.finished == figures.games and not unanswered and not unanswered_forged
          and not problems and not errors)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
