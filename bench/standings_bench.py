"""Standings benchmark (not a test): a chat with 100,000 rated games in PostgreSQL; how long
``/standings`` (this week, last week, the season) and ``/history`` take.

Run: ``.venv/bin/python -m bench.standings_bench`` (PostgreSQL at ``TEST_DATABASE_URL``; a
throwaway database is created and dropped). Target: well under a second each.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import time
from datetime import UTC, datetime, timedelta

from sqlalchemy import insert

from bench.pg import throwaway_database
from league.service import MatchService
from league.store.db import Database
from league.store.models import Chat, Game, GamePlayer, User
from league.store.rating_models import Rating, RatingEvent

NOW = datetime(2026, 6, 3, 12, 0, tzinfo=UTC)
CHAT = -42


async def fill(db: Database, games: int, players: int) -> None:
    """``games`` finished, rated 4-player games spread over the last two years."""
    rng = random.Random(1)
    async with db.engine.begin() as conn:
        await conn.execute(insert(Chat).values(id=CHAT, title="busy", last_rated_at=NOW))
        await conn.execute(insert(User), [{"id": u, "first_name": f"p{u}", "can_message": True}
                                          for u in range(1, players + 1)])
        await conn.execute(insert(Rating), [{"user_id": u, "kind": "coyote", "rating": 1500.0,
                                             "games": 0, "wins": 0}
                                            for u in range(1, players + 1)])
        step = timedelta(days=730) / games
        for start in range(0, games, 5000):
            rows, seats, events = [], [], []
            for g in range(start, min(games, start + 5000)):
                at = NOW - step * (games - g)
                table = rng.sample(range(1, players + 1), 4)
                rows.append({"id": g + 1, "chat_id": CHAT, "thread_id": 0, "kind": "coyote",
                             "options": {"edition": "classic"}, "status": "finished",
                             "version": 9, "seed": g, "creator_id": table[0],
                             "finished_at": at})
                for place, user in enumerate(table, 1):
                    seats.append({"game_id": g + 1, "user_id": user, "name": f"p{user}",
                                  "is_ai": False, "seat": place - 1, "placement": place})
                    events.append({"game_id": g + 1, "user_id": user, "chat_id": CHAT,
                                   "kind": "coyote", "before": 1500.0, "after": 1500.0,
                                   "k": 20, "score": 4.0 - place, "expected": 1.5,
                                   "place": place, "finished_at": at})
            await conn.execute(insert(Game), rows)
            await conn.execute(insert(GamePlayer), seats)
            await conn.execute(insert(RatingEvent), events)
        await conn.exec_driver_sql("ANALYZE")


async def timed(label: str, coro) -> None:  # type: ignore[no-untyped-def]
    started = time.perf_counter()
    result = await coro
    took = time.perf_counter() - started
    size = len(getattr(result, "rows", result)) if hasattr(result, "__len__") or hasattr(
        result, "rows") else 1
    print(f"{label:<22} {took * 1000:8.1f} ms  ({size} rows)  "
          f"{'OK' if took < 1 else 'SLOW'}")


async def run(games: int, players: int) -> None:
    """Create, fill, time the queries, drop."""
    async with throwaway_database() as db:
        started = time.perf_counter()
        await fill(db, games, players)
        print(f"filled {games} rated games in {time.perf_counter() - started:.1f} s")
        service = MatchService(db, clock=lambda: NOW)
        for _ in range(2):  # the second round runs with warm caches
            await timed("/standings", service.standings(CHAT, "week", kind="coyote"))
            await timed("/standings last", service.standings(CHAT, "last", kind="coyote"))
            await timed("/standings season", service.standings(CHAT, "season", kind="coyote"))
            await timed("/history", service.history(CHAT, kind="coyote"))
            await timed("/rating", service.rating_card(1, CHAT, kind="coyote"))
            await timed("weekly post look-up", service.due_posts())


def main() -> None:
    """Command line: ``--games``, ``--players``."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--players", type=int, default=200)
    args = parser.parse_args()
    asyncio.run(run(args.games, args.players))


if __name__ == "__main__":
    main()
