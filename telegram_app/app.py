"""Builds the python-telegram-bot Application from settings, in one place, so the production
entry point and the tests run exactly the same bot."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime, timedelta
from typing import Any

from pydantic import ValidationError
from sqlalchemy.engine import make_url
from telegram import BotCommand, Update
from telegram.error import BadRequest, Forbidden, InvalidToken, NetworkError, TelegramError
from telegram.ext import (
    Application,
    ApplicationBuilder,
    CallbackQueryHandler,
    ChatMemberHandler,
    CommandHandler,
    ContextTypes,
    MessageHandler,
    TypeHandler,
    filters,
)

from league.service import MatchService
from league.store.db import Database, upgrade
from league.store.inbox import CURRENT, Inbox
from league.store.orm import utcnow
from telegram_app import miniapp, startup
from telegram_app.config import Settings
from telegram_app.handlers import (
    admin,
    buttons,
    commands,
    language,
    league,
    members,
    notify,
    preferences,
)
from telegram_app.i18n import DEFAULT_LANGUAGE, SUPPORTED, _, use_language
from telegram_app.miniapp import links
from telegram_app.presenter import Presenter
from telegram_app.services import KEY, BotServices
from telegram_app.tournaments import handlers as tournaments
from telegram_app.transport.aiohttp_request import AiohttpRequest
from telegram_app.transport.intake import KEY as INTAKE
from telegram_app.transport.intake import InboxBot, Intake, LaneProcessor, replay_job
from telegram_app.transport.messenger import Messenger
from telegram_app.transport.outage import answer_outage, is_outage
from telegram_app.transport.ratelimit import ChatRateLimiter
from telegram_app.transport.scheduler import bounded_stop, finish_jobs, schedule

log = logging.getLogger(__name__)
WEB_STOP_GRACE = 1  # seconds a web request under way gets when the web app stops (_hang_up)
ALLOWED_UPDATES = Update.ALL_TYPES
"""Every update type, ``chat_member`` included (Telegram sends it only when asked, and only
to a bot that administers the group): who leaves the group leaves its games."""


class BotApplication(Application):
    """PTB's Application whose stop has a bound (``transport.scheduler.bounded_stop``):
    ``run_polling``, :func:`serve` and the tests' runner all stop through it."""

    __slots__ = ()

    async def stop(self) -> None:
        await bounded_stop(self, super().stop)


def build_application(settings: Settings, *, migrate: bool = True,
                      clock: Callable[[], datetime] = utcnow) -> Application:
    """The bot, configured from ``settings``; ``migrate`` brings the schema to the latest
    Alembic revision in ``post_init`` (in a worker thread: Alembic is synchronous); ``clock``
    is the league's time (tests pass a controlled one)."""
    db = Database(settings.database_url)
    limiter = ChatRateLimiter(overall_max_rate=settings.telegram_overall_rate,
                              group_max_rate=settings.telegram_group_rate, max_retries=3)
    processor = LaneProcessor()
    concurrency = settings.update_concurrency or (16 if db.dialect == "postgresql" else 1)

    async def post_init(app: Application) -> None:
        if migrate:
            await asyncio.to_thread(upgrade, settings.database_url)
        intake = Intake(app, Inbox(db), concurrency=concurrency, grace=settings.inbox_grace,
                        keep=timedelta(hours=settings.inbox_keep_hours))
        app.bot_data[INTAKE] = intake
        processor.intake = intake
        if isinstance(app.bot, InboxBot):
            app.bot.attach(intake.received)
        service = MatchService(db, clock=clock)
        messenger = Messenger(app.bot, service)
        app.bot_data[KEY] = BotServices(db, service, messenger,
                                         Presenter(messenger, service, intake.outage))
        links.configure(settings.miniapp_url, settings.miniapp_short_name, app.bot.username)
        await set_commands(app)

    async def post_shutdown(app: Application) -> None:
        await db.dispose()
        log.info("stopped")

    bot = InboxBot(token=settings.telegram_bot_token.get_secret_value(),
                   base_url=settings.telegram_base_url, rate_limiter=limiter,
                   request=AiohttpRequest(connection_pool_size=256),
                   get_updates_request=AiohttpRequest(connection_pool_size=1))
    app = (
        ApplicationBuilder()
        .application_class(BotApplication)
        .bot(bot)
        .concurrent_updates(processor)
        .post_init(post_init)
        .post_stop(finish_jobs)
        .post_shutdown(post_shutdown)
        .build()
    )
    add_handlers(app)
    schedule(app, settings.sweep_interval, settings.league_interval)
    assert app.job_queue is not None
    app.job_queue.run_repeating(replay_job, interval=settings.inbox_interval, first=0.05,
                                name="inbox", job_kwargs={"max_instances": 1, "coalesce": True})
    return app


