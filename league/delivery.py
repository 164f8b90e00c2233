"""From a commit to its messages, the league's half: the service reports each committed
change to its listeners, a game's deliveries are serialised across processes, and the games
whose last change was not shown are found again.

The bot registers one listener (``MatchService.on_commit``, ``league.outcome.Listeners``);
every change that makes a report (a start, a move, a timeout) calls it right after its
commit, before anything else is awaited, so no call site has to remember to. What the
group has been told lives in the database (``games.told_version``, claimed with a
compare-and-set before a report is sent), so after a kill any process can find what is
left to show (:meth:`Deliveries.behind`). A lobby's ``told_version`` is the version its
message was last drawn at (set by the bot's draw, under the same lock), so a lobby change
whose draw a kill cut short is found the same way.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import replace
from datetime import timedelta
from typing import Any

from sqlalchemy import and_, bindparam, exists, func, or_, select, text, update
from sqlalchemy.dialects.postgresql import aggregate_order_by

from league.behind import Behind
from league.clock import aware
from league.context import Context
from league.db import AMBIENT, Ambient, Database
from league.lease import Lease
from league.models import Game as GameRow
from league.models import GameEvent, GamePlayer, User, table_of, utcnow
from league.reads import GameReads
from league.rows import SENDING, load_game, rowcount
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
STALE_CLAIM = timedelta(seconds=60)
"""A private message still claimed as being sent (``SENDING``) when the game's last move is
older than this was left by a process killed during the send (a send, retries included,
ends well within it): it may be claimed again (:meth:`Deliveries.release_stale_claims`)."""


class Deliveries:
    """The per-game delivery lock and the search for games not shown (part of
    :class:`league.service.MatchService`)."""

    def __init__(self, ctx: Context, reads: GameReads) -> None:
        self.reads = reads
        self.ctx = ctx
        self._lease: Lease | None = None

    @property
    def db(self) -> Database:
        return self.ctx.db

    def write_behind(self) -> None:
        """This process takes its updates by polling (or runs on SQLite): while it leads
        (:meth:`lead`), its deliveries' bookkeeping is held in memory and written behind,
        for many games in one transaction (:mod:`league.behind`), and a delivery draws the
        game its move's transaction left without reading it again."""
        if self._lease is None:
            self._lease = Lease(self.db)

    async def lead(self) -> bool:
        """Whether this process should sweep now (the sweep's first step). Webhook workers
        (no :meth:`write_behind`): always, each delivery under the game's lock. Polling: only
        while it holds the lease (:mod:`league.lease`), which also turns writing behind on,
        and off (after a flush) when another process took the lease. An unanswered database
        keeps what was: the sweep then fails and reports the outage."""
        if self._lease is None:
            return True
        held = await self._lease.hold()
        if held is None:
            return self.ctx.behind is not None
        if held and self.ctx.behind is None:
            self.ctx.behind = Behind(self.db)
        elif not held and self.ctx.behind is not None:
            try:
                await self.ctx.behind.flush()
            except Exception:  # noqa: BLE001 - still held: the next tick tries again
                return False
            self.ctx.behind = None
        return held

    async def resign(self) -> None:
        """The bot stops: write what is held and give the lease up, so another process
        leads at its next sweep. Raises the driver's error if the flush fails (then the
        lease is kept until the connection closes: nothing held is told twice)."""
        if self._lease is None:
            return
        await self.flush()
        await self._lease.release()

    async def flush(self) -> None:
        """Write the bookkeeping held behind, if any (see :meth:`write_behind`)."""
        if self.ctx.behind is not None:
            await self.ctx.behind.flush()

    async def raise_told(self, game_id: int, version: int) -> None:
        """Record that the group has been shown the game up to ``version`` (never lowers
        it); :meth:`delivering` does it for a delivery."""
        async with self.db.sessions.begin() as session:
            await session.execute(_raise(game_id, version))

    @asynccontextmanager
    async def delivering(self, game_id: int, hint: GameSnapshot | None = None
                         ) -> AsyncIterator[Delivery]:
        """Hold game ``game_id``'s delivery lock while its messages are drawn and sent, so
        one process at a time shows a game's changes, in commit order; yields the game as
        read under the lock, and records what the delivery :meth:`Delivery.told` when it
        ends without an error. On PostgreSQL all of it is one transaction: a transaction
        advisory lock (keys :data:`DELIVERY_LOCK`, ``game_id``, freed by the server if the
        process dies), the read, and the raise of ``told_version``; on SQLite (one process)
        no lock. ``hint``: the game as the caller last saw it committed (its newest change);
        when the game is still at that version, with the same clock and seats, only what
        deliveries write is read (:func:`_as_now`: one query, no ORM loading; issue 10),
        else the whole game. Raises ``game_not_found``.

        Written behind (:meth:`write_behind`): no transaction at all. The lock is the
        caller's (in-process); the game is ``hint`` if no other change of it committed
        since (``Database.versions``), else read; the bookkeeping held behind is laid over
        either, and what the delivery writes is held behind."""
        if self.ctx.behind is not None:
            async with self._behind(game_id, hint, self.ctx.behind) as delivery:
                yield delivery
            return
        if self.db.dialect != "postgresql":
            delivery = Delivery(await self.reads.get(game_id))
            yield delivery
            if delivery.told_upto is not None:
                await self.raise_told(game_id, delivery.told_upto)
            return
        async with self.db.sessions() as session:
            # A delivery stuck elsewhere (a connection a stopped process left open) must not
            # hold this one for ever: the wait fails, and the next sweep shows the game.
            # (one statement: set_config(…, true) is SET LOCAL; the lock follows it)
            await session.execute(text("SELECT set_config('lock_timeout', :wait, true), "
                                       "pg_advisory_xact_lock(:k, :g)"),
                                  {"wait": f"{LOCK_WAIT}s", "k": DELIVERY_LOCK, "g": game_id})
            now = None if hint is None else await _as_now(session, hint)
            delivery = Delivery(now or snapshot(await load_game(session, game_id)))
            # The delivery's bookkeeping (the ids of the messages it sends, the claims of
            # private messages, its reads) goes into this transaction too (issue 10: a
            # press's transactions): the rows are the game's, which only its deliveries
            # (under this lock) and its moves write; the writes on rows a move also writes
            # wait for the end (Database.later), so a move waits only for that commit.
            ambient = Ambient(session)
            token = AMBIENT.set(ambient)
            try:
                yield delivery
            except Exception:
                # What was sent stays recorded (else it would be sent again); told is not.
                await _keep_sent(game_id, ambient.flush(), session.commit())
                raise
            finally:
                AMBIENT.reset(token)
            await ambient.flush()
            if delivery.told_upto is not None:
                await session.execute(_raise(game_id, delivery.told_upto))
            await session.commit()

    @asynccontextmanager
    async def _behind(self, game_id: int, hint: GameSnapshot | None, behind: Behind
                      ) -> AsyncIterator[Delivery]:
        if hint is None or self.db.versions.get(game_id) != \
                (hint.version, hint.reminder_version, hint.status):
            hint = await self.reads.get(game_id)  # (laid over by the read)
        else:
            hint = behind.overlay(hint)
        delivery = Delivery(hint)
        ambient = Ambient(None, behind=behind, game=hint)
        token = AMBIENT.set(ambient)
        try:
            yield delivery
        except Exception:
            # Its claims of private messages not sent are given up (as after a failed send),
            # else this process would hold them as being sent until they are dropped.
            for claimed_game, user_id, hand in ambient.claimed:
                if behind.private_of(claimed_game, user_id) == (SENDING, hand):
                    behind.private(claimed_game, user_id, None, hand)
            if ambient.posted:  # what was sent stays recorded (else it would be sent again)
                await _keep_sent(game_id, behind.flush())
            raise
        finally:
            AMBIENT.reset(token)
        if delivery.told_upto is not None:
            behind.told(game_id, delivery.told_upto)
        if ambient.posted:
            await behind.flush()  # (its ids, with its told and all else held: one transaction)

    async def release_stale_claims(self, game_id: int) -> bool:
        """Make the game's private messages claimed as being sent (``SENDING``) claimable
        again if its last move is older than :data:`STALE_CLAIM`: a process killed between
        the claim and recording the message's id left them, and nothing else would send that
        player this hand's message (the message may have arrived: a second one is the
        lesser harm). Whether any was released."""
        last_event = select(func.max(GameEvent.created_at)).where(
            GameEvent.game_id == game_id).scalar_subquery()
        async with self.db.sessions.begin() as session:
            result = await session.execute(
                update(GamePlayer)
                .where(GamePlayer.game_id == game_id, GamePlayer.private_message_id == SENDING,
                       last_event < utcnow() - STALE_CLAIM)
                .values(private_message_id=None))
            return bool(rowcount(result))

    async def behind(self, limit: int = 200) -> list[int]:
        """Ids of games whose last change may not be shown: running (or finished within
        :data:`FINISHED_WINDOW`) with ``told_version`` behind ``version`` for longer than
        :data:`GRACE`, or running with a player who can be messaged but has no private
        message for the hand being played (``games.hand``), or one claimed as being sent for
        longer than :data:`STALE_CLAIM`; or a lobby whose message was not drawn at its
        version (``told_version`` behind it or unset: a kill between a join's commit and the
        lobby's edit; no grace, as a lobby change logs no event: the delivery lock and a
        read under it keep the sweep's draw and the handler's from showing an older lobby
        last). All use partial indexes (migrations 0009, 0001)."""
        await self.flush()  # (what is held behind is shown: the database must say so)
        now = utcnow()
        last_event = select(func.max(GameEvent.created_at)).where(
            GameEvent.game_id == GameRow.id).scalar_subquery()
        untold = (select(GameRow.id).where(
            GameRow.status.in_(("running", "finished")),
            GameRow.told_version < GameRow.version,
            or_(GameRow.status == "running", GameRow.finished_at > now - FINISHED_WINDOW),
            or_(last_event.is_(None), last_event < now - GRACE))
            .order_by(GameRow.id).limit(limit))
        # (correlated by hand: inside EXISTS it would not be, and would read every game)
        claimed_since = select(func.max(GameEvent.created_at)).where(
            GameEvent.game_id == GameRow.id).correlate(GameRow).scalar_subquery()
        no_private = (select(GameRow.id).where(
            GameRow.status == "running",
            exists().where(
                GamePlayer.game_id == GameRow.id, GamePlayer.seat.is_not(None),
                GamePlayer.playing.is_(True), GamePlayer.user_id == User.id,
                User.can_message.is_(True),
                or_(GamePlayer.private_message_id.is_(None),
                    and_(GamePlayer.private_message_id != SENDING,
                         or_(GamePlayer.private_hand.is_(None),
                             GamePlayer.private_hand != GameRow.hand)),
                    # being sent for longer than a send takes: its sender was killed
                    and_(GamePlayer.private_message_id == SENDING,
                         claimed_since < now - STALE_CLAIM))))
            .order_by(GameRow.id).limit(limit))
        # (the open games' partial index, uq_games_open_per_topic, holds every lobby)
        lobbies = (select(GameRow.id).where(
            GameRow.status == "lobby",
            or_(GameRow.told_version.is_(None), GameRow.told_version < GameRow.version))
            .order_by(GameRow.id).limit(limit))
        async with self.db.sessions() as session:
            found = set((await session.scalars(untold)).all())
            found |= set((await session.scalars(no_private)).all())
            found |= set((await session.scalars(lobbies)).all())
        return sorted(found)


