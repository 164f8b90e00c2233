"""Turn clocks: paces, reminders and deadlines as data on the game row.

Nothing here sleeps or schedules: a game row carries ``due_at`` (the next moment something
must happen to it: a lobby expiring, a reminder, a deadline) and the sweeper
(:mod:`league.match.sweeper`) handles every game whose ``due_at`` has passed, so a restart or a
second bot process loses nothing.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from league.store.models import Game as GameRow

PACES: dict[str, int] = {"quick": 60, "standard": 3600, "relaxed": 86400}
"""Seconds a player has for a turn, by pace name."""
REMIND_AFTER = 0.75
"""The reminder comes after this share of the turn's clock."""
POLICIES = ("ai", "remove")
"""Timeout policies: ``ai`` (the computer moves; removal after two timeouts in a row) or
``remove`` (removal at the first timeout)."""
TIMEOUTS_BEFORE_REMOVAL = 2
DEFAULT_LOBBY_TTL = 3600


def pace_seconds(options: dict[str, Any]) -> int:
    """The turn clock of a game's options, in seconds (``standard`` when unset)."""
    return PACES.get(options.get("pace", "standard"), PACES["standard"])


def arm_turn(row: GameRow, now: datetime, *, human_turn: bool) -> None:
    """Start the clock of the turn that begins now (or stop it: game over, a computer's turn).

    A paused game keeps its clock stopped with a full turn left (``paused_left``).
    """
    pace = pace_seconds(row.options or {})
    if row.status != "running" or not human_turn:
        row.deadline_at = row.remind_at = row.due_at = None
        row.paused_left = None if row.status != "running" else row.paused_left
        return
    if row.paused_left is not None:
        row.paused_left = float(pace)
        row.deadline_at = row.due_at = None
        row.remind_at = now  # a marker: the reminder is still to come
        return
    row.deadline_at = now + timedelta(seconds=pace)
    row.remind_at = now + timedelta(seconds=pace * REMIND_AFTER)
    row.due_at = row.remind_at


def pause(row: GameRow, now: datetime) -> None:
    """Stop a running game's clock, keeping the time left. Raises ``ValueError`` if paused."""
    if row.paused_left is not None:
        raise ValueError("already paused")
    left = (aware(row.deadline_at) - now).total_seconds() if row.deadline_at else \
        float(pace_seconds(row.options or {}))
    row.paused_left = max(0.0, left)
    row.deadline_at = row.due_at = None


def resume(row: GameRow, now: datetime) -> None:
    """Restart a paused clock with the time that was left. Raises ``ValueError`` if running."""
    if row.paused_left is None:
        raise ValueError("not paused")
    pace = pace_seconds(row.options or {})
    row.deadline_at = now + timedelta(seconds=row.paused_left)
    if row.remind_at is not None:  # the reminder had not been sent yet
        remind = row.deadline_at - timedelta(seconds=pace * (1 - REMIND_AFTER))
        row.remind_at = max(now, remind)
    row.due_at = row.remind_at or row.deadline_at
    row.paused_left = None


def aware(moment: datetime) -> datetime:
    """``moment`` as an aware UTC datetime: SQLite returns naive datetimes for
    ``DateTime(timezone=True)``, and every stored time is UTC."""
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
