"""Chat texts made plain for the page: the page sets them as text (never as HTML), so the
Telegram HTML the renderers produce is reduced to its characters here."""

from __future__ import annotations

import re
from html import unescape

from telegram_app.render.common import plain_name

TAG = re.compile(r"<[^>]+>")


ID_LIMIT = 2**63
"""Ids are 64-bit in the database: a longer number in a URL is no id (404, not a crash)."""


def id_of(raw: object, *, signed: bool = False, missing: str = "game_not_found") -> int:
    """A path or query id as an int; raises ``ServiceError(missing)`` (what the id names
    cannot be found: a game by default) for anything that is no 64-bit (``signed``: possibly
    negative, as chat ids are) decimal number."""
    from league.store.errors import ServiceError

    text = str(raw)
    digits = text[1:] if signed and text.startswith("-") else text
    if not digits.isascii() or not digits.isdigit() or len(digits) > 19 or \
            not -ID_LIMIT < int(text) < ID_LIMIT:
        raise ServiceError(missing)
    return int(text)


def chat_id_of(raw: object) -> int:
    """A chat id of a league page's path or query; raises ``league_not_found`` for anything
    that is none (a mangled link names no league, rather than a missing game)."""
    return id_of(raw, signed=True, missing="league_not_found")


def plain(html_text: str) -> str:
    """Telegram HTML as plain text (tags dropped, entities decoded)."""
    return unescape(TAG.sub("", html_text))


def clean_name(name: str, limit: int = 24) -> str:
    """A display name cut to ``limit`` characters, its bidi controls dropped (the page
    isolates every name with CSS ``unicode-bidi: isolate``)."""
    return plain_name(name, limit).strip("\u2068\u2069")


from telegram_app.i18n import current_language  # noqa: E402,F401  (re-exported)
from telegram_app.i18n import use_language as language  # noqa: E402,F401
