"""Placing and rating a finished game, in the transaction that finishes it.

Places: :func:`league.tables.places.final_places` (the game's order, a player who left or was
removed for timeouts last), written on the seats (``GamePlayer.placement``), so every text
and page shows the same places. Ratings (``league.tables.ratings``, multiplayer Elo by pairs) should
reflect play: only a human who made a move of their own counts (``GameEvent.user_id`` is set
on their moves; a turn the computer played for them after a timeout, or a removal for
timeouts, carries none). A leave (``/leave``, or leaving the group: the :data:`LEAVE` action,
which carries its player's id) is no move of one's own: a human who left before they moved
is placed last, and not rated. A game is rated when 3 or more humans made a move and
no computer sat in it; then each of them gets one :class:`RatingEvent` (unique per game and
player, so it can never be rated twice), places among themselves kept, and their current
:class:`Rating` is updated. A human who never moved is placed but not rated. Each human
seat's ``rated`` says which, for the final message.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from engine import PLAYER_REMOVED, Action
from league.store.clock import aware
from league.store.models import Chat, GameEvent
from league.store.models import Game as GameRow
from league.store.rating_models import Rating, RatingEvent
from league.tables.places import final_places
from league.tables.ratings import START, RatingChange, is_rated, rate_game

LEAVE = Action("resign")
"""A leave: the action the league asks the game for when a player quits (``/leave``, leaving
the group; logged with their id) or is removed for timeouts (logged without)."""


async def rate_if_finished(session: AsyncSession, row: GameRow,
                           now: datetime) -> dict[int, RatingChange[int]] | None:
    """Place ``row``'s seats and rate it if it just finished and counts; returns
    ``{user_id: change}`` or ``None`` (not finished, already rated, or not rated).

    Current ratings are read ``FOR UPDATE`` on PostgreSQL, so two games finishing at once
    with a shared player apply one after the other instead of losing an update. The rating
    is dated as the game is (``Game.finished_at``, which this transaction wrote), so the
    week it counts in is the week /history dates it in; ``now`` only without one.
    """
    if row.status != "finished":
        return None
    now = aware(row.finished_at) if row.finished_at is not None else now
    if await session.scalar(select(RatingEvent.id).where(RatingEvent.game_id == row.id)
                            .limit(1)) is not None:
        return None
    # (the session flushes this transaction's moves first: the last one is in the log)
    log = (await session.execute(select(GameEvent.seat, GameEvent.user_id, GameEvent.action,
                                        GameEvent.events)
                                 .where(GameEvent.game_id == row.id))).all()
    departed = {e.get("seat") for _, _, _, events in log for e in events
                if e.get("type") == PLAYER_REMOVED}
    moved = {user_id for seat, user_id, action, _ in log
             if seat is not None and user_id is not None
             and (action or {}).get("kind") != LEAVE.kind}
    seats = {p.seat: p for p in row.players if p.seat is not None}
    places = final_places([seats[s].placement or len(seats) for s in sorted(seats)],
                          departed)
    for seat, place in zip(sorted(seats), places, strict=True):
        seats[seat].placement = place
    humans = [p for p in seats.values() if p.user_id is not None and not p.is_ai]
    counted: dict[int, int] = {p.user_id: p.placement for p in humans
                               if p.user_id in moved and p.user_id is not None
                               and p.placement is not None}
    rated = is_rated(len(counted), sum(1 for p in row.players if p.is_ai), row.status)
    for player in humans:
        player.rated = rated and player.user_id in counted
    if not rated:
        return None
    stmt = select(Rating).where(Rating.user_id.in_(list(counted)), Rating.kind == row.kind)
    if session.get_bind().dialect.name == "postgresql":
        stmt = stmt.with_for_update()
    current = {r.user_id: r for r in await session.scalars(stmt)}
    changes = rate_game(counted, {u: r.rating for u, r in current.items()},
                        {u: r.games for u, r in current.items()})
    for user_id, change in changes.items():
        session.add(RatingEvent(game_id=row.id, user_id=user_id, chat_id=row.chat_id,
                                kind=row.kind, before=change.before, after=change.after,
                                k=change.k, score=change.score, expected=change.expected,
                                place=counted[user_id], finished_at=now))
        rating = current.get(user_id)
        if rating is None:
            rating = Rating(user_id=user_id, kind=row.kind, rating=START, games=0, wins=0)
            session.add(rating)
        rating.rating = change.after
        rating.games += 1
        rating.wins += counted[user_id] == 1
        rating.updated_at = now
    # Never backwards: another game of the chat may have committed a later time first.
    await session.execute(update(Chat).where(
        Chat.id == row.chat_id,
        or_(Chat.last_rated_at.is_(None), Chat.last_rated_at < now)).values(last_rated_at=now))
    return changes
