"""The part of a lobby message every game shares: the seated players, the count, the
🔕 hint for players the bot cannot message yet, and who starts the game."""

from __future__ import annotations

from engine import GAMES
from league.store.snapshots import GameSnapshot
from telegram_app.i18n import _, join_list, n_
from telegram_app.render.common import name_html, seat_label


def lobby_body(game: GameSnapshot, reachable: set[int]) -> list[str]:
    """The lobby's lines under a game's heading and options (group language: called from a
    renderer in the chat's language). ``reachable``: user ids the bot may message privately;
    the others get a 🔕, and a line that tells them they can play from the group (🎴 on the
    table) and how a private chat gets them a message on their turn. Nobody has to wait
    for them: it is a hint, not a warning."""
    low, high = GAMES[game.kind].player_limits(game.options)
    lines = [f"{n}. {seat_label(player)}"
             f"{'' if player.is_ai or player.user_id in reachable else ' 🔕'}"
             for n, player in enumerate(game.players, start=1)]
    lines += ["", _("Players: {n} (from {min} to {max}).").format(
        n=len(game.players), min=low, max=high)]
    host = game.player(game.creator_id)
    unreachable = [p for p in game.players if not p.is_ai and p.user_id not in reachable]
    if unreachable:
        lines.append(n_(
            "🔕 {names}: you can play from the group with 🎴 My cards. To get a message when "
            "it is your turn, tap “Private chat” below and press Start.",
            "🔕 {names}: you can play from the group with 🎴 My cards. To get a message when "
            "it is your turn, tap “Private chat” below and press Start.",
            len(unreachable)).format(names=join_list(name_html(p) for p in unreachable)))
    lines.append(_("{name} (the host) sets the options and starts the game.").format(
        name=name_html(host) if host else "?"))
    return lines
