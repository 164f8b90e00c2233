"""A tournament's rounds: seating one (its tables dealt as ordinary games), scoring it when its
tables are over, and the tick (a job beside the sweep) that moves every due tournament on.

A round is over when each of its tables is over, or at its deadline: then the computer
plays every table still running to its end, for every player (``finish_by_computer``; its
first step carries a :data:`ROUND_DEADLINE` event), so one absent player never stalls the
tournament. The round is scored in that tick and the next one seated in the next, so the
group sees the tables' ends before the new tables. Scoring writes each seated player's result
(:func:`league.tournaments.swiss.table_points`); a player who made no move of their own in
the game (a *no-show*: every turn timed out, or removed for timeouts) scores 0, and after
:data:`~league.tournaments.records.NO_SHOWS_BEFORE_WITHDRAWAL` such games is withdrawn.
Each tournament advances in a transaction of its own, claimed with ``SKIP LOCKED`` on
PostgreSQL and checked by its ``version``, so a kill or a second process never seats a
round twice.
"""

from __future__ import annotations

import logging
import random
from collections import defaultdict
from collections.abc import Collection
from datetime import datetime, timedelta
from fractions import Fraction
from itertools import combinations

from sqlalchemy import and_, exists, not_, or_, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm.exc import StaleDataError

from engine import Game, step_of
from league.match.moves import MAX_AI_STEPS, Moves, level_of
from league.match.outcome import Listeners, Outcome, Step
from league.store.context import Context
from league.store.models import OPEN_STATUSES, GameEvent, GamePlayer
from league.store.models import Game as GameRow
from league.store.rows import load_game
from league.store.snapshots import snapshot
from league.store.tournament_models import Tournament, TournamentEntry, TournamentResult
from league.tables.rated import LEAVE, rate_if_finished
from league.tournaments import swiss
from league.tournaments.records import (
    MIN_PLAYERS,
    NO_SHOWS_BEFORE_WITHDRAWAL,
    TournamentSnapshot,
    entry_elo,
    points_of,
    read_tournament,
    snapshot_of,
)

log = logging.getLogger(__name__)
TICK_BATCH = 50
"""At most this many tournaments advance per tick (the rest wait for the next)."""
ROUND_DEADLINE = "round_deadline"
"""The event that opens a table's moves played by the computer at the round's deadline."""


