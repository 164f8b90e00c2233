"""Lobby operations: open, join, leave, options and computer players."""

from __future__ import annotations

from datetime import timedelta
from functools import cache
from typing import Any
from zoneinfo import available_timezones

from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm.exc import StaleDataError

from engine import Game, RuleError
from league.base import ServiceBase, insert_missing, is_language_code, load_game, touch, upsert_user
from league.clock import DEFAULT_LOBBY_TTL, PACES, POLICIES
from league.errors import ServiceError
from league.models import Chat, GamePlayer
from league.models import Game as GameRow
from league.snapshots import GameSnapshot, UserRef
from league.standings import MAX_SEASON_WEEKS


class LobbyService(ServiceBase):
    """Everything a lobby does before the game starts."""

    async def chat_settings(self, chat_id: int) -> dict[str, Any]:
        """A chat's defaults for new games (see :data:`CHAT_SETTINGS`)."""
        async with self.db.sessions() as session:
            chat = await session.get(Chat, chat_id)
            if chat is None:
                return {**{key: values[0] for key, values in CHAT_SETTINGS.items()},
                        "timezone": "UTC", "season_weeks": 4, "language": None}
            return {key: getattr(chat, key)
                    for key in (*CHAT_SETTINGS, "timezone", "season_weeks", "language")}

    async def set_chat_setting(self, chat_id: int, title: str | None, key: str,
                               value: Any) -> dict[str, Any]:
        """Set one of a chat's defaults (:data:`CHAT_SETTINGS`), its ``timezone`` (an IANA
        name), ``season_weeks`` (1–52) or ``language`` (a language code; the bot offers
        those it speaks); raises ``bad_option`` / ``bad_timezone``. (The bot checks that the
        sender is an admin.)"""
        if key == "language":
            if not is_language_code(value):
                raise ServiceError("bad_option")
        elif key == "timezone":
            value = _settable_zones().get(value.lower()) if isinstance(value, str) else None
            if value is None:
                raise ServiceError("bad_timezone")
        elif key == "season_weeks":
            if not isinstance(value, int) or isinstance(value, bool) or \
                    not 1 <= value <= MAX_SEASON_WEEKS:
                raise ServiceError("bad_option")
        elif key not in CHAT_SETTINGS or value not in CHAT_SETTINGS[key] or \
                isinstance(value, bool) != isinstance(CHAT_SETTINGS[key][-1], bool):
            raise ServiceError("bad_option")
        async with self.db.sessions.begin() as session:
            chat = await session.get(Chat, chat_id)
            if chat is None:
                chat = await insert_missing(session, Chat, id=chat_id, title=title)
            setattr(chat, key, value)
        return await self.chat_settings(chat_id)

    async def open_lobby(self, chat_id: int, chat_title: str | None, thread_id: int,
                         creator: UserRef, kind: str = "coyote",
                         options: dict[str, Any] | None = None) -> GameSnapshot:
        """Open a lobby in a chat (and forum topic; 0 for none) with ``creator`` joined. Options
        not given come from the chat's settings; the lobby expires after the chat's lobby TTL.

        Raises ``game_open`` (detail ``game_id``) when the topic already has an open game, or
        ``unknown_edition``.
        """
        game = self._game(kind)
        now = self.clock()
        try:
            async with self.db.sessions.begin() as session:
                existing = await self._open_in(session, chat_id, thread_id)
                if existing is not None:
                    raise ServiceError("game_open", game_id=existing)
                chat = await session.get(Chat, chat_id)
                if chat is None:
                    chat = await insert_missing(session, Chat, id=chat_id, title=chat_title)
                options = _lobby_options(game, chat, options or {})
                if chat.language is None:  # the chat's first lobby: its opener's language
                    chat.language = creator.language if is_language_code(creator.language) \
                        else "en"
                await upsert_user(session, creator)
                await session.flush()  # no relationship orders these inserts before the game
                row = GameRow(chat_id=chat_id, thread_id=thread_id, kind=kind, options=options,
                              status="lobby", seed=self.new_seed(), creator_id=creator.id,
                              due_at=now + timedelta(seconds=chat.lobby_ttl or
                                                     DEFAULT_LOBBY_TTL))
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
            row = await lobby_row(session, game_id)
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
            row = await lobby_row(session, game_id)
            player = next((p for p in row.players if p.user_id == user_id), None)
            if player is None:
                raise ServiceError("not_joined")
            row.players.remove(player)
            humans = [p for p in row.players if p.user_id is not None]
            if not humans:
                row.status = "cancelled"
                row.finished_at = self.clock()
                row.due_at = None
            elif row.creator_id == user_id:
                row.creator_id = humans[0].user_id  # type: ignore[assignment]
            touch(row)
        return await self.get(game_id)

    async def set_option(self, game_id: int, user_id: int, key: str, value: Any) -> GameSnapshot:
        """Set a lobby option (``lives``, ``specials``, ``pace``) to one of its allowed values.
        Only the creator may. Raises ``not_in_lobby``, ``not_creator``, ``bad_option``."""
        async with self.db.sessions.begin() as session:
            row = await lobby_row(session, game_id, host=user_id)
            choices = {**self._game(row.kind).option_choices(row.options),
                       "pace": list(PACES)}
            if key not in choices or value not in choices[key] or \
                    type(value) is not type(choices[key][0]):
                raise ServiceError("bad_option")
            row.options = {**row.options, key: value}  # a new dict: JSON changes are seen
        return await self.get(game_id)

    async def add_ai(self, game_id: int, user_id: int, *,
                     version: int | None = None) -> GameSnapshot:
        """Seat a computer player in the lobby (the creator only), if it is still at
        ``version`` (when given: a second tap on the same lobby adds no second player).
        Raises ``not_in_lobby``, ``not_creator``, ``stale``, ``game_full``."""
        async with self.db.sessions.begin() as session:
            row = await lobby_row(session, game_id, host=user_id, version=version)
            _, high = self._game(row.kind).player_limits(row.options)
            if len(row.players) >= high:
                raise ServiceError("game_full", max=high)
            taken = {p.name for p in row.players if p.is_ai}
            name = next(n for n in AI_NAMES + [f"AI {k}" for k in range(1, 20)]
                        if n not in taken)
            row.players.append(GamePlayer(user_id=None, name=name, is_ai=True))
            touch(row)
        return await self.get(game_id)

    async def remove_ai(self, game_id: int, user_id: int, *,
                        version: int | None = None) -> GameSnapshot:
        """Remove the last computer player from the lobby (the creator only), if it is still
        at ``version`` (when given). Raises ``not_in_lobby``, ``not_creator``, ``stale``,
        ``no_ai``."""
        async with self.db.sessions.begin() as session:
            row = await lobby_row(session, game_id, host=user_id, version=version)
            bots = [p for p in row.players if p.is_ai]
            if not bots:
                raise ServiceError("no_ai")
            row.players.remove(bots[-1])
            touch(row)
        return await self.get(game_id)


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