def command_menu() -> list[BotCommand]:
    """The command menu, in the current language (``i18n.use_language``)."""
    return [
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
        BotCommand("tournament", _("Tournaments here: standings, or open one (admins)")),
        BotCommand("language", _("Choose the language I write to you in")),
        BotCommand("notify", _("Tell me when a new game opens here")),
        BotCommand("confirm", _("Confirm 🐺 Coyote! first: on or off")),
    ]


async def set_commands(app: Application) -> None:
    """``setMyCommands``: the English menu for every client, then one per other supported
    language (``language_code``), so a Korean client shows Korean descriptions."""
    for code in (None, *(c for c in SUPPORTED if c != DEFAULT_LANGUAGE)):
        with use_language(code):
            commands = command_menu()
        try:
            await app.bot.set_my_commands(commands, language_code=code)
        except TelegramError as exc:
            log.warning("setMyCommands (%s) failed: %s", code or "default", exc)


def add_handlers(app: Application) -> None:
    """Register every handler and the error handler. The language of an update's answers is
    set first (group -1, :func:`telegram_app.handlers.language.update_language`)."""
    new = filters.UpdateType.MESSAGE  # an edited message is not a new command or bid
    app.add_handler(TypeHandler(Update, language.update_language), group=-1)
    app.add_handler(CommandHandler("language", language.language_command, filters=new))
    app.add_handler(CommandHandler("newgame", commands.newgame, filters=new))
    app.add_handler(CommandHandler("cancel", commands.cancel, filters=new))
    app.add_handler(CommandHandler("leave", commands.leave, filters=new))
    app.add_handler(CommandHandler("help", commands.help_command, filters=new))
    app.add_handler(CommandHandler("rules", commands.rules, filters=new))
    app.add_handler(CommandHandler("start", commands.start, filters=new))
    app.add_handler(CommandHandler("notify", notify.notify_command, filters=new))
    app.add_handler(CommandHandler("confirm", preferences.confirm_command, filters=new))
    app.add_handler(CommandHandler("tournament", tournaments.tournament_command, filters=new))
    app.add_handler(CommandHandler("settings", admin.settings, filters=new))
    app.add_handler(CommandHandler("pause", admin.pause, filters=new))
    app.add_handler(CommandHandler("resume", admin.resume, filters=new))
    for name, handler in (("standings", league.standings), ("rating", league.rating),
                          ("profile", league.profile), ("history", league.history),
                          ("replay", league.replay), ("top", league.top)):
        app.add_handler(CommandHandler(name, handler, filters=new))
    app.add_handler(CallbackQueryHandler(buttons.on_button))
    app.add_handler(MessageHandler(
        new & filters.ChatType.PRIVATE & filters.TEXT & ~filters.COMMAND, commands.typed_move))
    app.add_handler(MessageHandler(filters.StatusUpdate.MIGRATE, commands.migrated))
    # Names from every update first (group -2 runs before the rest); who leaves
    # the group leaves its games.
    # Before the language (group -1): within one group only the first matching handler runs.
    app.add_handler(TypeHandler(Update, members.seen), group=-2)
    app.add_handler(MessageHandler(filters.StatusUpdate.LEFT_CHAT_MEMBER, members.left_chat))
    app.add_handler(ChatMemberHandler(members.member_changed, ChatMemberHandler.CHAT_MEMBER))
    app.add_handler(ChatMemberHandler(members.bot_added, ChatMemberHandler.MY_CHAT_MEMBER))
    app.add_error_handler(on_error)