class Delivery:
    """One delivery of a game (:meth:`Deliveries.delivering`): ``game`` as read under its
    lock; :meth:`told` notes how far the group has now been shown it."""

    def __init__(self, game: GameSnapshot) -> None:
        self.game = game
        self.told_upto: int | None = None

    def told(self, version: int) -> None:
        """The group has been shown the game up to ``version`` (recorded at the end)."""
        self.told_upto = version if self.told_upto is None else max(self.told_upto, version)

    def told_version(self, game: GameSnapshot) -> int | None:
        """How far the group has been told ``game`` (as read), counting this delivery."""
        if self.told_upto is None:
            return game.told_version
        return self.told_upto if game.told_version is None else \
            max(self.told_upto, game.told_version)


_NOW = (
    select(GameRow.version, GameRow.status, GameRow.hand, GameRow.deadline_at,
           GameRow.paused_left, GameRow.reminder_version, GameRow.told_version,
           GameRow.table_message_id, GameRow.lobby_message_id, GameRow.reminder_message_id,
           select(func.json_agg(aggregate_order_by(
               func.json_build_array(GamePlayer.user_id, GamePlayer.seat,
                                     GamePlayer.private_message_id, GamePlayer.private_hand),
               GamePlayer.id)))
           .where(GamePlayer.game_id == GameRow.id).correlate(GameRow).scalar_subquery())
    .where(GameRow.id == bindparam("game_id")))
