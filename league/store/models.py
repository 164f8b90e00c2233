"""The schema: users, chats, games and their players, events, the inbox and /notify
subscriptions here; the other tables' modules are imported with it, so ``Base.metadata``
holds every table once this module is imported. Every schema change is an Alembic
migration in ``alembic/versions``.

Users and chats are keyed by the platform's numeric ids (64-bit); names are kept only for
display and are refreshed whenever the user is seen.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    UniqueConstraint,
    func,
    select,
    text,
    true,
)
from sqlalchemy.orm import Mapped, column_property, mapped_column, relationship

from league.store.message_models import ForumTopic, GameMessages, PrivateMessage
from league.store.orm import Base, JSONType, utcnow

OPEN_STATUSES = ("lobby", "running")
OPEN_CASUAL = "status IN ('lobby', 'running') AND tournament_id IS NULL"
"""An open game that is no tournament's table: one per chat and topic."""


class User(Base):
    """A person, keyed by their platform user id. ``can_message``: they started the bot in a
    private chat and have not blocked it, so private messages reach them."""

    __tablename__ = "users"

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    first_name: Mapped[str] = mapped_column(String(256))
    last_name: Mapped[str | None] = mapped_column(String(256))
    username: Mapped[str | None] = mapped_column(String(64))
    language: Mapped[str | None] = mapped_column(String(16))  # the client's, as it reports it
    # Chosen with /language in the private chat; wins over ``language`` when set.
    chosen_language: Mapped[str | None] = mapped_column(String(16))
    can_message: Mapped[bool] = mapped_column(Boolean, default=False)
    # Whether a move that ends the round (a game's UI says which: ``GameUI.confirm_text``)
    # asks this player to confirm it first (on by default; /confirm off turns it off).
    confirm_ending: Mapped[bool] = mapped_column(Boolean, default=True, server_default=true())
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow,
                                                 onupdate=utcnow)


