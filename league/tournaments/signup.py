"""A tournament's sign-up and its admin's controls: open, join, leave, settings, computer
players, start and cancel. Each is one transaction, checked by the tournament's ``version``
where a button carries one (a second tap, or an old message's, changes nothing)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm.exc import StaleDataError

from engine import OptionSpec, RuleError
from league.match.chats import allowed, lobby_options
from league.match.lobby import AI_NAMES
from league.match.outcome import Listeners, Outcome
from league.store.context import Context
from league.store.errors import ServiceError
from league.store.models import OPEN_STATUSES, Chat, GamePlayer
from league.store.models import Game as GameRow
from league.store.rows import insert_missing, is_language_code, upsert_user
from league.store.snapshots import UserRef
from league.store.tournament_models import (
    TOURNAMENT_OPEN,
    Tournament,
    TournamentEntry,
    TournamentResult,
)
from league.tournaments import swiss
from league.tournaments.records import (
    DEFAULT_ROUND_SECONDS,
    DEFAULT_ROUNDS,
    DEFAULT_TABLE_SIZE,
    MIN_PLAYERS,
    ROUND_PACES,
    ROUNDS,
    TournamentSnapshot,
    read_tournament,
    snapshot_of,
)
from league.tournaments.rounds import Rounds

MAX_ENTRIES = 500
"""At most this many players in one tournament."""


class Signup:
    """Sign-up and admin controls (part of :class:`league.service.MatchService`). The
    creator or a chat admin (``is_admin``, which the bot checks) runs the tournament."""

    def __init__(self, ctx: Context, rounds: Rounds, listeners: Listeners) -> None:
        self.ctx = ctx
        self.rounds = rounds
        self.listeners = listeners

    async def open_tournament(self, chat_id: int, chat_title: str | None, thread_id: int,
                              creator: UserRef, kind: str, *, forum: bool = False,
                              options: dict[str, Any] | None = None) -> TournamentSnapshot:
        """Open a sign-up for a tournament of ``kind`` in a chat's topic, its creator
        joined. The tables' options are the chat's defaults for the game (``/settings``);
        five rounds of a day each, tables of four (within the game's limits) until the
        admin changes them. Raises ``unknown_game`` or the game's refusal of an option."""
        game = self.ctx.game(kind)
        async with self.ctx.db.sessions.begin() as session:
            chat = await session.get(Chat, chat_id)
            if chat is None:
                chat = await insert_missing(session, Chat, id=chat_id, title=chat_title)
            options = lobby_options(game, chat, kind, options or {})
            options["pace"] = ROUND_PACES[DEFAULT_ROUND_SECONDS]
            options["timeout_policy"] = "ai"  # (a no-show is counted, not removed at once)
            if chat.language is None:
                chat.language = creator.language if is_language_code(creator.language) \
                    else "en"
            low, high = game.player_limits(options)
            await upsert_user(session, creator)
            await session.flush()
            row = Tournament(chat_id=chat_id, thread_id=thread_id, forum=forum, kind=kind,
                             options=options, rounds=DEFAULT_ROUNDS,
                             round_seconds=DEFAULT_ROUND_SECONDS,
                             table_size=min(max(DEFAULT_TABLE_SIZE, low), high),
                             status="signup", round=0, seed=self.ctx.new_seed(),
                             creator_id=creator.id, told_round=0)
            session.add(row)
            await session.flush()
            session.add(TournamentEntry(tournament_id=row.id, user_id=creator.id,
                                        name=creator.display_name))
            await session.flush()
            return await snapshot_of(session, row)

    async def tournaments_in(self, chat_id: int) -> list[TournamentSnapshot]:
        """The chat's tournaments in sign-up or running, oldest first."""
        async with self.ctx.db.sessions() as session:
            rows = (await session.scalars(select(Tournament).where(
                Tournament.chat_id == chat_id, Tournament.status.in_(TOURNAMENT_OPEN))
                .order_by(Tournament.id))).all()
            return [await snapshot_of(session, row) for row in rows]

    async def join(self, tournament_id: int, user: UserRef) -> TournamentSnapshot:
        """Add ``user``: in sign-up; after the start only before half the rounds started
        (a bye's points for each round seated before), or again after a withdrawal until
        the last round is seated (no points for the rounds missed). Either way each round
        missed counts as one sat out (``byes``), so the seating gives the next byes to
        others. Raises ``tournament_closed``, ``already_joined``,
        ``join_closed`` (half the rounds started), ``tournament_full``, ``stale``."""
        try:
            async with self.ctx.db.sessions.begin() as session:
                row = await _open_row(session, tournament_id)
                entry = await session.scalar(select(TournamentEntry).where(
                    TournamentEntry.tournament_id == row.id,
                    TournamentEntry.user_id == user.id))
                await upsert_user(session, user)
                if entry is not None:
                    if entry.active:
                        raise ServiceError("already_joined")
                    if row.status == "running" and row.round >= row.rounds:
                        raise ServiceError("join_closed")
                    entry.active = True  # a withdrawn player back (their missed rounds: 0)
                    entry.no_shows = 0
                    entry.name = user.display_name
                    # Each round seated while they were away is one more sat out.
                    entry.byes = row.round - await _seated_rounds(session, row.id, user.id)
                else:
                    if row.status == "running" and 2 * row.round >= row.rounds:
                        raise ServiceError("join_closed")
                    if await _count(session, row.id) >= MAX_ENTRIES:
                        raise ServiceError("tournament_full", max=MAX_ENTRIES)
                    # Each round seated before they joined counts as a bye, for the
                    # seating too: nobody sits out twice before everyone has once.
                    entry = TournamentEntry(tournament_id=row.id, user_id=user.id,
                                            name=user.display_name, joined_round=row.round,
                                            byes=row.round)
                    session.add(entry)
                    await session.flush()
                    for late in range(1, row.round + 1):
                        session.add(TournamentResult(tournament_id=row.id, round=late,
                                                     entry_id=entry.id,
                                                     points=float(swiss.BYE)))
                row.version += 1  # (the sign-up message's buttons are redrawn)
                await session.flush()
                return await snapshot_of(session, row)
        except (StaleDataError, IntegrityError):
            raise ServiceError("stale") from None

    async def leave(self, tournament_id: int, user_id: int) -> TournamentSnapshot:
        """Leave: in sign-up the entry goes (an opener who leaves hands the tournament to the
        next human who joined, as a lobby's does); once running the player is withdrawn (the
        table they sit at goes on; they may join again). Raises ``tournament_closed``,
        ``not_joined``, ``stale``."""
        try:
            async with self.ctx.db.sessions.begin() as session:
                row = await _open_row(session, tournament_id)
                entry = await session.scalar(select(TournamentEntry).where(
                    TournamentEntry.tournament_id == row.id,
                    TournamentEntry.user_id == user_id, TournamentEntry.active))
                if entry is None:
                    raise ServiceError("not_joined")
                if row.status == "signup":
                    await session.delete(entry)
                    heir = await session.scalar(select(TournamentEntry.user_id).where(
                        TournamentEntry.tournament_id == row.id, TournamentEntry.id != entry.id,
                        TournamentEntry.user_id.is_not(None)).order_by(TournamentEntry.id)
                        .limit(1))
                    if row.creator_id == user_id and heir is not None:
                        row.creator_id = heir
                else:
                    entry.active = False
                row.version += 1
                await session.flush()
                return await snapshot_of(session, row)
        except StaleDataError:
            raise ServiceError("stale") from None

    async def set_setting(self, tournament_id: int, user_id: int, name: str, value: Any, *,
                          is_admin: bool, version: int) -> TournamentSnapshot:
        """Change a setting in sign-up (the creator or an admin): ``rounds`` (3–9),
        ``round_seconds`` (one of ``ROUND_PACES``: the tables' pace follows), ``table_size``
        (within the game's limits) or one of the game's options. Raises ``not_in_signup``,
        ``not_allowed``, ``stale``, ``bad_option``."""
        async def change(session: AsyncSession, row: Tournament) -> None:
            game = self.ctx.game(row.kind)
            if name == "rounds" and value in ROUNDS and type(value) is int:
                row.rounds = value
            elif name == "round_seconds" and value in ROUND_PACES and type(value) is int:
                row.round_seconds = value
                row.options = {**row.options, "pace": ROUND_PACES[value]}
            elif name == "table_size" and type(value) is int:
                low, high = game.player_limits(row.options)
                if not low <= value <= high:
                    raise ServiceError("bad_option")
                row.table_size = value
            elif any(s.name == name and allowed(s, value) for s in _specs(self, row)):
                row.options = {**row.options, name: value}
                low, high = game.player_limits(row.options)
                row.table_size = min(max(row.table_size, low), high)
            else:
                raise ServiceError("bad_option")
        return await self._admin_change(tournament_id, user_id, is_admin, version, change)

    async def add_ai(self, tournament_id: int, user_id: int, *, is_admin: bool, version: int,
                     level: str = "normal") -> TournamentSnapshot:
        """Enter a computer player of ``level`` (the creator or an admin, in sign-up).
        Raises ``not_in_signup``, ``not_allowed``, ``stale``, ``bad_option``,
        ``tournament_full``."""
        async def change(session: AsyncSession, row: Tournament) -> None:
            if level not in self.ctx.game(row.kind).ai_levels:
                raise ServiceError("bad_option")
            names = set((await session.scalars(select(TournamentEntry.name).where(
                TournamentEntry.tournament_id == row.id,
                TournamentEntry.user_id.is_(None)))).all())
            if await _count(session, row.id) >= MAX_ENTRIES:
                raise ServiceError("tournament_full", max=MAX_ENTRIES)
            name = next(n for n in AI_NAMES + [f"AI {k}" for k in range(1, MAX_ENTRIES + 1)]
                        if n not in names)
            session.add(TournamentEntry(tournament_id=row.id, user_id=None, name=name,
                                        ai_level=level))
        return await self._admin_change(tournament_id, user_id, is_admin, version, change)

    async def remove_ai(self, tournament_id: int, user_id: int, *, is_admin: bool,
                        version: int) -> TournamentSnapshot:
        """Take the last computer player out of the sign-up. Raises ``no_ai`` besides
        :meth:`add_ai`'s."""
        async def change(session: AsyncSession, row: Tournament) -> None:
            last = await session.scalar(select(TournamentEntry).where(
                TournamentEntry.tournament_id == row.id, TournamentEntry.user_id.is_(None))
                .order_by(TournamentEntry.id.desc()).limit(1))
            if last is None:
                raise ServiceError("no_ai")
            await session.delete(last)
        return await self._admin_change(tournament_id, user_id, is_admin, version, change)

    async def start(self, tournament_id: int, user_id: int, *, is_admin: bool,
                    version: int) -> TournamentSnapshot:
        """Seat round 1 and deal its tables (the creator or an admin). Raises
        ``not_in_signup``, ``not_allowed``, ``stale``, ``too_few_players`` (``min``)."""
        outcomes: list[Outcome] = []

        async def change(session: AsyncSession, row: Tournament) -> None:
            entries = list((await session.scalars(select(TournamentEntry).where(
                TournamentEntry.tournament_id == row.id).order_by(TournamentEntry.id))).all())
            if len(entries) < MIN_PLAYERS:
                raise ServiceError("too_few_players", min=MIN_PLAYERS)
            now = self.ctx.clock()
            row.status = "running"
            row.started_at = now
            outcomes.extend(await self.rounds.seat_round(session, row, entries, now))

        after = await self._admin_change(tournament_id, user_id, is_admin, version, change)
        self.listeners.reported(outcomes)
        return after

    async def cancel(self, tournament_id: int, user_id: int, *,
                     is_admin: bool) -> TournamentSnapshot:
        """Cancel a tournament in sign-up (its creator or an admin) or running (an admin;
        its open tables are cancelled, unrated). Raises ``tournament_closed``,
        ``not_allowed``, ``stale``."""
        try:
            async with self.ctx.db.sessions.begin() as session:
                row = await _open_row(session, tournament_id)
                if not is_admin and (row.creator_id != user_id or row.status != "signup"):
                    raise ServiceError("not_allowed")
                now = self.ctx.clock()
                for table in (await session.scalars(select(GameRow).where(
                        GameRow.tournament_id == row.id,
                        GameRow.status.in_(OPEN_STATUSES)))).all():
                    table.status = "cancelled"
                    table.finished_at = now
                    table.due_at = table.deadline_at = table.remind_at = None
                    table.version += 1  # (a move read before must not land after)
                row.status = "cancelled"
                row.finished_at = now
                row.round_ends_at = None
                await session.flush()
                return await snapshot_of(session, row)
        except StaleDataError:
            raise ServiceError("stale") from None

    async def _admin_change(self, tournament_id: int, user_id: int, is_admin: bool,
                            version: int, change: Any) -> TournamentSnapshot:
        try:
            async with self.ctx.db.sessions.begin() as session:
                row = await read_tournament(session, tournament_id, lock=True)
                if row.status != "signup":
                    raise ServiceError("not_in_signup")
                if row.creator_id != user_id and not is_admin:
                    raise ServiceError("not_allowed")
                if row.version != version:
                    raise ServiceError("stale")
                await change(session, row)
                row.version += 1
                await session.flush()
                return await snapshot_of(session, row)
        except (StaleDataError, IntegrityError):
            raise ServiceError("stale") from None


def _specs(signup: Signup, row: Tournament) -> list[OptionSpec]:
    """The game's options for the tables (the league's pace follows the round length)."""
    try:
        return signup.ctx.game(row.kind).option_specs(row.options)
    except RuleError:
        raise ServiceError("bad_option") from None


async def _seated_rounds(session: AsyncSession, tournament_id: int, user_id: int) -> int:
    """How many of the tournament's rounds seated ``user_id`` at a table."""
    return int(await session.scalar(
        select(func.count(func.distinct(GameRow.tournament_round)))
        .select_from(GameRow).join(GamePlayer, GamePlayer.game_id == GameRow.id)
        .where(GameRow.tournament_id == tournament_id, GamePlayer.user_id == user_id)) or 0)


async def _count(session: AsyncSession, tournament_id: int) -> int:
    return int(await session.scalar(select(func.count(TournamentEntry.id)).where(
        TournamentEntry.tournament_id == tournament_id)) or 0)


async def _open_row(session: AsyncSession, tournament_id: int) -> Tournament:
    """The tournament, locked, if in sign-up or running; raises ``tournament_not_found``,
    ``tournament_closed``."""
    row = await read_tournament(session, tournament_id, lock=True)
    if row.status not in TOURNAMENT_OPEN:
        raise ServiceError("tournament_closed")
    return row
