"""What the bot has shown of each game, as its deliveries recorded it: the group's
messages (:class:`GameMessages`), each player's private and ephemeral messages, and the
names of the forum topics games are played in. Written only by a game's deliveries
(``league.delivery``), never by a move; the game's own SELECT reads them
(:class:`league.store.models.Game`)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, Boolean, DateTime, ForeignKey, Integer, String, false
from sqlalchemy.orm import Mapped, mapped_column

from league.store.orm import Base, utcnow


class ForumTopic(Base):
    """A forum topic's name as the bot last saw it (its creation or an edit), so that a
    player's private messages can say which topic a game is in. ``thread_id`` is the
    topic's message thread id."""

    __tablename__ = "forum_topics"

    chat_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    thread_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    name: Mapped[str] = mapped_column(String(256))
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow,
                                                 onupdate=utcnow)


class GameMessages(Base):
    """What the group has been shown of a game: written only by its deliveries (under the
    game's delivery lock, ``league.delivery``), never by a move.

    ``told_version``: the version up to which the group has been told the moves (a move after
    which the same player acts again is told with their next one, a report that could not be
    sent with the next report: both from the log, so a restart loses neither); in a lobby,
    the version its message was last drawn at (no row: never drawn). The lobby's, the
    current table's and the last group reminder's message ids, and the chat they were posted
    in (``chat_id``: a group that became a supergroup has a new id, and its old messages are
    not the supergroup's)."""

    __tablename__ = "game_messages"

    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"),
                                         primary_key=True, autoincrement=False)
    told_version: Mapped[int | None] = mapped_column(Integer)
    # The version the messages were drawn at while a move's note is held (the same player
    # acts again): no sweep draws that game again until it changes.
    drawn_version: Mapped[int | None] = mapped_column(Integer)
    lobby_message_id: Mapped[int | None] = mapped_column(BigInteger)
    table_message_id: Mapped[int | None] = mapped_column(BigInteger)
    reminder_message_id: Mapped[int | None] = mapped_column(BigInteger)
    chat_id: Mapped[int | None] = mapped_column(BigInteger)


class PrivateMessage(Base):
    """A player's private message of a game: ``message_id`` shows hand ``hand``
    (``engine.Game.hand_number``); ``hand_first_id`` is the first private message of that
    hand (a turn's ping is a new message in the same hand): a number typed before it was
    meant for an earlier hand; ``turn_first_id`` the one that began their latest turn (its
    reminder is a newer one). ``acting``: it was last drawn with the buttons of the
    player's turn (a new message to them takes those out of play). Written only by the
    game's deliveries, like :class:`GameMessages`."""

    __tablename__ = "private_messages"

    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"),
                                         primary_key=True, autoincrement=False)
    # (indexed: a reply in the private chat is placed by its message among the user's games)
    user_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False,
                                         index=True)
    message_id: Mapped[int | None] = mapped_column(BigInteger)
    hand: Mapped[int | None] = mapped_column(Integer)
    hand_first_id: Mapped[int | None] = mapped_column(BigInteger)
    turn_first_id: Mapped[int | None] = mapped_column(BigInteger)
    acting: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())


class EphemeralMessage(Base):
    """A player's ephemeral message of a game: a message in the group ``chat_id`` that only
    that player sees (Bot API 10.2), ``message_id`` being Telegram's
    ``ephemeral_message_id`` there (reused by Telegram once the message is deleted or
    expires). It shows hand ``hand``; ``acting``: it was drawn with the player to act's
    buttons (so the end of that turn redraws it). Telegram does not promise that an offline
    player receives it or its edits: this row is what the bot keeps current, and 🎴 sends a
    new one. Written only by the game's deliveries, like :class:`PrivateMessage`, and read
    by them alone (``league.delivery.Delivery.ephemeral``)."""

    __tablename__ = "ephemeral_messages"

    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"),
                                         primary_key=True, autoincrement=False)
    user_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    chat_id: Mapped[int] = mapped_column(BigInteger)
    message_id: Mapped[int] = mapped_column(BigInteger)
    hand: Mapped[int | None] = mapped_column(Integer)
    acting: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
