"""Plain, immutable copies of a game and its players, handed to callers after commit.

Callers (the bot) never touch ORM objects: a snapshot is safe to use after the session closed.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from league.store.clock import aware
from league.store.models import Game


@dataclass(frozen=True)
class UserRef:
    """A person as the platform describes them: numeric ``id`` and display names."""

    id: int
    first_name: str
    last_name: str | None = None
    username: str | None = None
    language: str | None = None

    @property
    def display_name(self) -> str:
        """First and last name, as the person set them (unescaped; escape before markup)."""
        return " ".join(p for p in (self.first_name, self.last_name) if p) or str(self.id)


@dataclass(frozen=True)
class EloChange:
    """A rated seat's Elo in one finished game (its ``RatingEvent``): ``before`` and
    ``after`` (Elo points, unrounded) and ``games``, the player's rated games of this kind up
    to and including this one (``league.tables.ratings.format_rating``: "?" while fewer than
    10)."""

    before: float
    after: float
    games: int

    @property
    def delta(self) -> float:
        """``after - before`` (Elo points)."""
        return self.after - self.before


@dataclass(frozen=True)
class PlayerInfo:
    """A seat: ``seat`` is ``None`` in the lobby; ``playing`` (still in the game, as
    ``Game.still_playing`` says) mirrors the state, and ``placement`` too until the game is
    over, then it is the league's place (``league.tables.places``: what every text shows);
    ``private_message_id`` is the player's private message of hand ``private_hand``, last
    drawn with the buttons of their turn if ``private_acting``."""

    user_id: int | None
    name: str
    seat: int | None
    is_ai: bool
    playing: bool
    placement: int | None
    private_message_id: int | None
    private_hand: int | None
    language: str | None = None
    """The language code the player reads (chosen, else their client's; ``None``: unknown)."""
    ai_level: str | None = None
    """A computer player's level (one of ``Game.ai_levels``; ``None`` for a human, and for a
    computer seat stored before levels, which plays ``normal``)."""
    reachable: bool | None = None
    """Whether private messages reach the player (``User.can_message`` as read with the
    game; ``None``: not read, ask the league). As fresh as the game's read: a player who
    starts the bot after it gets the hand's message from the next sweep (it looks for
    reachable players without one)."""
    rated: bool | None = None
    """Once the game is over, whether this human's result was rated (``league.tables.rated``: a
    human who never made a move of their own is placed but not rated); ``None`` before,
    for a computer, and for games finished before it was recorded."""
    private_acting: bool = False
    confirms_ending: bool = False
    """Whether this human's move that ends the round asks them to confirm it first
    (``User.confirm_ending``, on unless they turned it off; read with the game). ``False``
    for a computer, and in a snapshot not read from the database."""
    elo_change: EloChange | None = None
    """Once the game is over and rated for this human, their Elo change in it (read with the
    finished game: ``league.store.rows.attach_elo``); ``None`` otherwise: a computer, a
    human who was not rated, an unrated or unfinished game."""

    @property
    def level(self) -> str | None:
        """The level a computer player plays at (``None`` for a human)."""
        return (self.ai_level or "normal") if self.is_ai else None


@dataclass(frozen=True)
class GameSnapshot:
    """A game as committed: ``state`` is the engine's JSON state (``None`` in the lobby)."""

    id: int
    chat_id: int
    thread_id: int
    kind: str
    options: dict[str, Any]
    status: str
    version: int
    state: dict[str, Any] | None
    creator_id: int
    lobby_message_id: int | None
    table_message_id: int | None
    players: tuple[PlayerInfo, ...]
    deadline_at: datetime | None = None
    paused: bool = False
    reminder_message_id: int | None = None
    messages_chat_id: int | None = None
    """The chat the lobby and table messages were posted in (another than ``chat_id`` once
    the group became a supergroup)."""
    reminder_version: int | None = None
    chat_title: str | None = None
    """The group's title as last seen (``None``: never seen)."""
    topic_name: str | None = None
    """The forum topic's name as last seen (``None``: not in a topic, or never seen)."""
    language: str | None = None
    """The language code of the chat's messages (``None``: not set)."""
    hand: int | None = None
    """The hand being played (``Game.hand_number`` of ``state``; ``None`` in the lobby)."""
    told_version: int | None = None
    """The version up to which the group was told the moves, when read (``None``: never
    recorded; raised by a delivery, ``MatchService.delivering``)."""
    tournament_id: int | None = None
    """The tournament whose table this game is (``None``: a casual game), with its round
    and table number (from 1)."""
    tournament_round: int | None = None
    tournament_table: int | None = None

    def player(self, user_id: int) -> PlayerInfo | None:
        """The player with this user id, or ``None``."""
        return next((p for p in self.players if p.user_id == user_id), None)

    def at_seat(self, seat: int) -> PlayerInfo:
        """The player in ``seat``; raises ``KeyError`` for an empty seat."""
        for p in self.players:
            if p.seat == seat:
                return p
        raise KeyError(seat)

    @property
    def seated(self) -> list[PlayerInfo]:
        """Players in seat order (an empty list in the lobby)."""
        return sorted((p for p in self.players if p.seat is not None),
                      key=lambda p: p.seat or 0)


def snapshot(game: Game) -> GameSnapshot:
    """Copy a loaded :class:`~league.store.models.Game` (with its players, the languages
    ``league.store.rows.attach_languages`` read and, once finished, the Elo changes
    ``league.store.rows.attach_elo`` read) into a snapshot."""
    read: tuple[str | None, dict[int | None, tuple[str | None, bool | None, bool]]] | None = \
        getattr(game, "languages", None)
    chat_language, readers = read or (None, {})
    elo: dict[int, EloChange] = getattr(game, "elo_changes", None) or {}
    # (a computer, or not read)
    unread: tuple[str | None, bool | None, bool] = (None, None, False)
    return GameSnapshot(
        id=game.id, chat_id=game.chat_id, thread_id=game.thread_id, kind=game.kind,
        options=dict(game.options or {}), status=game.status, version=game.version,
        state=game.state, creator_id=game.creator_id, lobby_message_id=game.lobby_message_id,
        table_message_id=game.table_message_id,
        deadline_at=aware(game.deadline_at) if game.deadline_at else None,
        paused=game.paused_left is not None,
        reminder_message_id=game.reminder_message_id, reminder_version=game.reminder_version,
        messages_chat_id=game.messages_chat_id,
        chat_title=game.chat_title, topic_name=game.topic_name if game.thread_id else None,
        language=chat_language,
        told_version=game.told_version, hand=game.hand,
        tournament_id=game.tournament_id, tournament_round=game.tournament_round,
        tournament_table=game.tournament_table,
        players=tuple(
            PlayerInfo(p.user_id, p.name, p.seat, p.is_ai, p.playing is not False, p.placement,
                       p.private_message_id, p.private_hand,
                       readers.get(p.user_id, unread)[0], p.ai_level,
                       readers.get(p.user_id, unread)[1], p.rated,
                       private_acting=bool(p.private_acting),
                       confirms_ending=readers.get(p.user_id, unread)[2],
                       elo_change=elo.get(p.user_id) if p.user_id is not None else None)
            for p in game.players),
    )
