"""Texts about turns that every game shares: the reminder of a turn's clock."""

from __future__ import annotations

from datetime import UTC

from league.store.snapshots import GameSnapshot, PlayerInfo
from telegram_app.i18n import _
from telegram_app.render.common import mention_html, time_html


def reminder_text(game: GameSnapshot, player: PlayerInfo, removal: bool = False) -> str:
    """The one reminder of a turn, at three quarters of its clock (mentions the player);
    ``removal``: running out of time will remove them from the game (the chat's policy, or a
    second timeout in a row)."""
    left = ""
    if game.deadline_at is not None:
        # (PostgreSQL hands a time back in its session's zone, which may not be UTC)
        left = time_html(game.deadline_at, "t",
                         game.deadline_at.astimezone(UTC).strftime("%H:%M UTC"))
    if removal:
        text = _("⏳ {name}, it is your turn in game #{id}: play before {time}, or you will be "
                 "removed from the game.")
    else:
        text = _("⏳ {name}, it is your turn in game #{id}: play before {time}, or the computer "
                 "plays for you.")
    return text.format(name=mention_html(player), id=game.id, time=left)
