"""One package per game: its Telegram face behind :class:`telegram_app.games.base.GameUI`."""