class Chat(Base):
    """A group chat, keyed by its platform chat id (negative for groups), with the defaults
    its admins chose for new games (``/settings``) and its league settings."""

    __tablename__ = "chats"

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    title: Mapped[str | None] = mapped_column(String(256))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    pace: Mapped[str] = mapped_column(String(16), default="standard",
                                      server_default="standard")
    # The defaults of new games per game kind, ``{kind: {option: value}}`` (/settings; a
    # value the game no longer allows falls back to its default when a lobby opens).
    game_options: Mapped[dict[str, Any]] = mapped_column(JSONType, default=dict)
    timeout_policy: Mapped[str] = mapped_column(String(16), default="ai", server_default="ai")
    lobby_ttl: Mapped[int] = mapped_column(Integer, default=3600, server_default="3600")
    timezone: Mapped[str] = mapped_column(String(64), default="UTC", server_default="UTC")
    season_weeks: Mapped[int] = mapped_column(Integer, default=4, server_default="4")
    # The language of the chat's messages (a language code; /settings language). Set from
    # the client language of whoever opens the chat's first lobby; ``None`` before that.
    language: Mapped[str | None] = mapped_column(String(16))
    # When the chat's latest rated game finished: the posts' look-up starts from the chats,
    # so a long season is still announced without scanning a year of rating events.
    last_rated_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), index=True)
    # The level of the computer player that stands in for a human whose turn timed out (one
    # of ``Game.ai_levels``; a game without it plays ``normal``). Copied into each new
    # lobby's options (``stand_in_level``).
    stand_in_level: Mapped[str] = mapped_column(String(16), default="normal",
                                                server_default="normal")
    # What the group is told of each move: "quiet" (the table edited in place) or
    # "every_move" (a note per move). Copied into each new lobby's options.
    group_notes: Mapped[str] = mapped_column(String(16), default="quiet",
                                             server_default="quiet")
    # The id of the group this supergroup was before Telegram converted it (set when the
    # move is recorded, :meth:`league.match.chats.Chats.migrate_chat`), until the bot's
    # joining it, which Telegram shows with the move, is seen (``take_migration``): that
    # join is no new welcome. ``None``: never a group, or that join was seen.
    migrated_from: Mapped[int | None] = mapped_column(BigInteger)
    # When Telegram last refused a call in the group because the bot is out of it (a 403:
    # it was removed): its league posts wait (``league.tables.queries.due_posts``)
    # until the bot is added back (cleared) or a game is rated there since (a post refused
    # again then waits again). ``None``: in it, as far as the bot knows.
    bot_left_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class Game(Base):
    """One game from lobby to end.

    ``status``: ``lobby`` → ``running`` → ``finished`` (or ``cancelled``). ``state`` is the
    engine's JSON state; ``version`` grows with every accepted move or lobby change and is
    checked on every write (optimistic concurrency), so a stale or concurrent action changes
    nothing.
    ``thread_id`` is the forum topic (0 outside topics); one open game per chat and topic,
    tournament tables aside (``tournament_id``: they run side by side, and beside a casual
    game).
    """

    __tablename__ = "games"
    __table_args__ = (
        Index("uq_games_open_per_topic", "chat_id", "thread_id", unique=True,
              postgresql_where=text(OPEN_CASUAL), sqlite_where=text(OPEN_CASUAL)),
        Index("ix_games_chat_created", "chat_id", "created_at"),
        Index("ix_games_due", "due_at",
              postgresql_where=text("status IN ('lobby', 'running') AND due_at IS NOT NULL"),
              sqlite_where=text("status IN ('lobby', 'running') AND due_at IS NOT NULL")),
        # the games whose end may not be shown (MatchService.behind), and the running games
        # and lobbies (the sweep's reads every tick; uq_games_open_per_topic leaves out
        # tournament tables, and no status filter can use it)
        Index("ix_games_finished", "finished_at",
              postgresql_where=text("status = 'finished'"),
              sqlite_where=text("status = 'finished'")),
        Index("ix_games_open", "status",
              postgresql_where=text("status IN ('lobby', 'running')"),
              sqlite_where=text("status IN ('lobby', 'running')")),
    )

    # Not a column (so not annotated): ``(the chat's language, {user id: (language, whether
    # private messages reach them)})``, read by ``league.store.rows.attach_languages`` when the game
    # is loaded, for its snapshot.
    languages = None

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    chat_id: Mapped[int] = mapped_column(BigInteger, ForeignKey("chats.id"))
    thread_id: Mapped[int] = mapped_column(BigInteger, default=0)
    kind: Mapped[str] = mapped_column(String(32))
    options: Mapped[dict[str, Any]] = mapped_column(JSONType, default=dict)
    status: Mapped[str] = mapped_column(String(16), default="lobby")
    state: Mapped[dict[str, Any] | None] = mapped_column(JSONType)
    version: Mapped[int] = mapped_column(Integer, default=1)
    seed: Mapped[int] = mapped_column(BigInteger)
    creator_id: Mapped[int] = mapped_column(BigInteger, ForeignKey("users.id"))
    # The turn whose group reminder the sweeper claimed (its message: ``GameMessages``).
    reminder_version: Mapped[int | None] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    started_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    # The clock: ``due_at`` is the next moment the sweeper must look at this game (a lobby's
    # expiry, a turn's reminder or its deadline); ``None`` while paused or finished.
    due_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    deadline_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    remind_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    paused_left: Mapped[float | None] = mapped_column(Float)
    # The hand being played (``engine.Game.hand_number`` of ``state``): a player whose
    # private message is of another hand is sent a new one.
    hand: Mapped[int | None] = mapped_column(Integer)
    # The finished game whose 🔁 Rematch opened this lobby (its players' taps join it).
    rematch_of: Mapped[int | None] = mapped_column(Integer)
    # A tournament's table (``league.tournaments``): its round and table number (from 1).
    tournament_id: Mapped[int | None] = mapped_column(
        ForeignKey("tournaments.id"), index=True)
    tournament_round: Mapped[int | None] = mapped_column(Integer)
    tournament_table: Mapped[int | None] = mapped_column(Integer)

    # Where the game is, for a player's private messages: read in the game's own SELECT (no
    # extra round trip). Not expired on flush: they are not the game's to change, and an
    # async session cannot load them again lazily.
    chat_title: Mapped[str | None] = column_property(
        select(Chat.title).where(Chat.id == chat_id).correlate_except(Chat).scalar_subquery(),
        expire_on_flush=False)
    # The language the group's messages are written in (``Chat.language``), likewise.
    chat_language: Mapped[str | None] = column_property(
        select(Chat.language).where(Chat.id == chat_id).correlate_except(Chat)
        .scalar_subquery(), expire_on_flush=False)
    topic_name: Mapped[str | None] = column_property(
        select(ForumTopic.name).where(ForumTopic.chat_id == chat_id,
                                      ForumTopic.thread_id == thread_id)
        .correlate_except(ForumTopic).scalar_subquery(), expire_on_flush=False)

    players: Mapped[list[GamePlayer]] = relationship(
        back_populates="game", order_by="GamePlayer.id", cascade="all, delete-orphan")

    # What the deliveries recorded (``GameMessages``), read in the game's own SELECT. Moves
    # never write them: a move's transaction and a delivery's share no row.
    told_version: Mapped[int | None] = column_property(
        select(GameMessages.told_version).where(GameMessages.game_id == id)
        .correlate_except(GameMessages).scalar_subquery(), expire_on_flush=False)
    lobby_message_id: Mapped[int | None] = column_property(
        select(GameMessages.lobby_message_id).where(GameMessages.game_id == id)
        .correlate_except(GameMessages).scalar_subquery(), expire_on_flush=False)
    table_message_id: Mapped[int | None] = column_property(
        select(GameMessages.table_message_id).where(GameMessages.game_id == id)
        .correlate_except(GameMessages).scalar_subquery(), expire_on_flush=False)
    reminder_message_id: Mapped[int | None] = column_property(
        select(GameMessages.reminder_message_id).where(GameMessages.game_id == id)
        .correlate_except(GameMessages).scalar_subquery(), expire_on_flush=False)
    messages_chat_id: Mapped[int | None] = column_property(
        select(GameMessages.chat_id).where(GameMessages.game_id == id)
        .correlate_except(GameMessages).scalar_subquery(), expire_on_flush=False)

    # The ORM checks the version on every UPDATE (WHERE version = the value read); the
    # service raises it only when players' buttons go stale (a move, a lobby change), so a
    # reminder or a pause does not invalidate the keyboards on screen.
    __mapper_args__ = {"version_id_col": version, "version_id_generator": False}


