"""An invalid ``DATABASE_URL`` stops ``python -m telegram_app`` (``telegram_app.app.main``) with
one line naming what is wrong, never the value (README, Running the bot: "each named with
what is wrong, never its value; an in-memory SQLite URL is refused: it would keep nothing"); the
web app listens where ``WEB_LISTEN_HOST`` says, bound before the bot starts. Each test failed
before its fix; its docstring tells what the bot did then."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from telegram_app.config import Settings
from telegram_app.startup import sqlite_file
from tests.bot.test_operator_config import refusal

TOKEN = "987654321:AAHx-session-changes-token_42"


def test_a_password_with_an_unescaped_at_sign_is_not_logged(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """Before the fix an operator whose database password holds ``@`` and ``:`` (written
    unescaped, ``Pa@ss:w0rd``: a common slip) read "incomplete or invalid settings:
    DATABASE_URL: Value error, invalid literal for int() with base 10: 'w0rd@db'": SQLAlchemy's
    ``make_url`` raises a plain ``ValueError`` (the port it could not read, here the
    password's tail), which ``config._database_url_parses`` lets through (it catches only
    ``ArgumentError``), and ``main`` now prints pydantic's message, which repeats it."""
    line = refusal(monkeypatch, caplog,
                   DATABASE_URL="postgresql+asyncpg://coyote:Pa@ss:w0rd@db/coyote")
    assert "DATABASE_URL" in line, line
    assert "w0rd" not in line, line  # (a piece of the password)
    assert "not a database URL" in line, line


@pytest.mark.parametrize("url", [
    "sqlite:///file::memory:?uri=true",
    "sqlite+aiosqlite:///file:coyote?mode=memory&uri=true",
])
def test_an_in_memory_sqlite_uri_is_refused(url: str) -> None:
    """Before the fix ``Settings`` refused ``sqlite://`` and ``sqlite:///:memory:`` but took
    SQLite's URI forms of the same thing (``file::memory:``, ``mode=memory``), which
    ``startup.sqlite_file`` itself reads as "in memory" (no file to hold): the bot started,
    and every game, rating and setting was gone at the next restart."""
    assert sqlite_file(url) is None  # (the project's own reading: in memory, no file)
    with pytest.raises(ValidationError) as refused:
        Settings(telegram_bot_token=TOKEN, database_url=url)  # type: ignore[call-arg]
    assert "in-memory" in str(refused.value)


@pytest.mark.parametrize("url", [
    "sqlite+aiosqlite:///./coyote.sqlite3",
    "sqlite:////tmp/coyote.sqlite3",
    "sqlite:///file:data/coyote.db?uri=true",
])
def test_a_sqlite_file_url_is_still_taken(url: str) -> None:
    """A file, however written, is still accepted (a guard for the fix above)."""
    assert sqlite_file(url) is not None
    Settings(telegram_bot_token=TOKEN, database_url=url)  # type: ignore[call-arg]


def test_a_host_with_two_addresses_is_listened_on_both(monkeypatch: pytest.MonkeyPatch) -> None:
    """Before the fix ``WEB_LISTEN_HOST=localhost`` on a machine whose resolver answers ``::1``
    first (glibc with Docker's or Debian's ``/etc/hosts``: ``::1 localhost``) served the web
    app on ``[::1]`` only: ``startup.listen`` binds the first address ``getaddrinfo`` gives,
    where uvicorn (``loop.create_server(host=...)``) bound every one. A health check or proxy
    calling ``http://127.0.0.1:8080/healthz`` was refused, and the orchestrator restarted a
    healthy bot. (The resolver's answer is that machine's; the project's code runs as is.)"""
    import socket

    from telegram_app.startup import listen

    try:
        with socket.socket(socket.AF_INET6) as six:
            six.bind(("::1", 0))
    except OSError:
        pytest.skip("this machine has no IPv6 loopback")
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()
    real = socket.getaddrinfo

    def resolver(host: str, *args: object, **kwargs: object) -> list[tuple]:  # type: ignore[type-arg]
        if host == "localhost":  # (glibc's order for ``::1 localhost`` + ``127.0.0.1 localhost``)
            return [(socket.AF_INET6, socket.SOCK_STREAM, 6, "", ("::1", port, 0, 0)),
                    (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", port))]
        return real(host, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(socket, "getaddrinfo", resolver)
    bound = listen("localhost", port)
    sockets = bound if isinstance(bound, list) else [bound]
    try:
        for sock in sockets:
            sock.listen()
        with socket.create_connection(("127.0.0.1", port), timeout=5):
            pass  # (refused before the fix: nothing listens on 127.0.0.1)
    finally:
        for sock in sockets:
            sock.close()
