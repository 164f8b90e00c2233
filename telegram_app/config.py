"""Configuration from environment variables (pydantic-settings)."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_core import PydanticUseDefault
from pydantic_settings import BaseSettings, SettingsConfigDict
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

from telegram_app.startup import sqlite_file

WEBHOOK_SECRET = r"[A-Za-z0-9_-]{16,256}"
WEBHOOK_PORTS = (None, 443, 80, 88, 8443)  # (None: the scheme's own, 443)
"""A webhook secret token: Telegram's alphabet and maximum, and long enough not to be
guessed (anyone who knows it can post updates as Telegram)."""


OFFICIAL_API = "https://api.telegram.org/"
PLACEHOLDER_SECRETS = frozenset({"replace-with-a-long-random-string"})
"""Webhook secrets ``deploy/coyote-league.env.example`` once offered: public, so refused."""


class Settings(BaseSettings):
    """The bot's settings.

    - ``TELEGRAM_BOT_TOKEN`` (required): the bot's token from @BotFather.
    - ``DATABASE_URL``: PostgreSQL (``postgresql://…``, driven by psycopg 3) or SQLite; unset
      means the embedded SQLite file ``coyote-league.sqlite3`` in the working directory.
    - ``TELEGRAM_BASE_URL``: the Bot API base URL, for a self-hosted Bot API server (may hold a
      ``{token}`` placeholder; otherwise the token is appended).
    - ``TELEGRAM_GROUP_RATE``: requests a minute allowed per group (Telegram: about 20);
      ``TELEGRAM_OVERALL_RATE``: requests a second in all (about 30).
    - ``SWEEP_INTERVAL``: seconds between two looks for due reminders and timeouts;
      ``LEAGUE_INTERVAL``: seconds between two looks for weekly/season tables to post.
    - ``TELEGRAM_WEBHOOK_URL``: set, the bot runs in webhook mode (Telegram POSTs updates to
      this public HTTPS URL, or plain HTTP with a self-hosted Bot API server in ``--local``
      mode; its path is the path served: with none, ``/telegram``, served and added to the
      URL Telegram is told) instead of polling;
      ``TELEGRAM_WEBHOOK_SECRET`` (required with it): the secret token Telegram sends in
      ``X-Telegram-Bot-Api-Secret-Token``: 16–256 characters ``A-Za-z0-9_-`` (Telegram
      allows 1–256; a short one could be guessed), e.g. ``openssl rand -hex 32``.
    - ``WEB_LISTEN_HOST`` / ``WEB_LISTEN_PORT``: where the web app (webhook, ``/healthz``,
      ``/metrics``) listens; in polling mode it is served only when ``WEB_LISTEN_PORT`` is set.
    - ``UPDATE_CONCURRENCY``: updates handled at once (one per lane; default 16 on PostgreSQL,
      1 on SQLite, whose single writer gains nothing from more);
      ``INBOX_GRACE``: seconds an unhandled stored update waits before any worker takes it
      over (a killed worker's); ``INBOX_INTERVAL``: seconds between two such looks;
      ``INBOX_KEEP_HOURS``: how long handled updates stay in the inbox.
    - ``MINIAPP_URL``: the Mini App page (``https://<host>/app/``, served by the bot's web
      app; Telegram opens only HTTPS ones); set, private messages carry a button that opens
      it. ``MINIAPP_SHORT_NAME``: the Mini App's short name at @BotFather; with both, the
      group's table carries its direct link ``t.me/<bot>/<short name>?startapp=g<id>``.
    """

    model_config = SettingsConfigDict(env_file=None, extra="ignore")

    telegram_bot_token: SecretStr
    database_url: str | None = None
    telegram_base_url: str = "https://api.telegram.org/bot"
    telegram_group_rate: int = Field(default=20, ge=1)
    telegram_overall_rate: int = Field(default=30, ge=1)
    sweep_interval: float = Field(default=5.0, gt=0)
    league_interval: float = Field(default=60.0, gt=0)
    telegram_webhook_url: str | None = None
    telegram_webhook_secret: SecretStr | None = None
    web_listen_host: str = "127.0.0.1"
    web_listen_port: int | None = Field(default=None, ge=1, le=65535)
    update_concurrency: int | None = Field(default=None, ge=1, le=256)
    inbox_grace: float = Field(default=10.0, ge=0)
    inbox_interval: float = Field(default=2.0, gt=0)
    inbox_keep_hours: float = Field(default=24.0, gt=0)
    miniapp_url: str | None = None
    miniapp_short_name: str | None = None

    @field_validator("telegram_bot_token")
    @classmethod
    def _token_is_one_word(cls, token: SecretStr) -> SecretStr:
        value = token.get_secret_value()
        if not value or value != "".join(value.split()):  # (an env file's line left empty)
            raise ValueError("TELEGRAM_BOT_TOKEN must be the token @BotFather gave (no spaces)")
        return token

    @field_validator("telegram_base_url", "telegram_group_rate", "telegram_overall_rate",
                     "sweep_interval", "league_interval", "web_listen_port",
                     "update_concurrency", "inbox_grace", "inbox_interval",
                     "inbox_keep_hours", mode="before")
    @classmethod
    def _empty_is_default(cls, value: object) -> object:
        # An env file's emptied line (NAME=) means "not set", as for the URL and the secret.
        if value == "":
            raise PydanticUseDefault()
        return value

    @field_validator("telegram_webhook_secret", mode="before")
    @classmethod
    def _empty_secret_is_unset(cls, secret: object) -> object:
        # (as an empty TELEGRAM_WEBHOOK_URL is no URL: compose's bot-polling, an env file's
        # emptied line)
        return None if secret == "" else secret

    @field_validator("database_url")
    @classmethod
    def _database_url_parses(cls, url: str | None) -> str | None:
        if url:  # (the message never repeats the URL: it may hold a password)
            try:  # (a password's unescaped "@" raises a ValueError that quotes it)
                parsed = make_url(url)
            except (ArgumentError, ValueError):
                raise ValueError("DATABASE_URL is not a database URL") from None
            if "@" in (parsed.host or ""):
                # An unescaped "@" in the password: the URL parses, with the password's
                # tail as the host, which the driver's "failed to resolve host" quotes.
                raise ValueError("DATABASE_URL has an unescaped \"@\" in its user or "
                                 "password: write it %40")
            if parsed.get_backend_name() == "sqlite" and sqlite_file(url) is None:
                raise ValueError("an in-memory SQLite database keeps nothing: name a file "
                                 "(sqlite:///path/to/league.sqlite3)")
        return url

    @field_validator("miniapp_url")
    @classmethod
    def _https(cls, url: str | None) -> str | None:
        if url and not url.lower().startswith("https://"):  # a Mini App button takes no other
            raise ValueError("MINIAPP_URL must begin with https://")
        return url

    @model_validator(mode="after")
    def _webhook_is_https(self) -> Settings:
        # Telegram's own Bot API posts only to HTTPS, on four ports (setWebhook refuses any
        # other); a self-hosted one in --local mode (TELEGRAM_BASE_URL) may post to plain
        # HTTP and any port in its network.
        url = self.telegram_webhook_url
        if not url or not self.telegram_base_url.startswith(OFFICIAL_API):
            return self
        if not url.lower().startswith("https://"):
            raise ValueError("TELEGRAM_WEBHOOK_URL must begin with https://")
        try:
            port = urlsplit(url).port
        except ValueError:
            port = -1
        if port not in WEBHOOK_PORTS:
            raise ValueError("TELEGRAM_WEBHOOK_URL's port must be 443, 80, 88 or 8443 (the "
                             "only ones Telegram posts to)")
        return self

    @model_validator(mode="after")
    def _webhook_needs_secret(self) -> Settings:
        if self.telegram_webhook_url and self.telegram_webhook_secret is None:
            raise ValueError("TELEGRAM_WEBHOOK_SECRET is required with TELEGRAM_WEBHOOK_URL")
        secret = self.telegram_webhook_secret
        if secret is not None and secret.get_secret_value() in PLACEHOLDER_SECRETS:
            raise ValueError("TELEGRAM_WEBHOOK_SECRET is the example file's placeholder: "
                             "replace it (for example with the output of: openssl rand -hex "
                             "32)")
        if secret is not None and not re.fullmatch(WEBHOOK_SECRET, secret.get_secret_value()):
            # (the message names the rule, never the value: it is logged)
            raise ValueError(
                "TELEGRAM_WEBHOOK_SECRET must be 16 to 256 characters, each a letter A-Z or "
                "a-z, a digit, _ or - (for example the output of: openssl rand -hex 32)")
        return self

    @property
    def webhook_path(self) -> str:
        """The path of the webhook URL (``/telegram`` when the URL has none)."""
        from urllib.parse import urlsplit

        path = urlsplit(self.telegram_webhook_url or "").path
        return path if path and path != "/" else "/telegram"

    @property
    def webhook_endpoint(self) -> str | None:
        """The URL Telegram is told to POST to (``setWebhook``): ``TELEGRAM_WEBHOOK_URL``
        with :attr:`webhook_path`, the path served (``/telegram`` added when it has none);
        ``None`` without a webhook."""
        from urllib.parse import urlsplit, urlunsplit

        if not self.telegram_webhook_url:
            return None
        parts = urlsplit(self.telegram_webhook_url)
        return urlunsplit(parts._replace(path=self.webhook_path))
