"""Chats: the defaults a chat's admins chose for new games (``/settings``), league-wide and
per game kind, a group's move to a supergroup, and whether the bot is in the chat (for its
league posts)."""

from __future__ import annotations

from functools import cache
from typing import Any
from zoneinfo import available_timezones

from sqlalchemy import delete, select, tuple_, update

from engine import Game, OptionSpec, RuleError
from league.store.clock import PACES, POLICIES
from league.store.context import Context
from league.store.errors import ServiceError
from league.store.models import Chat
from league.store.models import Game as GameRow
from league.store.rating_models import LeaguePost, RatingEvent
from league.store.rows import column_default, insert_missing, is_language_code
from league.store.tournament_models import Tournament
from league.tables.standings import MAX_SEASON_WEEKS

CHAT_SETTINGS: dict[str, tuple[Any, ...]] = {
    "pace": ("standard", "quick", "relaxed"), "timeout_policy": POLICIES,
    "stand_in_level": ("normal", "easy", "hard"), "group_notes": ("quiet", "every_move"),
}
"""The league's own defaults a chat's admins may set with /settings, whatever the game, and
their allowed values, the default first. Each game's own are its ``Game.setting_specs``."""

MIGRATED_SETTINGS = ("pace", "timeout_policy", "lobby_ttl", "timezone", "season_weeks",
                     "language", "stand_in_level", "group_notes")
"""The chat settings a supergroup takes over from the group it was (and every game option
it has not set itself)."""


def allowed(spec: OptionSpec, value: Any) -> bool:
    """Whether ``value`` is one of ``spec``'s values, of the same type (``True`` is no 1)."""
    return any(value == v and type(value) is type(v) for v in spec.values)


def game_defaults(game: Game, stored: dict[str, Any]) -> dict[str, Any]:
    """A chat's effective defaults for ``game``: every ``Game.setting_specs`` option, the
    stored value where the game allows it, else the game's default. Options depend on the
    earlier ones (a game's variant decides the others), so the specs are read again until
    they settle. Raises ``RuleError`` for a stored value the game refuses outright."""
    options = dict(stored)
    for _ in range(4):
        chosen = {s.name: options[s.name] if allowed(s, options.get(s.name)) else s.default
                  for s in game.setting_specs(options)}
        if chosen == options:
            break
        options = chosen
    return chosen


