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
from datetime import timedelta
from typing import Any

from sqlalchemy import and_, exists, func, or_, select, text, update

from league.context import Context
from league.models import Game as GameRow
from league.models import GameEvent, GamePlayer, User, utcnow
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
        self.db = ctx.db
        self.reads = reads

    async def raise_told(self, game_id: int, version: int) -> None:
        """Record that the group has been shown the game up to ``version`` (never lowers
        it); :meth:`delivering` does it for a delivery."""
        async with self.db.sessions.begin() as session:
            await session.execute(_raise(game_id, version))

    @asynccontextmanager
    async def delivering(self, game_id: int) -> AsyncIterator[Delivery]:
        """Hold game ``game_id``'s delivery lock while its messages are drawn and sent, so
        one process at a time shows a game's changes, in commit order; yields the game as
        read under the lock, and records what the delivery :meth:`Delivery.told` when it
        ends without an error. On PostgreSQL all of it is one transaction: a transaction
        advisory lock (keys :data:`DELIVERY_LOCK`, ``game_id``, freed by the server if the
        process dies), the read, and the raise of ``told_version``; on SQLite (one process)
        no lock. Raises ``game_not_found``."""
        if self.db.dialect != "postgresql":
            delivery = Delivery(await self.reads.get(game_id))
            yield delivery
            if delivery.told_upto is not None:
                await self.raise_told(game_id, delivery.told_upto)
            return
        async with self.db.sessions() as session:
            # A delivery stuck elsewhere (a connection a stopped process left open) must not
            # hold this one for ever: the wait fails, and the next sweep shows the game.
            await session.execute(text(f"SET LOCAL lock_timeout = '{LOCK_WAIT}s'"))
            await session.execute(text("SELECT pg_advisory_xact_lock(:k, :g)"),
                                  {"k": DELIVERY_LOCK, "g": game_id})
            delivery = Delivery(snapshot(await load_game(session, game_id)))
            yield delivery
            if delivery.told_upto is not None:
                await session.execute(_raise(game_id, delivery.told_upto))
            await session.commit()

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


def _raise(game_id: int, version: int) -> Any:
    return update(GameRow).where(
        GameRow.id == game_id,
        or_(GameRow.told_version.is_(None), GameRow.told_version < version)) \
        .values(told_version=version)
