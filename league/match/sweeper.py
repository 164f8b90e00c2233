"""The sweeper: handles every game whose clock ran out, restart-safe and scale-out-safe.

Due games are claimed with ``SELECT … FOR UPDATE SKIP LOCKED`` on PostgreSQL, so two bot
processes sweeping at once take disjoint games; the version check on every write stays the
final guard (and the only one on SQLite, where a single process may sweep). A game's
reminder, timeout or lobby expiry is applied in the same transaction as the state change; the
caller sends messages only after the commit, from the returned results.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import selectinload
from sqlalchemy.orm.exc import StaleDataError

from engine import Action
from league.match.moves import Moves
from league.match.outcome import Listeners, Outcome, Step
from league.store.clock import TIMEOUTS_BEFORE_REMOVAL, aware
from league.store.context import Context
from league.store.models import OPEN_STATUSES, GamePlayer
from league.store.models import Game as GameRow
from league.store.rows import attach_elo, attach_languages
from league.store.snapshots import GameSnapshot, snapshot
from league.tables.rated import rate_if_finished

log = logging.getLogger(__name__)
SWEEP_BATCH = 2000
"""At most this many due games per sweep (the rest wait for the next tick)."""
RETRY_AFTER_ERROR = timedelta(hours=1)
"""A game whose timeout the engine refused is looked at again after this long."""


@dataclass(frozen=True)
class SweepResult:
    """What the sweeper did to one game: ``kind`` is ``"reminder"``, ``"timeout"`` or
    ``"lobby_expired"``; ``seat`` the player concerned; ``removed``: the timeout removed them
    (for a reminder: the coming timeout will); ``steps`` the moves it made (the first one
    carries a ``turn_timed_out`` event)."""

    kind: str
    game: GameSnapshot
    seat: int | None = None
    removed: bool = False
    steps: list[Step] = field(default_factory=list)


class Sweeper:
    """``sweep()`` (part of :class:`league.service.MatchService`): a timeout is played
    through ``moves``, and reported to ``listeners`` like a move."""

    def __init__(self, ctx: Context, moves: Moves, listeners: Listeners) -> None:
        self.ctx = ctx
        self.moves = moves
        self.listeners = listeners

    async def sweep(self, limit: int = SWEEP_BATCH) -> list[SweepResult]:
        """Handle every open game due by now: expire lobbies, send reminders (once per turn),
        apply timeouts (the computer moves for the player, or removes them per the game's
        policy). Returns what was done, committed; ``[]`` if a concurrent change won (the
        next sweep retries)."""
        now = self.ctx.clock()
        try:
            async with self.ctx.db.sessions.begin() as session:
                rows = await _claim(session, now, limit)
                await attach_languages(session, rows)
                done = [self._sweep_one(session, row, now) for row in rows]
                for row in rows:
                    await rate_if_finished(session, row, now)
                await attach_elo(session, rows)  # (the finished ones' Elo changes: one read)
                await session.flush()
                results = [SweepResult(kind, snapshot(row), seat, removed, steps)
                           for (kind, seat, removed, steps), row in zip(done, rows, strict=True)
                           if kind != "error"]
        except (StaleDataError, IntegrityError):
            return []
        self.listeners.reported([Outcome(r.game, r.steps, r.seat) for r in results if r.steps])
        return results

    def _sweep_one(self, session: AsyncSession, row: GameRow,
                   now: datetime) -> tuple[str, int | None, bool, list[Step]]:
        if row.status == "lobby":
            row.status = "cancelled"
            row.finished_at = now
            row.due_at = None
            return "lobby_expired", None, False, []
        game = self.ctx.game(row.kind)
        seat = game.current_seat(row.state or {})
        deadline = aware(row.deadline_at) if row.deadline_at else None
        player = next((p for p in row.players if p.seat == seat), None)
        policy = (row.options or {}).get("timeout_policy", "ai")
        removed = player is not None and (
            policy == "remove" or player.timeouts_in_row + 1 >= TIMEOUTS_BEFORE_REMOVAL)
        if row.remind_at is not None and (deadline is None or now < deadline):
            row.remind_at = None
            row.due_at = row.deadline_at
            # claimed for this turn now; its message id follows once it is sent
            row.reminder_version = row.version
            return "reminder", seat, removed, []
        try:  # worked out first: an engine error must not block the other games' sweep
            if player is None or seat is None:
                raise LookupError(f"no player to act in seat {seat}")
            planned = self.moves.plan_replies(
                row, game, row.state or {}, (seat, Action("resign") if removed else None))
        except Exception:
            log.exception("timeout of game %s failed; retrying in an hour", row.id)
            row.due_at = now + RETRY_AFTER_ERROR
            return "error", seat, False, []
        player.timeouts_in_row += 1
        steps = self.moves.advance(session, row, game, planned)
        steps[0].events.insert(0, {"type": "turn_timed_out", "seat": seat, "removed": removed})
        return "timeout", seat, removed, steps


async def _claim(session: AsyncSession, now: datetime, limit: int) -> list[GameRow]:
    stmt = (select(GameRow)
            .where(GameRow.status.in_(OPEN_STATUSES), GameRow.due_at.is_not(None),
                   GameRow.due_at <= now)
            .order_by(GameRow.due_at).limit(limit)
            .options(selectinload(GameRow.players.of_type(GamePlayer))))
    if session.get_bind().dialect.name == "postgresql":
        stmt = stmt.with_for_update(skip_locked=True, of=GameRow)
    return list((await session.scalars(stmt)).all())