class GamePlayer(Base):
    """A seat in a game. ``seat`` is set at start (join order); ``playing`` (still in the
    game: ``Game.still_playing``) and ``placement`` mirror the engine state for queries, and
    once the game is over ``placement`` is the league's place (``league.tables.places``) and
    ``rated`` whether a human's result was rated (``league.tables.rated``; ``None`` before the end,
    for a computer, and for games finished before it was recorded);
    ``private_message_id`` is the private view of hand ``private_hand`` (``PrivateMessage``),
    drawn with the buttons of their turn if ``private_acting``."""

    __tablename__ = "game_players"
    __table_args__ = (
        UniqueConstraint("game_id", "user_id", name="uq_game_players_game_user"),
        UniqueConstraint("game_id", "seat", name="uq_game_players_game_seat"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), index=True)
    user_id: Mapped[int | None] = mapped_column(BigInteger, ForeignKey("users.id"), index=True)
    name: Mapped[str] = mapped_column(String(256))
    is_ai: Mapped[bool] = mapped_column(Boolean, default=False)
    # A computer player's level (one of ``Game.ai_levels``; ``None`` for a human, and for
    # computer players seated before levels existed, who play ``normal``).
    ai_level: Mapped[str | None] = mapped_column(String(16))
    seat: Mapped[int | None] = mapped_column(Integer)
    playing: Mapped[bool] = mapped_column(Boolean, default=True, server_default=true())
    placement: Mapped[int | None] = mapped_column(Integer)
    rated: Mapped[bool | None] = mapped_column(Boolean)
    timeouts_in_row: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    # The private-chat message id of the last move this player typed that was applied: a
    # message delivered again (Telegram repeats updates whose offset was not confirmed) is
    # not applied twice.
    last_typed_id: Mapped[int | None] = mapped_column(BigInteger)
    joined_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    # The language the player reads (chosen with /language, else their client's), read in
    # the players' own SELECT (no extra round trip), as ``Game.chat_title`` is.
    reader_language: Mapped[str | None] = column_property(
        select(func.coalesce(User.chosen_language, User.language)).where(User.id == user_id)
        .correlate_except(User).scalar_subquery(), expire_on_flush=False)
    # Whether private messages reach the player (``User.can_message``), read likewise: a new
    # hand's private messages go to those (so a hand costs no query of its own for it).
    reader_reachable: Mapped[bool | None] = column_property(
        select(User.can_message).where(User.id == user_id)
        .correlate_except(User).scalar_subquery(), expire_on_flush=False)
    # Whether the player's round-ending moves ask to be confirmed (``User.confirm_ending``), read
    # likewise: their move keyboard is drawn without a query of its own.
    reader_confirms: Mapped[bool | None] = column_property(
        select(User.confirm_ending).where(User.id == user_id)
        .correlate_except(User).scalar_subquery(), expire_on_flush=False)

    # The player's private message and its hand, as the deliveries recorded them
    # (``PrivateMessage``), read likewise.
    private_message_id: Mapped[int | None] = column_property(
        select(PrivateMessage.message_id).where(PrivateMessage.game_id == game_id,
                                                PrivateMessage.user_id == user_id)
        .correlate_except(PrivateMessage).scalar_subquery(), expire_on_flush=False)
    private_hand: Mapped[int | None] = column_property(
        select(PrivateMessage.hand).where(PrivateMessage.game_id == game_id,
                                          PrivateMessage.user_id == user_id)
        .correlate_except(PrivateMessage).scalar_subquery(), expire_on_flush=False)
    private_acting: Mapped[bool | None] = column_property(
        select(PrivateMessage.acting).where(PrivateMessage.game_id == game_id,
                                            PrivateMessage.user_id == user_id)
        .correlate_except(PrivateMessage).scalar_subquery(), expire_on_flush=False)

    game: Mapped[Game] = relationship(back_populates="players")


