"""The league's half of a delivery (DEVELOPERS.md: "From an update to its messages")."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, replace
from datetime import timedelta
from typing import Any

from sqlalchemy import and_, case, delete, func, or_, select, text
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncSession

from league.store.context import Context
from league.store.message_models import EphemeralMessage, GameMessages, PrivateMessage
from league.store.models import Game as GameRow
from league.store.models import GameEvent, GamePlayer, User
from league.store.orm import table_of, utcnow
from league.store.reads import GameReads
from league.store.rows import load_game
from league.store.snapshots import GameSnapshot, PlayerInfo, snapshot

log = logging.getLogger(__name__)

DELIVERY_LOCK = 0x636F  # the first key of the game's advisory lock ("co"); the second: game id
LOCK_WAIT = 20  # seconds a delivery waits for the game's lock before it gives up
GRACE = timedelta(seconds=2)  # a younger change is its committer's to deliver: not behind
RECENT_MOVES = 60  # the latest moves a table may tell (a Coyote round rarely has more)
FINISHED_WINDOW = timedelta(days=1)  # a finished game's untold end is shown this long after
_FIELDS = {"chat_id": "messages_chat_id"}  # (a GameMessages column -> its snapshot field)


@dataclass(frozen=True)
class EphemeralNote:
    """A player's ephemeral message of a game (``message_models.EphemeralMessage``): in group
    ``chat_id``, Telegram's ``ephemeral_message_id`` ``message_id``, showing hand ``hand``,
    drawn with the buttons of the player to act if ``acting``."""

    chat_id: int
    message_id: int
    hand: int | None
    acting: bool = False


class Delivery:
    """One delivery: ``game`` as read, with what it recorded (written when it ends)."""

    def __init__(self, game: GameSnapshot, session: AsyncSession | None = None, *,
                 db: Any = None) -> None:
        self._read = game
        self.session = session  # (PostgreSQL: the transaction that holds the lock)
        self._db = db  # (where flush writes, and reads go once the session is gone)
        self.told_upto: int | None = None
        self.drawn_at: int | None = None  # (game_messages.drawn_version)
        self.messages: dict[str, Any] = {}  # column of game_messages -> message id
        self.private: dict[int, tuple[int | None, int | None, bool]] = {}  # (id, hand, acting)
        self.turn_began: set[int] = set()  # users whose recorded private message began a turn
        self.refused: set[int] = set()  # users Telegram refused a private message (see game)
        self.timed_out: set[int] = set()  # seats whose time ran out in the change delivered
        self.ephemeral_changes: dict[int, EphemeralNote | None] = {}  # user -> note (None: gone)
        self._ephemeral: dict[int, EphemeralNote] | None = None  # as read, with the changes
        self._reading = asyncio.Lock()  # (one read at a time: a session is not concurrent)
        self.moves_versions: list[int] = []  # (the versions of the last recent_moves)

    async def ephemeral(self) -> dict[int, EphemeralNote]:
        """The players' ephemeral messages of the game (user id -> note), as recorded with
        this delivery's changes; read once per delivery (in its transaction, if any)."""
        async with self._reading:
            if self._ephemeral is None:
                await self._read_ephemeral()
        return dict(self._ephemeral or {})

    async def _read_ephemeral(self) -> None:
        stmt = select(EphemeralMessage.user_id, EphemeralMessage.chat_id,
                      EphemeralMessage.message_id, EphemeralMessage.hand,
                      EphemeralMessage.acting).where(EphemeralMessage.game_id == self._read.id)
        if self.session is not None:
            rows = (await self.session.execute(stmt)).all()
        elif self._db is not None:
            async with self._db.sessions() as session:
                rows = (await session.execute(stmt)).all()
        else:  # (a delivery made by hand, as tests do: nothing recorded)
            rows = []
        notes = {user: EphemeralNote(chat, message, hand, bool(acting))
                 for user, chat, message, hand, acting in rows}
        for user, note in self.ephemeral_changes.items():  # (recorded before the read)
            if note is None:
                notes.pop(user, None)
            else:
                notes[user] = note
        self._ephemeral = notes

    def set_ephemeral(self, user_id: int, note: EphemeralNote | None) -> None:
        """``user_id``'s ephemeral message of the game is now ``note`` (``None``: none)."""
        self.ephemeral_changes[user_id] = note
        if self._ephemeral is not None:
            if note is None:
                self._ephemeral.pop(user_id, None)
            else:
                self._ephemeral[user_id] = note

    @property
    def game(self) -> GameSnapshot:
        """The game as read, with what this delivery recorded: its messages, and the players
        Telegram refused (``reachable`` false: nothing private is tried again)."""
        game = self._read
        if not (self.messages or self.private or self.refused or self.told_upto is not None):
            return game
        players = tuple(self._player(p) for p in game.players)
        return replace(game, players=players, told_version=self.told_version(game),
                       **{_FIELDS.get(k, k): v for k, v in self.messages.items()})

    def _player(self, player: PlayerInfo) -> PlayerInfo:
        if player.user_id in self.private:
            message_id, hand, acting = self.private[player.user_id]
            player = replace(player, private_message_id=message_id, private_hand=hand,
                             private_acting=acting)
        if player.user_id in self.refused:
            player = replace(player, reachable=False)
        return player

    def told(self, version: int) -> None:
        """The group has been shown the game up to ``version``."""
        self.told_upto = version if self.told_upto is None else max(self.told_upto, version)

    def drawn(self, version: int) -> None:
        """The messages show the game at ``version``, whose note is held (the same player
        acts again): nothing for a sweep to draw until it changes."""
        self.drawn_at = version

    def told_version(self, game: GameSnapshot) -> int | None:
        """How far the group has been told ``game`` (as read), counting this delivery."""
        return max((v for v in (self.told_upto, game.told_version) if v is not None), default=None)

    async def recent_moves(self, limit: int = RECENT_MOVES) -> list[list[dict[str, Any]]]:
        """The events of the game's latest ``limit`` logged moves, in order (read in the
        delivery's transaction where it has one: no transaction of its own)."""
        stmt = (select(GameEvent.version, GameEvent.events)
                .where(GameEvent.game_id == self._read.id)
                .order_by(GameEvent.seq.desc()).limit(limit))
        async with self._reading:
            if self.session is not None:
                rows = list((await self.session.execute(stmt)).all())
            elif self._db is not None:
                async with self._db.sessions() as session:
                    rows = list((await session.execute(stmt)).all())
            else:  # (the delivery has ended, or was made by hand)
                rows = []
        rows.reverse()
        self.moves_versions = [version for version, _ in rows]
        return [events for _, events in rows]

    def unseen(self, moves: list[list[dict[str, Any]]]) -> int | None:
        """How many of ``moves`` (the last :meth:`recent_moves`) came after the version the
        group was last told: the table on screen never showed them (``None``: not known)."""
        told = self.told_version(self._read)  # (this delivery's earlier runs count)
        if told is None or len(self.moves_versions) != len(moves):
            return None
        return sum(version > told for version in self.moves_versions)

    def set_messages(self, *, lobby: int | None = None, table: int | None = None,
                     reminder: int | None = None, chat: int | None = None) -> None:
        """The group's lobby, table or last reminder is now this message, in ``chat``."""
        for column, value in (("lobby_message_id", lobby), ("table_message_id", table),
                              ("reminder_message_id", reminder), ("chat_id", chat)):
            if value is not None:
                self.messages[column] = value

    def none_in(self, chat: int) -> None:
        """The game has no lobby, table or reminder message in ``chat`` (the supergroup its
        group became, where Telegram refused to post them): none is edited in the old chat,
        and a move posts the table again."""
        self.messages.update(lobby_message_id=None, table_message_id=None,
                             reminder_message_id=None, chat_id=chat)

    def forget_reminder(self) -> None:
        """The group's last reminder (or turn ping) was deleted."""
        self.messages["reminder_message_id"] = None

    def forget_table(self) -> None:
        """The game's new table could not be posted: none is edited as it (the next move
        posts it again)."""
        self.messages["table_message_id"] = None

    def set_private(self, user_id: int, message_id: int | None, hand: int | None,
                    acting: bool = False, *, turn_began: bool = False) -> None:
        """Record ``user_id``'s private message of the game: ``message_id`` shows hand
        ``hand``, with the buttons of their turn if ``acting``; ``turn_began``: a new message
        that began their turn (not its reminder, nor one sent again)."""
        self.private[user_id] = (message_id, hand, acting)
        if turn_began:
            self.turn_began.add(user_id)
        else:
            self.turn_began.discard(user_id)

    async def flush(self) -> None:
        """Write what this delivery recorded so far now, in a transaction of its own (the
        game's lock stays held; the end writes it again, with the rest): for a group message
        that must not be posted twice, recorded as told once it is sent, not after the
        delivery's slower calls (a kill in between would post it again)."""
        if self._db is not None:
            async with self._db.sessions.begin() as session:
                await self.write(session)

    async def write(self, session: AsyncSession) -> None:
        game_id = self._read.id
        insert = pg_insert if session.get_bind().dialect.name == "postgresql" else sqlite_insert
        if self.messages or self.told_upto is not None or self.drawn_at is not None:
            table = table_of(GameMessages)
            drawn = {} if self.drawn_at is None else {"drawn_version": self.drawn_at}
            stmt = insert(table).values(game_id=game_id, told_version=self.told_upto,
                                        **drawn, **self.messages)
            changed: dict[str, Any] = {k: stmt.excluded[k] for k in [*self.messages, *drawn]}
            if self.told_upto is not None:  # (never lowered)
                told = table.c.told_version
                changed["told_version"] = case(
                    (or_(told.is_(None), told < stmt.excluded.told_version),
                     stmt.excluded.told_version), else_=told)
            await session.execute(stmt.on_conflict_do_update(index_elements=["game_id"],
                                                             set_=changed))
        if self.private:
            stmt = insert(PrivateMessage).values([
                {"game_id": game_id, "user_id": user, "message_id": message, "hand": hand,
                 "hand_first_id": message, "acting": acting,
                 "turn_first_id": message if user in self.turn_began else None}
                for user, (message, hand, acting) in self.private.items()])
            same_hand = PrivateMessage.hand == stmt.excluded.hand  # (NULL: a new hand)
            await session.execute(stmt.on_conflict_do_update(
                index_elements=["game_id", "user_id"],
                set_={"message_id": stmt.excluded.message_id, "hand": stmt.excluded.hand,
                      "acting": stmt.excluded.acting,
                      "turn_first_id": func.coalesce(stmt.excluded.turn_first_id,
                                                     PrivateMessage.turn_first_id),
                      "hand_first_id": case((same_hand, func.coalesce(
                          PrivateMessage.hand_first_id, PrivateMessage.message_id)),
                          else_=stmt.excluded.message_id)}))
        gone = [user for user, note in self.ephemeral_changes.items() if note is None]
        if gone:
            await session.execute(delete(EphemeralMessage).where(
                EphemeralMessage.game_id == game_id, EphemeralMessage.user_id.in_(gone)))
        kept = [(user, note) for user, note in self.ephemeral_changes.items() if note]
        if kept:
            stmt = insert(EphemeralMessage).values([
                {"game_id": game_id, "user_id": user, "chat_id": note.chat_id,
                 "message_id": note.message_id, "hand": note.hand, "acting": note.acting}
                for user, note in kept])
            await session.execute(stmt.on_conflict_do_update(
                index_elements=["game_id", "user_id"],
                set_={column: stmt.excluded[column]
                      for column in ("chat_id", "message_id", "hand", "acting")}))


