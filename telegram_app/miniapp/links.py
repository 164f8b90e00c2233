"""How the chats open the Mini App: a ``web_app`` button on a player's private message (Telegram
allows those only in private chats) and the Mini App's direct link
``https://t.me/<bot>/<short name>?startapp=g<id>`` on the group's table. Both name the game
in the start parameter (``t<id>``: a tournament's page, :func:`tournament_row`). Unset
settings (``MINIAPP_URL``, ``MINIAPP_SHORT_NAME``) mean no button.

Configured once per process by the Application (:func:`configure`): the keyboards are drawn
far from any settings object, and one process runs one bot."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlencode

from telegram import InlineKeyboardButton, WebAppInfo

from telegram_app.i18n import _


@dataclass
class Links:
    """``url``: the page (``https://host/app/``); ``short_name``: the Mini App's name at
    @BotFather; ``bot_username``: known after ``getMe``."""

    url: str | None = None
    short_name: str | None = None
    bot_username: str | None = None


LINKS = Links()


def configure(url: str | None, short_name: str | None, bot_username: str | None) -> None:
    """Set the process's Mini App links (``None`` turns a button off)."""
    LINKS.url, LINKS.short_name, LINKS.bot_username = url or None, short_name or None, \
        bot_username or None


def private_row(game_id: int) -> list[InlineKeyboardButton]:
    """``[🃏 Open the table]`` as a ``web_app`` button, or ``[]`` without ``MINIAPP_URL``."""
    if not LINKS.url:
        return []
    sep = "&" if "?" in LINKS.url else "?"
    return [InlineKeyboardButton(_("🃏 Open the table"), web_app=WebAppInfo(
        f"{LINKS.url}{sep}{urlencode({'start': f'g{game_id}'})}"))]


def group_row(game_id: int) -> list[InlineKeyboardButton]:
    """``[🃏 Open the table]`` as the direct link, or ``[]`` without a short name or the
    bot's username."""
    url = direct_link(f"g{game_id}")
    return [InlineKeyboardButton(_("🃏 Open the table"), url=url)] if url else []


def direct_link(start: str) -> str | None:
    """The Mini App's direct link opening on ``start`` (``g<id>``, ``t<id>``, ``c<chat>``),
    or ``None`` without a short name or the bot's username."""
    if not (LINKS.url and LINKS.short_name and LINKS.bot_username):
        return None
    return f"https://t.me/{LINKS.bot_username}/{LINKS.short_name}?startapp={start}"


def tournament_row(tournament_id: int) -> list[InlineKeyboardButton]:
    """``[🏆 Standings and tables]``: the direct link to the tournament's page (a group's
    message, such as a round's announcement: a direct link works in any chat), or ``[]``
    without the settings."""
    url = direct_link(f"t{tournament_id}")
    return [InlineKeyboardButton(_("🏆 Standings and tables"), url=url)] if url else []
