"""What every service module shares: the database, the games, loading rows, people and chats,
read-only queries, and message bookkeeping."""

from __future__ import annotations

import secrets
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any

from sqlalchemy import delete, or_, select, tuple_, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import selectinload

from engine import GAMES, Game
from league.db import Database
from league.errors import ServiceError
from league.models import (
    OPEN_STATUSES,
    Chat,
    GameEvent,
    GamePlayer,
    LeaguePost,
    RatingEvent,
    User,
    utcnow,
)
from league.models import Game as GameRow
from league.snapshots import GameSnapshot, UserRef, snapshot


class ServiceBase:
    """The database and the games by name; ``new_seed`` gives each game its random seed and
    ``clock`` the current time (aware UTC; tests pass a controlled one)."""

    def __init__(self, db: Database, *, games: Mapping[str, Game] = GAMES,
                 new_seed: Callable[[], int] = lambda: secrets.randbits(62),
                 clock: Callable[[], datetime] = utcnow) -> None:
        self.db = db
        self.games = games
        self.new_seed = new_seed
        self.clock = clock

    # --- people and chats -------------------------------------------------------------------
    async def touch_user(self, user: UserRef, *, can_message: bool | None = None) -> bool:
        """Create or refresh a user's names; optionally set ``can_message``. Returns the stored
        ``can_message`` (whether private messages reach them)."""
        async with self.db.sessions.begin() as session:
            row = await upsert_user(session, user)
            if can_message is not None:
                row.can_message = can_message
            return row.can_message

    async def chat_language(self, chat_id: int) -> str | None:
        """The language code a chat's messages are written in (``None``: not set yet)."""
        async with self.db.sessions() as session:
            chat = await session.get(Chat, chat_id)
            return None if chat is None else chat.language

    async def user_language(self, user_id: int) -> str | None:
        """The language code a user reads (chosen with /language, else their client's)."""
        async with self.db.sessions() as session:
            return user_language(await session.get(User, user_id))

    async def chosen_language(self, user_id: int) -> str | None:
        """The language a user chose with /language (``None``: they follow their client)."""
        async with self.db.sessions() as session:
            return await session.scalar(select(User.chosen_language).where(User.id == user_id))

    async def choose_language(self, user: UserRef, code: str | None) -> None:
        """Record the language ``user`` chose (``None``: follow their client again). Raises
        ``bad_option`` for something that is no language code."""
        if code is not None and not is_language_code(code):
            raise ServiceError("bad_option")
        async with self.db.sessions.begin() as session:
            row = await upsert_user(session, user)
            row.chosen_language = code

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
        """A group became a supergroup: move its games, its league (rating events and posts)
        and its settings to the new chat id. A setting the supergroup already changed from
        the default is kept; a post claimed under both ids is kept once. Calling it again
        (Telegram reports a migration both as a service message and as an error) changes
        nothing."""
        async with self.db.sessions.begin() as session:
            old = await session.get(Chat, old_chat_id)
            new = await session.get(Chat, new_chat_id)
            if new is None:
                new = await insert_missing(session, Chat, id=new_chat_id,
                                           title=old.title if old else None)
            if old is not None:
                for column in MIGRATED_SETTINGS:
                    if getattr(new, column) in (None, _default(column)):
                        setattr(new, column, getattr(old, column))
                if old.last_rated_at is not None and (
                        new.last_rated_at is None or new.last_rated_at < old.last_rated_at):
                    new.last_rated_at = old.last_rated_at
            await session.flush()
            # (a reminder's message id belongs to the old chat: never edit it in the new one)
            await session.execute(update(GameRow).where(GameRow.chat_id == old_chat_id)
                                  .values(chat_id=new_chat_id, reminder_message_id=None,
                                          reminder_version=None))
            await session.execute(update(RatingEvent).where(RatingEvent.chat_id == old_chat_id)
                                  .values(chat_id=new_chat_id))
            moved = select(LeaguePost.kind, LeaguePost.period_start).where(
                LeaguePost.chat_id == new_chat_id)
            await session.execute(delete(LeaguePost).where(
                LeaguePost.chat_id == old_chat_id,
                tuple_(LeaguePost.kind, LeaguePost.period_start).in_(moved)))
            await session.execute(update(LeaguePost).where(LeaguePost.chat_id == old_chat_id)
                                  .values(chat_id=new_chat_id))

    async def open_game(self, chat_id: int, thread_id: int) -> GameSnapshot | None:
        """The lobby or running game of a chat's topic, if any."""
        async with self.db.sessions() as session:
            game_id = await self._open_in(session, chat_id, thread_id)
        return None if game_id is None else await self.get(game_id)

    async def get(self, game_id: int) -> GameSnapshot:
        """A game by id; raises ``game_not_found``."""
        async with self.db.sessions() as session:
            return snapshot(await load_game(session, game_id))

    async def running_games_of(self, user_id: int) -> list[GameSnapshot]:
        """Running games in which ``user_id`` is still playing (has lives left)."""
        async with self.db.sessions() as session:
            ids = await session.scalars(
                select(GameRow.id).join(GamePlayer)
                .where(GamePlayer.user_id == user_id, GameRow.status == "running")
                .order_by(GameRow.id))
            games = [snapshot(await load_game(session, game_id)) for game_id in ids.all()]
        # koira-page: superseded by refactor-league (still_playing, not Coyote's lives)
        return [g for g in games if (p := g.player(user_id)) is not None and p.seat is not None
                and p.seat in self._game(g.kind).still_playing(g.state or {})]

    async def open_games_in(self, chat_id: int) -> list[GameSnapshot]:
        """Every lobby and running game of a chat, all topics."""
        async with self.db.sessions() as session:
            ids = await session.scalars(select(GameRow.id).where(
                GameRow.chat_id == chat_id, GameRow.status.in_(OPEN_STATUSES)))
            return [snapshot(await load_game(session, game_id)) for game_id in ids.all()]

    async def games_on_turn(self, user_id: int) -> list[GameSnapshot]:
        """The running games in which it is ``user_id``'s turn, oldest first."""
        found = []
        async with self.db.sessions() as session:
            ids = await session.scalars(
                select(GameRow.id).join(GamePlayer)
                .where(GamePlayer.user_id == user_id, GameRow.status == "running")
                .order_by(GameRow.id))
            for game_id in ids.all():
                game = snapshot(await load_game(session, game_id))
                player = game.player(user_id)
                if player is not None and self._game(game.kind).current_seat(
                        game.state or {}) == player.seat:
                    found.append(game)
        return found

    async def game_of_private_message(self, user_id: int,
                                      message_id: int) -> GameSnapshot | None:
        """The running game whose current private message to ``user_id`` is ``message_id``
        (what a reply in the private chat answers), or ``None``."""
        async with self.db.sessions() as session:
            game_id = await session.scalar(
                select(GameRow.id).join(GamePlayer)
                .where(GamePlayer.user_id == user_id, GameRow.status == "running",
                       GamePlayer.private_message_id == message_id).limit(1))
            return None if game_id is None else snapshot(await load_game(session, game_id))

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

    async def set_reminder(self, game_id: int, message_id: int, version: int) -> None:
        """Remember the message of the group reminder the sweep claimed at game ``version``.
        The same turn may have gone on meanwhile (a Reverse, say, moves the claim to the
        new version), so any later claim without a message yet is this reminder's."""
        async with self.db.sessions.begin() as session:
            await session.execute(update(GameRow).where(
                GameRow.id == game_id, GameRow.reminder_version >= version,
                GameRow.reminder_message_id.is_(None)).values(reminder_message_id=message_id))

    async def untold(self, game_id: int, after: int, upto: int) -> list[list[dict[str, Any]]]:
        """The events of each logged move with a version in ``(after, upto]``, in order: the
        moves the group has not been told (see ``Game.told_version``)."""
        async with self.db.sessions() as session:
            rows = await session.scalars(select(GameEvent.events).where(
                GameEvent.game_id == game_id, GameEvent.version > after,
                GameEvent.version <= upto).order_by(GameEvent.seq))
            return list(rows)

    async def claim_private(self, game_id: int, user_id: int, round_no: int) -> bool:
        """Claim the sending of a player's private message for ``round_no``: ``True`` for
        one caller only, until :meth:`set_private_message` records the message (or ``None``
        after a failed send, which makes it claimable again). While claimed, the id is
        :data:`SENDING`."""
        async with self.db.sessions.begin() as session:
            result = await session.execute(
                update(GamePlayer)
                .where(GamePlayer.game_id == game_id, GamePlayer.user_id == user_id,
                       or_(GamePlayer.private_round.is_(None),
                           GamePlayer.private_round != round_no,
                           GamePlayer.private_message_id.is_(None)))
                .values(private_message_id=SENDING, private_round=round_no))
            return result.rowcount == 1

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