class GameEvent(Base):
    """The append-only log: one row per accepted change, in ``seq`` order. ``action`` is what
    was asked (``None`` for the deal at start), ``events`` what the engine said happened;
    replaying the actions from the game's seed rebuilds the state exactly."""

    __tablename__ = "game_events"
    __table_args__ = (UniqueConstraint("game_id", "seq", name="uq_game_events_game_seq"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
    seq: Mapped[int] = mapped_column(Integer)
    seat: Mapped[int | None] = mapped_column(Integer)
    user_id: Mapped[int | None] = mapped_column(BigInteger)
    action: Mapped[dict[str, Any] | None] = mapped_column(JSONType)
    events: Mapped[list[dict[str, Any]]] = mapped_column(JSONType)
    version: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class InboxItem(Base):
    """A request received from the platform (for the bot: one Telegram update), stored before
    the platform is told it arrived, so a crash loses nothing. ``id`` is the platform's own
    id (Telegram's ``update_id``: unique, increasing in order of arrival), so a repeat is
    dropped by the primary key. ``lane``: the key whose requests are handled one at a time
    and in order (a game, or a chat's topic); ``payload``: the raw request as JSON;
    ``done_at``: set in the transaction of the change the request caused (or after a
    request that changed nothing was handled). See :mod:`league.store.inbox`."""

    __tablename__ = "inbox"
    __table_args__ = (
        Index("ix_inbox_undone", "id", postgresql_where=text("done_at IS NULL"),
              sqlite_where=text("done_at IS NULL")),
        Index("ix_inbox_received", "received_at"),
    )

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    lane: Mapped[str] = mapped_column(String(64))
    payload: Mapped[dict[str, Any]] = mapped_column(JSONType)
    received_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    done_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    # Until when a replay (``telegram_app.transport.intake``) has taken the undone item: another
    # process's replay leaves it alone until then.
    taken_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True),
                                                         nullable=True)


class NotifySubscription(Base):
    """A user who asked (``/notify`` in a group, or the lobby's 🔔) to be told privately
    when the next lobby opens in that group. ``told_game_id``: the latest lobby they were
    told of (or skipped for), so each lobby tells them at most once."""

    __tablename__ = "notify_subscriptions"

    chat_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    user_id: Mapped[int] = mapped_column(BigInteger, ForeignKey("users.id"), primary_key=True,
                                         autoincrement=False)
    told_game_id: Mapped[int | None] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


# (their tables, in Base.metadata)
from league.store import rating_models, tournament_models  # noqa: E402,F401
