"""The token mask of :mod:`telegram_app.startup` on log records (the real process is tested
in ``tests/e2e/test_refused_token.py``)."""

from __future__ import annotations

import logging
import sys

from telegram_app.startup import MASK, Redact

TOKEN = "987654321:AAHx-secret-part-of-the-token_42"


def _record(msg: str, *args: object, exc: bool = False) -> logging.LogRecord:
    exc_info = sys.exc_info() if exc else None
    return logging.LogRecord("httpx", logging.INFO, __file__, 1, msg, args, exc_info)


def test_message_arguments_quoted_forms_and_tracebacks_are_masked() -> None:
    redact = Redact([TOKEN, ""])
    record = _record("HTTP Request: POST %s", f"http://127.0.0.1/bot{TOKEN}/getMe")
    assert redact.filter(record)
    assert record.getMessage() == f"HTTP Request: POST http://127.0.0.1/bot{MASK}/getMe"
    record = _record("url http://x/bot987654321%3AAAHx-secret-part-of-the-token_42/x")
    redact.filter(record)
    assert TOKEN.split(":")[1] not in record.getMessage()
    try:
        raise ValueError(f"The token `{TOKEN}` was rejected by the server.")
    except ValueError:
        record = _record("failed", exc=True)
    redact.filter(record)
    text = logging.Formatter().format(record)
    assert "was rejected" in text and TOKEN not in text and MASK in text


def test_a_secret_of_any_length_is_masked() -> None:
    """A short secret masks ordinary words too; a secret in the log would be worse."""
    redact = Redact(["abc", "x/y"])
    for message, masked in (("abc %s", f"{MASK} 1"), ("path x/y and x%2Fy", f"path {MASK} "
                                                      f"and {MASK}")):
        record = _record(message, 1) if "%s" in message else _record(message)
        redact.filter(record)
        assert record.getMessage() == masked


def test_clean_lines_are_left_alone() -> None:
    redact = Redact(["abc", ""])
    record = _record("nothing secret %s", 1)
    redact.filter(record)
    assert record.getMessage() == "nothing secret 1" and record.args is None


def test_a_secret_is_masked_in_any_letter_case() -> None:
    """python-telegram-bot capitalises an error description it shortens ("Bad Request: …"),
    so a token quoted in one reaches the log in other letter cases."""
    import logging

    from telegram_app.startup import MASK, Redact

    token = "987654321:AAHx-SecretPart_xyz"
    record = logging.LogRecord("telegram", logging.WARNING, __file__, 1,
                               "setMyCommands failed: Nope %s", (token.lower(),), None)
    Redact([token]).filter(record)
    assert record.getMessage() == f"setMyCommands failed: Nope {MASK}"
