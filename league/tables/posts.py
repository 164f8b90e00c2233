"""The league's weekly and season posts: which are due in which chat, each claimed exactly
once (a claim not marked sent is retried after :data:`POST_RETRY`), and marked sent or given
up. Times are aware UTC; a chat's weeks and seasons follow its time zone."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import NamedTuple

from sqlalchemy import func, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from league.store.clock import aware
from league.store.context import Context
from league.store.models import Chat
from league.store.rating_models import LeaguePost, RatingEvent
from league.store.rows import rowcount
from league.tables.standings import (
    MAX_SEASON_WEEKS,
    previous_season_bounds,
    previous_week_bounds,
)

POST_RETRY = timedelta(minutes=10)
"""A claimed post not sent after this long (the send failed, or the bot died) is retried."""


class DuePost(NamedTuple):
    """A weekly or season table due in a chat: ``post`` is ``"week"`` or ``"season"``,
    ``end`` the moment the period ended (its key)."""

    chat_id: int
    game_kind: str
    post: str
    end: datetime


class LeaguePosts:
    """The posts' queries and claims (the bot's ``league_job`` sends them)."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

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
