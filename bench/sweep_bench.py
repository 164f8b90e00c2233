"""Sweep benchmark (not a test): 10,000 running games in PostgreSQL, 1,000 of them overdue;
how long one sweep takes to apply every timeout (the computer moves for the player).

Run: ``.venv/bin/python -m bench.sweep_bench`` (PostgreSQL at ``TEST_DATABASE_URL``, default
the local server; a throwaway database is created and dropped). Target: ≤ 2 s.
"""

from __future__ import annotations

import argparse
import asyncio
import time
from datetime import UTC, datetime, timedelta

from sqlalchemy import insert

from bench.pg import throwaway_database
from engine import GAMES
from league.service import MatchService
from league.store.db import Database
from league.store.models import Chat, Game, GamePlayer, User

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)


async def fill(db: Database, games: int, overdue: int, players: int) -> None:
    """Insert ``games`` running classic games, ``overdue`` of them past their deadline."""
    coyote = GAMES["coyote"]
    async with db.engine.begin() as conn:
        await conn.execute(insert(Chat), [{"id": -1000 - c, "title": f"g{c}"}
                                          for c in range(games)])
        await conn.execute(insert(User), [{"id": u, "first_name": f"u{u}", "can_message": True}
                                          for u in range(1, players + 1)])
        rows, seats = [], []
        for g in range(games):
            state = coyote.new_state(players, g, {"edition": "classic"})
            late = g < overdue
            deadline = NOW - timedelta(seconds=5) if late else NOW + timedelta(hours=1)
            rows.append({"id": g + 1, "chat_id": -1000 - g, "thread_id": 0, "kind": "coyote",
                         "options": {"edition": "classic", "pace": "standard",
                                     "timeout_policy": "ai"},
                         "status": "running", "state": state, "version": 1, "seed": g,
                         "creator_id": 1, "deadline_at": deadline, "remind_at": None,
                         "due_at": deadline})
            seats += [{"game_id": g + 1, "user_id": s + 1, "name": f"u{s + 1}", "is_ai": False,
                       "seat": s, "lives": 3} for s in range(players)]
        for i in range(0, len(rows), 1000):
            await conn.execute(insert(Game), rows[i:i + 1000])
        for i in range(0, len(seats), 5000):
            await conn.execute(insert(GamePlayer), seats[i:i + 5000])


async def run(games: int, overdue: int, players: int) -> None:
    """Create, fill, sweep, report, drop."""
    async with throwaway_database() as db:
        started = time.perf_counter()
        await fill(db, games, overdue, players)
        print(f"filled {games} games ({overdue} overdue) in {time.perf_counter() - started:.1f} s")
        service = MatchService(db, clock=lambda: NOW)
        started = time.perf_counter()
        results = await service.sweep(limit=overdue * 2)
        took = time.perf_counter() - started
        assert len(results) == overdue, len(results)
        assert all(r.kind == "timeout" for r in results)
        print(f"swept {len(results)} overdue games in {took:.2f} s "
              f"({took / max(1, len(results)) * 1000:.2f} ms per game); target ≤ 2 s: "
              f"{'met' if took <= 2 else 'NOT met'}")
        again = time.perf_counter()
        assert await service.sweep() == []
        print(f"an idle sweep over {games} games took {time.perf_counter() - again:.3f} s")


def main() -> None:
    """Command line: ``--games``, ``--overdue``, ``--players``."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--overdue", type=int, default=1_000)
    parser.add_argument("--players", type=int, default=5)
    args = parser.parse_args()
    asyncio.run(run(args.games, args.overdue, args.players))


if __name__ == "__main__":
    main()