MIGRATED_SETTINGS = ("pace", "edition", "lives", "specials", "timeout_policy", "lobby_ttl",
                     "timezone", "season_weeks", "language")
"""The chat settings a supergroup takes over from the group it was."""


def _default(column: str) -> Any:
    default = Chat.__table__.c[column].default
    return default.arg if default is not None else None

def is_language_code(code: object) -> bool:
    """Whether ``code`` looks like a language code (``ko``, ``es-419``, ``zh-hans``)."""
    return isinstance(code, str) and 2 <= len(code) <= 16 and \
        all(part.isascii() and part.isalnum() for part in code.replace("_", "-").split("-"))


SENDING = 0
"""The private message id of a player while their message is being sent (never a real id)."""

MAX_GAME_ID = 2**31 - 1
"""Game ids are 32-bit integers in the database; a larger number (typed or forged) names no
game, and must not reach the driver, which would refuse it."""


async def load_game(session: AsyncSession, game_id: int, *, lock: bool = False) -> GameRow:
    """The game ``game_id`` with its players (``lock``: ``FOR UPDATE``); raises
    ``game_not_found`` for an unknown or out-of-range id."""
    if isinstance(game_id, bool) or not isinstance(game_id, int) or \
            not 0 < game_id <= MAX_GAME_ID:
        raise ServiceError("game_not_found")
    stmt = select(GameRow).where(GameRow.id == game_id).options(selectinload(GameRow.players))
    if lock:
        stmt = stmt.with_for_update()
    row = await session.scalar(stmt)
    if row is None:
        raise ServiceError("game_not_found")
    await attach_languages(session, [row])
    return row


