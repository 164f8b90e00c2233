"""Lobby operations: open, join, leave, options and computer players."""

from __future__ import annotations

from typing import Any

from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm.exc import StaleDataError

from league.base import ServiceBase, load_game, touch, upsert_user
from league.errors import ServiceError
from league.models import Chat, GamePlayer, utcnow
from league.models import Game as GameRow
from league.snapshots import GameSnapshot, UserRef


class LobbyService(ServiceBase):
    """Everything a lobby does before the game starts."""

    # --- lobby ------------------------------------------------------------------------------
    async def open_lobby(self, chat_id: int, chat_title: str | None, thread_id: int,
                         creator: UserRef, kind: str = "coyote",
                         options: dict[str, Any] | None = None) -> GameSnapshot:
        """Open a lobby in a chat (and forum topic; 0 for none) with ``creator`` joined.

        Raises ``game_open`` (detail ``game_id``) when the topic already has an open game, or
        ``RuleError`` codes for bad options.
        """
        game = self._game(kind)
        options = dict(options or {})
        game.player_limits(options)  # validates the edition
        try:
            async with self.db.sessions.begin() as session:
                existing = await self._open_in(session, chat_id, thread_id)
                if existing is not None:
                    raise ServiceError("game_open", game_id=existing)
                if await session.get(Chat, chat_id) is None:
                    session.add(Chat(id=chat_id, title=chat_title))
                await upsert_user(session, creator)
                await session.flush()  # no relationship orders these inserts before the game
                row = GameRow(chat_id=chat_id, thread_id=thread_id, kind=kind, options=options,
                              status="lobby", seed=self.new_seed(), creator_id=creator.id)
                row.players.append(GamePlayer(user_id=creator.id, name=creator.display_name))
                session.add(row)
                await session.flush()
                game_id = row.id
        except IntegrityError:
            # Another lobby was opened in the same topic between our check and our insert.
            async with self.db.sessions() as session:
                existing = await self._open_in(session, chat_id, thread_id)
            if existing is None:
                raise
            raise ServiceError("game_open", game_id=existing) from None
        return await self.get(game_id)

    async def join(self, game_id: int, user: UserRef) -> GameSnapshot:
        """Add ``user`` to a lobby. Raises ``not_in_lobby``, ``already_joined``, ``game_full``,
        or ``stale`` when a concurrent change won (SQLite has no row locks)."""
        try:
            return await self._join(game_id, user)
        except (StaleDataError, IntegrityError):
            raise ServiceError("stale") from None

    async def _join(self, game_id: int, user: UserRef) -> GameSnapshot:
        async with self.db.sessions.begin() as session:
            row = await load_game(session, game_id, lock=True)
            if row.status != "lobby":
                raise ServiceError("not_in_lobby")
            if any(p.user_id == user.id for p in row.players):
                raise ServiceError("already_joined")
            _, high = self._game(row.kind).player_limits(row.options)
            if len(row.players) >= high:
                raise ServiceError("game_full", max=high)
            await upsert_user(session, user)
            await session.flush()
            row.players.append(GamePlayer(user_id=user.id, name=user.display_name))
            touch(row)
        return await self.get(game_id)

    async def leave(self, game_id: int, user_id: int) -> GameSnapshot:
        """Remove a player from a lobby. The creator's role passes to the next player; a lobby
        left empty is cancelled. Raises ``not_in_lobby`` or ``not_joined``."""
        async with self.db.sessions.begin() as session:
            row = await load_game(session, game_id, lock=True)
            if row.status != "lobby":
                raise ServiceError("not_in_lobby")
            player = next((p for p in row.players if p.user_id == user_id), None)
            if player is None:
                raise ServiceError("not_joined")
            row.players.remove(player)
            humans = [p for p in row.players if p.user_id is not None]
            if not humans:
                row.status = "cancelled"
                row.finished_at = utcnow()
            elif row.creator_id == user_id:
                row.creator_id = humans[0].user_id  # type: ignore[assignment]
            touch(row)
        return await self.get(game_id)


    async def set_option(self, game_id: int, user_id: int, key: str, value: Any) -> GameSnapshot:
        """Set a lobby option (``lives``, ``specials``) to one of the game's allowed values.
        Only the creator may. Raises ``not_in_lobby``, ``not_creator``, ``bad_option``."""
        async with self.db.sessions.begin() as session:
            row = await load_game(session, game_id, lock=True)
            if row.status != "lobby":
                raise ServiceError("not_in_lobby")
            if row.creator_id != user_id:
                raise ServiceError("not_creator")
            choices = self._game(row.kind).option_choices(row.options)
            if key not in choices or value not in choices[key] or \
                    type(value) is not type(choices[key][0]):
                raise ServiceError("bad_option")
            row.options = {**row.options, key: value}  # a new dict: JSON changes are seen
        return await self.get(game_id)

    async def add_ai(self, game_id: int, user_id: int) -> GameSnapshot:
        """Seat a computer player in the lobby (the creator only). Raises ``not_in_lobby``,
        ``not_creator``, ``game_full``."""
        async with self.db.sessions.begin() as session:
            row = await load_game(session, game_id, lock=True)
            if row.status != "lobby":
                raise ServiceError("not_in_lobby")
            if row.creator_id != user_id:
                raise ServiceError("not_creator")
            _, high = self._game(row.kind).player_limits(row.options)
            if len(row.players) >= high:
                raise ServiceError("game_full", max=high)
            taken = {p.name for p in row.players if p.is_ai}
            name = next(n for n in AI_NAMES + [f"AI {k}" for k in range(1, 20)]
                        if n not in taken)
            row.players.append(GamePlayer(user_id=None, name=name, is_ai=True))
            touch(row)
        return await self.get(game_id)

    async def remove_ai(self, game_id: int, user_id: int) -> GameSnapshot:
        """Remove the last computer player from the lobby (the creator only). Raises
        ``not_in_lobby``, ``not_creator``, ``no_ai``."""
        async with self.db.sessions.begin() as session:
            row = await load_game(session, game_id, lock=True)
            if row.status != "lobby":
                raise ServiceError("not_in_lobby")
            if row.creator_id != user_id:
                raise ServiceError("not_creator")
            bots = [p for p in row.players if p.is_ai]
            if not bots:
                raise ServiceError("no_ai")
            row.players.remove(bots[-1])
            touch(row)
        return await self.get(game_id)


AI_NAMES = ["Wile", "Howler", "Dusty", "Luna", "Sage", "Mesa", "Pico", "Rio", "Nova"]
"""Names of computer players, in the order they join a lobby."""
