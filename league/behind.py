"""Delivery bookkeeping written behind, for a bot that is the only process delivering its games
(polling, or SQLite; issue 10: a press's transactions).

A delivery records what it showed: how far the group was told (``games.told_version``), the
lobby's and the table's message ids, each player's private message and its hand. Written in a
transaction of its own, that is a second transaction for every press. When one process
delivers every game (Telegram lets one process take a bot's updates by polling), the
deliveries' bookkeeping is kept here instead and written by :meth:`Behind.flush`, for every
game at once, :data:`FLUSH_AFTER` seconds after the first write it holds (and before a sweep
looks for games not shown, and when the bot stops). What is held is the truth for this
process: every read of a game here (``league.reads``, a delivery) sees it
(:meth:`Behind.overlay`).

The id of a message just posted is not held for long: the delivery that posted it (a lobby,
a table, a hand's private messages) writes what is held when it ends, and a post outside a
delivery at once, because a lost id has the next delivery post the message again instead of
editing it. So a press that only edits (most moves) costs its move's transaction alone.

What a kill costs: the ``told_version`` raises of up to :data:`FLUSH_AFTER` seconds. Those
games are then behind in the database, and re-presentation (``league.delivery``) tells their
last moves again, as after a kill between a send and its commit. Several webhook workers
never write behind: each delivery's bookkeeping is in its own transaction, under the game's
lock.

A delivery may draw a game from the snapshot its move's transaction left (no read) only if
no other change of that game committed since (a pause, a cancel, the sweep's reminder):
:class:`Versions` keeps the newest version (and reminder turn) of each game this process
committed, from the ORM's flushes.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import time
from dataclasses import dataclass, field, replace
from typing import Any

from sqlalchemy import bindparam, event, or_, update
from sqlalchemy.orm import Session

from league.inbox import CURRENT
from league.models import Game as GameRow
from league.models import GamePlayer, table_of
from league.snapshots import GameSnapshot

log = logging.getLogger(__name__)

FLUSH_AFTER = 0.5
"""Seconds from the first bookkeeping write held to the flush that writes it (and every other
game's held meanwhile): at 50 presses a second, one transaction for 25 presses."""
RETRY_AFTER = 2.0
"""Seconds before a flush that failed (the database unreachable) is tried again."""
KEEP = 300.0
"""Seconds a game's written bookkeeping stays here after its flush (a read that began before
the flush's commit still sees it), then it is dropped: the database has it."""
VERSIONS_KEPT = 20_000
"""Games whose newest committed version :class:`Versions` remembers (the oldest go first; a
game not remembered is read anew)."""


@dataclass
class Written:
    """One game's bookkeeping held: ``told`` (the highest ``told_version``), the lobby's and
    the table's message ids, and ``private``: user id → (private message id, its hand).
    ``None``: nothing held for that column."""

    told: int | None = None
    lobby: int | None = None
    table: int | None = None
    private: dict[int, tuple[int | None, int | None]] = field(default_factory=dict)
    flushed_at: float | None = None  # monotonic; None while part of it is still to write

    def merge(self, newer: Written) -> None:
        """Take ``newer``'s values over these (``told``: the higher)."""
        if newer.told is not None:
            self.told = newer.told if self.told is None else max(self.told, newer.told)
        self.lobby = newer.lobby if newer.lobby is not None else self.lobby
        self.table = newer.table if newer.table is not None else self.table
        self.private.update(newer.private)


class Behind:
    """The bookkeeping of this process's deliveries, held and written behind. ``db``: a
    :class:`league.db.Database`."""

    def __init__(self, db: Any) -> None:
        self.db = db
        self._known: dict[int, Written] = {}  # all held or recently flushed, by game id
        self._pending: dict[int, Written] = {}  # not yet in the database
        self._timer: asyncio.TimerHandle | None = None
        self._flushing: asyncio.Task[None] | None = None
        self._failing = False
        # One write at a time, each statement in game id order: two at once (the timer's and
        # a delivery's) locked the same game rows in other orders and deadlocked each other
        # and the moves waiting behind them (seen under load in the throughput bench).
        self._writing = asyncio.Lock()

    # --- writes ------------------------------------------------------------------------
    def told(self, game_id: int, version: int) -> None:
        """The group has been shown game ``game_id`` up to ``version`` (never lowered)."""
        self._note(game_id, Written(told=version))

    def messages(self, game_id: int, *, lobby: int | None = None,
                 table: int | None = None) -> None:
        """The group's lobby and current table message ids."""
        self._note(game_id, Written(lobby=lobby, table=table))

    def private(self, game_id: int, user_id: int, message_id: int | None,
                hand: int | None) -> None:
        """A player's private message (``league.rows.SENDING`` while claimed) of ``hand``."""
        self._note(game_id, Written(private={user_id: (message_id, hand)}))

    def private_of(self, game_id: int, user_id: int) -> tuple[int | None, int | None] | None:
        """The player's private message held here, as (message id, hand); ``None``: none."""
        known = self._known.get(game_id)
        return None if known is None else known.private.get(user_id)

    def game_of_private(self, user_id: int, message_id: int) -> int | None:
        """The game whose private message to ``user_id`` held here is ``message_id``."""
        return next((game_id for game_id, known in self._known.items()
                     if known.private.get(user_id, (None,))[0] == message_id), None)

    def _note(self, game_id: int, written: Written) -> None:
        self._known.setdefault(game_id, Written()).merge(written)
        self._known[game_id].flushed_at = None
        self._pending.setdefault(game_id, Written()).merge(written)
        self._schedule(FLUSH_AFTER)

    # --- reads -------------------------------------------------------------------------
    def overlay(self, game: GameSnapshot) -> GameSnapshot:
        """``game`` as read from the database, with the bookkeeping held here on it."""
        known = self._known.get(game.id)
        if known is None:
            return game
        told = game.told_version
        if known.told is not None:
            told = known.told if told is None else max(told, known.told)
        players = game.players
        if known.private:
            players = tuple(
                replace(p, private_message_id=known.private[p.user_id][0],
                        private_hand=known.private[p.user_id][1])
                if p.user_id in known.private else p for p in players)
        return replace(game, told_version=told, players=players,
                       lobby_message_id=known.lobby if known.lobby is not None
                       else game.lobby_message_id,
                       table_message_id=known.table if known.table is not None
                       else game.table_message_id)

    # --- the flush ---------------------------------------------------------------------
    def _schedule(self, after: float) -> None:
        if self._timer is not None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # (no loop: the next flush() call writes it)
        # (in a context of its own: the flush is no update's change, see league.inbox)
        self._timer = loop.call_later(after, self._start_flush, context=contextvars.Context())

    def _start_flush(self) -> None:
        self._timer = None
        if self._flushing is not None and not self._flushing.done():
            self._schedule(FLUSH_AFTER)  # (after the one under way)
            return
        self._flushing = asyncio.get_running_loop().create_task(self._flush_logged())

    async def _flush_logged(self) -> None:
        try:
            await self._write()
        except Exception as exc:  # noqa: BLE001 - held, and tried again: never lost here
            if not self._failing:
                log.warning("writing the deliveries' bookkeeping failed; trying again in "
                            "%g s: %s", RETRY_AFTER, type(exc).__name__)
            self._failing = True
            self._schedule(RETRY_AFTER)
            return
        self._failing = False
        if self._pending:
            self._schedule(FLUSH_AFTER)

    async def flush(self) -> None:
        """Write everything held now (a sweep is about to look for games not shown, or the
        bot stops), after any write under way (one at a time). Raises the driver's error
        when the database is unreachable (then it stays held)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._flushing is not None and not self._flushing.done():
            await asyncio.shield(self._flushing)
        try:
            await self._write()
        except BaseException:
            self._schedule(RETRY_AFTER)  # (held: tried again)
            raise

    async def _write(self) -> None:
        # No update's change, whoever flushes (a handler that posted outside a delivery):
        # its commit must not mark the update done, nor insert a deferred one (league.inbox).
        token = CURRENT.set(None)
        try:
            async with self._writing:
                await self._write_held()
        finally:
            CURRENT.reset(token)

    async def _write_held(self) -> None:
        batch, self._pending = dict(sorted(self._pending.items())), {}
        if not batch:
            return
        try:
            async with self.db.sessions.begin() as session:
                for statement, params in _statements(batch):
                    await session.execute(statement, params)
        except BaseException:
            # back under what was held since (newer values win)
            for game_id, written in self._pending.items():
                batch.setdefault(game_id, Written()).merge(written)
            self._pending = batch
            raise
        now = time.monotonic()
        for game_id in batch:
            known = self._known.get(game_id)
            if known is not None and game_id not in self._pending:
                known.flushed_at = now
        for game_id in [g for g, k in self._known.items()
                        if k.flushed_at is not None and now - k.flushed_at > KEEP]:
            del self._known[game_id]


_GAMES, _PLAYERS = table_of(GameRow).c, table_of(GamePlayer).c
# Built once (a statement built anew costs CPU for its construction and cache key at every
# use), each executed once a flush for all its games (executemany: Core, on the tables' own
# columns).
_TOLD = update(table_of(GameRow)).where(
    _GAMES.id == bindparam("g"),
    or_(_GAMES.told_version.is_(None), _GAMES.told_version < bindparam("t"))) \
    .values(told_version=bindparam("t"))
_MESSAGE = {key: update(table_of(GameRow)).where(_GAMES.id == bindparam("g"))
            .values({column: bindparam("m")})
            for column, key in ((_GAMES.lobby_message_id, "lobby"),
                                (_GAMES.table_message_id, "table"))}
_PRIVATE = update(table_of(GamePlayer)).where(
    _PLAYERS.game_id == bindparam("g"), _PLAYERS.user_id == bindparam("u")) \
    .values(private_message_id=bindparam("m"), private_hand=bindparam("h"))


def _statements(batch: dict[int, Written]) -> list[tuple[Any, list[dict[str, Any]]]]:
    """The UPDATEs that write ``batch``, with their parameters for every game (each
    statement's in the batch's order, game id order for :meth:`Behind._write_held`; a game's
    players in user id order)."""
    out: list[tuple[Any, list[dict[str, Any]]]] = []
    told = [{"g": g, "t": w.told} for g, w in batch.items() if w.told is not None]
    if told:
        out.append((_TOLD, told))
    for key, statement in _MESSAGE.items():
        rows = [{"g": g, "m": getattr(w, key)} for g, w in batch.items()
                if getattr(w, key) is not None]
        if rows:
            out.append((statement, rows))
    private = [{"g": g, "u": user, "m": message, "h": hand} for g, w in batch.items()
               for user, (message, hand) in sorted(w.private.items())]
    if private:
        out.append((_PRIVATE, private))
    return out


class Versions:
    """The newest (version, reminder turn, status) of each game this process committed, seen
    in the ORM's flushes (:func:`install`); a session's ``info["versions"]`` names the
    instance. (The status too: a lobby's expiry changes it without a new version.)"""

    def __init__(self) -> None:
        self._latest: dict[int, tuple[int, int | None, str]] = {}

    def get(self, game_id: int) -> tuple[int, int | None, str] | None:
        """The game's newest (version, ``reminder_version``, status) committed here, or
        ``None``."""
        return self._latest.get(game_id)

    def forget(self, game_id: int) -> None:
        """A change of the game outside the ORM's flushes (a Core UPDATE of its clock or
        reminder): its next delivery reads it."""
        self._latest.pop(game_id, None)

    def committed(self, seen: dict[int, tuple[int, int | None, str]]) -> None:
        for game_id, value in seen.items():
            self._latest.pop(game_id, None)
            self._latest[game_id] = value  # (re-inserted: the oldest go first)
        while len(self._latest) > VERSIONS_KEPT:
            del self._latest[next(iter(self._latest))]


def install(session_class: type[Session]) -> None:
    """Note each flushed game row's version in its session, and hand them to the session's
    :class:`Versions` when it commits (idempotent)."""
    if event.contains(session_class, "after_flush", _after_flush):
        return
    event.listen(session_class, "after_flush", _after_flush)
    event.listen(session_class, "after_commit", _after_commit)
    event.listen(session_class, "after_rollback", _after_rollback)


def _after_flush(session: Session, _context: Any) -> None:
    if "versions" not in session.info:
        return
    seen = session.info.setdefault("seen_versions", {})
    for obj in (*session.new, *session.dirty):
        if isinstance(obj, GameRow) and obj.id is not None:
            seen[obj.id] = (obj.version, obj.reminder_version, obj.status)


def _after_commit(session: Session) -> None:
    seen = session.info.pop("seen_versions", None)
    versions = session.info.get("versions")
    if seen and versions is not None:
        versions.committed(seen)


def _after_rollback(session: Session) -> None:
    session.info.pop("seen_versions", None)