class Rounds:
    """Seating, scoring and the tick (part of :class:`league.service.MatchService`). New
    tables and tables finished at a deadline are reported to ``listeners`` like any start
    or move."""

    def __init__(self, ctx: Context, moves: Moves, listeners: Listeners) -> None:
        self.ctx = ctx
        self.moves = moves
        self.listeners = listeners

    async def tick(self, limit: int = TICK_BATCH) -> list[TournamentSnapshot]:
        """Move on every running tournament whose round is over (each table over, or its
        deadline passed): score it, then seat the next round or finish the tournament.
        Returns the tournaments that changed, committed."""
        now = self.ctx.clock()
        async with self.ctx.db.sessions() as session:
            due = list((await session.scalars(_due(now).limit(limit))).all())
        changed = []
        for tournament_id in due:
            try:
                done = await self._advance(tournament_id, now)
            except Exception:  # one tournament's failure must not stop the others
                log.exception("advancing tournament %s failed", tournament_id)
                continue
            if done is not None:
                changed.append(done)
        return changed

    async def _advance(self, tournament_id: int, now: datetime) -> TournamentSnapshot | None:
        outcomes: list[Outcome] = []
        try:
            async with self.ctx.db.sessions.begin() as session:
                stmt = _due(now).where(Tournament.id == tournament_id)
                if session.get_bind().dialect.name == "postgresql":
                    stmt = stmt.with_for_update(skip_locked=True, of=Tournament)
                if await session.scalar(stmt) is None:
                    return None  # another process has it, or it moved on meanwhile
                row = await read_tournament(session, tournament_id)
                outcomes += await self.end_round(session, row, now)
                if not outcomes:  # (else the next tick seats it, after these tables' ends)
                    outcomes += await self.next_round(session, row, now)
                after = await snapshot_of(session, row)
        except (StaleDataError, IntegrityError):
            return None
        self.listeners.reported(outcomes)
        return after

    async def end_round(self, session: AsyncSession, row: Tournament,
                        now: datetime) -> list[Outcome]:
        """Finish the round's running tables by the computer (at the deadline) and score
        the round (again, after such a tick: the results written then stay)."""
        outcomes = []
        forced = set()
        for game_id in (await session.scalars(
                select(GameRow.id).where(GameRow.tournament_id == row.id,
                                         GameRow.tournament_round == row.round,
                                         GameRow.status.in_(OPEN_STATUSES))
                .order_by(GameRow.tournament_table))).all():
            finished = await self.finish_by_computer(session, game_id, now)
            if finished is not None:
                outcomes.append(finished)
                forced.add(game_id)
        await session.flush()
        await score_round(session, row, forced)
        return outcomes

    async def next_round(self, session: AsyncSession, row: Tournament,
                         now: datetime) -> list[Outcome]:
        """Seat the next round, or finish the tournament after its last round (or when
        fewer than three players, or no human, are left: computer players alone play on
        for nobody). A finished tournament keeps each player's Elo of that moment
        (``final_elo``): its standings' tie-break, so its places stay as its final message
        told them whatever games its players play later."""
        active = list((await session.scalars(
            select(TournamentEntry).where(TournamentEntry.tournament_id == row.id,
                                          TournamentEntry.active)
            .order_by(TournamentEntry.id))).all())
        if row.round >= row.rounds or len(active) < MIN_PLAYERS or \
                all(e.user_id is None for e in active):
            entries = list((await session.scalars(select(TournamentEntry).where(
                TournamentEntry.tournament_id == row.id))).all())
            elo = await entry_elo(session, row.kind, entries)
            for entry in entries:
                entry.final_elo = elo[entry.id]
            row.status = "finished"
            row.finished_at = now
            row.round_ends_at = None
            return []
        return await self.seat_round(session, row, active, now)

    async def seat_round(self, session: AsyncSession, row: Tournament,
                         active: list[TournamentEntry], now: datetime) -> list[Outcome]:
        """Seat round ``row.round + 1`` of ``active`` players (Swiss: by points, then Elo)
        and deal its tables; byes get a bye's points at once."""
        game = self.ctx.game(row.kind)
        low, high = game.player_limits(row.options)
        points, met = await _history(session, row.id)
        elo = await entry_elo(session, row.kind, active)
        seating = swiss.seat([swiss.Entrant(e.id, points.get(e.id, Fraction(0)), elo[e.id],
                                            e.byes) for e in active],
                             row.table_size, low, high, met)
        row.round += 1
        row.round_ends_at = now + timedelta(seconds=row.round_seconds)
        by_id = {e.id: e for e in active}
        for entry_id in seating.byes:
            by_id[entry_id].byes += 1
            session.add(TournamentResult(tournament_id=row.id, round=row.round,
                                         entry_id=entry_id, points=float(swiss.BYE)))
        outcomes = []
        for number, table in enumerate(seating.tables, 1):
            order = [by_id[e] for e in table]
            # Seats by lot: who deals or leads first is no reward for rank.
            random.Random(f"tournament:{row.seed}:{row.round}:{number}").shuffle(order)
            outcomes.append(await self._deal(session, row, game, number, order, now))
        return outcomes

    async def _deal(self, session: AsyncSession, row: Tournament, game: Game, number: int,
                    order: list[TournamentEntry], now: datetime) -> Outcome:
        # ``topic_per_table``: the bot gives the table a forum topic of its own before its
        # first message, when it may (the tournament was opened in a forum).
        options = {**row.options, **({"topic_per_table": True} if row.forum else {})}
        table = GameRow(chat_id=row.chat_id, thread_id=row.thread_id, kind=row.kind,
                        options=options, status="lobby", seed=self.ctx.new_seed(),
                        creator_id=row.creator_id, tournament_id=row.id,
                        tournament_round=row.round, tournament_table=number)
        for entry in order:
            table.players.append(GamePlayer(
                user_id=entry.user_id, name=entry.name, is_ai=entry.user_id is None,
                ai_level=entry.ai_level if entry.user_id is None else None))
        session.add(table)
        await session.flush()
        table = await load_game(session, table.id)  # (with what a snapshot reads)
        steps = self.moves.deal(session, table, game, None)
        await rate_if_finished(session, table, now)
        return Outcome(snapshot(table), steps, started=True)

    async def finish_by_computer(self, session: AsyncSession, game_id: int,
                                 now: datetime) -> Outcome | None:
        """Play a running table to its end, the computer moving for every player (the
        humans' stand-in, the computer players at their levels), in this transaction."""
        row = await load_game(session, game_id, lock=True)
        if row.status != "running" or row.state is None:
            return None
        game = self.ctx.game(row.kind)
        levels = {p.seat: level_of(game, p.ai_level) for p in row.players if p.is_ai}
        stand_in = level_of(game, (row.options or {}).get("stand_in_level"))
        state = row.state
        planned = []
        for _ in range(MAX_AI_STEPS):
            seat = game.current_seat(state)
            if seat is None or game.placements(state) is not None:
                break
            rng = random.Random(f"finish:{row.seed}:{step_of(state)}")
            action = game.ai_action(game.view(state, seat), rng, levels[seat]) \
                if seat in levels else game.stand_in_action(state, seat, rng, stand_in)
            state, events = game.apply(state, seat, action)
            planned.append((seat, action, state, events))
        steps: list[Step] = self.moves.advance(session, row, game, planned)
        if steps:  # (told as one line, not move by move)
            steps[0].events.insert(0, {"type": ROUND_DEADLINE,
                                       "round": row.tournament_round})
        if row.status == "running":  # (no engine ends a game this late; never left open)
            log.warning("game %s did not end when finished by the computer", row.id)
            row.status = "cancelled"
            row.finished_at = now
            row.due_at = row.deadline_at = row.remind_at = None
            row.version += 1
        await rate_if_finished(session, row, now)
        return Outcome(snapshot(row), steps)


