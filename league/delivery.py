"""From a commit to its messages, the league's half: one delivery per game at a time, what it
records, and the games whose last change was not shown.

Every committed start, move and timeout is reported to the service's listeners right after its
commit (``league.outcome``); the bot's listener delivers it. A delivery
(:meth:`Deliveries.delivering`) holds the game's lock, reads the game as it is now, lets the
bot send, and records what was sent (:class:`Delivery`: the group's ``told_version``, message
ids) in the tables only deliveries write (``game_messages``, ``private_messages``), so a
move's transaction and a delivery's never touch the same rows. On PostgreSQL it is one
transaction: a transaction advisory lock on the game (freed by the server if the process
dies), the read, the records, the commit. On SQLite (one process) the bot's in-process lock
is the lock, and the records are written in one short transaction at the end.

What the group has been told lives in the database, so after a kill any process finds what is
left to show (:meth:`Deliveries.behind`): a kill between a send and its record shows that
message again (at least once, never lost).
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import replace
from datetime import timedelta
from typing import Any

from sqlalchemy import and_, case, func, or_, select, text
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncSession

from league.context import Context
from league.models import Game as GameRow
from league.models import (
    GameEvent,
    GameMessages,
    GamePlayer,
    PrivateMessage,
    User,
    table_of,
    utcnow,
)
from league.reads import GameReads
from league.rows import load_game
from league.snapshots import GameSnapshot, snapshot

log = logging.getLogger(__name__)

DELIVERY_LOCK = 0x636F  # the first key of the game's advisory lock ("co"); the second: game id
LOCK_WAIT = 20
"""Seconds a delivery waits for the game's lock before it gives up (logged)."""
GRACE = timedelta(seconds=2)
"""A change younger than this is left to the process that committed it (it is delivering
it now); :meth:`Deliveries.behind` finds only older ones."""
FINISHED_WINDOW = timedelta(days=1)
"""A finished game whose end was not told is shown again within this long of its end."""


_FIELDS = {"chat_id": "messages_chat_id"}  # (a GameMessages column -> its snapshot field)


class Delivery:
    """One delivery of a game: ``game`` as read under its lock (with what this delivery
    recorded laid over it: :meth:`seen`), and the records it writes when it ends."""

    def __init__(self, game: GameSnapshot, session: AsyncSession | None = None) -> None:
        self._read = game
        self.session = session  # (PostgreSQL: the transaction that holds the lock)
        self.told_upto: int | None = None
        self.messages: dict[str, Any] = {}  # column of game_messages -> message id
        self.private: dict[int, tuple[int | None, int | None]] = {}  # user -> (id, hand)

    @property
    def game(self) -> GameSnapshot:
        return self.seen(self._read)

    def seen(self, game: GameSnapshot) -> GameSnapshot:
        """``game`` with what this delivery recorded so far laid over it."""
        if not (self.messages or self.private or self.told_upto is not None):
            return game
        players = tuple(
            replace(p, private_message_id=self.private[p.user_id][0],
                    private_hand=self.private[p.user_id][1])
            if p.user_id in self.private else p for p in game.players)
        return replace(game, players=players, told_version=self.told_version(game),
                       **{_FIELDS.get(k, k): v for k, v in self.messages.items()})

    def told(self, version: int) -> None:
        """The group has been shown the game up to ``version``."""
        self.told_upto = version if self.told_upto is None else max(self.told_upto, version)

    def told_version(self, game: GameSnapshot) -> int | None:
        """How far the group has been told ``game`` (as read), counting this delivery."""
        if self.told_upto is None:
            return game.told_version
        return self.told_upto if game.told_version is None else \
            max(self.told_upto, game.told_version)

    def set_messages(self, *, lobby: int | None = None, table: int | None = None,
                     reminder: int | None = None, chat: int | None = None) -> None:
        """The group's lobby, current table or last reminder message is now this one, posted
        in ``chat``."""
        for column, value in (("lobby_message_id", lobby), ("table_message_id", table),
                              ("reminder_message_id", reminder), ("chat_id", chat)):
            if value is not None:
                self.messages[column] = value

    def set_private(self, user_id: int, message_id: int | None, hand: int | None) -> None:
        """``user_id``'s private message of the game is now ``message_id``, of ``hand``."""
        self.private[user_id] = (message_id, hand)

    async def write(self, session: AsyncSession) -> None:
        """Write the records (a told version is never lowered)."""
        game_id = self._read.id
        insert = pg_insert if session.get_bind().dialect.name == "postgresql" \
            else sqlite_insert
        if self.messages or self.told_upto is not None:
            table = table_of(GameMessages)
            stmt = insert(table).values(game_id=game_id, told_version=self.told_upto,
                                        **self.messages)
            changed: dict[str, Any] = {k: stmt.excluded[k] for k in self.messages}
            if self.told_upto is not None:  # (never lowered)
                told = table.c.told_version
                changed["told_version"] = case(
                    (or_(told.is_(None), told < stmt.excluded.told_version),
                     stmt.excluded.told_version), else_=told)
            await session.execute(stmt.on_conflict_do_update(index_elements=["game_id"],
                                                             set_=changed))
        if self.private:
            stmt = insert(PrivateMessage).values([
                {"game_id": game_id, "user_id": user, "message_id": message, "hand": hand}
                for user, (message, hand) in self.private.items()])
            await session.execute(stmt.on_conflict_do_update(
                index_elements=["game_id", "user_id"],
                set_={"message_id": stmt.excluded.message_id, "hand": stmt.excluded.hand}))