"""What a delivery needs to know of a game beyond a snapshot it has: its version, clock and
seats (to see whether the snapshot is still the game) and what deliveries write (the message
ids, ``told_version``), players in ``GamePlayer.id`` order as a snapshot has them."""


async def _as_now(session: Any, hint: GameSnapshot) -> GameSnapshot | None:
    """``hint`` with what deliveries wrote since (message ids, ``told_version``) read anew,
    if the game is still as ``hint`` shows it (version, status, hand, clock, reminder,
    seats); else ``None`` (the caller reads the whole game). PostgreSQL only."""
    row = (await session.execute(_NOW, {"game_id": hint.id})).first()
    if row is None:
        return None
    (version, status, hand, deadline, paused_left, reminder_version, told, table, lobby,
     reminder, seats) = row
    seats = seats or []
    if (version, status, hand, reminder_version, paused_left is not None) != \
            (hint.version, hint.status, hint.hand, hint.reminder_version, hint.paused) or \
            (aware(deadline) if deadline else None) != hint.deadline_at or \
            [(s[0], s[1]) for s in seats] != [(p.user_id, p.seat) for p in hint.players]:
        return None
    return replace(hint, told_version=told, table_message_id=table, lobby_message_id=lobby,
                   reminder_message_id=reminder,
                   players=tuple(replace(p, private_message_id=s[2], private_hand=s[3])
                                 for p, s in zip(hint.players, seats, strict=True)))


def _raise(game_id: int, version: int) -> Any:
    # (the table's own columns: a Core UPDATE, without the ORM's bulk-update work)
    games = table_of(GameRow).c
    return update(table_of(GameRow)).where(
        games.id == game_id, or_(games.told_version.is_(None), games.told_version < version)) \
        .values(told_version=version)


async def _keep_sent(game_id: int, *writes: Any) -> None:
    """Await ``writes`` (coroutines, in order) that record what a failed delivery sent; their
    own failure is logged at debug level only: the delivery's error is the one raised."""
    try:
        for write in writes:
            await write
    except Exception:  # noqa: BLE001
        log.debug("keeping game %s's message ids failed", game_id, exc_info=True)
    finally:
        for write in writes:
            write.close()  # (one not reached after a failure is never awaited)
