"""What the group was told of a tournament: its sign-up message and the announcement of each
round (and the final one), claimed while it is sent and marked once sent, so two processes
never post one announcement at once, and one killed while sending leaves it to the next tick
(at least once: a kill between the send and its mark posts it again); and where each table is
played (the forum topic the bot opened for it)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from datetime import timedelta

from sqlalchemy import or_, select, text, update

from league.store.context import Context
from league.store.inbox import NAMES_ONLY
from league.store.models import Game as GameRow
from league.store.rows import rowcount
from league.store.tournament_models import Tournament
from league.tournaments.records import TournamentSnapshot, read_tournament, snapshot_of

TELL_LOCK = 0x746F
"""The first key of a tournament's announcement lock ("to"); the second: its id."""
RETRY_AFTER = timedelta(minutes=2)
"""An announcement whose send failed is tried again after this long, not at every tick
(Telegram may refuse the chat for good); its failure is ``tell_claimed_at``."""
TABLE_TOPIC = "table_topic"
"""A tournament table's game option once the bot tried to open its forum topic
(``topic_per_table``): the topic's thread id, or 0 when it may not open one."""


class Telling:
    """Announcement bookkeeping (part of :class:`league.service.MatchService`). These
    writes leave the tournament's ``version`` alone: they are no change a button sees."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    async def untold_tournaments(self, limit: int = 50) -> list[TournamentSnapshot]:
        """Tournaments owing the group an announcement (``TournamentSnapshot.told_target``),
        but for those whose last send failed lately; one being sent now is among them
        (:meth:`claim_tell` refuses it)."""
        now = self.ctx.clock()
        async with self.ctx.db.sessions() as session:
            ids = (await session.scalars(select(Tournament.id).where(
                or_(
                    (Tournament.status == "running")
                    & (Tournament.told_round < Tournament.round),
                    (Tournament.status == "finished")
                    & (Tournament.told_round <= Tournament.rounds)),
                or_(Tournament.tell_claimed_at.is_(None),
                    Tournament.tell_claimed_at < now - RETRY_AFTER))
                .order_by(Tournament.id).limit(limit))).all()
            return [await snapshot_of(session, await read_tournament(session, i)) for i in ids]

    @asynccontextmanager
    async def claim_tell(self, tournament_id: int, target: int) -> AsyncIterator[bool]:
        """Hold the announcement ``target`` (a round, or ``rounds + 1``: the final one) while
        the caller sends it and marks it :meth:`told`: yields ``False`` when it was told
        already or another process is telling it. Left without the mark (the send failed),
        it waits :data:`RETRY_AFTER`. On PostgreSQL the claim is a transaction advisory
        lock, not a mark in a row: the death of the process that holds it ends its
        transaction, so a kill between the claim and the mark leaves the announcement to
        the next tick, here or anywhere (a mark would have to lapse first, holding up the
        tournament's later announcements too, and a round that ended meanwhile would never
        be announced). On SQLite (one process) the caller's lock is the lock."""
        async with AsyncExitStack() as stack:
            if self.ctx.db.dialect == "postgresql":
                holding = await stack.enter_async_context(self.ctx.db.sessions())
                if not await holding.scalar(text("SELECT pg_try_advisory_xact_lock(:k, :t)"),
                                            {"k": TELL_LOCK, "t": tournament_id}):
                    yield False
                    return
            async with self.ctx.db.sessions() as session:
                told = await session.scalar(select(Tournament.told_round)
                                            .where(Tournament.id == tournament_id))
            if told is None or told >= target:
                yield False
                return
            yield True
            # Not marked told: the send failed; wait RETRY_AFTER (a no-op once told).
            async with self.ctx.db.sessions.begin() as session:
                await session.execute(update(Tournament).where(
                    Tournament.id == tournament_id, Tournament.told_round < target)
                    .values(tell_claimed_at=self.ctx.clock())
                    .execution_options(synchronize_session=False))
            # (leaving the holding session ends its transaction: the lock is free)

    async def told(self, tournament_id: int, target: int) -> None:
        """Mark announcement ``target`` sent (while its :meth:`claim_tell` is held)."""
        async with self.ctx.db.sessions.begin() as session:
            await session.execute(update(Tournament).where(
                Tournament.id == tournament_id, Tournament.told_round < target)
                .values(told_round=target, tell_claimed_at=None)
                .execution_options(synchronize_session=False))

    async def set_tournament_message(self, tournament_id: int, message_id: int) -> None:
        """Record the sign-up message (edited as players join)."""
        async with self.ctx.db.sessions.begin() as session:
            await session.execute(update(Tournament).where(Tournament.id == tournament_id)
                                  .values(message_id=message_id)
                                  .execution_options(synchronize_session=False))

    async def move_table_to_topic(self, game_id: int, thread_id: int) -> bool:
        """Give running tournament table ``game_id`` the forum topic ``thread_id`` the bot
        opened for it (0: the bot may not open one; the table stays in the tournament's
        topic), once: only while its thread is still its tournament's and nothing was
        recorded before. Records the answer in the game's options (``table_topic``: the
        thread, or 0), so no delivery asks Telegram again. Returns whether the table moved.
        No version bump: no button of the table goes stale."""
        async with self.ctx.db.sessions.begin() as session:
            session.info[NAMES_ONLY] = True  # (a delivery's bookkeeping, no update's change)
            found = (await session.execute(
                select(GameRow.options, GameRow.thread_id, Tournament.thread_id)
                .join(Tournament, Tournament.id == GameRow.tournament_id)
                .where(GameRow.id == game_id, GameRow.status == "running"))).one_or_none()
            if found is None:
                return False
            options, thread, home = dict(found[0] or {}), found[1], found[2]
            if thread != home or TABLE_TOPIC in options:
                return False
            result = await session.execute(
                update(GameRow).where(GameRow.id == game_id, GameRow.thread_id == home,
                                      GameRow.status == "running")
                .values(thread_id=thread_id or home,
                        options={**options, TABLE_TOPIC: thread_id})
                .execution_options(synchronize_session=False))
            return rowcount(result) == 1 and bool(thread_id)

    async def tournament(self, tournament_id: int) -> TournamentSnapshot:
        """A tournament by id; raises ``tournament_not_found``."""
        async with self.ctx.db.sessions() as session:
            return await snapshot_of(session, await read_tournament(session, tournament_id))
