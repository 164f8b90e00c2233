"""The part of a lobby message every game shares: the seated players, the count, the
⚠️ note for players the bot cannot message yet, and who starts the game."""

from __future__ import annotations

from engine import GAMES
from league.snapshots import GameSnapshot
from telegram_app.i18n import _
from telegram_app.render.common import name_html, seat_label


def lobby_body(game: GameSnapshot, reachable: set[int]) -> list[str]:
    """The lobby's lines under a game's heading and options (group language: called from a
    renderer in the chat's language). ``reachable``: user ids the bot may message privately
    (the others get a ⚠️)."""
    low, high = GAMES[game.kind].player_limits(game.options)
    lines = [f"{n}. {seat_label(player)}"
             f"{'' if player.is_ai or player.user_id in reachable else ' ⚠️'}"
             for n, player in enumerate(game.players, start=1)]
    lines += ["", _("Players: {n} (from {min} to {max}).").format(
        n=len(game.players), min=low, max=high)]
    if any(p.user_id not in reachable for p in game.players if not p.is_ai):
        lines.append(_("⚠️ I cannot message you privately yet: tap “Private chat” and press "
                       "Start, so I can show you the cards."))
    host = game.player(game.creator_id)
    lines.append(_("{name} (the host) sets the options and starts the game.").format(
        name=name_html(host) if host else "?"))
    return lines
