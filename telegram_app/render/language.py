"""The language each message is drawn in, decided where it is drawn.

A group's messages (lobby, table, notes, showdowns) are in the chat's language
(``GameSnapshot.language``); a player's private view and keyboard in the player's
(``PlayerInfo.language``; the group's when theirs is unknown). The render functions carry
these decorators, so whoever asks for a message (a press, a command, the sweeper) gets it in
its reader's language without choosing.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from functools import wraps
from typing import ParamSpec, TypeVar

from league.store.snapshots import GameSnapshot, PlayerInfo
from telegram_app.i18n import use_language

P = ParamSpec("P")
R = TypeVar("R")


def for_chat(game: GameSnapshot) -> AbstractContextManager[str]:
    """Render in the language of ``game``'s group."""
    return use_language(game.language)


def for_player(game: GameSnapshot, player: PlayerInfo | None) -> AbstractContextManager[str]:
    """Render in ``player``'s language; for a player whose language is unknown (their
    Telegram app sends none, and they chose none with /language), in the language of
    ``game``'s group, the best guess (else English)."""
    known = player.language if player is not None else None
    return use_language(known or game.language)


def for_seat(game: GameSnapshot, seat: int | None) -> AbstractContextManager[str]:
    """Render in the language of the player in ``seat``."""
    player = next((p for p in game.players if p.seat == seat), None) if seat is not None \
        else None
    return for_player(game, player)


def in_chat_language(render: Callable[P, R]) -> Callable[P, R]:
    """``render(game, …)`` drawn in the language of the game's group."""
    @wraps(render)
    def drawn(*args: P.args, **kwargs: P.kwargs) -> R:
        game = args[0]
        assert isinstance(game, GameSnapshot)
        with for_chat(game):
            return render(*args, **kwargs)
    return drawn


def in_seat_language(render: Callable[P, R]) -> Callable[P, R]:
    """``render(game, seat, …)`` drawn in the language of the player in ``seat``."""
    @wraps(render)
    def drawn(*args: P.args, **kwargs: P.kwargs) -> R:
        game, seat = args[0], args[1]
        assert isinstance(game, GameSnapshot)
        with for_seat(game, seat if isinstance(seat, int) else None):
            return render(*args, **kwargs)
    return drawn


def in_reader_language(render: Callable[P, R]) -> Callable[..., R]:
    """``render(game, …, reader=None)``: drawn in ``reader``'s language (a
    :class:`PlayerInfo`: a private message), else in the group's."""
    @wraps(render)
    def drawn(*args: P.args, **kwargs: P.kwargs) -> R:
        game, reader = args[0], kwargs.pop("reader", None)
        assert isinstance(game, GameSnapshot)
        with for_player(game, reader) if isinstance(reader, PlayerInfo) else for_chat(game):
            return render(*args, **kwargs)
    return drawn