class Deliveries:
    """The per-game delivery and the search for games not shown (part of
    :class:`league.service.MatchService`)."""

    def __init__(self, ctx: Context, reads: GameReads) -> None:
        self.reads = reads
        self.ctx = ctx

    @asynccontextmanager
    async def delivering(self, game_id: int) -> AsyncIterator[Delivery]:
        """Hold game ``game_id``'s delivery lock while its messages are drawn and sent, so
        one process at a time shows a game's changes, in commit order; yields the game as
        read under the lock, and writes what the delivery recorded when it ends (also when
        it fails: what was sent stays recorded, else it would be sent again). Raises
        ``game_not_found``. See the module's docstring."""
        db = self.ctx.db
        if db.dialect != "postgresql":  # (one process: the caller's lock is the lock)
            delivery = Delivery(await self.reads.get(game_id))
            try:
                yield delivery
            except Exception:
                await _keep_sent(delivery, None, db)
                raise
            async with db.sessions.begin() as session:
                await delivery.write(session)
            return
        async with db.sessions() as session:
            # A delivery stuck elsewhere (a connection a stopped process left open) must not
            # hold this one for ever: the wait fails, and the next sweep shows the game.
            # (one statement: set_config(…, true) is SET LOCAL; the lock follows it)
            await session.execute(text("SELECT set_config('lock_timeout', :wait, true), "
                                       "pg_advisory_xact_lock(:k, :g)"),
                                  {"wait": f"{LOCK_WAIT}s", "k": DELIVERY_LOCK, "g": game_id})
            delivery = Delivery(snapshot(await load_game(session, game_id)), session)
            try:
                yield delivery
            except Exception:
                await _keep_sent(delivery, session, db)
                raise
            await delivery.write(session)
            await session.commit()

    async def reread(self, delivery: Delivery) -> GameSnapshot:
        """The delivery's game read again (in its transaction, if it has one), with what it
        recorded laid over it."""
        game_id = delivery.game.id
        delivery._read = await self.reads.get(game_id) if delivery.session is None else \
            snapshot(await load_game(delivery.session, game_id))
        return delivery.game

    async def untold(self, game_id: int, after: int, upto: int) -> list[list[dict[str, Any]]]:
        """The events of each logged move with a version in ``(after, upto]``, in order: the
        moves the group has not been told (see ``GameMessages.told_version``)."""
        async with self.ctx.db.sessions() as session:
            rows = await session.scalars(select(GameEvent.events).where(
                GameEvent.game_id == game_id, GameEvent.version > after,
                GameEvent.version <= upto).order_by(GameEvent.seq))
            return list(rows)

    async def behind(self, limit: int = 200) -> list[int]:
        """Ids of games whose last change may not be shown: running (or finished within
        :data:`FINISHED_WINDOW`) with ``told_version`` behind ``version`` for longer than
        :data:`GRACE`, or running with a player who can be messaged but has no private
        message for the hand being played (``games.hand``); or a lobby whose message was not
        drawn at its version (a kill between a join's commit and the lobby's edit; no grace,
        as a lobby change logs no event)."""
        now = utcnow()
        told = func.coalesce(GameMessages.told_version, 0)
        last_event = select(func.max(GameEvent.created_at)).where(
            GameEvent.game_id == GameRow.id).correlate(GameRow).scalar_subquery()
        recent = or_(GameRow.status == "running",
                     and_(GameRow.status == "finished",
                          GameRow.finished_at > now - FINISHED_WINDOW))
        untold = (select(GameRow.id)
                  .outerjoin(GameMessages, GameMessages.game_id == GameRow.id)
                  .where(recent, told < GameRow.version,
                         or_(last_event.is_(None), last_event < now - GRACE))
                  .order_by(GameRow.id).limit(limit))
        no_private = (select(GameRow.id).distinct()
                      .join(GamePlayer, GamePlayer.game_id == GameRow.id)
                      .join(User, User.id == GamePlayer.user_id)
                      .outerjoin(PrivateMessage, and_(
                          PrivateMessage.game_id == GameRow.id,
                          PrivateMessage.user_id == GamePlayer.user_id))
                      .where(GameRow.status == "running", GamePlayer.seat.is_not(None),
                             GamePlayer.playing.is_(True), User.can_message.is_(True),
                             or_(PrivateMessage.message_id.is_(None),
                                 PrivateMessage.hand.is_(None),
                                 PrivateMessage.hand != GameRow.hand))
                      .order_by(GameRow.id).limit(limit))
        lobbies = (select(GameRow.id)
                   .outerjoin(GameMessages, GameMessages.game_id == GameRow.id)
                   .where(GameRow.status == "lobby",
                          or_(GameMessages.told_version.is_(None),
                              GameMessages.told_version < GameRow.version))
                   .order_by(GameRow.id).limit(limit))
        async with self.ctx.db.sessions() as session:
            found = set((await session.scalars(untold)).all())
            found |= set((await session.scalars(no_private)).all())
            found |= set((await session.scalars(lobbies)).all())
        return sorted(found)


async def _keep_sent(delivery: Delivery, session: AsyncSession | None, db: Any) -> None:
    """Record what a failed delivery sent (else it would be sent again); a failure here is
    logged at debug level only: the delivery's own error is the one raised."""
    try:
        if session is None:
            async with db.sessions.begin() as session:
                await delivery.write(session)
        else:
            await delivery.write(session)
            await session.commit()
    except Exception:  # noqa: BLE001
        log.debug("keeping game %s's message ids failed", delivery.game.id, exc_info=True)