class Chats:
    """Chat settings and migrations (part of :class:`league.service.MatchService`)."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    async def chat_settings(self, chat_id: int) -> dict[str, Any]:
        """A chat's defaults for new games: ``{"pace", "timeout_policy", "timezone",
        "season_weeks", "language", "games": {kind: {option: value}}}``, each game's
        options as :func:`game_defaults` (the effective ones, for every kind)."""
        async with self.ctx.db.sessions() as session:
            chat = await session.get(Chat, chat_id)
        if chat is None:
            settings: dict[str, Any] = {
                **{key: values[0] for key, values in CHAT_SETTINGS.items()},
                "timezone": "UTC", "season_weeks": 4, "language": None}
            stored: dict[str, Any] = {}
        else:
            settings = {key: getattr(chat, key)
                        for key in (*CHAT_SETTINGS, "timezone", "season_weeks", "language")}
            stored = chat.game_options or {}
        settings["games"] = {kind: self._defaults(kind, stored.get(kind) or {})
                             for kind in self.ctx.games}
        return settings

    def _defaults(self, kind: str, stored: dict[str, Any]) -> dict[str, Any]:
        game = self.ctx.game(kind)
        try:
            return game_defaults(game, stored)
        except RuleError:  # a value the game no longer knows: its defaults
            return game_defaults(game, {})

    async def set_chat_setting(self, chat_id: int, title: str | None, key: str, value: Any, *,
                               kind: str | None = None) -> dict[str, Any]:
        """Set one of a chat's defaults: with ``kind``, the option ``key`` of that game
        (one of its ``Game.setting_specs`` for the chat's other options of it); else one of
        :data:`CHAT_SETTINGS`, ``timezone`` (an IANA name), ``season_weeks`` (1–52) or
        ``language`` (a language code; the bot offers those it speaks). Returns
        :meth:`chat_settings`; raises ``bad_option`` / ``bad_timezone`` / ``unknown_game``.
        (The bot checks that the sender is an admin.)"""
        if kind is None:
            value = _checked(key, value)
        async with self.ctx.db.sessions.begin() as session:
            chat = await session.get(Chat, chat_id)
            if chat is None:
                chat = await insert_missing(session, Chat, id=chat_id, title=title)
            if kind is None:
                setattr(chat, key, value)
            else:
                games = dict(chat.game_options or {})
                mine = self._defaults(kind, games.get(kind) or {})
                try:
                    specs = self.ctx.game(kind).setting_specs({**mine, key: value})
                except RuleError:
                    raise ServiceError("bad_option") from None
                spec = next((s for s in specs if s.name == key), None)
                if spec is None or not allowed(spec, value):
                    raise ServiceError("bad_option")
                games[kind] = {**(games.get(kind) or {}), key: value}
                chat.game_options = games  # a new dict: JSON changes are seen
        return await self.chat_settings(chat_id)

    async def migrated_from(self, chat_id: int) -> int | None:
        """The id of the group that became the supergroup ``chat_id``, if that move was
        recorded (:meth:`migrate_chat`); ``None`` for a chat that was never a group."""
        async with self.ctx.db.sessions() as session:
            return await session.scalar(select(Chat.migrated_from).where(Chat.id == chat_id))

    async def take_migration(self, chat_id: int) -> bool:
        """Whether a group's move into the supergroup ``chat_id`` was recorded and not yet
        taken; taken now (``chats.migrated_from`` cleared): the bot's joining it, which
        Telegram shows with the move, is owed no welcome, but a later add is."""
        async with self.ctx.db.sessions.begin() as session:
            taken = await session.scalar(
                update(Chat).where(Chat.id == chat_id, Chat.migrated_from.is_not(None))
                .values(migrated_from=None).returning(Chat.id))
        return taken is not None

    async def set_bot_present(self, chat_id: int, present: bool) -> None:
        """Record whether the bot is in the chat (``chats.bot_left_at``): ``False`` when
        Telegram refused a call there because the bot is out of it (a 403 in a group: it was
        removed), ``True`` when the bot is added back. The league posts of a chat
        the bot is out of wait (:meth:`league.tables.queries.LeagueQueries.due_posts`). A
        chat never stored stays so (it owes no post)."""
        chat = update(Chat).where(Chat.id == chat_id)
        async with self.ctx.db.sessions.begin() as session:
            await session.execute(chat.where(Chat.bot_left_at.is_not(None))
                                  .values(bot_left_at=None) if present
                                  else chat.values(bot_left_at=self.ctx.clock()))

    async def migrate_chat(self, old_chat_id: int, new_chat_id: int) -> None:
        """A group became a supergroup: move its games, its tournaments (their sign-up
        message is the old chat's: a new one is posted), its league (rating events and posts)
        and its settings to the new chat id. A setting the supergroup already changed from
        the default is kept; a post claimed under both ids is kept once. Calling it again
        (Telegram reports a migration both as a service message and as an error) changes
        nothing. The supergroup keeps the group's id (``chats.migrated_from``,
        :meth:`migrated_from`)."""
        async with self.ctx.db.sessions.begin() as session:
            old = await session.get(Chat, old_chat_id)
            new = await session.get(Chat, new_chat_id)
            if new is None:
                new = await insert_missing(session, Chat, id=new_chat_id,
                                           title=old.title if old else None)
            new.migrated_from = old_chat_id
            if old is not None:
                for column in MIGRATED_SETTINGS:
                    if getattr(new, column) in (None, column_default(column)):
                        setattr(new, column, getattr(old, column))
                theirs, mine = old.game_options or {}, new.game_options or {}
                new.game_options = {kind: {**theirs.get(kind, {}), **mine.get(kind, {})}
                                    for kind in {*theirs, *mine}}
                if old.last_rated_at is not None and (
                        new.last_rated_at is None or new.last_rated_at < old.last_rated_at):
                    new.last_rated_at = old.last_rated_at
            await session.flush()
            await session.execute(update(GameRow).where(GameRow.chat_id == old_chat_id)
                                  .values(chat_id=new_chat_id, reminder_version=None))
            await session.execute(update(Tournament).where(Tournament.chat_id == old_chat_id)
                                  .values(chat_id=new_chat_id, message_id=None)
                                  .execution_options(synchronize_session=False))
            await session.execute(update(RatingEvent).where(RatingEvent.chat_id == old_chat_id)
                                  .values(chat_id=new_chat_id))
            moved = select(LeaguePost.game_kind, LeaguePost.kind,
                           LeaguePost.period_end).where(LeaguePost.chat_id == new_chat_id)
            await session.execute(delete(LeaguePost).where(
                LeaguePost.chat_id == old_chat_id,
                tuple_(LeaguePost.game_kind, LeaguePost.kind,
                       LeaguePost.period_end).in_(moved)))
            await session.execute(update(LeaguePost).where(LeaguePost.chat_id == old_chat_id)
                                  .values(chat_id=new_chat_id))


def _checked(key: str, value: Any) -> Any:
    """``value`` for the league-wide setting ``key``, checked (a time zone's spelling
    normalised); raises ``bad_option`` / ``bad_timezone``."""
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
    return value


@cache
def _settable_zones() -> dict[str, str]:
    """IANA zone names a chat may choose, by their lower-case spelling: not the server's own
    ``localtime``, nor ``Factory`` (which is no place)."""
    return {name.lower(): name for name in available_timezones() - {"localtime", "Factory"}}


def lobby_options(game: Game, chat: Chat, kind: str, given: dict[str, Any]) -> dict[str, Any]:
    """A new lobby's options: what the command gave, else the chat's defaults for ``kind``
    (a default the game does not allow with the given ones falls back to the game's), the
    chat's pace and :func:`chat_policies`. Raises the game's refusal of a
    given option (its ``RuleError`` code)."""
    stored = (chat.game_options or {}).get(kind) or {}
    try:
        game.setting_specs(given)  # a given option the game refuses is an error, not ignored
        options = {**given, **game_defaults(game, {**stored, **given})}
    except RuleError as exc:
        raise ServiceError(exc.code, **exc.detail) from None
    options["pace"] = chat.pace if chat.pace in PACES else "standard"
    return {**options, **chat_policies(chat)}


def chat_policies(chat: Chat) -> dict[str, Any]:
    """The options a game takes from its chat's ``/settings`` when its lobby opens (a
    rematch's too) and again when it starts (only admins set them, and the lobby shows
    none, so a change while the lobby is open counts): the timeout policy,
    the computer level that stands in for a timed-out human (``Moves.plan_replies``; a
    level the game lacks plays ``normal``) and what the group is told of each move (the
    presenter reads it with the game)."""
    return {"timeout_policy": chat.timeout_policy if chat.timeout_policy in POLICIES else "ai",
            "stand_in_level": chat.stand_in_level or "normal",
            "group_notes": chat.group_notes or "quiet"}