async def on_error(update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Log the failure; answer a pending button press so the client stops spinning. A
    database outage is logged once (not per update) and answered with the outage note."""
    intake: Intake | None = context.application.bot_data.get(INTAKE)
    if intake is not None and is_outage(context.error):
        intake.outage.failed(context.error)  # type: ignore[arg-type]
        work = CURRENT.get()
        if work is not None:
            work.failed = True
        if isinstance(update, Update) and (work is None or not work.done):
            await answer_outage(update)
        return
    log.error("update %s failed", getattr(update, "update_id", "?"), exc_info=context.error)
    if isinstance(update, Update) and update.callback_query is not None:
        try:
            await update.callback_query.answer(_("Sorry, something went wrong. Please try "
                                                 "again."), show_alert=True)
        except TelegramError:
            pass


def main() -> None:
    """``python -m telegram_app``: run the bot in polling mode until interrupted. Exits with
    one log line when the settings are incomplete or invalid (status 78, which the systemd
    units do not restart), the database cannot be used (status 1), the token is refused
    (401, 403 or 404 to getMe: status 78), the web app's address cannot be used (status 1)
    or Telegram cannot be reached at start (status 1: a service manager restarts it). The
    token never appears in a log line (:mod:`telegram_app.startup`). SIGINT or SIGTERM runs
    the whole stop (post_stop, post_shutdown) and the process exits 0, with or without the
    web app."""
    handler = logging.StreamHandler()
    handler.setFormatter(startup.OneLine("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(level=logging.INFO, handlers=[handler])
    logging.getLogger("httpx").setLevel(logging.WARNING)
    logging.getLogger("apscheduler").setLevel(logging.WARNING)  # a line per tick otherwise
    logging.getLogger("alembic.runtime.plugins").setLevel(logging.WARNING)  # (7 each start)
    try:
        settings = Settings()  # type: ignore[call-arg]  # read from the environment
    except ValidationError as exc:  # (pydantic's messages never repeat the value: a secret)
        problems = "; ".join(f"{str(e['loc'][0]).upper()}: {e['msg']}" if e["loc"] else
                             e["msg"] for e in exc.errors())
        log.error("incomplete or invalid settings: %s (see README, Running the bot)",
                  problems)
        sys.exit(startup.REFUSED_STATUS)
    token = settings.telegram_bot_token.get_secret_value()
    secret = settings.telegram_webhook_secret
    # Before anything could log them: the token, the webhook's secret token and the
    # database's password.
    password = str(make_url(settings.database_url).password or "") \
        if settings.database_url else ""
    # (a password as short as a word, Compose's default "coyote", would mask that word
    # everywhere; the drivers never write the password itself)
    startup.redact_secrets([token, password if len(password) >= 8 else ""] +
                           ([secret.get_secret_value()] if secret else []))
    startup.check_token(token, settings.telegram_base_url)  # one line and exit if refused
    startup.prepare_database(settings.database_url)  # one line and exit if it cannot be used
    new_loop = event_loop_factory()
    app = build_application(settings, migrate=False)
    try:
        if settings.telegram_webhook_url or settings.web_listen_port:
            sockets = startup.listen(settings.web_listen_host, settings.web_listen_port or 8080)
            with asyncio.Runner(loop_factory=new_loop) as runner:
                runner.run(serve(app, settings, sockets=sockets))
        else:
            asyncio.set_event_loop(new_loop())  # (run_polling runs the current loop)
            app.run_polling(allowed_updates=ALLOWED_UPDATES)
    except (InvalidToken, Forbidden):  # refused between the check and the start
        log.error("Telegram refused TELEGRAM_BOT_TOKEN (see the line above)")
        sys.exit(startup.REFUSED_STATUS)
    except BadRequest as exc:  # (reached, and refused: setWebhook's URL, most likely)
        log.error("Telegram refused a request at start (%s): check TELEGRAM_WEBHOOK_URL and "
                  "TELEGRAM_BASE_URL", exc)
        sys.exit(1)
    except NetworkError as exc:
        log.error("Telegram cannot be reached at %s: %s", settings.telegram_base_url, exc)
        sys.exit(1)


def event_loop_factory() -> Callable[[], asyncio.AbstractEventLoop]:
    """What makes the bot process's event loop: uvloop's (libuv) when it is installed (a
    dependency on Linux and macOS), else asyncio's own. The same asyncio API, with less CPU
    in the loop and the HTTP client's sockets (about 6 % less bot CPU a press, measured).
    A factory, not an event loop policy (deprecated from Python 3.14)."""
    try:
        import uvloop
    except ImportError:  # (Windows, or a bare install)
        return asyncio.new_event_loop
    return uvloop.new_event_loop


def make_server(app: Application, settings: Settings, extra_routes: Sequence[Any] = ()
                ) -> Any:
    """The uvicorn server of the bot's web app (:mod:`telegram_app.transport.web`): the webhook at
    ``TELEGRAM_WEBHOOK_URL``'s path when set, ``/healthz``, ``/metrics`` and
    ``extra_routes`` (Starlette routes: the Mini App's). A request still under way when it
    stops is cut after :data:`WEB_STOP_GRACE` seconds (:func:`_hang_up`; uvicorn cancels it
    two seconds later if it still runs)."""
    import uvicorn

    from telegram_app.transport.web import create_web_app

    secret = settings.telegram_webhook_secret
    web = create_web_app(app, webhook_path=settings.webhook_path
                         if settings.telegram_webhook_url else None,
                         secret=secret.get_secret_value() if secret else None,
                         extra_routes=extra_routes)
    return uvicorn.Server(uvicorn.Config(
        web, host=settings.web_listen_host, port=settings.web_listen_port or 8080,
        log_level="warning", access_log=False, lifespan="off",
        log_config=None,  # its records go through the root's handlers (masked, one format)
        timeout_graceful_shutdown=WEB_STOP_GRACE + 2))


async def _hang_up(server: Any) -> None:
    """Once the web app stops (``server.should_exit``), close after :data:`WEB_STOP_GRACE`
    seconds the connections still open: uvicorn waits for every response to end, and a Mini
    App page's event stream lasts up to 25 s, past Docker's 10 s before its SIGKILL (a
    webhook's or a move's request takes milliseconds). The stream ends as when the network
    drops (Starlette sees the client gone), and the bot's stop begins in time for its bound
    (``scheduler.FINISH_TIMEOUT``)."""
    while not server.should_exit:  # noqa: ASYNC110  (uvicorn itself looks every 0.1 s)
        await asyncio.sleep(0.1)
    await asyncio.sleep(WEB_STOP_GRACE)
    state = getattr(server, "server_state", None)
    for connection in list(getattr(state, "connections", ())):
        transport = getattr(connection, "transport", None)
        if transport is not None:
            transport.close()


async def serve(app: Application, settings: Settings, server: Any = None,
                sockets: list[Any] | None = None) -> None:
    """Run the bot with its web app (``server``: :func:`make_server`'s by default) until
    SIGINT/SIGTERM or ``server.should_exit``: in webhook mode (``TELEGRAM_WEBHOOK_URL``)
    Telegram is told the URL and secret token (``setWebhook``); otherwise the bot polls and
    the web app serves ``/healthz``, ``/metrics`` and the Mini App (``/app``). The same start
    and stop order as ``run_polling``, which a signal runs to the end too
    (:func:`stop_on_signals`). ``sockets``: bound already (:func:`startup.listen`), else
    uvicorn binds its configured address."""
    server = server or make_server(app, settings, miniapp.routes(app))
    webhook = settings.webhook_endpoint  # (the path served: /telegram if the URL had none)
    secret = settings.telegram_webhook_secret
    with stop_on_signals(server):
        await app.initialize()
        try:
            if app.post_init:
                await app.post_init(app)
            await app.start()
            if webhook:
                await app.bot.set_webhook(webhook, secret_token=secret.get_secret_value()
                                          if secret else None, allowed_updates=ALLOWED_UPDATES)
            else:
                await app.bot.delete_webhook()
                assert app.updater is not None
                await app.updater.start_polling(allowed_updates=ALLOWED_UPDATES)
            hang_up = asyncio.get_running_loop().create_task(_hang_up(server))
            try:
                await server.serve(sockets=sockets)
            finally:
                hang_up.cancel()
        finally:
            if app.updater is not None and app.updater.running:
                await app.updater.stop()
            if app.running:
                await app.stop()
                if app.post_stop:
                    await app.post_stop(app)
            await app.shutdown()
            if app.post_shutdown:
                await app.post_shutdown(app)


@contextlib.contextmanager
def stop_on_signals(server: Any) -> Iterator[None]:
    """SIGINT and SIGTERM (what systemd and Docker send) set ``server.should_exit`` while
    :func:`serve` runs: the web app closes, :func:`serve` stops the bot as ``run_polling``
    does (deliveries drained, database closed) and the process exits 0. uvicorn's
    ``Server.serve`` replaces the handlers it finds while it runs, then puts them back and
    raises the signal it caught again, for them: Python's default ones ended the process
    there (by the signal, or KeyboardInterrupt), before the bot's stop; ours take it and
    have nothing more to do. Only the main thread handles signals; a loop without
    ``add_signal_handler`` (Windows) leaves them to uvicorn."""
    loop = asyncio.get_running_loop()
    installed: list[signal.Signals] = []
    received: list[signal.Signals] = []

    def should_exit(sig: signal.Signals) -> None:
        if not received:
            log.info("%s received: stopping", sig.name)
        received.append(sig)
        server.should_exit = True

    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGINT, signal.SIGTERM):
            try:
                loop.add_signal_handler(sig, should_exit, sig)
            except NotImplementedError:
                break
            installed.append(sig)
    try:
        yield
    finally:
        for sig in installed:
            loop.remove_signal_handler(sig)
