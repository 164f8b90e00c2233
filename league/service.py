"""The match service: every change to a game is one transaction here.

The bot calls these coroutines and renders what they return; each either commits a change and
returns a :class:`~league.snapshots.GameSnapshot` (with the engine's events for moves) or raises
:class:`~league.errors.ServiceError` having changed nothing. Moves are guarded by the game's
``version`` (optimistic concurrency: ``UPDATE … WHERE version = :seen``), so of two concurrent
or repeated presses on the same turn exactly one is applied, on PostgreSQL and SQLite alike.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import selectinload
from sqlalchemy.orm.attributes import flag_modified
from sqlalchemy.orm.exc import StaleDataError

from engine import GAMES, Action, Game, RuleError
from league.db import Database
from league.errors import ServiceError
from league.models import OPEN_STATUSES, Chat, GameEvent, GamePlayer, User, utcnow
from league.models import Game as GameRow
from league.snapshots import GameSnapshot, UserRef, snapshot


@dataclass(frozen=True)
class Outcome:
    """A committed move: the game after it and the engine's events (JSON objects) in order."""

    game: GameSnapshot
    events: list[dict[str, Any]]


class MatchService:
    """Lobby, start, moves and cancellation for every game in ``games`` (default: all)."""

    def __init__(self, db: Database, *, games: Mapping[str, Game] = GAMES,
                 new_seed: Callable[[], int] = lambda: secrets.randbits(62)) -> None:
        self.db = db
        self.games = games
        self.new_seed = new_seed

    # --- people and chats -------------------------------------------------------------------
    async def touch_user(self, user: UserRef, *, can_message: bool | None = None) -> bool:
        """Create or refresh a user's names; optionally set ``can_message``. Returns the stored
        ``can_message`` (whether private messages reach them)."""
        async with self.db.sessions.begin() as session:
            row = await _upsert_user(session, user)
            if can_message is not None:
                row.can_message = can_message
            return row.can_message

    async def set_can_message(self, user_id: int, value: bool) -> None:
        """Record whether private messages reach a user (a 403 from the platform: ``False``)."""
        async with self.db.sessions.begin() as session:
            await session.execute(update(User).where(User.id == user_id)
                                  .values(can_message=value))

    async def reachable(self, user_ids: list[int]) -> set[int]:
        """Those of ``user_ids`` whom private messages reach."""
        async with self.db.sessions() as session:
            rows = await session.scalars(select(User.id).where(User.id.in_(user_ids),
                                                               User.can_message.is_(True)))
            return set(rows)

    async def migrate_chat(self, old_chat_id: int, new_chat_id: int) -> None:
        """Move every game of a group that became a supergroup to its new chat id."""
        async with self.db.sessions.begin() as session:
            old = await session.get(Chat, old_chat_id)
            if await session.get(Chat, new_chat_id) is None:
                session.add(Chat(id=new_chat_id, title=old.title if old else None))
                await session.flush()
            await session.execute(update(GameRow).where(GameRow.chat_id == old_chat_id)
                                  .values(chat_id=new_chat_id))

    # --- lobby ------------------------------------------------------------------------------
    async def open_lobby(self, chat_id: int, chat_title: str | None, thread_id: int,
                         creator: UserRef, kind: str = "coyote",
                         options: dict[str, Any] | None = None) -> GameSnapshot:
        """Open a lobby in a chat (and forum topic; 0 for none) with ``creator`` joined.

        Raises ``game_open`` (detail ``game_id``) when the topic already has an open game, or
        ``RuleError`` codes for bad options.
        """
        game = self._game(kind)
        options = dict(options or {})
        game.player_limits(options)  # validates the edition
        try:
            async with self.db.sessions.begin() as session:
                existing = await self._open_in(session, chat_id, thread_id)
                if existing is not None:
                    raise ServiceError("game_open", game_id=existing)
                if await session.get(Chat, chat_id) is None:
                    session.add(Chat(id=chat_id, title=chat_title))
                await _upsert_user(session, creator)
                await session.flush()  # no relationship orders these inserts before the game
                row = GameRow(chat_id=chat_id, thread_id=thread_id, kind=kind, options=options,
                              status="lobby", seed=self.new_seed(), creator_id=creator.id)
                row.players.append(GamePlayer(user_id=creator.id, name=creator.display_name))
                session.add(row)
                await session.flush()
                game_id = row.id
        except IntegrityError:
            # Another lobby was opened in the same topic between our check and our insert.
            async with self.db.sessions() as session:
                existing = await self._open_in(session, chat_id, thread_id)
            if existing is None:
                raise
            raise ServiceError("game_open", game_id=existing) from None
        return await self.get(game_id)

    async def open_game(self, chat_id: int, thread_id: int) -> GameSnapshot | None:
        """The lobby or running game of a chat's topic, if any."""
        async with self.db.sessions() as session:
            game_id = await self._open_in(session, chat_id, thread_id)
        return None if game_id is None else await self.get(game_id)

    async def get(self, game_id: int) -> GameSnapshot:
        """A game by id; raises ``game_not_found``."""
        async with self.db.sessions() as session:
            return snapshot(await _load(session, game_id))

    async def join(self, game_id: int, user: UserRef) -> GameSnapshot:
        """Add ``user`` to a lobby. Raises ``not_in_lobby``, ``already_joined``, ``game_full``."""
        async with self.db.sessions.begin() as session:
            row = await _load(session, game_id, lock=True)
            if row.status != "lobby":
                raise ServiceError("not_in_lobby")
            if any(p.user_id == user.id for p in row.players):
                raise ServiceError("already_joined")
            _, high = self._game(row.kind).player_limits(row.options)
            if len(row.players) >= high:
                raise ServiceError("game_full", max=high)
            await _upsert_user(session, user)
            await session.flush()
            row.players.append(GamePlayer(user_id=user.id, name=user.display_name))
            _touch(row)
        return await self.get(game_id)

    async def leave(self, game_id: int, user_id: int) -> GameSnapshot:
        """Remove a player from a lobby. The creator's role passes to the next player; a lobby
        left empty is cancelled. Raises ``not_in_lobby`` or ``not_joined``."""
        async with self.db.sessions.begin() as session:
            row = await _load(session, game_id, lock=True)
            if row.status != "lobby":
                raise ServiceError("not_in_lobby")
            player = next((p for p in row.players if p.user_id == user_id), None)
            if player is None:
                raise ServiceError("not_joined")
            row.players.remove(player)
            humans = [p for p in row.players if p.user_id is not None]
            if not humans:
                row.status = "cancelled"
                row.finished_at = utcnow()
            elif row.creator_id == user_id:
                row.creator_id = humans[0].user_id  # type: ignore[assignment]
            _touch(row)
        return await self.get(game_id)

    async def start(self, game_id: int, user_id: int) -> Outcome:
        """Seat the lobby in join order and deal. Only the creator may start. Raises
        ``not_in_lobby``, ``not_creator``, ``too_few_players`` (``min``)."""
        async with self.db.sessions.begin() as session:
            row = await _load(session, game_id, lock=True)
            if row.status != "lobby":
                raise ServiceError("not_in_lobby")
            if row.creator_id != user_id:
                raise ServiceError("not_creator")
            game = self._game(row.kind)
            low, _ = game.player_limits(row.options)
            if len(row.players) < low:
                raise ServiceError("too_few_players", min=low)
            state, events = game.new_game(len(row.players), row.seed, row.options)
            for seat, player in enumerate(row.players):
                player.seat = seat
            row.status = "running"
            row.started_at = utcnow()
            payload = [e.to_json() for e in events]
            _store_state(row, state, game)
            await session.flush()
            session.add(GameEvent(game_id=row.id, seq=row.version, seat=None, user_id=user_id,
                                  action=None, events=payload, version=row.version))
        return Outcome(await self.get(game_id), payload)

    # --- moves ------------------------------------------------------------------------------
    async def act(self, game_id: int, user_id: int, version: int, action: Action) -> Outcome:
        """Apply ``user_id``'s action if the game is still at ``version``.

        Raises ``game_not_found``, ``not_running``, ``stale`` (the game moved on, or a
        concurrent action won), ``not_a_player``, or a rule code from the engine.
        """
        try:
            async with self.db.sessions.begin() as session:
                row = await _load(session, game_id)
                if row.status != "running" or row.state is None:
                    raise ServiceError("not_running")
                if row.version != version:
                    raise ServiceError("stale")
                player = next((p for p in row.players if p.user_id == user_id), None)
                if player is None or player.seat is None:
                    raise ServiceError("not_a_player")
                game = self._game(row.kind)
                try:
                    state, events = game.apply(row.state, player.seat, action)
                except RuleError as exc:
                    raise ServiceError(exc.code, **exc.detail) from None
                payload = [e.to_json() for e in events]
                _store_state(row, state, game)
                await session.flush()
                session.add(GameEvent(game_id=row.id, seq=row.version, seat=player.seat,
                                      user_id=user_id, action=action.to_json(), events=payload,
                                      version=row.version))
        except (StaleDataError, IntegrityError):
            raise ServiceError("stale") from None
        return Outcome(await self.get(game_id), payload)

    async def game_on_turn(self, user_id: int) -> GameSnapshot | None:
        """The running game in which it is ``user_id``'s turn (the oldest if several)."""
        async with self.db.sessions() as session:
            ids = await session.scalars(
                select(GameRow.id).join(GamePlayer)
                .where(GamePlayer.user_id == user_id, GameRow.status == "running")
                .order_by(GameRow.id))
            for game_id in ids.all():
                game = snapshot(await _load(session, game_id))
                player = game.player(user_id)
                if player is not None and self._game(game.kind).current_seat(
                        game.state or {}) == player.seat:
                    return game
        return None

    async def cancel(self, game_id: int, user_id: int, *, is_admin: bool) -> GameSnapshot:
        """Cancel an open game: its creator or a chat admin only. Raises ``not_allowed``,
        ``not_running`` (already over)."""
        try:
            async with self.db.sessions.begin() as session:
                row = await _load(session, game_id)
                if row.status not in OPEN_STATUSES:
                    raise ServiceError("not_running")
                if row.creator_id != user_id and not is_admin:
                    raise ServiceError("not_allowed")
                row.status = "cancelled"
                row.finished_at = utcnow()
        except StaleDataError:
            raise ServiceError("stale") from None
        return await self.get(game_id)

    async def log(self, game_id: int) -> list[GameEvent]:
        """The game's event log in order (detached rows)."""
        async with self.db.sessions() as session:
            rows = await session.scalars(select(GameEvent).where(GameEvent.game_id == game_id)
                                         .order_by(GameEvent.seq))
            return list(rows)

    # --- message bookkeeping (not game state: the version stays) -----------------------------
    async def set_messages(self, game_id: int, *, lobby: int | None = None,
                           table: int | None = None) -> None:
        """Remember the group's lobby and current table message ids."""
        values = {k: v for k, v in (("lobby_message_id", lobby), ("table_message_id", table))
                  if v is not None}
        if values:
            async with self.db.sessions.begin() as session:
                await session.execute(update(GameRow).where(GameRow.id == game_id)
                                      .values(**values))

    async def set_private_message(self, game_id: int, user_id: int, message_id: int | None,
                                  round_no: int | None) -> None:
        """Remember the id of a player's private message for a round."""
        async with self.db.sessions.begin() as session:
            await session.execute(
                update(GamePlayer)
                .where(GamePlayer.game_id == game_id, GamePlayer.user_id == user_id)
                .values(private_message_id=message_id, private_round=round_no))

    # --- helpers ----------------------------------------------------------------------------
    def _game(self, kind: str) -> Game:
        try:
            return self.games[kind]
        except KeyError:
            raise ServiceError("unknown_game", kind=kind) from None

    @staticmethod
    async def _open_in(session: AsyncSession, chat_id: int, thread_id: int) -> int | None:
        return await session.scalar(
            select(GameRow.id).where(GameRow.chat_id == chat_id, GameRow.thread_id == thread_id,
                                     GameRow.status.in_(OPEN_STATUSES)))


