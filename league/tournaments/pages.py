"""Tournament reads for the league's pages (the Mini App, ``/history``, ``/rating``) that the
match service's tournament calls do not cover: a chat's tournaments including the finished
ones, and a player's tournaments in one chat (a page about someone else, or a group's
message, names only the tournaments of that group: which other groups a person plays in is
theirs to tell).

Plain functions of the database, as :mod:`league.store.access` is: they read, never write,
and share no state with the service's parts."""

from __future__ import annotations

from sqlalchemy import select

from league.store.db import Database
from league.store.tournament_models import Tournament, TournamentEntry
from league.tournaments.records import TournamentSnapshot, snapshot_of

SHOWN = ("signup", "running", "finished")
"""What a chat's list shows: a cancelled tournament has nothing to see."""
PLAYED = ("running", "finished")
"""A tournament one has played in (its rounds began)."""


async def chat_tournaments(db: Database, chat_id: int, limit: int = 10
                           ) -> list[TournamentSnapshot]:
    """The chat's tournaments in sign-up, running or finished, latest first."""
    async with db.sessions() as session:
        rows = (await session.scalars(select(Tournament).where(
            Tournament.chat_id == chat_id, Tournament.status.in_(SHOWN))
            .order_by(Tournament.id.desc()).limit(limit))).all()
        return [await snapshot_of(session, row) for row in rows]


async def played_tournaments(db: Database, user_id: int, chat_id: int | None = None,
                             limit: int = 10) -> list[TournamentSnapshot]:
    """The tournaments ``user_id`` played or plays (running or finished), latest first;
    with ``chat_id``, only that chat's."""
    stmt = (select(Tournament)
            .join(TournamentEntry, TournamentEntry.tournament_id == Tournament.id)
            .where(TournamentEntry.user_id == user_id, Tournament.status.in_(PLAYED)))
    if chat_id is not None:
        stmt = stmt.where(Tournament.chat_id == chat_id)
    async with db.sessions() as session:
        rows = (await session.scalars(stmt.order_by(Tournament.id.desc()).limit(limit))).all()
        return [await snapshot_of(session, row) for row in rows]
