"""Coyote in Telegram: screens, keyboards, callback verbs, reports, rules and alerts; its
:class:`~telegram_app.games.coyote.ui.CoyoteUI` is registered under ``"coyote"``."""

from telegram_app.games.coyote.ui import UI
from telegram_app.games.registry import register

register(UI)
