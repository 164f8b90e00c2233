"""The tables of tournaments (``league.tournaments``): a tournament, its entries and each
round's results. A round's tables are ordinary games (``games.tournament_id``)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    UniqueConstraint,
    text,
)
from sqlalchemy.orm import Mapped, mapped_column

from league.store.orm import Base, JSONType, utcnow

TOURNAMENT_OPEN = ("signup", "running")


class Tournament(Base):
    """A Swiss tournament of one game in a group. ``status``: ``signup`` → ``running`` →
    ``finished`` (or ``cancelled``). ``round``: the latest round seated (0 in sign-up);
    ``round_ends_at`` its deadline; ``options`` the tables' game options (with ``pace``).
    ``version`` is checked on every write, as a game's is.

    ``told_round``: the latest round whose announcement the group was sent (``rounds + 1``
    once the final message is); ``tell_claimed_at``: when sending the one owed last failed
    (it is tried again a while later; while it is sent, an advisory lock holds it:
    ``league.tournaments.telling``). ``message_id``: the sign-up message (edited as players
    join)."""

    __tablename__ = "tournaments"
    __table_args__ = (
        Index("ix_tournaments_open", "chat_id",
              postgresql_where=text("status IN ('signup', 'running')"),
              sqlite_where=text("status IN ('signup', 'running')")),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    chat_id: Mapped[int] = mapped_column(BigInteger, ForeignKey("chats.id"))
    thread_id: Mapped[int] = mapped_column(BigInteger, default=0)
    # The chat is a forum: each table gets a topic of its own when the bot may create one.
    forum: Mapped[bool] = mapped_column(Boolean, default=False)
    kind: Mapped[str] = mapped_column(String(32))
    options: Mapped[dict[str, Any]] = mapped_column(JSONType, default=dict)
    rounds: Mapped[int] = mapped_column(Integer)
    round_seconds: Mapped[int] = mapped_column(Integer)
    table_size: Mapped[int] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(16), default="signup")
    round: Mapped[int] = mapped_column(Integer, default=0)
    round_ends_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    seed: Mapped[int] = mapped_column(BigInteger)
    creator_id: Mapped[int] = mapped_column(BigInteger, ForeignKey("users.id"))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    started_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    version: Mapped[int] = mapped_column(Integer, default=1)
    message_id: Mapped[int | None] = mapped_column(BigInteger)
    told_round: Mapped[int] = mapped_column(Integer, default=0)
    tell_claimed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))

    __mapper_args__ = {"version_id_col": version}


class TournamentEntry(Base):
    """A player of a tournament: a human (``user_id``) or a computer player (``ai_level``).
    ``joined_round``: the round that was the latest seated when they joined (0: before the
    start), whose rounds they were given a bye's points for. ``no_shows``: games in which
    they made no move of their own; ``active`` is false once withdrawn (two no-shows, or
    their own leave). ``byes``: the rounds seated so far that they sat out, at no table (a
    bye of the seating, a round before they joined, a round missed while withdrawn): the
    seating gives a bye to those with the fewest. ``name``: the player's name now (kept
    current by ``league.match.names``). ``final_elo``: their Elo in the game when the
    tournament finished, which its standings' tie-break keeps using afterwards (``None``
    while it runs)."""

    __tablename__ = "tournament_entries"
    __table_args__ = (
        UniqueConstraint("tournament_id", "user_id", name="uq_tournament_entries_user"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    tournament_id: Mapped[int] = mapped_column(
        ForeignKey("tournaments.id", ondelete="CASCADE"), index=True)
    user_id: Mapped[int | None] = mapped_column(BigInteger, ForeignKey("users.id"), index=True)
    name: Mapped[str] = mapped_column(String(256))
    ai_level: Mapped[str | None] = mapped_column(String(16))
    joined_round: Mapped[int] = mapped_column(Integer, default=0)
    active: Mapped[bool] = mapped_column(Boolean, default=True)
    no_shows: Mapped[int] = mapped_column(Integer, default=0)
    byes: Mapped[int] = mapped_column(Integer, default=0)
    final_elo: Mapped[float | None] = mapped_column(Float)
    joined_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class TournamentResult(Base):
    """One entry's result in one round: the table's game (``None`` for a bye), the place
    there and the points it scored (``league.tournaments.swiss``), whether they were a
    no-show and whether the computer finished the table at the deadline. Written once per round
    and entry, when the round is scored (or when a late joiner is given a bye's points)."""

    __tablename__ = "tournament_results"

    tournament_id: Mapped[int] = mapped_column(
        ForeignKey("tournaments.id", ondelete="CASCADE"), primary_key=True)
    round: Mapped[int] = mapped_column(Integer, primary_key=True)
    entry_id: Mapped[int] = mapped_column(ForeignKey("tournament_entries.id",
                                                     ondelete="CASCADE"), primary_key=True)
    game_id: Mapped[int | None] = mapped_column(ForeignKey("games.id"))
    place: Mapped[int | None] = mapped_column(Integer)
    points: Mapped[float] = mapped_column(Float)
    no_show: Mapped[bool] = mapped_column(Boolean, default=False)
    # The table was still running at the round's deadline: the computer played it out.
    deadline: Mapped[bool] = mapped_column(Boolean, default=False)