def _due(now: datetime):  # type: ignore[no-untyped-def]
    """Running tournaments whose round is over: no open table left, or past its deadline."""
    open_table = exists().where(GameRow.tournament_id == Tournament.id,
                                GameRow.tournament_round == Tournament.round,
                                GameRow.status.in_(OPEN_STATUSES))
    return select(Tournament.id).where(
        Tournament.status == "running",
        or_(not_(open_table), and_(Tournament.round_ends_at.is_not(None),
                                   Tournament.round_ends_at <= now))) \
        .order_by(Tournament.id)


async def score_round(session: AsyncSession, row: Tournament,
                      forced: Collection[int] = ()) -> None:
    """Write the results of round ``row.round``'s tables (finished or cancelled; ``forced``:
    the games the computer finished at the deadline), count no-shows and withdraw whoever
    reached the limit."""
    entries = {e.id: e for e in await session.scalars(
        select(TournamentEntry).where(TournamentEntry.tournament_id == row.id))}
    of_user = {e.user_id: e.id for e in entries.values() if e.user_id is not None}
    of_ai = {e.name: e.id for e in entries.values() if e.user_id is None}
    tables = list((await session.scalars(
        select(GameRow).where(GameRow.tournament_id == row.id,
                              GameRow.tournament_round == row.round))).unique().all())
    moved = await _moved(session, [t.id for t in tables])
    scored = set((await session.scalars(select(TournamentResult.entry_id).where(
        TournamentResult.tournament_id == row.id, TournamentResult.round == row.round))).all())
    for table in tables:
        players = (await session.scalars(select(GamePlayer).where(
            GamePlayer.game_id == table.id))).all()
        seated: dict[int, GamePlayer] = {}
        for p in players:
            entry_id = of_user.get(p.user_id) if p.user_id is not None else of_ai.get(p.name)
            if p.seat is not None and entry_id is not None:
                seated[entry_id] = p
        places: dict[int, int] = {}
        absent: set[int] = set()
        if table.status == "finished":
            places = {e: p.placement or len(seated) for e, p in seated.items()}
            absent = {e for e, p in seated.items()
                      if p.user_id is not None and (table.id, p.user_id) not in moved}
            points = swiss.table_points(places, absent)
        else:  # (a table an admin cancelled: nobody's fault, a bye's points for all)
            points = {e: swiss.BYE for e in seated}
        for entry_id, value in points.items():
            if entry_id in scored:
                continue
            session.add(TournamentResult(tournament_id=row.id, round=row.round,
                                         entry_id=entry_id, game_id=table.id,
                                         place=places.get(entry_id), points=float(value),
                                         no_show=entry_id in absent,
                                         deadline=table.id in forced))
            if entry_id in absent:
                entry = entries[entry_id]
                entry.no_shows += 1
                if entry.no_shows >= NO_SHOWS_BEFORE_WITHDRAWAL:
                    entry.active = False


async def _moved(session: AsyncSession, game_ids: list[int]) -> set[tuple[int, int]]:
    """(game, user) pairs where the user made a move of their own (a leave is none:
    ``league.tables.rated``)."""
    if not game_ids:
        return set()
    rows = (await session.execute(
        select(GameEvent.game_id, GameEvent.user_id, GameEvent.action)
        .where(GameEvent.game_id.in_(game_ids), GameEvent.user_id.is_not(None),
               GameEvent.seat.is_not(None)))).all()
    return {(g, u) for g, u, action in rows if (action or {}).get("kind") != LEAVE.kind}


async def _history(session: AsyncSession, tournament_id: int
                   ) -> tuple[dict[int, Fraction], dict[frozenset[int], int]]:
    """Each entry's points so far, and how often each pair sat at one table."""
    points: dict[int, Fraction] = defaultdict(Fraction)
    at_game: dict[int, list[int]] = defaultdict(list)
    for entry_id, game_id, value in (await session.execute(
            select(TournamentResult.entry_id, TournamentResult.game_id,
                   TournamentResult.points)
            .where(TournamentResult.tournament_id == tournament_id))).all():
        points[entry_id] += points_of(value)
        if game_id is not None:
            at_game[game_id].append(entry_id)
    met: dict[frozenset[int], int] = defaultdict(int)
    for members in at_game.values():
        for a, b in combinations(members, 2):
            met[frozenset((a, b))] += 1
    return points, met
