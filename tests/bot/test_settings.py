"""The webhook's secret token must be one nobody guesses: 16 to 256 characters of Telegram's
alphabet (``A-Za-z0-9_-``). A weak one stops the process with one line that says so, and
never shows the value."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import ValidationError

from telegram_app.config import Settings

ROOT = Path(__file__).resolve().parents[2]
URL = "https://bot.example/hook"
RULE = ("Value error, TELEGRAM_WEBHOOK_SECRET must be 16 to 256 characters, each a letter A-Z "
        "or a-z, a digit, _ or - (for example the output of: openssl rand -hex 32)")


@pytest.mark.parametrize("secret", ["x", "short-secret", "a" * 15, "a" * 257,
                                    "sixteen-chars-ok!", "with space in it 0123",
                                    "ünïcode-secret-0123"])
def test_a_weak_or_malformed_webhook_secret_is_refused(secret: str) -> None:
    with pytest.raises(ValidationError) as refused:
        Settings(telegram_bot_token="1:x", telegram_webhook_url=URL,
                 telegram_webhook_secret=secret)
    [error] = refused.value.errors()
    assert error["msg"] == RULE  # the same words whatever the secret: never its value


@pytest.mark.parametrize("secret", ["a" * 16, "A-z_0" * 51 + "x", "0123456789abcdef"])
def test_a_strong_webhook_secret_is_taken(secret: str) -> None:
    settings = Settings(telegram_bot_token="1:x", telegram_webhook_url=URL,
                        telegram_webhook_secret=secret)
    assert settings.telegram_webhook_secret is not None
    assert settings.telegram_webhook_secret.get_secret_value() == secret


@pytest.mark.process
def test_the_process_says_why_in_one_line_without_the_secret(tmp_path: Path) -> None:
    secret = "tooShort1"
    env = {**os.environ, "TELEGRAM_BOT_TOKEN": "1:x", "TELEGRAM_WEBHOOK_URL": URL,
           "TELEGRAM_WEBHOOK_SECRET": secret,
           "DATABASE_URL": f"sqlite:///{tmp_path / 'bot.sqlite3'}"}
    done = subprocess.run([sys.executable, "-m", "telegram_app"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=60)
    lines = [line for line in (done.stdout + done.stderr).splitlines() if line.strip()]
    assert done.returncode != 0
    assert len(lines) == 1, lines
    assert "TELEGRAM_WEBHOOK_SECRET must be 16 to 256 characters" in lines[0]
    assert secret not in lines[0] and "Traceback" not in lines[0]
