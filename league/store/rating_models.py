"""The league's derived tables: each player's Elo in a game family (:class:`Rating`, the
replay of :class:`RatingEvent`) and the weekly and season tables posted to a chat
(:class:`LeaguePost`). See ``league.tables``."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    BigInteger,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column

from league.store.orm import Base, utcnow


class Rating(Base):
    """A player's current Elo in one game family (``kind``: every variant of a game shares
    its kind). Derived data: it equals the replay of :class:`RatingEvent` rows."""

    __tablename__ = "ratings"

    user_id: Mapped[int] = mapped_column(BigInteger, ForeignKey("users.id"), primary_key=True)
    kind: Mapped[str] = mapped_column(String(32), primary_key=True)
    rating: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer, default=0)
    wins: Mapped[int] = mapped_column(Integer, default=0)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class RatingEvent(Base):
    """Append-only: one row per rated game and player (Elo ``before``/``after``, ``k``, the
    pair score ``score`` = S and the expectation ``expected`` = E, the ``place``)."""

    __tablename__ = "rating_events"
    __table_args__ = (
        UniqueConstraint("game_id", "user_id", name="uq_rating_events_game_user"),
        Index("ix_rating_events_chat_finished", "chat_id", "finished_at"),
        Index("ix_rating_events_user_finished", "user_id", "finished_at"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id"))
    user_id: Mapped[int] = mapped_column(BigInteger, ForeignKey("users.id"))
    chat_id: Mapped[int] = mapped_column(BigInteger)
    kind: Mapped[str] = mapped_column(String(32))
    before: Mapped[float] = mapped_column(Float)
    after: Mapped[float] = mapped_column(Float)
    k: Mapped[int] = mapped_column(Integer)
    score: Mapped[float] = mapped_column(Float)
    expected: Mapped[float] = mapped_column(Float)
    place: Mapped[int] = mapped_column(Integer)
    finished_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class LeaguePost(Base):
    """A weekly or season table of one game kind posted (or being posted) to a chat: the
    primary key makes the claim unique, so two bot processes or a restart never post it
    twice. ``kind`` is the post's (``"week"`` or ``"season"``), ``game_kind`` the game's
    (``engine.GAMES``): each game has its own league, so its own posts. ``period_end``: the
    moment the period ended (UTC), the key: a period whose first day is another's (a
    season made longer) is a post of its own (``league.tables.queries`` says when one is
    due). ``posted_at``: when it was sent, or given up (Telegram refused it for good: the
    bot may not send messages there); ``None`` while a claim may be retried."""

    __tablename__ = "league_posts"

    chat_id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    game_kind: Mapped[str] = mapped_column(String(32), primary_key=True)
    kind: Mapped[str] = mapped_column(String(16), primary_key=True)
    period_end: Mapped[datetime] = mapped_column(DateTime(timezone=True), primary_key=True)
    claimed_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    posted_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
