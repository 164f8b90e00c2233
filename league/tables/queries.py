"""League read side: standings, rating cards, history, replays, the leaderboard, and the
weekly/season posts (claimed exactly once).

Times are aware UTC; a chat's weeks and seasons follow its time zone (``Chat.timezone``).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, NamedTuple

from sqlalchemy import func, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from league.store.clock import aware
from league.store.context import Context
from league.store.errors import ServiceError
from league.store.models import Chat, GameEvent, GamePlayer, User
from league.store.models import Game as GameRow
from league.store.rating_models import LeaguePost, Rating, RatingEvent
from league.store.rows import load_game, rowcount
from league.store.snapshots import GameSnapshot, snapshot
from league.tables.ratings import START, RatingChange, shown_change, shown_rating
from league.tables.standings import (
    DEFAULT_TZ,
    MAX_SEASON_WEEKS,
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
POST_RETRY = timedelta(minutes=10)
"""A claimed post not sent after this long (the send failed, or the bot died) is retried."""


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


class DuePost(NamedTuple):
    """A weekly or season table due in a chat: ``post`` is ``"week"`` or ``"season"``,
    ``end`` the moment the period ended (its key)."""

    chat_id: int
    game_kind: str
    post: str
    end: datetime


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

    # --- weekly and season posts -------------------------------------------------------------
    async def due_posts(self) -> list[DuePost]:
        """The posts due (:func:`_due_kinds`): each finished week's and season's table of
        each chat and game kind rated in it, by chat, then period (weeks first, oldest
        first), then game kind. A scheduler stopped for a while catches up on the periods
        it missed (:func:`_unposted`), at most :data:`MISSED_PERIODS` of each. None of a
        chat the bot is out of (``Chat.bot_left_at``: Telegram refused a call there with a
        403) until it is added back, or a game is rated there since (a sign it may be: a
        post refused again waits again): then the posts owed go out, the refused one too (its
        claim was not marked sent)."""
        now = self.ctx.clock()
        due = []
        async with self.ctx.db.sessions() as session:
            since = now - timedelta(weeks=MAX_SEASON_WEEKS + 1)
            chats = list(await session.execute(
                select(Chat.id, Chat.timezone, Chat.season_weeks, Chat.last_rated_at)
                .where(Chat.last_rated_at >= since,
                       or_(Chat.bot_left_at.is_(None), Chat.last_rated_at > Chat.bot_left_at))
                .order_by(Chat.id)))
            for chat_id, tz, weeks, last_rated in chats:
                for post in ("week", "season"):
                    for start, end in await _unposted(session, chat_id, post, tz, weeks, now):
                        if last_rated is None or aware(last_rated) < start:
                            continue  # nothing rated since the period began
                        due += await _due_kinds(session, chat_id, post, start, end, now)
        return due

    async def claim_post(self, chat_id: int, game_kind: str, post: str,
                         end: datetime) -> bool:
        """Claim the ``post`` (``"week"`` or ``"season"``) of game ``game_kind`` for the
        period ending ``end`` (a :class:`DuePost`'s fields); ``True`` for exactly one
        caller. A claim whose post was not sent within :data:`POST_RETRY` may be claimed
        again (one caller wins)."""
        now = self.ctx.clock()
        try:
            async with self.ctx.db.sessions.begin() as session:
                session.add(LeaguePost(chat_id=chat_id, game_kind=game_kind, kind=post,
                                       period_end=end, claimed_at=now))
            return True
        except IntegrityError:
            pass
        async with self.ctx.db.sessions.begin() as session:
            result = await session.execute(
                update(LeaguePost)
                .where(LeaguePost.chat_id == chat_id, LeaguePost.game_kind == game_kind,
                       LeaguePost.kind == post, LeaguePost.period_end == end,
                       LeaguePost.posted_at.is_(None),
                       LeaguePost.claimed_at < now - POST_RETRY)
                .values(claimed_at=now))
            return rowcount(result) == 1

    async def mark_posted(self, chat_id: int, game_kind: str, post: str,
                          end: datetime) -> None:
        """Record that a claimed post was sent, or given up for its period (Telegram
        refused it for good: the bot may not send messages in the chat); either way it is
        not claimed again."""
        async with self.ctx.db.sessions.begin() as session:
            row = await session.get(LeaguePost, (chat_id, game_kind, post, end))
            if row is not None:
                row.posted_at = self.ctx.clock()


MISSED_PERIODS = 8
"""The most finished weeks (and seasons) a scheduler catches up on at once."""


async def _unposted(session: AsyncSession, chat_id: int, post: str, tz: str, weeks: int,
                    now: datetime) -> list[tuple[datetime, datetime]]:
    """The finished periods of kind ``post`` (``"week"``, ``"season"``) that end no earlier
    than the chat's latest claim of that kind (another game's post of it, or a retry, may
    be owed) and after its first rated game, oldest first: the one before ``now``, and the
    ones before it a stopped scheduler missed."""
    latest = await session.scalar(select(func.max(LeaguePost.period_end)).where(
        LeaguePost.chat_id == chat_id, LeaguePost.kind == post))
    first: datetime | None = None
    periods: list[tuple[datetime, datetime]] = []
    moment = now
    for _ in range(MISSED_PERIODS):
        start, end = previous_week_bounds(moment, tz) if post == "week" else \
            previous_season_bounds(moment, tz, weeks)
        if latest is not None and end < aware(latest):
            break
        first = first or await session.scalar(select(func.min(RatingEvent.finished_at))
                                              .where(RatingEvent.chat_id == chat_id))
        if first is None or end <= aware(first):
            break
        periods.append((start, end))
        moment = start
    return periods[::-1]


async def _due_kinds(session: AsyncSession, chat_id: int, post: str, start: datetime,
                     end: datetime, now: datetime) -> list[DuePost]:
    """The period's posts due, one per game kind rated in it: a claim there not sent
    within :data:`POST_RETRY` (a retry), or no claim and a game of that kind finished in
    the period after that game's latest post ended (a chat whose time zone or season
    length changed is not told again what a post told)."""
    played = sorted(await session.scalars(select(RatingEvent.kind).distinct().where(
        RatingEvent.chat_id == chat_id, RatingEvent.finished_at >= start,
        RatingEvent.finished_at < end)))
    due = []
    for game_kind in played:
        claimed = await session.get(LeaguePost, (chat_id, game_kind, post, end))
        if claimed is not None:
            if claimed.posted_at is None and aware(claimed.claimed_at) < now - POST_RETRY:
                due.append(DuePost(chat_id, game_kind, post, end))
            continue
        latest = await session.scalar(select(func.max(LeaguePost.period_end)).where(
            LeaguePost.chat_id == chat_id, LeaguePost.game_kind == game_kind,
            LeaguePost.kind == post))
        if latest is not None and aware(latest) > start and not await session.scalar(
                select(func.count()).where(
                    RatingEvent.chat_id == chat_id, RatingEvent.kind == game_kind,
                    RatingEvent.finished_at >= aware(latest),
                    RatingEvent.finished_at < end)):
            continue  # (its games are in a post already, or it ended before: none new)
        due.append(DuePost(chat_id, game_kind, post, end))
    return due


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
