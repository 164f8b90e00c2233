"""Longer fixed texts: welcome and help (each game's rules are its UI's)."""

from __future__ import annotations

from html import escape as _escape

from babel.lists import format_list

from telegram_app.games.registry import UIS
from telegram_app.i18n import _, locale
from telegram_app.render.common import plain_name


def escape(text: str) -> str:
    """Escape user-provided text for Telegram HTML."""
    return _escape(text, quote=False)


def welcome_text() -> str:
    """The private /start answer."""
    return _("👋 Hi! I run <b>Coyote</b> games in group chats.\n\n"
             "Add me to a group and send /newgame there. During a game I send you here the "
             "cards you can see (everyone's but your own) and your move buttons.\n"
             "/rules explains the game.") + "".join(
        "\n" + line for ui in UIS.values() if (line := ui.help_lines()[0]))


def group_welcome_text(adder: str | None) -> str:
    """What the bot posts once in a group it was just added to: what it does, ``/newgame``,
    ``/help``, and why admin rights help. ``adder``: the display name of who added it
    (escaped here), ``None`` when that was no person (an anonymous admin)."""
    games = format_list([ui.game_name() for ui in UIS.values()], locale=locale())
    if adder is None:
        hello = _("👋 Thanks for adding me! I run card games in this group: {games}.").format(
            games=escape(games))
    else:
        hello = _("👋 Thanks for adding me, {name}! I run card games in this group: "
                  "{games}.").format(name=escape(plain_name(adder)), games=escape(games))
    return hello + "\n\n" + \
        _("/newgame opens a lobby; /help tells you everything I can do.") + "\n" + \
        _("Tip: make me an admin (any rights will do). Then I learn who leaves the group, "
          "and take a player who left out of their game.")


def help_text() -> str:
    """The /help answer."""
    return _("<b>Coyote League</b>\n\n"
             "/newgame [game] — open a lobby in this group\n"
             "/leave — quit the running game (you are placed last)\n"
             "/cancel — cancel the open game (a lobby: its opener or an admin; a running game: "
             "an admin, or its opener once no other human plays)\n"
             "/rules [game] — how to play\n"
             "/settings, /pause, /resume — for the group's admins\n"
             "/standings [last|season] — this group's league table\n"
             "/rating, /profile — Elo (yours, or reply to a player's message)\n"
             "/history, /replay ID — the last games here, and one game move by move\n"
             "/top — the overall leaderboard\n"
             "/help — this message") + "\n\n" + \
        _("During a game, 🎴 on the group's table shows you the cards you may see and your "
          "moves, right in the group. In a private chat with me you get them too, with a "
          "message when it is your turn.") + "".join(
        "\n" + line for ui in UIS.values() if (line := ui.help_lines()[1])) + "\n" + \
        _("Send /language to me in a private chat; a group's admins set the group's "
          "language with /settings.") + "\n" + \
        _("/notify in a group: I tell you in private when its next game opens (/notify off "
          "stops it). A finished game's 🔁 Rematch opens the same game again.") + "\n" + \
        _("/tournament — this group's tournaments (a chat admin opens one with /tournament "
          "and a game); /rules tournament explains them.")
