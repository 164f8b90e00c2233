"""Rating a finished game, in the transaction that finishes it.

Source of the rules: ``league.ratings`` (multiplayer Elo by pairs). A game is rated when it
finished with 3 or more human players and no computer seat; a player removed for timeouts (or
who left) counts as last. Each rated game adds one :class:`RatingEvent` per player (unique per
game and player, so it can never be rated twice) and updates the current :class:`Rating`.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from engine import PLAYER_REMOVED
from league.models import Chat, GameEvent, Rating, RatingEvent
from league.models import Game as GameRow
from league.ratings import START, RatingChange, is_rated, rate_game, with_departures


async def rate_if_finished(session: AsyncSession, row: GameRow,
                           now: datetime) -> dict[int, RatingChange[int]] | None:
    """Rate ``row`` if it just finished and counts; returns ``{user_id: change}`` or ``None``.

    Current ratings are read ``FOR UPDATE`` on PostgreSQL, so two games finishing at once
    with a shared player apply one after the other instead of losing an update.
    """
    if row.status != "finished":
        return None
    humans = [p for p in row.players if p.user_id is not None and not p.is_ai]
    ai_seats = sum(1 for p in row.players if p.is_ai)
    if not is_rated(len(humans), ai_seats, row.status):
        return None
    if await session.scalar(select(RatingEvent.id).where(RatingEvent.game_id == row.id)
                            .limit(1)) is not None:
        return None
    by_seat = {p.seat: p.user_id for p in humans if p.user_id is not None}
    removed = await session.scalars(select(GameEvent.events).where(GameEvent.game_id == row.id))
    departed = {by_seat[e["seat"]] for events in removed for e in events
                if e.get("type") == PLAYER_REMOVED and e.get("seat") in by_seat}
    places = with_departures({p.user_id: p.placement or len(humans) for p in humans
                              if p.user_id is not None}, departed)
    ids = list(places)
    stmt = select(Rating).where(Rating.user_id.in_(ids), Rating.kind == row.kind)
    if session.get_bind().dialect.name == "postgresql":
        stmt = stmt.with_for_update()
    current = {r.user_id: r for r in await session.scalars(stmt)}
    changes = rate_game(places, {u: r.rating for u, r in current.items()},
                        {u: r.games for u, r in current.items()})
    for user_id, change in changes.items():
        session.add(RatingEvent(game_id=row.id, user_id=user_id, chat_id=row.chat_id,
                                kind=row.kind, before=change.before, after=change.after,
                                k=change.k, score=change.score, expected=change.expected,
                                place=places[user_id], finished_at=now))
        rating = current.get(user_id)
        if rating is None:
            rating = Rating(user_id=user_id, kind=row.kind, rating=START, games=0, wins=0)
            session.add(rating)
        rating.rating = change.after
        rating.games += 1
        rating.wins += places[user_id] == 1
        rating.updated_at = now
    # Never backwards: another game of the chat may have committed a later time first.
    await session.execute(update(Chat).where(
        Chat.id == row.chat_id,
        or_(Chat.last_rated_at.is_(None), Chat.last_rated_at < now)).values(last_rated_at=now))
    return changes
