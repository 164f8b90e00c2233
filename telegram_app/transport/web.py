"""The bot's web app (Starlette, served by uvicorn): Telegram's webhook, ``/healthz``,
``/metrics``, and the routes added to it (the Mini App's). The webhook stores an update before
its 200 (DEVELOPERS.md, "From an update to its messages"); a request without Telegram's
secret header gets 403, unread."""

from __future__ import annotations

import asyncio
import hmac
import logging
from collections.abc import Sequence

from sqlalchemy import func, select, text
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route
from telegram.ext import Application

from league.store.db import Database
from league.store.models import OPEN_STATUSES, Game
from telegram_app import metrics
from telegram_app.services import KEY as SERVICES
from telegram_app.transport.intake import KEY as INTAKE
from telegram_app.transport.intake import Intake
from telegram_app.transport.update_check import NotAnUpdate, update_of
from telegram_app.transport.webguard import BodyLimit

log = logging.getLogger(__name__)
SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
HEALTH_TIMEOUT = 3.0  # seconds /healthz waits for the database
WEBHOOK_MAX_BODY = 1024 * 1024
"""Bytes a webhook request may carry: Telegram's largest updates (a message of 4,096
characters with its entities, a reply to another and a keyboard) are a few tens of KiB."""


def create_web_app(app: Application, *, webhook_path: str | None, secret: str | None,
                   extra_routes: Sequence[BaseRoute] = ()) -> Starlette:
    """The web app: the webhook at ``webhook_path`` (when given; ``secret`` required),
    ``/healthz``, ``/metrics`` and ``extra_routes``."""

    async def webhook(request: Request) -> Response:
        sent = request.headers.get(SECRET_HEADER, "")
        if secret is None or not hmac.compare_digest(sent.encode(), secret.encode()):
            return Response(status_code=403)
        intake: Intake | None = app.bot_data.get(INTAKE)
        if intake is None or not app.running:
            return Response(status_code=503)  # Telegram retries later
        try:
            update, raw = update_of(await request.body(), app.bot)
        except NotAnUpdate as exc:
            # Telegram sends only updates: this is no request to retry (a 200, or Telegram
            # delivers it again and again) and nothing to handle.
            log.warning("webhook: ignored a body that is no update: %s", exc)
            return Response(status_code=200)
        if not await intake.received.receive([update], [raw]):
            # Not stored (an outage) and nobody to tell "nothing was changed": Telegram
            # delivers it again later, until it is stored.
            return Response(status_code=503)
        await app.update_queue.put(update)
        return Response(status_code=200)

    checking: list[asyncio.Task[None]] = []  # the database check under way: one at a time

    async def select_one(db: Database) -> None:
        async with asyncio.timeout(HEALTH_TIMEOUT), db.engine.connect() as connection:
            await connection.execute(text("SELECT 1"))

    async def healthz(request: Request) -> Response:
        age = metrics.sweep_age()
        body: dict[str, object] = {"last_sweep_age": None if age is None else round(age, 3)}
        services = app.bot_data.get(SERVICES)
        ok = False
        if services is not None:
            # The answer comes within HEALTH_TIMEOUT: a database that stops answering holds
            # the check longer (psycopg then cancels the query on the server, up to 10 s),
            # so the check runs on its own, and a later request waits for the same one.
            if not checking or checking[0].done():
                checking[:] = [asyncio.create_task(select_one(services.db))]
                checking[0].add_done_callback(lambda t: t.cancelled() or t.exception())
            check = checking[0]
            done, _pending = await asyncio.wait({check}, timeout=HEALTH_TIMEOUT)
            failure = "TimeoutError" if not done else "CancelledError" if check.cancelled() \
                else type(check.exception()).__name__ if check.exception() else None
            if failure is not None:  # any failure is the answer: unhealthy
                body["error"] = failure
            ok = failure is None
        body["database"] = "ok" if ok else "unreachable"
        return JSONResponse(body, status_code=200 if ok else 503)

    async def metrics_page(request: Request) -> Response:
        from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

        services = app.bot_data.get(SERVICES)
        if services is not None:
            try:
                async with asyncio.timeout(HEALTH_TIMEOUT), services.db.sessions() as session:
                    metrics.ACTIVE_GAMES.set(await session.scalar(
                        select(func.count()).select_from(Game)
                        .where(Game.status.in_(OPEN_STATUSES))) or 0)
            except Exception:  # the page still answers with what it has
                pass
        age = metrics.sweep_age()
        if age is not None:
            metrics.SWEEPER_LAG.set(age)
        return Response(generate_latest(metrics.REGISTRY), media_type=CONTENT_TYPE_LATEST)

    hook = [Route(webhook_path, webhook, methods=["POST"], middleware=[
        Middleware(BodyLimit, limit=WEBHOOK_MAX_BODY)])] if webhook_path else []
    return Starlette(routes=[*hook, Route("/healthz", healthz, methods=["GET"]),
                             Route("/metrics", metrics_page, methods=["GET"]), *extra_routes])
