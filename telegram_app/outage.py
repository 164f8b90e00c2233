"""Database outages, as the bot meets them: which errors are one, the one warning logged per
outage (not a traceback per update), and the polite answer a user gets meanwhile."""

from __future__ import annotations

import logging
import time

from sqlalchemy import exc as sa_exc
from telegram import Update
from telegram.error import TelegramError

from telegram_app.i18n import _

log = logging.getLogger(__name__)


ANSWERED = frozenset({"55P03", "40P01", "40001", "57014"})
"""SQLSTATEs of a server that answered (a lock wait timed out, a deadlock, a serialization
failure, a cancelled statement): psycopg raises them as ``OperationalError`` too, but the
database is reachable, so they are no outage."""


def is_outage(error: BaseException | None) -> bool:
    """Whether ``error`` says the database cannot be reached (connection refused or lost, the
    pool exhausted, a locked SQLite file), as opposed to a bug or a refusal of a reachable
    server (:data:`ANSWERED`)."""
    seen = 0
    while error is not None and seen < 5:
        if getattr(getattr(error, "orig", None), "sqlstate", None) in ANSWERED or \
                getattr(error, "sqlstate", None) in ANSWERED:
            return False
        if isinstance(error, sa_exc.OperationalError | sa_exc.InterfaceError |
                      sa_exc.TimeoutError | ConnectionError):
            return True
        if isinstance(error, sa_exc.DBAPIError) and error.connection_invalidated:
            return True
        if isinstance(error, OSError) and not isinstance(error, FileNotFoundError):
            return True
        error = error.__cause__ or error.__context__
        seen += 1
    return False


class OutageLog:
    """Logs one warning when the database stops answering and one line when it is back."""

    def __init__(self) -> None:
        self.since: float | None = None  # time.monotonic() of the first failure, while down

    @property
    def down(self) -> bool:
        return self.since is not None

    def failed(self, error: BaseException) -> None:
        """Record a failure; only the first of an outage is logged (no traceback)."""
        if self.since is None:
            self.since = time.monotonic()
            first = str(error).strip().splitlines()[0][:200] if str(error).strip() else ""
            log.warning("the database cannot be reached (%s: %s); answering that nothing "
                        "was changed until it is back", type(error).__name__, first)

    def ok(self) -> None:
        """Record a success; ends an outage (logged once)."""
        if self.since is not None:
            log.warning("the database is reachable again after %.1f s",
                        time.monotonic() - self.since)
            self.since = None


def outage_text() -> str:
    return _("I can't reach my records right now; nothing was changed — please try again in "
             "a moment.")


def answerable(update: Update) -> bool:
    """Whether :func:`answer_outage` tells ``update``'s sender anything (a press, a command,
    a private text); the rest (a departure from the group, a migration, chatter) has
    nobody to tell, so it must be handled later instead."""
    message = update.message
    return update.callback_query is not None or (
        message is not None and message.text is not None
        and (message.text.startswith("/") or message.chat.type == "private"))


async def answer_outage(update: Update) -> None:
    """Tell the sender of ``update`` that nothing was changed: an alert for a button press, a
    reply for a command or a private text (a group's chatter gets nothing). Telegram's own
    failures are ignored (nothing more can be done)."""
    try:
        if update.callback_query is not None:
            await update.callback_query.answer(outage_text(), show_alert=True)
        elif update.message is not None and answerable(update):
            await update.message.reply_text(outage_text(), do_quote=True)
    except TelegramError as exc:
        log.info("could not tell about the outage: %s", exc)
