"""Configuration from environment variables (pydantic-settings)."""

from __future__ import annotations

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict


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
    - ``MINIAPP_URL``: the Mini App page (``https://<host>/app/``, served by the bot's web
      app); set, private messages carry a button that opens it. ``MINIAPP_SHORT_NAME``: the
      Mini App's short name at @BotFather; with both, the group's table carries its direct
      link ``t.me/<bot>/<short name>?startapp=g<id>``.
    """

    model_config = SettingsConfigDict(env_file=None, extra="ignore")

    telegram_bot_token: SecretStr
    database_url: str | None = None
    telegram_base_url: str = "https://api.telegram.org/bot"
    telegram_group_rate: int = Field(default=20, ge=1)
    telegram_overall_rate: int = Field(default=30, ge=1)
    sweep_interval: float = Field(default=5.0, gt=0)
    league_interval: float = Field(default=60.0, gt=0)
    miniapp_url: str | None = None
    miniapp_short_name: str | None = None
