# The bot's image: `docker build -t coyote-league .` (compose.yaml builds it too).
# One image for every role: a polling bot, webhook workers, the one-shot migration.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /app
COPY pyproject.toml README.md alembic.ini ./
COPY alembic ./alembic
COPY engine ./engine
COPY league ./league
COPY telegram_app ./telegram_app
RUN pip install . \
    && useradd --system --home-dir /app --shell /usr/sbin/nologin coyote \
    && chown -R coyote /app
USER coyote
# The web app (webhook, /healthz, /metrics) listens here when WEB_LISTEN_PORT is set, on
# every interface of the container (the bot's own default, 127.0.0.1, is unreachable there).
ENV WEB_LISTEN_HOST=0.0.0.0
EXPOSE 8080
CMD ["python", "-m", "telegram_app"]
