"""An invalid setting stops ``python -m telegram_app`` (``telegram_app.app.main``) with one line
that an operator can act on: it names the variable and says what is wrong with its value
(never the value itself: it may be the token or hold the database's password). The test
failed before its fix; its docstring tells what the bot did then."""

from __future__ import annotations

import logging

import pytest

from telegram_app.app import main
from telegram_app.config import Settings

TOKEN = "987654321:AAHx-operator-config-token_42"
CASES = {
    # variable=value: what the line must say (the rule the value broke)
    "UPDATE_CONCURRENCY=500": "256",
    "WEB_LISTEN_PORT=70000": "65535",
    "SWEEP_INTERVAL=0": "greater than 0",
    "TELEGRAM_GROUP_RATE=20/min": "integer",
    "TELEGRAM_BOT_TOKEN=987654321:AAHx operator": "no spaces",
    "DATABASE_URL=postgresql//coyote:hunter2-hunter2@db/coyote": "not a database URL",
}


def refusal(monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture,
            **env: str) -> str:
    """``main`` run with only the token and ``env`` set: it must exit with status 78 (settings
    that cannot work: the systemd units do not restart it) and one error line, returned."""
    for field in Settings.model_fields:
        monkeypatch.delenv(field.upper(), raising=False)
    monkeypatch.setenv("TELEGRAM_BOT_TOKEN", TOKEN)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    caplog.set_level(logging.INFO)
    with pytest.raises(SystemExit) as stopped:
        main()
    assert stopped.value.code == 78
    errors = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == 1, errors
    return errors[0]


@pytest.mark.parametrize("setting", list(CASES))
def test_an_invalid_value_is_one_line_that_says_what_is_wrong(
        setting: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """README: "If the settings are incomplete or invalid, … the last log line says which".
    The line names the variable only: "incomplete or invalid settings: UPDATE_CONCURRENCY
    (see README, Running the bot)", and README's settings table gives no bound (256 at most
    for ``UPDATE_CONCURRENCY``, 1–65535 for the port, more than 0 for the intervals). An
    operator raising ``UPDATE_CONCURRENCY`` to 500 for a big PostgreSQL deploy is told it
    is invalid, not why; even the reasons ``config.py`` writes itself ("DATABASE_URL is not a
    database URL", "TELEGRAM_BOT_TOKEN must be the token @BotFather gave (no spaces)") are
    dropped: ``main`` prints a field error's name, and pydantic's message only for the
    model's own checks (the webhook's)."""
    name, value = setting.split("=", 1)
    line = refusal(monkeypatch, caplog, **{name: value})
    assert "\n" not in line and name in line, line
    assert "AAHx" not in line and "hunter2" not in line, line  # (the token, the password)
    assert CASES[setting] in line, line


@pytest.mark.parametrize("name", ["WEB_LISTEN_PORT", "SWEEP_INTERVAL", "UPDATE_CONCURRENCY",
                                  "TELEGRAM_GROUP_RATE", "TELEGRAM_BASE_URL"])
def test_an_emptied_line_is_the_default(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Before the fix an env file's emptied line (``WEB_LISTEN_PORT=``, as the example file's
    commented lines become when an operator blanks a value) stopped the bot: a number was
    "Input should be a valid integer", and an empty ``TELEGRAM_BASE_URL`` was taken, so the
    bot tried to reach Telegram at "" and was restarted for ever; the empty webhook URL and
    secret already counted as unset. Every emptied line now means the default."""
    for field in Settings.model_fields:
        monkeypatch.delenv(field.upper(), raising=False)
    monkeypatch.setenv("TELEGRAM_BOT_TOKEN", TOKEN)
    monkeypatch.setenv(name, "")
    settings = Settings()  # type: ignore[call-arg]
    field = name.lower()
    assert getattr(settings, field) == Settings.model_fields[field].default