class Deliveries:
    """The per-game delivery and the search for games not shown (for ``MatchService``)."""

    def __init__(self, ctx: Context, reads: GameReads) -> None:
        self.reads = reads
        self.ctx = ctx

    @asynccontextmanager
    async def delivering(self, game_id: int) -> AsyncIterator[Delivery]:
        """Hold the game's delivery lock; write what was recorded, also after a failure."""
        db = self.ctx.db
        async with AsyncExitStack() as stack:
            if db.dialect == "postgresql":
                session = await stack.enter_async_context(db.sessions())
                # A delivery stuck elsewhere (a stopped process's connection) must not hold
                # this one for ever: a sweep retries. set_config(…, true) is SET LOCAL.
                await session.execute(text("SELECT set_config('lock_timeout', :wait, true), "
                                           "pg_advisory_xact_lock(:k, :g)"),
                                      {"wait": f"{LOCK_WAIT}s", "k": DELIVERY_LOCK, "g": game_id})
                delivery = Delivery(snapshot(await load_game(session, game_id)), session, db=db)
            else:  # (one process: the caller's lock is the lock)
                delivery = Delivery(await self.reads.get(game_id), db=db)
            try:
                try:
                    yield delivery
                except BaseException:  # (also cut off at a stop: what was sent is recorded)
                    try:  # (the delivery's own error is the one raised)
                        await _save(delivery, db)
                    except Exception:  # noqa: BLE001
                        log.debug("keeping game %s's message ids failed", game_id,
                                  exc_info=True)
                    raise
                await _save(delivery, db)
            finally:
                # A drawing still running after its delivery failed (asyncio.gather does not
                # cancel the others) must not use the closed session: it would begin a
                # transaction nobody ends, holding its locks.
                delivery.session = None
                delivery._db = None

    async def reread(self, delivery: Delivery) -> GameSnapshot:
        """The delivery's game read again (in its transaction, if any)."""
        game_id = delivery.game.id
        delivery._read = await self.reads.get(game_id) if delivery.session is None else \
            snapshot(await load_game(delivery.session, game_id))
        return delivery.game

    async def untold(self, game_id: int, after: int, upto: int) -> list[list[dict[str, Any]]]:
        """The events of each logged move with a version in ``(after, upto]``, in order."""
        async with self.ctx.db.sessions() as session:
            rows = await session.scalars(select(GameEvent.events).where(
                GameEvent.game_id == game_id, GameEvent.version > after,
                GameEvent.version <= upto).order_by(GameEvent.seq))
            return list(rows)

    async def behind(self, limit: int = 200) -> list[int]:
        """Ids of games whose last change may not be shown (lobbies: no grace, no events)."""
        now = utcnow()
        told = func.coalesce(GameMessages.told_version, 0)
        drawn = func.coalesce(GameMessages.drawn_version, 0)
        # (NOT EXISTS, not a correlated max() compared twice: the planner priced that for
        # every game and read all of game_messages once per recent game)
        fresh = select(GameEvent.id).where(GameEvent.game_id == GameRow.id,
                                           GameEvent.created_at >= now - GRACE).exists()
        recent = or_(GameRow.status == "running",
                     and_(GameRow.status == "finished",
                          GameRow.finished_at > now - FINISHED_WINDOW))
        untold = (select(GameRow.id)
                  .outerjoin(GameMessages, GameMessages.game_id == GameRow.id)
                  .where(recent, told < GameRow.version, drawn < GameRow.version,
                         ~fresh)
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
        # (a group that became a supergroup: its lobby or table not posted there yet)
        moved = (select(GameRow.id)
                 .join(GameMessages, GameMessages.game_id == GameRow.id)
                 .where(GameRow.status.in_(("lobby", "running")),
                        GameMessages.chat_id.is_not(None),
                        GameMessages.chat_id != GameRow.chat_id)
                 .order_by(GameRow.id).limit(limit))
        lobbies = (select(GameRow.id)
                   .outerjoin(GameMessages, GameMessages.game_id == GameRow.id)
                   .where(GameRow.status == "lobby",
                          or_(GameMessages.told_version.is_(None),
                              GameMessages.told_version < GameRow.version))
                   .order_by(GameRow.id).limit(limit))
        async with self.ctx.db.sessions() as session:
            return sorted({game_id for query in (untold, no_private, lobbies, moved)
                           for game_id in await session.scalars(query)})


async def _save(delivery: Delivery, db: Any) -> None:
    if delivery.session is None:  # (SQLite: one short transaction at the end)
        async with db.sessions.begin() as session:
            await delivery.write(session)
    else:
        await delivery.write(delivery.session)
        await delivery.session.commit()