CHAT_SETTINGS: dict[str, tuple[Any, ...]] = {
    "pace": ("standard", "quick", "relaxed"), "edition": ("classic", "feathers", "poker-deck"),
    "lives": (None, 2, 3, 4, 5), "specials": (False, True), "timeout_policy": POLICIES,
}
"""The defaults a chat's admins may set with /settings, and their allowed values, the
default first (``lives=None``: the edition's own default)."""


@cache
def _settable_zones() -> dict[str, str]:
    """IANA zone names a chat may choose, by their lower-case spelling: not the server's own
    ``localtime``, nor ``Factory`` (which is no place)."""
    return {name.lower(): name for name in available_timezones() - {"localtime", "Factory"}}


def _lobby_options(game: Game, chat: Chat, given: dict[str, Any]) -> dict[str, Any]:
    """A new lobby's options: what the command gave, else the chat's defaults (a default the
    edition does not allow, such as 2 lives in poker-deck, falls back to the edition's)."""
    options = {"edition": given.get("edition") or chat.edition or "classic"}
    try:
        choices = game.option_choices(options)
    except RuleError as exc:
        raise ServiceError(exc.code, **exc.detail) from None
    if "lives" in choices:
        options["lives"] = chat.lives if chat.lives in choices["lives"] else choices["lives"][0]
    else:  # koira-page: superseded by refactor-league (a game without Coyote's chat defaults)
        options = {name: given.get(name, values[0]) for name, values in choices.items()}
    if "specials" in choices:
        options["specials"] = bool(chat.specials)
    options["pace"] = chat.pace if chat.pace in PACES else "standard"
    options["timeout_policy"] = chat.timeout_policy if chat.timeout_policy in POLICIES else "ai"
    return options
