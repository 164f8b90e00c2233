"""Lobby operations: open, join, leave, options and computer players."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm.exc import StaleDataError

from engine import Game, OptionSpec, RuleError
from league.match.chats import allowed, chat_policies, lobby_options
from league.store.clock import DEFAULT_LOBBY_TTL, PACES
from league.store.context import Context
from league.store.errors import ServiceError
from league.store.models import Chat, GamePlayer
from league.store.models import Game as GameRow
from league.store.reads import GameReads
from league.store.rows import (
    insert_missing,
    is_language_code,
    load_game,
    open_in,
    touch,
    upsert_user,
)
from league.store.snapshots import GameSnapshot, UserRef


class LobbyService:
    """Everything a lobby does before the game starts (part of
    :class:`league.service.MatchService`)."""

    def __init__(self, ctx: Context, reads: GameReads) -> None:
        self.ctx = ctx
        self.reads = reads

    async def open_lobby(self, chat_id: int, chat_title: str | None, thread_id: int,
                         creator: UserRef, kind: str,
                         options: dict[str, Any] | None = None) -> GameSnapshot:
        """Open a lobby of game ``kind`` in a chat (and forum topic; 0 for none) with
        ``creator`` joined. Options not given come from the chat's settings for ``kind``
        (:func:`league.match.chats.lobby_options`); the lobby expires after the chat's lobby TTL.

        Raises ``unknown_game``, ``game_open`` (detail ``game_id``) when the topic already
        has an open game, or the game's refusal of a given option (its ``RuleError`` code).
        """
        return await self._open(chat_id, chat_title, thread_id, creator, kind, options or {})

    async def _open(self, chat_id: int, chat_title: str | None, thread_id: int,
                    creator: UserRef, kind: str, options: dict[str, Any], *,
                    rematch_of: GameRow | None = None) -> GameSnapshot:
        """Open a lobby (see :meth:`open_lobby`); for a rematch, with ``rematch_of``'s
        options as they were (but the chat's policies as they are now) and its computer seats
        (names and levels)."""
        game = self.ctx.game(kind)
        now = self.ctx.clock()
        try:
            async with self.ctx.db.sessions.begin() as session:
                existing = await open_in(session, chat_id, thread_id)
                if existing is not None:
                    raise ServiceError("game_open", game_id=existing)
                chat = await session.get(Chat, chat_id)
                if chat is None:
                    chat = await insert_missing(session, Chat, id=chat_id, title=chat_title)
                options = lobby_options(game, chat, kind, options) if rematch_of is None \
                    else {**options, **chat_policies(chat)}
                if chat.language is None:  # the chat's first lobby: its opener's language
                    chat.language = creator.language if is_language_code(creator.language) \
                        else "en"
                await upsert_user(session, creator)
                await session.flush()  # no relationship orders these inserts before the game
                row = GameRow(chat_id=chat_id, thread_id=thread_id, kind=kind, options=options,
                              status="lobby", seed=self.ctx.new_seed(), creator_id=creator.id,
                              due_at=now + timedelta(seconds=chat.lobby_ttl or
                                                     DEFAULT_LOBBY_TTL),
                              rematch_of=None if rematch_of is None else rematch_of.id)
                row.players.append(GamePlayer(user_id=creator.id, name=creator.display_name))
                for bot in [] if rematch_of is None else \
                        sorted((p for p in rematch_of.players if p.is_ai),
                               key=lambda p: (p.seat is None, p.seat or 0)):
                    row.players.append(GamePlayer(user_id=None, name=bot.name, is_ai=True,
                                                  ai_level=bot.ai_level or "normal"))
                session.add(row)
                await session.flush()
                game_id = row.id
        except IntegrityError:
            # Another lobby was opened in the same topic between our check and our insert.
            async with self.ctx.db.sessions() as session:
                existing = await open_in(session, chat_id, thread_id)
            if existing is None:
                raise
            raise ServiceError("game_open", game_id=existing) from None
        return await self.reads.get(game_id)

    async def rematch(self, game_id: int, user: UserRef) -> tuple[GameSnapshot, bool]:
        """A 🔁 Rematch tap on finished game ``game_id`` by ``user``, one of its human
        players: the first opens a lobby in the same chat and topic with the same kind and
        options and the same computer seats (with their levels), ``user`` its host; later
        taps join that lobby. Returns the lobby and whether this tap opened it.

        Raises ``not_finished`` (the game is still open), ``not_a_player``,
        ``already_joined``, ``game_full``, ``game_open`` (detail ``game_id``: another game
        is open in the topic), ``rematch_started`` (detail ``game_id``: the rematch is
        running), ``stale``."""
        async with self.ctx.db.sessions() as session:
            row = await load_game(session, game_id)
            if row.tournament_id is not None:  # (no button offers it: the data was forged)
                raise ServiceError("bad_button")
            if row.status != "finished":
                raise ServiceError("not_finished")
            if not any(p.user_id == user.id for p in row.players if not p.is_ai):
                raise ServiceError("not_a_player")
            existing = await open_in(session, row.chat_id, row.thread_id)
            follow = None if existing is None else await session.get(GameRow, existing)
        if follow is not None:
            if follow.rematch_of == game_id and follow.status != "lobby":
                raise ServiceError("rematch_started", game_id=follow.id)
            if follow.rematch_of != game_id:
                raise ServiceError("game_open", game_id=follow.id)
            return await self.join(follow.id, user), False
        try:
            opened = await self._open(row.chat_id, row.chat_title, row.thread_id, user,
                                      row.kind, dict(row.options or {}), rematch_of=row)
        except ServiceError as exc:
            if exc.code != "game_open":
                raise
            # Another player's tap opened it meanwhile: join theirs.
            return await self.rematch(game_id, user)
        return opened, True

    async def join(self, game_id: int, user: UserRef) -> GameSnapshot:
        """Add ``user`` to a lobby. Raises ``not_in_lobby``, ``already_joined``, ``game_full``,
        or ``stale`` when a concurrent change won (SQLite has no row locks)."""
        try:
            return await self._join(game_id, user)
        except (StaleDataError, IntegrityError):
            raise ServiceError("stale") from None

    async def _join(self, game_id: int, user: UserRef) -> GameSnapshot:
        async with self.ctx.db.sessions.begin() as session:
            row = await lobby_row(session, game_id)
            if any(p.user_id == user.id for p in row.players):
                raise ServiceError("already_joined")
            _, high = self.ctx.game(row.kind).player_limits(row.options)
            if len(row.players) >= high:
                raise ServiceError("game_full", max=high)
            await upsert_user(session, user)
            await session.flush()
            row.players.append(GamePlayer(user_id=user.id, name=user.display_name))
            touch(row)
        return await self.reads.get(game_id)

    async def leave(self, game_id: int, user_id: int) -> GameSnapshot:
        """Remove a player from a lobby. The creator's role passes to the next player; a lobby
        left empty is cancelled. Raises ``not_in_lobby`` or ``not_joined``."""
        async with self.ctx.db.sessions.begin() as session:
            row = await lobby_row(session, game_id)
            player = next((p for p in row.players if p.user_id == user_id), None)
            if player is None:
                raise ServiceError("not_joined")
            row.players.remove(player)
            humans = [p for p in row.players if p.user_id is not None]
            if not humans:
                row.status = "cancelled"
                row.finished_at = self.ctx.clock()
                row.due_at = None
            elif row.creator_id == user_id:
                row.creator_id = humans[0].user_id  # type: ignore[assignment]
            touch(row)
        return await self.reads.get(game_id)

    async def set_option(self, game_id: int, user_id: int, name: str,
                         value: Any) -> GameSnapshot:
        """Set a lobby option to one of its allowed values: one of the game's
        ``Game.option_specs`` for the lobby's options, or the league's ``pace``, that
        :func:`fits` the players seated. Only the creator may. Raises ``not_in_lobby``,
        ``not_creator``, ``bad_option``."""
        async with self.ctx.db.sessions.begin() as session:
            row = await lobby_row(session, game_id, host=user_id)
            game = self.ctx.game(row.kind)
            if not any(s.name == name and allowed(s, value) for s in option_specs(
                    game, row.options)) or not fits(game, row.options, len(row.players),
                                                    name, value):
                raise ServiceError("bad_option")
            row.options = {**row.options, name: value}  # a new dict: JSON changes are seen
            touch(row)  # (a lobby change like any: its redraw after a kill is found by it)
        return await self.reads.get(game_id)

    async def add_ai(self, game_id: int, user_id: int, *, version: int | None = None,
                     level: str = "normal") -> GameSnapshot:
        """Seat a computer player of ``level`` (one of ``Game.ai_levels``) in the lobby (the
        creator only), if it is still at ``version`` (when given: a second tap on the same
        lobby adds no second player). Raises ``not_in_lobby``, ``not_creator``, ``stale``,
        ``game_full``, ``bad_option`` (a level the game lacks)."""
        async with self.ctx.db.sessions.begin() as session:
            row = await lobby_row(session, game_id, host=user_id, version=version)
            game = self.ctx.game(row.kind)
            if level not in game.ai_levels:
                raise ServiceError("bad_option")
            _, high = game.player_limits(row.options)
            if len(row.players) >= high:
                raise ServiceError("game_full", max=high)
            taken = {p.name for p in row.players if p.is_ai}
            name = next(n for n in AI_NAMES + [f"AI {k}" for k in range(1, 20)]
                        if n not in taken)
            row.players.append(GamePlayer(user_id=None, name=name, is_ai=True, ai_level=level))
            touch(row)
        return await self.reads.get(game_id)

    async def set_ai_level(self, game_id: int, user_id: int, index: int, level: str, *,
                           version: int) -> GameSnapshot:
        """Set the level of the lobby's ``index``-th computer player (0: the first seated)
        to ``level`` (one of ``Game.ai_levels``), by the creator, if the lobby is still at
        ``version`` (a second tap on the same button changes nothing). Raises
        ``not_in_lobby``, ``not_creator``, ``stale``, ``bad_option``."""
        try:
            async with self.ctx.db.sessions.begin() as session:
                row = await lobby_row(session, game_id, host=user_id, version=version)
                bots = [p for p in row.players if p.is_ai]
                if not 0 <= index < len(bots) or level not in self.ctx.game(row.kind).ai_levels:
                    raise ServiceError("bad_option")
                bots[index].ai_level = level
                touch(row)
        except StaleDataError:
            raise ServiceError("stale") from None
        return await self.reads.get(game_id)

    async def remove_ai(self, game_id: int, user_id: int, *,
                        version: int | None = None) -> GameSnapshot:
        """Remove the last computer player from the lobby (the creator only), if it is still
        at ``version`` (when given). Raises ``not_in_lobby``, ``not_creator``, ``stale``,
        ``no_ai``."""
        async with self.ctx.db.sessions.begin() as session:
            row = await lobby_row(session, game_id, host=user_id, version=version)
            bots = [p for p in row.players if p.is_ai]
            if not bots:
                raise ServiceError("no_ai")
            row.players.remove(bots[-1])
            touch(row)
        return await self.reads.get(game_id)


AI_NAMES = ["Wile", "Howler", "Dusty", "Luna", "Sage", "Mesa", "Pico", "Rio", "Nova"]
"""Names of computer players, in the order they join a lobby."""


async def lobby_row(session: AsyncSession, game_id: int, *, host: int | None = None,
                    version: int | None = None) -> GameRow:
    """Load a lobby (locked) for a change; with ``host``, only its creator may change it;
    with ``version``, only if nothing changed it since. Raises ``game_not_found``,
    ``not_in_lobby``, ``not_creator``, ``stale``."""
    row = await load_game(session, game_id, lock=True)
    if row.status != "lobby":
        raise ServiceError("not_in_lobby")
    if host is not None and row.creator_id != host:
        raise ServiceError("not_creator")
    if version is not None and row.version != version:
        raise ServiceError("stale")
    return row


PACE = OptionSpec("pace", tuple(PACES), "standard", "option_pace")
"""The league's own lobby option, whatever the game: how long a turn may take."""


def fits(game: Game, options: dict[str, Any], seated: int, name: str, value: Any) -> bool:
    """Whether the lobby's ``seated`` players may play with option ``name`` set to
    ``value`` (Coyote Feathers: 4 or 5 lives only for tables of up to 4)."""
    try:
        return seated <= game.player_limits({**options, name: value})[1]
    except RuleError:
        return False


def option_specs(game: Game, options: dict[str, Any] | None) -> list[OptionSpec]:
    """A lobby's options as a UI draws them: :data:`PACE`, then the game's
    ``Game.option_specs`` for ``options`` in order (``o:<game>:<index>:<value>`` buttons
    count from 0 for pace). Raises ``bad_option`` for options the game refuses."""
    try:
        return [PACE, *game.option_specs(options)]
    except RuleError:
        raise ServiceError("bad_option") from None