async def attach_languages(session: AsyncSession, rows: list[GameRow]) -> None:
    """Read the languages the games' messages are written in onto the loaded ``rows`` (for
    their snapshots): the chat's (``Chat.language``) and each human player's (the one they
    chose, else their client's). Codes as stored; the bot normalises them."""
    chat_ids = {row.chat_id for row in rows}
    user_ids = {p.user_id for row in rows for p in row.players if p.user_id is not None}
    chats = dict((await session.execute(
        select(Chat.id, Chat.language).where(Chat.id.in_(chat_ids)))).all())
    users = {uid: chosen or client for uid, chosen, client in (await session.execute(
        select(User.id, User.chosen_language, User.language).where(User.id.in_(user_ids))
    )).all()} if user_ids else {}
    for row in rows:
        row.languages = (chats.get(row.chat_id), users)


def user_language(row: User | None) -> str | None:
    """The language a user reads: the one chosen with /language, else their client's."""
    return None if row is None else row.chosen_language or row.language


async def upsert_user(session: AsyncSession, user: UserRef) -> User:
    """The user's row with fresh names, created if new. Two transactions may see the same new
    user at once (updates are handled concurrently), so the row is inserted with ON CONFLICT
    DO NOTHING and read back rather than added."""
    row = await session.get(User, user.id)
    if row is None:
        row = await insert_missing(session, User, id=user.id, first_name=user.first_name,
                                   can_message=False)
    row.first_name = user.first_name
    row.last_name = user.last_name
    row.username = user.username
    row.language = user.language
    return row


async def insert_missing(session: AsyncSession, model: type[Any], **values: Any) -> Any:
    """The row of ``model`` with primary key ``values["id"]``, inserted with ``values`` if it
    does not exist. Another transaction may insert the same row at once (updates are handled
    concurrently), so it is INSERT … ON CONFLICT DO NOTHING and read back, never ``add``."""
    insert = pg_insert if session.get_bind().dialect.name == "postgresql" else sqlite_insert
    await session.execute(insert(model).values(**values)
                          .on_conflict_do_nothing(index_elements=["id"]))
    row = await session.get(model, values["id"], populate_existing=True)
    assert row is not None
    return row


def touch(row: GameRow) -> None:
    """Mark a lobby change: the version goes up, so concurrent lobby edits race-check (the
    UPDATE only matches the version read) and old lobby buttons go stale."""
    row.version += 1


def store_state(row: GameRow, state: dict[str, Any], game: Game, now: datetime) -> None:
    """Put a new engine state on the row, mirror lives and placements on the players, and
    finish the game when the engine says it is over."""
    row.state = state  # a new object, so the JSON column is seen as changed
    row.version += 1
    seated = {p.seat: p for p in row.players if p.seat is not None}
    for seat, lives in enumerate(state.get("lives", [])):
        if seat in seated:
            seated[seat].lives = lives
    places = game.placements(state)
    if places is not None:
        row.status = "finished"
        row.finished_at = now
        for seat, place in enumerate(places):
            if seat in seated:
                seated[seat].placement = place