async def _load(session: AsyncSession, game_id: int, *, lock: bool = False) -> GameRow:
    stmt = select(GameRow).where(GameRow.id == game_id).options(selectinload(GameRow.players))
    if lock:
        stmt = stmt.with_for_update()
    row = await session.scalar(stmt)
    if row is None:
        raise ServiceError("game_not_found")
    return row


async def _upsert_user(session: AsyncSession, user: UserRef) -> User:
    row = await session.get(User, user.id)
    if row is None:
        row = User(id=user.id, first_name=user.first_name, can_message=False)
        session.add(row)
    row.first_name = user.first_name
    row.last_name = user.last_name
    row.username = user.username
    row.language = user.language
    return row


def _touch(row: GameRow) -> None:
    # Lobby changes do not alter a column of the game row itself; flagging it makes the ORM
    # issue the versioned UPDATE so lobby edits race-check like moves do.
    flag_modified(row, "options")


def _store_state(row: GameRow, state: dict[str, Any], game: Game) -> None:
    row.state = state  # a new object, so the JSON column is seen as changed
    seated = {p.seat: p for p in row.players if p.seat is not None}
    for seat, lives in enumerate(state.get("lives", [])):
        if seat in seated:
            seated[seat].lives = lives
    places = game.placements(state)
    if places is not None:
        row.status = "finished"
        row.finished_at = utcnow()
        for seat, place in enumerate(places):
            if seat in seated:
                seated[seat].placement = place
