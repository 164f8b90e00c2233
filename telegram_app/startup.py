"""Start-up hygiene: no secret in any log line, and a token Telegram refuses ends the process
with one line of ours.

:func:`redact_secrets` puts a :class:`Redact` filter on every handler of the root logger
(and on the loggers the bot and its libraries log to), so the bot token never reaches the
log: not in a message, its arguments, a traceback or a stack. PTB writes the token into the
text of the ``InvalidToken`` it raises at start, and httpx logs request URLs, which carry it.

:func:`check_token` asks Telegram ``getMe`` once before the bot starts: a refusal (401, 403,
404) or an unreachable Bot API exits the process with one log line that says what to do,
without PTB's tracebacks. :func:`prepare_database` does the same for ``DATABASE_URL``: an
SQLite file another process uses, a database that cannot be reached or whose schema is newer
than this code (a rollback) is one line naming it; then it migrates the schema, one log
line a migration.
"""

from __future__ import annotations

import asyncio
import logging
import re
import socket
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import IO
from urllib.parse import quote, unquote, urlsplit

from sqlalchemy.engine import make_url
from sqlalchemy.util import asbool
from telegram import Bot
from telegram.error import BadRequest, Forbidden, InvalidToken, NetworkError, TelegramError

log = logging.getLogger(__name__)

REFUSED_STATUS = 78
"""Exit status for settings that cannot work (``EX_CONFIG``): a token Telegram refuses, an
invalid or missing setting. Restarting cannot help, so the systemd units do not
(``RestartPreventExitStatus``)."""
UNREACHABLE_STATUS = 1
"""Exit status when Telegram cannot be reached or answers ``getMe`` with another error: a
service manager may well try again."""
MASK = "[redacted]"
LIBRARY_LOGGERS = ("telegram", "aiohttp", "httpx", "httpcore", "apscheduler", "asyncio",
                   "telegram_app", "league", "alembic", "sqlalchemy")
"""Loggers that get the filter themselves too (a record is filtered before any handler sees
it, whatever handlers are added later)."""


class Redact(logging.Filter):
    """Replaces each secret (and its URL-quoted form) by :data:`MASK` in a record's message,
    traceback and stack, whatever its length: a short secret masks ordinary words too, but
    a secret left in the log is worse (the settings refuse a short webhook secret)."""

    def __init__(self, secrets: Iterable[str]) -> None:
        super().__init__()
        self.secrets: list[str] = []
        self._pattern: re.Pattern[str] | None = None
        self.add(secrets)

    def add(self, secrets: Iterable[str]) -> None:
        """Mask these secrets as well."""
        for secret in secrets:
            for form in (secret, quote(secret, safe=""), quote(secret)):
                if form and form not in self.secrets:  # ("" would match everywhere)
                    self.secrets.append(form)
        self.secrets.sort(key=len, reverse=True)  # a longer form first: no half-masked token
        self._pattern = re.compile("|".join(map(re.escape, self.secrets)), re.IGNORECASE) \
            if self.secrets else None

    def redact(self, text: str) -> str:
        """``text`` with every secret masked, in any letter case (python-telegram-bot
        capitalises the error descriptions it shortens, lowering the rest of the line)."""
        if self._pattern is None:
            return text
        return self._pattern.sub(MASK, text)

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a bad format string: logging reports it; mask what is there
            message = str(record.msg)
        masked = self.redact(message)
        if masked != message or record.args:
            record.msg, record.args = masked, None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = self.redact(record.exc_text)
        if record.stack_info:
            record.stack_info = self.redact(record.stack_info)
        return True


def redact_secrets(secrets: Iterable[str]) -> Redact:
    """Mask ``secrets`` in every log line from now on (see the module docstring); calling it
    again adds secrets to the same filter. Returns the filter."""
    secrets = [s for s in secrets if s]
    root = logging.getLogger()
    existing = next((f for f in root.filters if isinstance(f, Redact)), None)
    if existing is not None:
        existing.add(secrets)
        return existing
    redact = Redact(secrets)
    root.addFilter(redact)
    for handler in root.handlers:
        handler.addFilter(redact)
    for name in LIBRARY_LOGGERS:
        logging.getLogger(name).addFilter(redact)
    # An exception nobody caught is logged (through the filter), not printed raw.
    sys.excepthook = _log_uncaught
    return redact


