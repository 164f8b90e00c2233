"""One package per game: its Telegram face behind :class:`telegram_app.games.base.GameUI`,
registered by kind in :data:`telegram_app.games.registry.UIS` (as ``engine.GAMES`` is for rules).
Importing this package registers every game the bot ships."""

from telegram_app.games import coyote as coyote  # noqa: F401  (registers "coyote")
from telegram_app.games import koira as koira  # noqa: F401  (registers "koira")
