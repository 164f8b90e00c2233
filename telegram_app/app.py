"""Builds the python-telegram-bot Application from settings, in one place, so the production
entry point and the tests run exactly the same bot."""

from __future__ import annotations

import asyncio
import logging
import sys
from collections.abc import Callable
from datetime import datetime

from pydantic import ValidationError
from telegram import BotCommand, Update
from telegram.error import InvalidToken, NetworkError, TelegramError
from telegram.ext import (
    Application,
    ApplicationBuilder,
    CallbackQueryHandler,
    CommandHandler,
    ContextTypes,
    MessageHandler,
    filters,
)

from league.db import Database, upgrade
from league.models import utcnow
from league.service import MatchService
from telegram_app.context import KEY, BotServices
from telegram_app.handlers import admin, buttons, commands, league
from telegram_app.i18n import _
from telegram_app.messenger import Messenger
from telegram_app.presenter import Presenter
from telegram_app.ratelimit import ChatRateLimiter
from telegram_app.scheduler import finish_jobs, schedule
from telegram_app.settings import Settings

log = logging.getLogger(__name__)


def build_application(settings: Settings, *, migrate: bool = True,
                      clock: Callable[[], datetime] = utcnow) -> Application:
    """The bot, configured from ``settings``; ``migrate`` brings the schema to the latest
    Alembic revision in ``post_init`` (in a worker thread: Alembic is synchronous); ``clock``
    is the league's time (tests pass a controlled one)."""
    db = Database(settings.database_url)
    limiter = ChatRateLimiter(overall_max_rate=settings.telegram_overall_rate,
                              group_max_rate=settings.telegram_group_rate, max_retries=3)

    async def post_init(app: Application) -> None:
        if migrate:
            await asyncio.to_thread(upgrade, settings.database_url)
        service = MatchService(db, clock=clock)
        messenger = Messenger(app.bot, service)
        app.bot_data[KEY] = BotServices(db, service, messenger, Presenter(messenger, service))
        try:
            await app.bot.set_my_commands([
                BotCommand("newgame", _("Open a Coyote lobby")),
                BotCommand("leave", _("Quit the running game")),
                BotCommand("cancel", _("Cancel the open game")),
                BotCommand("rules", _("How to play")),
                BotCommand("help", _("What I can do")),
                BotCommand("settings", _("Defaults for new games (admins)")),
                BotCommand("pause", _("Stop the game clock (admins)")),
                BotCommand("resume", _("Restart the game clock (admins)")),
                BotCommand("standings", _("This week's table (last, season)")),
                BotCommand("rating", _("Your Elo, or the replied-to player's")),
                BotCommand("profile", _("Your stats and Elo chart")),
                BotCommand("history", _("The last games here")),
                BotCommand("replay", _("A game move by move: /replay ID")),
                BotCommand("top", _("The overall leaderboard")),
            ])
        except TelegramError as exc:
            log.warning("setMyCommands failed: %s", exc)

    async def post_shutdown(app: Application) -> None:
        await db.dispose()

    app = (
        ApplicationBuilder()
        .token(settings.telegram_bot_token.get_secret_value())
        .base_url(settings.telegram_base_url)
        .rate_limiter(limiter)
        .post_init(post_init)
        .post_stop(finish_jobs)
        .post_shutdown(post_shutdown)
        .build()
    )
    add_handlers(app)
    schedule(app, settings.sweep_interval, settings.league_interval)
    return app


def add_handlers(app: Application) -> None:
    """Register every handler and the error handler."""
    new = filters.UpdateType.MESSAGE  # an edited message is not a new command or bid
    app.add_handler(CommandHandler("newgame", commands.newgame, filters=new))
    app.add_handler(CommandHandler("cancel", commands.cancel, filters=new))
    app.add_handler(CommandHandler("leave", commands.leave, filters=new))
    app.add_handler(CommandHandler("help", commands.help_command, filters=new))
    app.add_handler(CommandHandler("rules", commands.rules, filters=new))
    app.add_handler(CommandHandler("start", commands.start, filters=new))
    app.add_handler(CommandHandler("settings", admin.settings, filters=new))
    app.add_handler(CommandHandler("pause", admin.pause, filters=new))
    app.add_handler(CommandHandler("resume", admin.resume, filters=new))
    for name, handler in (("standings", league.standings), ("rating", league.rating),
                          ("profile", league.profile), ("history", league.history),
                          ("replay", league.replay), ("top", league.top)):
        app.add_handler(CommandHandler(name, handler, filters=new))
    app.add_handler(CallbackQueryHandler(buttons.on_button))
    app.add_handler(MessageHandler(
        new & filters.ChatType.PRIVATE & filters.TEXT & ~filters.COMMAND, commands.typed_bid))
    app.add_handler(MessageHandler(filters.StatusUpdate.MIGRATE, commands.migrated))
    app.add_error_handler(on_error)


async def on_error(update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Log the failure; answer a pending button press so the client stops spinning."""
    log.error("update %s failed", getattr(update, "update_id", "?"), exc_info=context.error)
    if isinstance(update, Update) and update.callback_query is not None:
        try:
            await update.callback_query.answer(_("Sorry, something went wrong. Please try "
                                                 "again."), show_alert=True)
        except TelegramError:
            pass


def main() -> None:
    """``python -m telegram_app``: run the bot in polling mode until interrupted. Exits with
    status 1 and one log line when the settings are incomplete, the token is refused or
    Telegram cannot be reached at start (a service manager restarts it)."""
    logging.basicConfig(level=logging.INFO,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.getLogger("httpx").setLevel(logging.WARNING)
    logging.getLogger("apscheduler").setLevel(logging.WARNING)  # a line per tick otherwise
    try:
        settings = Settings()  # type: ignore[call-arg]  # read from the environment
    except ValidationError as exc:
        missing = ", ".join(str(e["loc"][0]).upper() for e in exc.errors())
        log.error("incomplete or invalid settings: %s (see README, Running the bot)", missing)
        sys.exit(1)
    app = build_application(settings)
    try:
        app.run_polling(allowed_updates=Update.ALL_TYPES)
    except InvalidToken:
        log.error("Telegram refused TELEGRAM_BOT_TOKEN")
        sys.exit(1)
    except NetworkError as exc:
        log.error("Telegram cannot be reached at %s: %s", settings.telegram_base_url, exc)
        sys.exit(1)