def _log_uncaught(kind: type[BaseException], value: BaseException, tb: object) -> None:
    if issubclass(kind, KeyboardInterrupt):
        sys.__excepthook__(kind, value, tb)  # type: ignore[arg-type]
        return
    log.critical("unhandled error", exc_info=(kind, value, tb))  # type: ignore[arg-type]


def check_token(token: str, base_url: str) -> None:
    """Ask ``getMe`` with ``token``; on a refusal or when Telegram cannot be reached, log one
    line and exit (:data:`REFUSED_STATUS` or :data:`UNREACHABLE_STATUS`)."""
    problem = asyncio.run(_get_me(token, base_url))
    if problem is not None:
        status, line = problem
        log.error("%s", line)
        sys.exit(status)


async def _get_me(token: str, base_url: str) -> tuple[int, str] | None:
    """``None`` if Telegram accepts the token, else the exit status and the line to log."""
    bot = Bot(token, base_url=base_url)
    try:
        await bot.get_me()
    except InvalidToken as exc:  # 401, or 404 (PTB raises InvalidToken for both)
        if "not found" in (exc.message or "").lower():
            return REFUSED_STATUS, (
                "Telegram answered 404 Not Found to TELEGRAM_BOT_TOKEN: the token is "
                "malformed or TELEGRAM_BASE_URL is wrong. Copy the token from @BotFather "
                "(/mybots, API Token) into TELEGRAM_BOT_TOKEN, check TELEGRAM_BASE_URL, and "
                "start the bot again.")
        return REFUSED_STATUS, (
            "Telegram refused TELEGRAM_BOT_TOKEN (401 Unauthorized): it is not a valid "
            "token, or it was revoked. Copy the current token from @BotFather (/mybots, API "
            "Token) into TELEGRAM_BOT_TOKEN and start the bot again.")
    except Forbidden:
        return REFUSED_STATUS, (
            "Telegram refused TELEGRAM_BOT_TOKEN (403 Forbidden): this bot is banned or "
            "deactivated. Ask @BotFather about it, or create a new bot and put its token in "
            "TELEGRAM_BOT_TOKEN, then start the bot again.")
    except NetworkError as exc:
        if isinstance(exc, BadRequest):
            return UNREACHABLE_STATUS, (
                f"Telegram answered getMe with an error (BadRequest: {exc}); check "
                "TELEGRAM_BASE_URL.")
        return UNREACHABLE_STATUS, (
            f"Telegram cannot be reached at {base_url} ({type(exc).__name__}: {exc}); check "
            "the network and TELEGRAM_BASE_URL.")
    except TelegramError as exc:
        return UNREACHABLE_STATUS, (
            f"Telegram answered getMe with an error ({type(exc).__name__}: {exc}); trying "
            "again later may help.")
    finally:
        await asyncio.gather(bot.request.shutdown(), return_exceptions=True)
    return None


_held: list[IO[bytes]] = []  # the SQLite file's lock, held until the process ends


def prepare_database(url: str | None) -> None:
    """Before the bot starts: hold the SQLite file (the embedded default: one process a
    file, README's Known limits), then bring the schema to the latest migration. A file
    another process holds, or a database that cannot be used, logs one line naming
    ``DATABASE_URL`` and exits with status 1 (a service manager may try again)."""
    from league.store.db import DEFAULT_URL, upgrade

    path = sqlite_file(url or DEFAULT_URL)
    if path is not None:
        if not _hold(path):
            log.error("DATABASE_URL: the SQLite file %s is in use by another bot process "
                      "(one process a file; for more, use PostgreSQL)", path)
            sys.exit(UNREACHABLE_STATUS)
    logging.getLogger("alembic.runtime.migration").addFilter(_first_line)
    try:
        upgrade(url)
    except Exception as exc:  # (not the URL: it may hold a password; the driver's words do not)
        reason = str(getattr(exc, "orig", None) or exc).strip().split("\n")[0]
        log.error("DATABASE_URL: the database cannot be used (%s: %s)",
                  type(exc).__name__, reason[:300])
        sys.exit(UNREACHABLE_STATUS)


