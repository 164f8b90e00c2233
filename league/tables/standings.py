"""Weeks, seasons and standings tables: pure functions of timestamps and rating rows.

Time
    A *week* runs from Monday 00:00 to the next Monday 00:00 (Sunday 24:00) in the chat's time
    zone (an IANA name such as ``"Europe/Berlin"``; default ``"UTC"``). Bounds are returned as
    aware UTC datetimes and are half-open: ``start <= moment < end``. Across a DST change a
    week is 167 or 169 hours long, but it still starts at Monday 00:00 local time. Where a
    zone skips local midnight, the week starts at the first instant of that Monday.

    A *season* is ``weeks`` consecutive weeks (default 4), counted from the fixed epoch Monday
    :data:`EPOCH` (2024-01-01): season 0 is the ``weeks`` weeks starting on that Monday (local
    time), season 1 the next block, and so on; moments before the epoch get negative seasons.

Tables
    Weekly points are Σ S_i over the period's rated games (opponents outlasted, ties ½); the
    season table sums the same over the season. Rows are ranked by points, then wins, then
    rating as shown (``shown_rating``: the whole Elo points every screen gives; all
    descending); players equal on all three share a rank (1, 1, 3 ...).

All functions raise :class:`ValueError` for a naive datetime or an unknown time zone.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Any, Generic, TypeVar
from zoneinfo import ZoneInfo

from league.tables.ratings import (
    PROVISIONAL_GAMES,
    RatingChange,
    shown_change,
    shown_rating,
)

__all__ = [
    "DEFAULT_TZ", "EPOCH", "SEASON_WEEKS", "GameResult", "LeaderRow", "StandingRow",
    "champions", "leaderboard", "previous_season_bounds", "previous_week_bounds", "rank_of",
    "season_bounds", "season_index", "table", "week_bounds", "week_start", "zone",
]

P = TypeVar("P", bound=Hashable)
Bounds = tuple[datetime, datetime]

DEFAULT_TZ = "UTC"
"""The time zone of a chat that never set one."""
SEASON_WEEKS = 4
"""Weeks per season unless the chat's setting says otherwise."""
MAX_SEASON_WEEKS = 52
"""The longest season a chat may choose."""
EPOCH = date(2024, 1, 1)
"""The Monday on which season 0 starts (local time of each chat)."""


# --- time ---------------------------------------------------------------------------------
def zone(tz: str) -> ZoneInfo:
    """The :class:`~zoneinfo.ZoneInfo` for an IANA name; :class:`ValueError` if unknown."""
    try:
        return ZoneInfo(tz)
    except (KeyError, ValueError, OSError, TypeError) as exc:
        raise ValueError(f"unknown time zone {tz!r}") from exc


def _local_monday(moment: datetime, tz: ZoneInfo) -> date:
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise ValueError(f"need an aware datetime, got naive {moment!r}")
    local = moment.astimezone(tz).date()
    return local - timedelta(days=local.weekday())


def _midnight_utc(day: date, tz: ZoneInfo) -> datetime:
    """Local 00:00 of ``day`` in UTC (a skipped midnight maps to the first instant after)."""
    return datetime.combine(day, time(0), tzinfo=tz).astimezone(UTC)


def week_start(moment: datetime, tz: str = DEFAULT_TZ) -> datetime:
    """Monday 00:00 local (in ``tz``) of the week holding the aware ``moment``, in UTC."""
    z = zone(tz)
    return _midnight_utc(_local_monday(moment, z), z)


def week_bounds(moment: datetime, tz: str = DEFAULT_TZ) -> Bounds:
    """``(start, end)`` in UTC of the week holding ``moment``: ``start <= moment < end``."""
    z = zone(tz)
    monday = _local_monday(moment, z)
    return _midnight_utc(monday, z), _midnight_utc(monday + timedelta(weeks=1), z)


def previous_week_bounds(moment: datetime, tz: str = DEFAULT_TZ) -> Bounds:
    """``(start, end)`` in UTC of the week before the one holding ``moment``
    (``/standings last``); its ``end`` is this week's start."""
    z = zone(tz)
    monday = _local_monday(moment, z)
    return _midnight_utc(monday - timedelta(weeks=1), z), _midnight_utc(monday, z)


def _check_season(weeks: int, epoch: date) -> None:
    if isinstance(weeks, bool) or not isinstance(weeks, int) or weeks < 1:
        raise ValueError(f"a season needs a whole number of weeks >= 1, got {weeks!r}")
    if epoch.weekday() != 0:
        raise ValueError(f"the season epoch must be a Monday, got {epoch} ({epoch:%A})")


def season_index(moment: datetime, tz: str = DEFAULT_TZ, weeks: int = SEASON_WEEKS,
                 epoch: date = EPOCH) -> int:
    """The number of the season holding ``moment``: 0 for the ``weeks`` weeks from ``epoch``,
    negative before it. :class:`ValueError` for ``weeks < 1`` or an epoch not on a Monday."""
    _check_season(weeks, epoch)
    monday = _local_monday(moment, zone(tz))
    return (monday - epoch).days // (7 * weeks)


def _season(index: int, z: ZoneInfo, weeks: int, epoch: date) -> Bounds:
    first = epoch + timedelta(weeks=index * weeks)
    return _midnight_utc(first, z), _midnight_utc(first + timedelta(weeks=weeks), z)


def season_bounds(moment: datetime, tz: str = DEFAULT_TZ, weeks: int = SEASON_WEEKS,
                  epoch: date = EPOCH) -> Bounds:
    """``(start, end)`` in UTC of the season holding ``moment`` (see :func:`season_index`);
    ``start`` is a Monday 00:00 local and ``end`` the Monday ``weeks`` weeks later."""
    return _season(season_index(moment, tz, weeks, epoch), zone(tz), weeks, epoch)


