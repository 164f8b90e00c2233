"""League read side: standings, rating cards, history, replays and the leaderboard (the
weekly/season posts: :mod:`league.tables.posts`).

Times are aware UTC; a chat's weeks and seasons follow its time zone (``Chat.timezone``).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from league.store.clock import aware
from league.store.context import Context
from league.store.errors import ServiceError
from league.store.models import Chat, GameEvent, GamePlayer, User
from league.store.models import Game as GameRow
from league.store.rating_models import Rating, RatingEvent
from league.store.rows import load_game
from league.store.snapshots import GameSnapshot, snapshot
from league.tables.ratings import START, RatingChange, shown_change, shown_rating
from league.tables.standings import (
    DEFAULT_TZ,
    GameResult,
    StandingRow,
    leaderboard,
    previous_season_bounds,
    previous_week_bounds,
    season_bounds,
    table,
    week_bounds,
    zone,
)

TOP_MIN_GAMES = 10
PERIODS = ("week", "last", "season", "last_season")


@dataclass(frozen=True)
class Standings:
    """A table for a chat and period: ``start``/``end`` (UTC, half-open), ``rows`` best
    first (each player's Elo now for a running period; for an ended one the Elo they ended
    it with, their last rated game's before its end in any chat), ``names`` by user id,
    ``games_played`` (rated games, for the "?" mark: all of them for a running period,
    those before its end for an ended one), the chat's time zone ``tz`` and the game
    ``kind`` whose league it is."""

    period: str
    start: datetime
    end: datetime
    rows: list[StandingRow[int]]
    names: dict[int, str]
    games_played: dict[int, int]
    tz: str = "UTC"
    kind: str | None = None


@dataclass(frozen=True)
class RatingCard:
    """``/rating``: Elo, rated games and wins, rank in the chat and overall (``None`` when
    unranked: overall needs :data:`TOP_MIN_GAMES` games)."""

    user_id: int
    name: str
    rating: float
    games: int
    wins: int
    chat_rank: int | None
    overall_rank: int | None


@dataclass(frozen=True)
class HistoryEntry:
    """A finished game of a chat: its ``kind`` and ``options`` (the bot names its variant
    and such), placements ``[(place, name, Elo change or None)]``, best first (ties in seat
    order)."""

    game_id: int
    finished_at: datetime
    kind: str
    options: dict[str, Any]
    placements: list[tuple[int, str, int | None]]


class LeagueQueries:
    """Read-side queries (part of :class:`league.service.MatchService`). Every league is
    per game kind (``kind``: each game has its own Elo), and no query has a default kind."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    async def chat_zone(self, chat_id: int) -> tuple[str, int]:
        """A chat's time zone and season length in weeks (defaults for unknown chats)."""
        async with self.ctx.db.sessions() as session:
            chat = await session.get(Chat, chat_id)
        return (chat.timezone, chat.season_weeks) if chat else ("UTC", 4)

    async def standings(self, chat_id: int, period: str = "week", *, kind: str,
                        at: datetime | None = None) -> Standings:
        """The chat's table for ``period``: ``week`` (this week), ``last`` (last week),
        ``season`` (this season), ``last_season``, as seen at ``at`` (default now). Raises
        ``bad_option``."""
        if period not in PERIODS:
            raise ServiceError("bad_option")
        tz, weeks = await self.chat_zone(chat_id)
        now = at or self.ctx.clock()
        start, end = {
            "week": lambda: week_bounds(now, tz), "last": lambda: previous_week_bounds(now, tz),
            "season": lambda: season_bounds(now, tz, weeks),
            "last_season": lambda: previous_season_bounds(now, tz, weeks),
        }[period]()
        async with self.ctx.db.sessions() as session:
            events = list(await session.scalars(
                select(RatingEvent).where(RatingEvent.chat_id == chat_id,
                                          RatingEvent.kind == kind,
                                          RatingEvent.finished_at >= start,
                                          RatingEvent.finished_at < end)))
            users = {e.user_id for e in events}
            names = await _names(session, users)
            if period in ("week", "season"):  # (running: each player's Elo now)
                ratings = list(await session.scalars(
                    select(Rating).where(Rating.user_id.in_(users), Rating.kind == kind)))
                elo = {r.user_id: r.rating for r in ratings}
                played = {r.user_id: r.games for r in ratings}
            else:  # (ended: the Elo each player ended it with, in any chat, and its "?")
                elo, played = await _elo_at(session, users, kind, end)
        return Standings(period, start, end, table(_results(events), elo), names, played, tz,
                         kind)

    async def rating_card(self, user_id: int, chat_id: int | None, *,
                          kind: str) -> RatingCard:
        """A player's rating card; a player without rated games has 1500 and no rank. Ranks
        are shared on equal ratings as shown (1 + the number of players whose Elo reads
        higher: 1491 and 1491 share a rank, whatever the decimals, as in the standings),
        counted in SQL rather than by loading every rating."""
        async with self.ctx.db.sessions() as session:
            mine = await session.get(Rating, (user_id, kind))
            names = await _names(session, {user_id})
            overall = local = None
            # (an Elo reads higher than mine from its shown value + 0.5: rounded half up)
            above = Rating.rating >= shown_rating(mine.rating if mine else START) + 0.5
            if mine is not None and mine.games >= TOP_MIN_GAMES:
                overall = 1 + (await session.scalar(
                    select(func.count()).select_from(Rating).where(
                        Rating.kind == kind, Rating.games >= TOP_MIN_GAMES, above)) or 0)
            if mine is not None and chat_id is not None:
                members = select(RatingEvent.user_id).where(
                    RatingEvent.chat_id == chat_id, RatingEvent.kind == kind)
                if user_id in set(await session.scalars(
                        members.where(RatingEvent.user_id == user_id).limit(1))):
                    local = 1 + (await session.scalar(
                        select(func.count()).select_from(Rating).where(
                            Rating.kind == kind, above,
                            Rating.user_id.in_(members.distinct()))) or 0)
        return RatingCard(user_id, names.get(user_id, str(user_id)),
                          mine.rating if mine else START, mine.games if mine else 0,
                          mine.wins if mine else 0, local, overall)

    async def rating_history(self, user_id: int, *,
                             kind: str) -> list[tuple[datetime, float]]:
        """A player's Elo after each rated game, oldest first (for the chart)."""
        async with self.ctx.db.sessions() as session:
            rows = await session.execute(
                select(RatingEvent.finished_at, RatingEvent.after)
                .where(RatingEvent.user_id == user_id, RatingEvent.kind == kind)
                .order_by(RatingEvent.finished_at, RatingEvent.id))
            return [(aware(at), after) for at, after in rows]

    async def top(self, limit: int = 10, *, kind: str) -> list[tuple[int, str, Rating]]:
        """The overall leaderboard: ``(rank, name, rating row)`` for players with at least
        :data:`TOP_MIN_GAMES` rated games."""
        async with self.ctx.db.sessions() as session:
            rows = list(await session.scalars(
                select(Rating).where(Rating.kind == kind, Rating.games >= TOP_MIN_GAMES)
                .order_by(Rating.rating.desc()).limit(limit)))
            names = await _names(session, {r.user_id for r in rows})
        board = leaderboard({r.user_id: r.rating for r in rows},
                            {r.user_id: r.games for r in rows}, min_games=TOP_MIN_GAMES)
        by_user = {r.user_id: r for r in rows}
        return [(entry.rank, names.get(entry.player, "?"), by_user[entry.player])
                for entry in board]

    async def history(self, chat_id: int, *, kind: str | None,
                      limit: int = 10) -> list[HistoryEntry]:
        """The chat's last finished games of ``kind`` (``None``: of every kind), newest
        first: each seat's place (``league.tables.places``: the final message's, the rating's)
        and Elo change where rated (``None`` for a player who was not). ``finished_at`` is
        in the chat's time zone, like its weeks."""
        async with self.ctx.db.sessions() as session:
            finished = select(GameRow).where(GameRow.chat_id == chat_id,
                                             GameRow.status == "finished")
            if kind is not None:
                finished = finished.where(GameRow.kind == kind)
            games = list(await session.scalars(
                finished.order_by(GameRow.finished_at.desc(), GameRow.id.desc()).limit(limit)))
            return [entry for _title, entry in await _entries(session, games)]

    async def player_history(self, user_id: int, *,
                             limit: int = 10) -> list[tuple[str | None, HistoryEntry]]:
        """The last finished games ``user_id`` sat in, in every chat, newest first, each with
        its chat's title (``None`` if unknown), as :meth:`history` gives a chat's (for the
        player's own private chat: which groups they play in is theirs to see)."""
        async with self.ctx.db.sessions() as session:
            mine = select(GamePlayer.game_id).where(GamePlayer.user_id == user_id)
            games = list(await session.scalars(
                select(GameRow).where(GameRow.id.in_(mine), GameRow.status == "finished")
                .order_by(GameRow.finished_at.desc(), GameRow.id.desc()).limit(limit)))
            return await _entries(session, games)

    async def replay(self, game_id: int, chat_id: int) -> tuple[GameSnapshot,
                                                              list[list[dict[str, Any]]]]:
        """A game of this chat and its event log (events per step, in order). Raises
        ``game_not_found`` for no such game, ``game_of_another_chat`` (detail ``game_id``)
        for a game of another chat (nothing about that chat)."""
        async with self.ctx.db.sessions() as session:
            row = await load_game(session, game_id)
            if row.chat_id != chat_id:
                raise ServiceError("game_of_another_chat", game_id=game_id)
            log = list(await session.scalars(select(GameEvent.events).where(
                GameEvent.game_id == game_id).order_by(GameEvent.seq)))
            return snapshot(row), log




async def _elo_at(session: AsyncSession, users: set[int], kind: str,
                  end: datetime) -> tuple[dict[int, float], dict[int, int]]:
    """Each player's Elo in game ``kind`` at the moment ``end`` (the ``after`` of their last
    rated game finished before it, in any chat: Elo is one per game) and their rated games
    by then (for the "?" of a provisional Elo), in one query."""
    latest = func.row_number().over(partition_by=RatingEvent.user_id, order_by=(
        RatingEvent.finished_at.desc(), RatingEvent.id.desc()))
    games = func.count().over(partition_by=RatingEvent.user_id)
    ranked = select(RatingEvent.user_id, RatingEvent.after, latest.label("latest"),
                    games.label("games")).where(
        RatingEvent.user_id.in_(users), RatingEvent.kind == kind,
        RatingEvent.finished_at < end).subquery()
    rows = (await session.execute(select(ranked.c.user_id, ranked.c.after, ranked.c.games)
                                  .where(ranked.c.latest == 1))).all()
    return {u: after for u, after, _ in rows}, {u: n for u, _, n in rows}


async def _entries(session: AsyncSession,
                   games: list[GameRow]) -> list[tuple[str | None, HistoryEntry]]:
    """``(chat title, history entry)`` of each of ``games``, in order: each seat's place and
    Elo change where rated, ``finished_at`` in the game's chat's time zone."""
    ids = [g.id for g in games]
    chats = {c.id: c for c in await session.scalars(
        select(Chat).where(Chat.id.in_({g.chat_id for g in games})))}
    players = list(await session.scalars(select(GamePlayer).where(GamePlayer.game_id.in_(ids))))
    rated = {(e.game_id, e.user_id): e for e in await session.scalars(
        select(RatingEvent).where(RatingEvent.game_id.in_(ids)))}
    seats: dict[int, list[GamePlayer]] = defaultdict(list)
    for p in players:
        seats[p.game_id].append(p)
    entries = []
    for g in games:
        chat = chats.get(g.chat_id)
        tz = zone((chat.timezone if chat else None) or DEFAULT_TZ)
        entries.append((chat.title if chat else None, HistoryEntry(
            g.id, aware(g.finished_at or g.created_at).astimezone(tz), g.kind,
            dict(g.options or {}),
            [_history_line(p, rated.get((g.id, p.user_id or 0)))
             for p in sorted(seats[g.id], key=lambda p: (p.placement or 0, p.seat or 0))])))
    return entries


def _history_line(player: GamePlayer,
                  event: RatingEvent | None) -> tuple[int, str, int | None]:
    """A seat's place (``league.tables.places``, as every page shows it) and Elo change, if
    rated."""
    return (player.placement or 0, player.name,
            None if event is None else shown_change(event.before, event.after))


async def _names(session: Any, users: set[int]) -> dict[int, str]:
    rows = await session.execute(select(User.id, User.first_name, User.last_name)
                                 .where(User.id.in_(users)))
    return {uid: " ".join(p for p in (first, last) if p) for uid, first, last in rows}


def _results(events: list[RatingEvent]) -> list[GameResult[int]]:
    by_game: dict[int, list[RatingEvent]] = defaultdict(list)
    for e in events:
        by_game[e.game_id].append(e)
    return [GameResult(game_id, aware(rows[0].finished_at),
                       {e.user_id: RatingChange(e.user_id, e.before, e.after, e.k, e.score,
                                                e.expected) for e in rows},
                       {e.user_id: e.place for e in rows})
            for game_id, rows in by_game.items()]
