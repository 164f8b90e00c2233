"""Row helpers every part of the match service uses: loading a game with its players and
languages, inserting a user or chat that may be new, and putting a new engine state on a
game's row."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, func, select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import aliased, joinedload, selectinload

from engine import Game
from league.store.errors import ServiceError
from league.store.models import OPEN_STATUSES, Chat, User
from league.store.models import Game as GameRow
from league.store.rating_models import RatingEvent
from league.store.snapshots import EloChange, UserRef


def rowcount(result: Any) -> int:
    """The number of rows an UPDATE matched (``Session.execute`` is typed as returning a
    ``Result``; for an UPDATE it is a ``CursorResult``, which counts them)."""
    return int(result.rowcount)


def column_default(column: str) -> Any:
    """The default value of a ``chats`` column (``None`` if it has none)."""
    default = Chat.__table__.c[column].default
    return default.arg if default is not None else None


def is_language_code(code: object) -> bool:
    """Whether ``code`` looks like a language code (``ko``, ``es-419``, ``zh-hans``)."""
    return isinstance(code, str) and 2 <= len(code) <= 16 and \
        all(part.isascii() and part.isalnum() for part in code.replace("_", "-").split("-"))


MAX_INTEGER = 2**31 - 1
"""Game ids and versions are 32-bit integers in the database; a larger number (typed or
forged) names no game or step, and must not reach the driver, which would refuse it."""


# Built once: a statement built anew costs CPU for its construction and cache key at every
# press (its cached compilation is found by its cache key either way).
# populate_existing: a session that holds the game already, a delivery's, reads it anew. The
# players come in the same query, joined: one round trip, not two; FOR UPDATE cannot lock the
# outer join's nullable side, so a locking read loads them apart.
_LOAD = select(GameRow).where(GameRow.id == bindparam("game_id")) \
    .options(joinedload(GameRow.players)).execution_options(populate_existing=True)
_LOAD_LOCKED = select(GameRow).where(GameRow.id == bindparam("game_id")) \
    .options(selectinload(GameRow.players)).execution_options(populate_existing=True) \
    .with_for_update()


async def load_game(session: AsyncSession, game_id: int, *, lock: bool = False) -> GameRow:
    """The game ``game_id`` with its players (``lock``: ``FOR UPDATE``); raises
    ``game_not_found`` for an unknown or out-of-range id."""
    if isinstance(game_id, bool) or not isinstance(game_id, int) or \
            not 0 < game_id <= MAX_INTEGER:
        raise ServiceError("game_not_found")
    stmt = _LOAD_LOCKED if lock else _LOAD
    row = (await session.scalars(stmt, {"game_id": game_id})).unique().one_or_none()
    if row is None:
        raise ServiceError("game_not_found")
    await attach_languages(session, [row])
    if row.status == "finished":
        await attach_elo(session, [row])
    return row


# Each rated seat's rating event, with the player's rated games of that kind up to it (for
# the "?" of a provisional rating): one query for any number of games.
_EARLIER = aliased(RatingEvent)
_ELO = select(RatingEvent.game_id, RatingEvent.user_id, RatingEvent.before, RatingEvent.after,
              select(func.count(_EARLIER.id))
              .where(_EARLIER.user_id == RatingEvent.user_id, _EARLIER.kind == RatingEvent.kind,
                     _EARLIER.id <= RatingEvent.id)
              .correlate(RatingEvent).scalar_subquery()) \
    .where(RatingEvent.game_id.in_(bindparam("game_ids", expanding=True)))


async def attach_elo(session: AsyncSession, rows: list[GameRow]) -> None:
    """Put each rated seat's Elo change onto the finished games among ``rows`` (for their
    snapshots' ``PlayerInfo.elo_change``): one read of their rating events
    (``league.tables.rated`` writes them in the transaction that finishes a game; read in
    that transaction, the session flushes them first). Games not finished are left alone:
    no read while a game is played."""
    finished = [row for row in rows if row.status == "finished"]
    if not finished:
        return
    changes: dict[int, dict[int, EloChange]] = {row.id: {} for row in finished}
    for game_id, user_id, before, after, games in (await session.execute(
            _ELO, {"game_ids": list(changes)})).all():
        changes[game_id][user_id] = EloChange(before, after, games)
    for row in finished:
        setattr(row, "elo_changes", changes[row.id])  # noqa: B010 (no column)


async def attach_languages(session: AsyncSession, rows: list[GameRow]) -> None:
    """Put the languages the games' messages are written in onto the loaded ``rows`` (for
    their snapshots): the chat's (``Chat.language``) and each human player's (the one they
    chose, else their client's), with whether private messages reach each human player
    (``User.can_message``) and whether their round-ending moves ask to be confirmed
    (``User.confirm_ending``). Codes as stored; the bot normalises them. All are read with
    the rows themselves (``Game.chat_language``, ``GamePlayer.reader_language``,
    ``GamePlayer.reader_reachable``, ``GamePlayer.reader_confirms``): only what a row added
    in this session lacks is read here."""
    per_user = ("reader_language", "reader_reachable", "reader_confirms")
    missing_chats = {row.chat_id for row in rows if "chat_language" not in row.__dict__}
    missing_users = {p.user_id for row in rows for p in row.players
                     if p.user_id is not None and any(k not in p.__dict__ for k in per_user)}
    chats = dict((await session.execute(
        select(Chat.id, Chat.language).where(Chat.id.in_(missing_chats)))).all()) \
        if missing_chats else {}
    users = {uid: (chosen or client, bool(reachable), confirms is not False)
             for uid, chosen, client, reachable, confirms in (await session.execute(
                 select(User.id, User.chosen_language, User.language, User.can_message,
                        User.confirm_ending)
                 .where(User.id.in_(missing_users)))).all()} if missing_users else {}

    def reader(player: Any) -> tuple[str | None, bool, bool]:
        known = player.__dict__
        if all(k in known for k in per_user):
            return (known["reader_language"], bool(known["reader_reachable"]),
                    known["reader_confirms"] is not False)
        return users.get(player.user_id, (None, False, True))

    for row in rows:
        chat = row.__dict__["chat_language"] if "chat_language" in row.__dict__ \
            else chats.get(row.chat_id)
        readers = {p.user_id: reader(p) for p in row.players if p.user_id is not None}
        setattr(row, "languages", (chat, readers))  # noqa: B010 (no column)


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
    """Put a new engine state on the row, mirror on the players who is still playing
    (``Game.still_playing``) and their placements, note the hand being played
    (``Game.hand_number``), and finish the game when the engine says it is over."""
    row.state = state  # a new object, so the JSON column is seen as changed
    row.version += 1
    row.hand = game.hand_number(state)
    playing = set(game.still_playing(state))
    seated = {p.seat: p for p in row.players if p.seat is not None}
    for seat, player in seated.items():
        player.playing = seat in playing
    places = game.placements(state)
    if places is not None:
        row.status = "finished"
        row.finished_at = now
        for seat, place in enumerate(places):
            if seat in seated:
                seated[seat].placement = place


async def open_in(session: AsyncSession, chat_id: int, thread_id: int) -> int | None:
    """The id of the lobby or running game of a chat's topic, if any (tournament tables
    aside: they run beside it)."""
    return await session.scalar(
        select(GameRow.id).where(GameRow.chat_id == chat_id, GameRow.thread_id == thread_id,
                                 GameRow.status.in_(OPEN_STATUSES),
                                 GameRow.tournament_id.is_(None)))
