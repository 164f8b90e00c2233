"""A webhook URL whose port Telegram's own Bot API never posts to (README: "its port must be
443, 80, 88 or 8443") is refused by the settings: status 78, not a restart loop."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from telegram_app.config import Settings

TOKEN = "123456:AAHx-review-token"
SECRET = "a" * 32


def _settings(monkeypatch: pytest.MonkeyPatch, url: str,
              base: str = "https://api.telegram.org/bot") -> Settings:
    for field in Settings.model_fields:
        monkeypatch.delenv(field.upper(), raising=False)
    return Settings.model_validate({
        "telegram_bot_token": TOKEN, "telegram_webhook_url": url,
        "telegram_webhook_secret": SECRET, "telegram_base_url": base})


@pytest.mark.parametrize("port", [8080, 8181])
def test_a_webhook_port_telegram_never_posts_to_is_refused_by_the_settings(
        port: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Before the fix the settings took ``https://bot.example.org:8080/telegram``: the bot
    passed getMe and the migration, then Telegram's setWebhook refused the URL ("bad webhook:
    Webhook can be set up only on ports 80, 88, 443 or 8443"), the process exited with
    status 1 and the webhook unit (Restart=always, RestartSec=2) started it again every two
    seconds for ever, though only a change of the settings can help (README documents the
    port rule). It should be one line naming TELEGRAM_WEBHOOK_URL, status 78, as for the
    plain-HTTP URL."""
    with pytest.raises(ValidationError, match="TELEGRAM_WEBHOOK_URL"):
        _settings(monkeypatch, f"https://bot.example.org:{port}/telegram")


def test_the_ports_telegram_posts_to_and_a_self_hosted_server_are_accepted(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """(Passes before and after: what the fix must keep.)"""
    for url in ("https://bot.example.org/telegram", "https://bot.example.org:8443/t",
                "https://bot.example.org:88/t", "https://bot.example.org:443/t"):
        assert _settings(monkeypatch, url).telegram_webhook_url == url
    local = _settings(monkeypatch, "http://bot:8080/telegram", "http://127.0.0.1:8081/bot")
    assert local.telegram_webhook_url == "http://bot:8080/telegram"