def previous_season_bounds(moment: datetime, tz: str = DEFAULT_TZ, weeks: int = SEASON_WEEKS,
                           epoch: date = EPOCH) -> Bounds:
    """``(start, end)`` in UTC of the season before the one holding ``moment`` (the season
    whose champion is announced once ``moment`` has passed its end)."""
    return _season(season_index(moment, tz, weeks, epoch) - 1, zone(tz), weeks, epoch)


# --- tables -------------------------------------------------------------------------------
@dataclass(frozen=True)
class GameResult(Generic[P]):
    """One rated game: its id, aware ``finished_at``, the rating rows ``{player: change}``
    and the places ``{player: place}`` (1 = best; the same players as ``changes``)."""

    game_id: Hashable
    finished_at: datetime
    changes: Mapping[P, RatingChange[P]]
    places: Mapping[P, int]


@dataclass(frozen=True)
class StandingRow(Generic[P]):
    """A line of ``/standings``: ``points`` (Σ S, halves possible), ``games`` and ``wins``
    (first places) in the period, ``rating`` (Elo points, unrounded), ``rating_change``
    (the sum of the period's changes as each game showed them, ``shown_change``: a player
    who adds up the +10 and −3 their games showed reads +7) and the shared ``rank``
    (1 = top)."""

    player: P
    points: float
    games: int
    wins: int
    rating: float
    rating_change: int
    rank: int


def _ranked(items: Sequence[Any], key: Callable[[Any], Any]) -> list[tuple[int, Any]]:
    """Sort by ``key`` descending (stable) and attach competition ranks (1, 1, 3, ...)."""
    ordered = sorted(items, key=key, reverse=True)
    ranked: list[tuple[int, Any]] = []
    for i, item in enumerate(ordered):
        same = i > 0 and key(item) == key(ordered[i - 1])
        ranked.append((ranked[-1][0] if same else i + 1, item))
    return ranked


def table(results: Iterable[GameResult[P]], ratings: Mapping[P, float] | None = None, *,
          start: datetime | None = None, end: datetime | None = None) -> list[StandingRow[P]]:
    """The standings of ``results`` (rated games), best first.

    Only games with ``start <= finished_at < end`` count (either bound may be ``None``);
    pass :func:`week_bounds` or :func:`season_bounds`. ``rating`` is the player's entry in
    ``ratings`` (their current Elo for a period still running; for one that ended, the Elo
    they ended it with, counting their games elsewhere) or, if absent, the ``after`` of
    their last game in ``results``.
    Players without a game in the period are not listed. Raises :class:`ValueError` when a
    result's ``changes`` and ``places`` name different players.
    """
    kept = [r for r in results
            if (start is None or r.finished_at >= start) and (end is None or r.finished_at < end)]
    kept.sort(key=lambda r: r.finished_at)
    points: dict[P, float] = {}
    games: dict[P, int] = {}
    wins: dict[P, int] = {}
    change: dict[P, int] = {}
    last: dict[P, float] = {}
    for result in kept:
        if set(result.changes) != set(result.places):
            raise ValueError(f"game {result.game_id!r}: changes and places name different "
                             "players")
        for p, row in result.changes.items():
            points[p] = points.get(p, 0.0) + row.score
            games[p] = games.get(p, 0) + 1
            wins[p] = wins.get(p, 0) + (result.places[p] == 1)
            change[p] = change.get(p, 0) + shown_change(row.before, row.after)
            last[p] = row.after
    current = {p: (ratings or {}).get(p, last[p]) for p in points}
    # (the Elo as shown: two rows that read 1491 and 1491 are level, whatever the decimals)
    ranked = _ranked(list(points),
                     key=lambda p: (points[p], wins[p], shown_rating(current[p])))
    return [StandingRow(p, points[p], games[p], wins[p], current[p], change[p], rank)
            for rank, p in ranked]


def champions(rows: Iterable[StandingRow[P]]) -> list[P]:
    """The players ranked first in a season table (several on a full tie; none if empty)."""
    return [row.player for row in rows if row.rank == 1]


@dataclass(frozen=True)
class LeaderRow(Generic[P]):
    """A line of ``/top``: shared ``rank``, ``player``, ``rating`` (Elo) and rated ``games``."""

    rank: int
    player: P
    rating: float
    games: int


def leaderboard(ratings: Mapping[P, float], games_played: Mapping[P, int], *,
                min_games: int = PROVISIONAL_GAMES,
                among: Iterable[P] | None = None) -> list[LeaderRow[P]]:
    """Players by rating, best first, with shared ranks for equal ratings as shown
    (``shown_rating``).

    Only players with at least ``min_games`` rated games appear (10 for ``/top``; pass 0 to
    rank everyone). ``among`` restricts the board to some players (e.g. a chat's members,
    for "rank in this chat"); unknown players in it are ignored.
    """
    pool = list(ratings) if among is None else [p for p in dict.fromkeys(among) if p in ratings]
    eligible = [p for p in pool if games_played.get(p, 0) >= min_games]
    return [LeaderRow(rank, p, ratings[p], games_played.get(p, 0))
            for rank, p in _ranked(eligible, key=lambda p: shown_rating(ratings[p]))]


def rank_of(player: P, rows: Iterable[LeaderRow[P] | StandingRow[P]]) -> int | None:
    """``player``'s rank in a leaderboard or standings table, or ``None`` if not listed."""
    return next((row.rank for row in rows if row.player == player), None)
