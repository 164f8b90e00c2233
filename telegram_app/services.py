"""The objects every handler needs, built once per Application and kept in ``bot_data``."""

from __future__ import annotations

from dataclasses import dataclass

from telegram.ext import ContextTypes

from league.service import MatchService
from league.store.db import Database
from telegram_app.presenter import Presenter
from telegram_app.transport.messenger import Messenger

KEY = "coyote"


@dataclass
class BotServices:
    """The database, the match service and the message side of the bot."""

    db: Database
    service: MatchService
    messenger: Messenger
    presenter: Presenter


def services(context: ContextTypes.DEFAULT_TYPE) -> BotServices:
    """The :class:`BotServices` of the running Application."""
    return context.application.bot_data[KEY]
