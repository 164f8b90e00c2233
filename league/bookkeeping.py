"""Delivery bookkeeping: the ids of the messages a game was shown in (lobby, table,
reminder, each player's private message) and the moves the group has not been told. Not
game state: the game's version stays."""

from __future__ import annotations

from typing import Any

from sqlalchemy import or_, select, update

from league.behind import Behind
from league.context import Context
from league.db import AMBIENT, Ambient
from league.models import Game as GameRow
from league.models import GameEvent, GamePlayer, table_of
from league.rows import SENDING, rowcount


class Bookkeeping:
    """Message ids and the untold moves (part of :class:`league.service.MatchService`)."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    async def set_messages(self, game_id: int, *, lobby: int | None = None,
                           table: int | None = None) -> None:
        """Remember the group's lobby and current table message ids."""
        if self.ctx.behind is not None:  # (held, written behind: league.behind)
            self.ctx.behind.messages(game_id, lobby=lobby, table=table)
            await self._posted()
            return
        values = {k: v for k, v in (("lobby_message_id", lobby), ("table_message_id", table))
                  if v is not None}
        if values:
            games = table_of(GameRow).c
            await self.ctx.db.later(update(table_of(GameRow)).where(games.id == game_id)
                                    .values(**values))

    async def set_reminder(self, game_id: int, message_id: int, version: int) -> None:
        """Remember the message of the group reminder the sweep claimed at game ``version``.
        The same turn may have gone on meanwhile (a Reverse, say, moves the claim to the
        new version), so any later claim without a message yet is this reminder's."""
        async with self.ctx.db.begin() as session:
            await session.execute(update(GameRow).where(
                GameRow.id == game_id, GameRow.reminder_version >= version,
                GameRow.reminder_message_id.is_(None)).values(reminder_message_id=message_id))
        self.ctx.db.versions.forget(game_id)  # (not a flush: its next delivery reads it)

    async def untold(self, game_id: int, after: int, upto: int) -> list[list[dict[str, Any]]]:
        """The events of each logged move with a version in ``(after, upto]``, in order: the
        moves the group has not been told (see ``Game.told_version``)."""
        async with self.ctx.db.session() as session:
            rows = await session.scalars(select(GameEvent.events).where(
                GameEvent.game_id == game_id, GameEvent.version > after,
                GameEvent.version <= upto).order_by(GameEvent.seq))
            return list(rows)

    async def claim_private(self, game_id: int, user_id: int, hand: int) -> bool:
        """Claim the sending of a player's private message for ``hand`` (the game's
        ``Game.hand_number``): ``True`` for one caller only, until
        :meth:`set_private_message` records the message (or ``None`` after a failed send,
        which makes it claimable again). While claimed, the id is :data:`SENDING`.

        In a delivery's transaction (``league.db.AMBIENT``), which holds the game's lock, no
        other sender can claim: the row is read, and the claim is written with the
        delivery's other bookkeeping at its commit, so that the row is not held locked
        while the delivery sends (a timeout of the game would wait for it)."""
        ambient = AMBIENT.get()
        if self.ctx.behind is not None:
            return await self._claim_behind(game_id, user_id, hand, self.ctx.behind, ambient)
        if ambient is not None:
            key = (game_id, user_id, hand)
            async with self.ctx.db.session() as session:
                row = (await session.execute(
                    select(GamePlayer.private_hand, GamePlayer.private_message_id)
                    .where(GamePlayer.game_id == game_id, GamePlayer.user_id == user_id)
                )).first()
            if row is None or key in ambient.claimed or \
                    (row.private_hand == hand and row.private_message_id is not None):
                return False
            ambient.claimed.add(key)
            await self.ctx.db.later(_set_private(game_id, user_id, SENDING, hand))
            return True
        async with self.ctx.db.begin() as session:
            result = await session.execute(
                update(GamePlayer)
                .where(GamePlayer.game_id == game_id, GamePlayer.user_id == user_id,
                       or_(GamePlayer.private_hand.is_(None),
                           GamePlayer.private_hand != hand,
                           GamePlayer.private_message_id.is_(None)))
                .values(private_message_id=SENDING, private_hand=hand))
            return rowcount(result) == 1

    async def _posted(self) -> None:
        """A message was posted and its id held behind: written when the delivery ends, or
        now outside one (a lost id would have the message posted again)."""
        ambient = AMBIENT.get()
        if ambient is not None and ambient.behind is not None:
            ambient.posted = True
        elif self.ctx.behind is not None:
            await self.ctx.behind.flush()

    async def _claim_behind(self, game_id: int, user_id: int, hand: int, behind: Behind,
                            ambient: Ambient | None) -> bool:
        """:meth:`claim_private` when bookkeeping is written behind (``league.behind``): what
        is held, else the delivery's game (as drawn), else the row say whether the message
        of ``hand`` is sent or being sent; the claim is held. The check and the claim follow
        the last wait, so two claims in this process never both win."""
        key = (game_id, user_id, hand)
        claimed = ambient.claimed if ambient is not None else set()
        held = behind.private_of(game_id, user_id)
        if held is None:
            game = ambient.game if ambient is not None else None
            player = game.player(user_id) if game is not None else None
            if player is not None and player.private_message_id != SENDING:
                held = (player.private_message_id, player.private_hand)
            else:  # (no delivery's game, or a claim a killed process left, maybe released)
                async with self.ctx.db.session() as session:
                    row = (await session.execute(
                        select(GamePlayer.private_message_id, GamePlayer.private_hand)
                        .where(GamePlayer.game_id == game_id,
                               GamePlayer.user_id == user_id))).first()
                if row is None:
                    return False
                held = behind.private_of(game_id, user_id) or (row[0], row[1])
        if key in claimed or (held[1] == hand and held[0] is not None):
            return False
        claimed.add(key)
        behind.private(game_id, user_id, SENDING, hand)
        return True

    async def set_private_message(self, game_id: int, user_id: int, message_id: int | None,
                                  hand: int | None) -> None:
        """Remember the id of a player's private message for ``hand``."""
        if self.ctx.behind is not None:  # (held, written behind: league.behind)
            self.ctx.behind.private(game_id, user_id, message_id, hand)
            if message_id is not None:
                await self._posted()
            return
        await self.ctx.db.later(_set_private(game_id, user_id, message_id, hand))


def _set_private(game_id: int, user_id: int, message_id: int | None, hand: int | None) -> Any:
    """The UPDATE that records a player's private message (a Core UPDATE on the table's own
    columns: no ORM bulk-update work when the delivery writes it)."""
    players = table_of(GamePlayer).c
    return update(table_of(GamePlayer)).where(
        players.game_id == game_id, players.user_id == user_id) \
        .values(private_message_id=message_id, private_hand=hand)
