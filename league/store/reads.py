"""Game reads: a game by id, the open games of a chat or topic, a player's running games,
the event log. Nothing here writes."""

from __future__ import annotations

from sqlalchemy import or_, select

from league.store.context import Context
from league.store.message_models import PrivateMessage
from league.store.models import OPEN_STATUSES, GameEvent, GamePlayer
from league.store.models import Game as GameRow
from league.store.rows import MAX_INTEGER, load_game, open_in
from league.store.snapshots import GameSnapshot, snapshot


class GameReads:
    """Read-only game queries (part of :class:`league.service.MatchService`)."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    async def open_game(self, chat_id: int, thread_id: int) -> GameSnapshot | None:
        """The lobby or running game of a chat's topic, if any."""
        async with self.ctx.db.sessions() as session:
            game_id = await open_in(session, chat_id, thread_id)
        return None if game_id is None else await self.get(game_id)

    async def get(self, game_id: int) -> GameSnapshot:
        """A game by id; raises ``game_not_found``."""
        async with self.ctx.db.sessions() as session:
            return snapshot(await load_game(session, game_id))

    async def running_games_of(self, user_id: int, *,
                               out_too: bool = False) -> list[GameSnapshot]:
        """Running games in which ``user_id`` is still playing (``Game.still_playing``), or
        seated at all (``out_too``: knocked out or gone)."""
        games = await self._games_of(user_id, "running")
        return [g for g in games if (p := g.player(user_id)) is not None and p.seat is not None
                and (p.playing or out_too)]

    async def lobbies_of(self, user_id: int) -> list[GameSnapshot]:
        """The lobbies ``user_id`` has joined."""
        return await self._games_of(user_id, "lobby")

    async def _games_of(self, user_id: int, status: str) -> list[GameSnapshot]:
        async with self.ctx.db.sessions() as session:
            ids = await session.scalars(
                select(GameRow.id).join(GamePlayer)
                .where(GamePlayer.user_id == user_id, GameRow.status == status)
                .order_by(GameRow.id))
            return [snapshot(await load_game(session, game_id)) for game_id in ids.all()]

    async def open_games_in(self, chat_id: int) -> list[GameSnapshot]:
        """Every lobby and running game of a chat, all topics."""
        async with self.ctx.db.sessions() as session:
            ids = await session.scalars(select(GameRow.id).where(
                GameRow.chat_id == chat_id, GameRow.status.in_(OPEN_STATUSES)))
            return [snapshot(await load_game(session, game_id))
                    for game_id in ids.all()]

    async def games_on_turn(self, user_id: int) -> list[GameSnapshot]:
        """The running games in which it is ``user_id``'s turn, oldest first."""
        found = []
        async with self.ctx.db.sessions() as session:
            ids = await session.scalars(
                select(GameRow.id).join(GamePlayer)
                .where(GamePlayer.user_id == user_id, GameRow.status == "running")
                .order_by(GameRow.id))
            for game_id in ids.all():
                game = snapshot(await load_game(session, game_id))
                player = game.player(user_id)
                if player is not None and self.ctx.game(game.kind).current_seat(
                        game.state or {}) == player.seat:
                    found.append(game)
        return found

    async def game_of_private_message(self, user_id: int,
                                      message_id: int) -> GameSnapshot | None:
        """The game, running or not, whose private message to ``user_id`` is ``message_id``:
        the latest, or the first of its hand (what a reply in the private chat answers), or
        ``None`` (an older message, or none of a game)."""
        async with self.ctx.db.sessions() as session:
            game_id = await session.scalar(
                select(PrivateMessage.game_id)
                .where(PrivateMessage.user_id == user_id,
                       or_(PrivateMessage.message_id == message_id,
                           PrivateMessage.hand_first_id == message_id))
                .order_by(PrivateMessage.game_id.desc()).limit(1))
            return None if game_id is None else snapshot(await load_game(session, game_id))

    async def private_message_after(self, user_id: int, message_id: int) -> bool:
        """Whether some game's latest private message to ``user_id`` is newer than their
        message ``message_id`` (ids grow in a chat): an older message, of a game the reply
        cannot be placed in (:meth:`game_of_private_message` knows only the latest ones)."""
        async with self.ctx.db.sessions() as session:
            return await session.scalar(
                select(PrivateMessage.game_id)
                .where(PrivateMessage.user_id == user_id,
                       PrivateMessage.message_id > message_id).limit(1)) is not None

    async def keyboards_left_of(self, user_id: int) -> list[GameSnapshot]:
        """The games over for ``user_id`` (closed, or out of it while the others play on)
        whose latest private message to them still carries the buttons of their turn: what
        closed the game for them skipped a player the bot could not write to."""
        async with self.ctx.db.sessions() as session:
            ids = await session.scalars(
                select(GameRow.id).join(GamePlayer)
                .join(PrivateMessage, (PrivateMessage.game_id == GameRow.id)
                      & (PrivateMessage.user_id == GamePlayer.user_id))
                .where(GamePlayer.user_id == user_id, PrivateMessage.acting.is_(True),
                       or_(GameRow.status != "running", GamePlayer.playing.is_(False)))
                .order_by(GameRow.id))
            return [snapshot(await load_game(session, game_id)) for game_id in ids.all()]

    async def moved_by(self, game_id: int, version: int) -> int | None:
        """The human whose own move raised game ``game_id`` to ``version`` (``None``: a
        computer's move, the deal, or no such step): a press refused as stale whose move the
        presser had just made is a double tap."""
        if not 0 < game_id <= MAX_INTEGER or not 0 < version <= MAX_INTEGER:
            return None  # (forged: no such step)
        async with self.ctx.db.sessions() as session:
            return await session.scalar(
                select(GameEvent.user_id).where(GameEvent.game_id == game_id,
                                                GameEvent.version == version).limit(1))

    async def log(self, game_id: int) -> list[GameEvent]:
        """The game's event log in order (detached rows)."""
        async with self.ctx.db.sessions() as session:
            rows = await session.scalars(select(GameEvent).where(GameEvent.game_id == game_id)
                                         .order_by(GameEvent.seq))
            return list(rows)
