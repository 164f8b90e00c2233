"""The part of a lobby message every game shares: the seated players, the count, the
⚠️ note for players the bot cannot message yet, and who starts the game."""

from __future__ import annotations

from engine import GAMES
from league.store.snapshots import GameSnapshot
from telegram_app.i18n import _, n_
from telegram_app.render.common import name_html, seat_label


def lobby_body(game: GameSnapshot, reachable: set[int]) -> list[str]:
    """The lobby's lines under a game's heading and options (group language: called from a
    renderer in the chat's language). ``reachable``: user ids the bot may message privately
    (the others get a ⚠️, and a line that names them and tells them and the host what to
    do)."""
    low, high = GAMES[game.kind].player_limits(game.options)
    lines = [f"{n}. {seat_label(player)}"
             f"{'' if player.is_ai or player.user_id in reachable else ' ⚠️'}"
             for n, player in enumerate(game.players, start=1)]
    lines += ["", _("Players: {n} (from {min} to {max}).").format(
        n=len(game.players), min=low, max=high)]
    host = game.player(game.creator_id)
    # Named, and the host told what it means: a game started with them opens on turns
    # nobody can play (their cards are in a private message they cannot get).
    unreachable = [p for p in game.players if not p.is_ai and p.user_id not in reachable]
    if unreachable:
        lines.append(n_(
            "⚠️ {names} has not started a private chat with me yet, so I cannot send them "
            "their cards: tap “Private chat” below and press Start.",
            "⚠️ {names} have not started a private chat with me yet, so I cannot send them "
            "their cards: each of them, tap “Private chat” below and press Start.",
            len(unreachable)).format(names=", ".join(name_html(p) for p in unreachable)))
        if any(p.user_id != game.creator_id for p in unreachable):
            lines.append(_("{name}, please wait for them before you start: without their "
                           "cards, their turns would only run out of time.").format(
                name=name_html(host) if host else "?"))
    lines.append(_("{name} (the host) sets the options and starts the game.").format(
        name=name_html(host) if host else "?"))
    return lines
