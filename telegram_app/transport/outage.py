"""Database outages: which errors are one, one warning per outage, the answer users get."""

from __future__ import annotations

import logging
import time

from sqlalchemy import exc as sa_exc
from telegram import Update
from telegram.error import TelegramError

from telegram_app.i18n import _

log = logging.getLogger(__name__)
# Lock timeout, deadlock, serialization failure, cancelled: the server answered after all.
ANSWERED = frozenset({"55P03", "40P01", "40001", "57014"})


def sqlstate(err: BaseException) -> str | None:
    return getattr(getattr(err, "orig", None), "sqlstate", None) or getattr(err, "sqlstate", None)


def is_outage(error: BaseException | None) -> bool:
    """Whether ``error`` (or its cause) says the database cannot be reached."""
    seen = 0
    while error is not None and seen < 5:
        if sqlstate(error) in ANSWERED:
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

    def failed(self, error: BaseException) -> None:
        if self.since is None:
            self.since = time.monotonic()
            first = str(error).strip().splitlines()[0][:200] if str(error).strip() else ""
            log.warning("the database cannot be reached (%s: %s); answering that nothing "
                        "was changed until it is back", type(error).__name__, first)

    def ok(self) -> None:
        if self.since is not None:
            log.warning("the database is reachable again after %.1f s",
                        time.monotonic() - self.since)
            self.since = None


def answerable(update: Update) -> bool:
    """Whether :func:`answer_outage` tells anyone (else the update is handled later)."""
    message = update.message
    return update.callback_query is not None or (
        message is not None and message.text is not None
        and (message.text.startswith("/") or message.chat.type == "private"))


async def answer_outage(update: Update) -> None:
    """Tell the sender nothing was changed (an alert for a press, else a reply)."""
    text = _("I can't reach my records right now; nothing was changed — please try again in "
             "a moment.")
    try:
        if update.callback_query is not None:
            await update.callback_query.answer(text, show_alert=True)
        elif update.message is not None and answerable(update):
            await update.message.reply_text(text, do_quote=True)
    except TelegramError as exc:
        log.info("could not tell about the outage: %s", exc)