def sqlite_file(url: str) -> Path | None:
    """The file an SQLite ``url`` opens (``None``: another database, or one in memory). A
    URI (``sqlite:///file:data/x.db?uri=true``) names it between ``file:`` and its query."""
    parsed = make_url(url)
    database = parsed.database or ""
    if parsed.get_backend_name() != "sqlite":
        return None
    if asbool(parsed.query.get("uri", False)) and database.startswith("file:"):
        if parsed.query.get("mode") == "memory":
            return None
        database = unquote(urlsplit(database).path)
    return Path(database) if database not in ("", ":memory:") else None


def _hold(path: Path) -> bool:
    """Lock ``path`` (created if missing: SQLite takes an empty file as a new database) for
    this process's life; ``False`` if another process holds it."""
    try:
        import fcntl
    except ImportError:  # (Windows: not enforced)
        return True
    try:
        handle = open(path, "ab")  # noqa: SIM115  (held open until the process ends)
    except OSError as exc:  # (no such folder, or not ours to write: SQLite could not either)
        log.error("DATABASE_URL: the SQLite file %s cannot be opened (%s)", path,
                  exc.strerror or type(exc).__name__)
        sys.exit(UNREACHABLE_STATUS)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.close()
        return False
    _held.append(handle)
    return True


class OneLine(logging.Formatter):
    """A record as one line, its traceback too (its lines joined by `` | ``): journald,
    ``docker logs`` and a log shipper see one entry a record, each with its time, level and
    logger."""

    def format(self, record: logging.LogRecord) -> str:
        return super().format(record).replace("\n", " | ")


BACKLOG = 2048  # (uvicorn's own)


def listen(host: str, port: int) -> list[socket.socket]:
    """The web app's sockets, bound and listening before the bot starts (uvicorn would bind
    only once it runs, after the bot began polling or set its webhook): one for each
    address ``host`` has (as uvicorn's own ``create_server`` would: ``localhost`` may be
    ``::1`` and ``127.0.0.1``; an empty host, every interface). An address that cannot be
    used is one line naming its setting, status 1."""
    try:
        found = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM,
                                   flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        log.error("WEB_LISTEN_HOST %s cannot be used: %s", host, exc.strerror)
        sys.exit(UNREACHABLE_STATUS)
    sockets: list[socket.socket] = []
    for family, kind, proto, _name, address in dict.fromkeys(
            (f, k, p, "", a) for f, k, p, _n, a in found):
        sock = socket.socket(family, kind, proto)
        sockets.append(sock)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # (as uvicorn's own)
        if family == socket.AF_INET6:  # (so that :: and 0.0.0.0 do not clash)
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
        try:
            sock.bind(address)
        except OSError as exc:
            for opened in sockets:
                opened.close()
            log.error("cannot listen on WEB_LISTEN_HOST %s, WEB_LISTEN_PORT %s: %s", host,
                      port, exc.strerror)
            sys.exit(UNREACHABLE_STATUS)
        sock.set_inheritable(True)
        # Listening from now on: an update Telegram POSTs once told the URL (setWebhook,
        # before uvicorn serves) waits in the queue instead of finding the port closed.
        sock.listen(BACKLOG)
    return sockets


def _first_line(record: logging.LogRecord) -> bool:
    """Alembic logs each migration with its whole docstring: one line a record instead."""
    message = record.getMessage()
    if "\n" in message:
        record.msg, record.args = message.split("\n", 1)[0], None
    return True

