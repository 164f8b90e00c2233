"""What a tournament looks like to its callers: immutable copies (:class:`TournamentSnapshot`)
read in one go, with the standings worked out from the results
(:func:`league.tournaments.swiss.standings`), and the settings an admin may choose."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime
from fractions import Fraction
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from league.store.clock import aware
from league.store.errors import ServiceError
from league.store.models import Chat, GamePlayer
from league.store.models import Game as GameRow
from league.store.rating_models import Rating
from league.store.tournament_models import Tournament, TournamentEntry, TournamentResult
from league.tables.ratings import START
from league.tournaments.swiss import standings

ROUNDS = (3, 4, 5, 6, 7, 8, 9)
"""How many rounds a tournament may have."""
DEFAULT_ROUNDS = 5
ROUND_PACES: dict[int, str] = {3600: "quick", 86400: "standard", 7 * 86400: "relaxed"}
"""How long a round may last (seconds), and the pace of its tables' clocks: a turn's clock
(``league.store.clock.PACES``) is a small share of the round, so a table with a slow player
still ends in time (or the computer finishes it at the deadline)."""
DEFAULT_ROUND_SECONDS = 86400
DEFAULT_TABLE_SIZE = 4
MIN_PLAYERS = 3
"""A tournament starts with at least this many players (a table's least, in every game)."""
NO_SHOWS_BEFORE_WITHDRAWAL = 2
"""A player who made no move of their own in this many games is withdrawn."""


@dataclass(frozen=True)
class EntryInfo:
    """A player of a tournament (``user_id`` ``None``: a computer player)."""

    id: int
    user_id: int | None
    name: str
    ai_level: str | None
    active: bool
    joined_round: int
    no_shows: int
    byes: int = 0
    """Rounds sat out so far (the seating's byes, rounds before joining or while withdrawn)."""

    @property
    def is_ai(self) -> bool:
        return self.user_id is None


@dataclass(frozen=True)
class TableInfo:
    """A round's table: its game, and its players' entries in seat order."""

    round: int
    table: int
    game_id: int
    status: str
    thread_id: int
    entries: tuple[int, ...]


@dataclass(frozen=True)
class ResultInfo:
    """One entry's result in one round (``game_id`` ``None``: a bye)."""

    round: int
    entry_id: int
    game_id: int | None
    place: int | None
    points: float
    no_show: bool
    deadline: bool = False
    """The computer finished the table at the round's deadline."""


@dataclass(frozen=True)
class StandingRow:
    """A line of the standings: ``place`` (shared when points, Buchholz and Elo are all
    equal), points, Buchholz (the tie-break: the opponents' points) and games played."""

    place: int
    entry: EntryInfo
    points: float
    buchholz: float
    elo: float
    played: int


@dataclass(frozen=True)
class TournamentSnapshot:
    """A tournament as committed, with its entries, tables, results and standings."""

    id: int
    chat_id: int
    thread_id: int
    forum: bool
    kind: str
    options: dict[str, Any]
    rounds: int
    round_seconds: int
    table_size: int
    status: str
    round: int
    round_ends_at: datetime | None
    creator_id: int
    version: int
    message_id: int | None
    told_round: int
    created_at: datetime
    finished_at: datetime | None
    entries: tuple[EntryInfo, ...]
    tables: tuple[TableInfo, ...]
    results: tuple[ResultInfo, ...]
    standings: tuple[StandingRow, ...]
    chat_title: str | None = None

    def entry_of(self, user_id: int) -> EntryInfo | None:
        """The entry of human ``user_id``, or ``None``."""
        return next((e for e in self.entries if e.user_id == user_id), None)

    def entry(self, entry_id: int) -> EntryInfo:
        return next(e for e in self.entries if e.id == entry_id)

    @property
    def active(self) -> list[EntryInfo]:
        """The entries still playing, in join order."""
        return [e for e in self.entries if e.active]

    def tables_of(self, round_: int) -> list[TableInfo]:
        """The tables of round ``round_``, table 1 first."""
        return sorted((t for t in self.tables if t.round == round_), key=lambda t: t.table)

    def by_computer(self, round_: int) -> list[int]:
        """The numbers of round ``round_``'s tables the computer finished at its deadline."""
        games = {r.game_id for r in self.results if r.round == round_ and r.deadline}
        return [t.table for t in self.tables_of(round_) if t.game_id in games]

    def byes_of(self, round_: int) -> list[EntryInfo]:
        """The entries that sat out round ``round_`` (a bye's points; late joiners aside)."""
        return [self.entry(r.entry_id) for r in self.results
                if r.round == round_ and r.game_id is None
                and self.entry(r.entry_id).joined_round < round_]

    @property
    def late_join_open(self) -> bool:
        """New players may still join: in sign-up, or before half the rounds started."""
        return self.status == "signup" or (self.status == "running"
                                           and 2 * self.round < self.rounds)

    @property
    def told_target(self) -> int:
        """The announcement the group is owed: the latest round's, or ``rounds + 1`` for the
        final message (0 in sign-up and once cancelled: nothing)."""
        if self.status == "running":
            return self.round
        return self.rounds + 1 if self.status == "finished" else 0


def points_of(value: float) -> Fraction:
    """A stored point total back as the fraction it was (every score is a multiple of
    1/(2·(n−1)) for a table of n ≤ 10: a denominator of at most 5040 is exact)."""
    return Fraction(value).limit_denominator(5040)


async def read_tournament(session: AsyncSession, tournament_id: int, *,
                          lock: bool = False) -> Tournament:
    """The tournament row (``lock``: ``FOR UPDATE`` on PostgreSQL); raises
    ``tournament_not_found``."""
    if isinstance(tournament_id, bool) or not isinstance(tournament_id, int) or \
            not 0 < tournament_id < 2 ** 31:
        raise ServiceError("tournament_not_found")
    stmt = select(Tournament).where(Tournament.id == tournament_id)
    if lock and session.get_bind().dialect.name == "postgresql":
        stmt = stmt.with_for_update()
    row = (await session.scalars(stmt)).one_or_none()
    if row is None:
        raise ServiceError("tournament_not_found")
    return row


async def snapshot_of(session: AsyncSession, row: Tournament) -> TournamentSnapshot:
    """Read a tournament's entries, tables and results (three queries and the Elo of its
    players) into a snapshot, with the standings. A finished tournament's standings use the
    Elo its players had when it finished (``final_elo``; the current one where none was
    kept), so its places never move after its final message."""
    rows = list((await session.scalars(select(TournamentEntry).where(
        TournamentEntry.tournament_id == row.id).order_by(TournamentEntry.id))).all())
    entries = [EntryInfo(e.id, e.user_id, e.name, e.ai_level, e.active, e.joined_round,
                         e.no_shows, e.byes) for e in rows]
    by_user = {e.user_id: e.id for e in entries if e.user_id is not None}
    games = (await session.execute(
        select(GameRow.id, GameRow.tournament_round, GameRow.tournament_table, GameRow.status,
               GameRow.thread_id)
        .where(GameRow.tournament_id == row.id))).all()
    seats: dict[int, list[tuple[int, int]]] = defaultdict(list)
    if games:
        for game_id, seat, user_id, name in (await session.execute(
                select(GamePlayer.game_id, GamePlayer.seat, GamePlayer.user_id, GamePlayer.name)
                .where(GamePlayer.game_id.in_([g[0] for g in games])))).all():
            entry = by_user.get(user_id) if user_id is not None else next(
                (e.id for e in entries if e.user_id is None and e.name == name), None)
            if entry is not None:
                seats[game_id].append((seat or 0, entry))
    tables = tuple(sorted((TableInfo(r or 0, t or 0, g, status, thread,
                                     tuple(e for _, e in sorted(seats[g])))
                           for g, r, t, status, thread in games),
                          key=lambda t: (t.round, t.table)))
    results = tuple(ResultInfo(r.round, r.entry_id, r.game_id, r.place, r.points, r.no_show,
                               r.deadline)
                    for r in await session.scalars(select(TournamentResult).where(
                        TournamentResult.tournament_id == row.id)
                        .order_by(TournamentResult.round, TournamentResult.entry_id)))
    frozen = {e.id: e.final_elo for e in rows
              if row.status == "finished" and e.final_elo is not None}
    elo = {**await entry_elo(session, row.kind, [e for e in rows if e.id not in frozen]),
           **frozen}
    title = await session.scalar(select(Chat.title).where(Chat.id == row.chat_id))
    return TournamentSnapshot(
        id=row.id, chat_id=row.chat_id, thread_id=row.thread_id, forum=row.forum,
        kind=row.kind, options=dict(row.options or {}), rounds=row.rounds,
        round_seconds=row.round_seconds, table_size=row.table_size, status=row.status,
        round=row.round, round_ends_at=aware(row.round_ends_at) if row.round_ends_at else None,
        creator_id=row.creator_id, version=row.version, message_id=row.message_id,
        told_round=row.told_round, created_at=aware(row.created_at),
        finished_at=aware(row.finished_at) if row.finished_at else None,
        entries=tuple(entries), tables=tables, results=results,
        standings=tuple(_standings(entries, results, elo)), chat_title=title)


def _standings(entries: list[EntryInfo], results: tuple[ResultInfo, ...],
               elo: dict[int, float]) -> list[StandingRow]:
    points: dict[int, Fraction] = {e.id: Fraction(0) for e in entries}
    played: dict[int, int] = defaultdict(int)
    at_game: dict[int, list[int]] = defaultdict(list)
    for r in results:
        points[r.entry_id] += points_of(r.points)
        if r.game_id is not None:
            played[r.entry_id] += 1
            at_game[r.game_id].append(r.entry_id)
    opponents: dict[int, list[int]] = {e.id: [] for e in entries}
    for members in at_game.values():
        for member in members:
            opponents[member] += [m for m in members if m != member]
    by_id = {e.id: e for e in entries}
    return [StandingRow(s.place, by_id[s.id], float(s.points), float(s.buchholz),
                        elo[s.id], played[s.id])
            for s in standings(points, opponents, elo)]


async def entry_elo(session: AsyncSession, kind: str,
                    entries: list[TournamentEntry]) -> dict[int, float]:
    """Each entry's Elo in ``kind`` now (a computer player, or a human not yet rated: 1500)."""
    users = {e.user_id: e.id for e in entries if e.user_id is not None}
    elo = {e.id: START for e in entries}
    if users:
        for user_id, rating in (await session.execute(
                select(Rating.user_id, Rating.rating).where(
                    Rating.kind == kind, Rating.user_id.in_(list(users))))).all():
            elo[users[user_id]] = rating
    return elo
