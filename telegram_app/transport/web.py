"""The bot's web app (Starlette, served by uvicorn): Telegram's webhook, ``/healthz`` and
``/metrics``. Later features (the Mini App) add their routes: :func:`create_web_app` takes
``extra_routes``, and :func:`routes` gives the bot's own to compose into another app.

Webhook (PTB's custom-webhook pattern): a POST to the webhook path must carry Telegram's
``X-Telegram-Bot-Api-Secret-Token`` header equal to ``TELEGRAM_WEBHOOK_SECRET`` (else 403 and
nothing is read); the update is stored in the inbox *before* the 200 (see
:mod:`telegram_app.transport.intake`), then queued for the Application. Telegram redelivers what got
no 200; a repeat is dropped by the inbox. While the database cannot be reached, an update
whose sender can be told "nothing was changed" (a press, a command) gets its 200 and that
answer; one with nobody to tell (a departure from the group, a migration) gets 503, so
Telegram delivers it again until it can be stored.

A body longer than :data:`WEBHOOK_MAX_BODY` gets 413 (:class:`~.webguard.BodyLimit`:
no more is read). A body that is no update (:mod:`telegram_app.transport.update_check`: not strict
JSON, not an object, no integer ``update_id`` in the database's range, a field the bot reads
of the wrong type) is logged as one warning and answered 200, neither stored nor handled:
Telegram would deliver it again forever otherwise.
"""

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


def routes(app: Application, *, webhook_path: str | None, secret: str | None
           ) -> list[BaseRoute]:
    """The bot's routes: the webhook at ``webhook_path`` (when given; ``secret`` required),
    ``/healthz`` and ``/metrics``."""

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

    async def healthz(request: Request) -> Response:
        age = metrics.sweep_age()
        body: dict[str, object] = {"last_sweep_age": None if age is None else round(age, 3)}
        services = app.bot_data.get(SERVICES)
        ok = False
        if services is not None:
            try:
                async with asyncio.timeout(HEALTH_TIMEOUT), services.db.engine.connect() as c:
                    await c.execute(text("SELECT 1"))
                ok = True
            except Exception as exc:  # any failure is the answer: unhealthy
                body["error"] = type(exc).__name__
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

    found: list[BaseRoute] = [Route("/healthz", healthz, methods=["GET"]),
                              Route("/metrics", metrics_page, methods=["GET"])]
    if webhook_path:
        found.insert(0, Route(webhook_path, webhook, methods=["POST"], middleware=[
            Middleware(BodyLimit, limit=WEBHOOK_MAX_BODY)]))
    return found


def create_web_app(app: Application, *, webhook_path: str | None, secret: str | None,
                   extra_routes: Sequence[BaseRoute] = ()) -> Starlette:
    """The Starlette app: :func:`routes` plus ``extra_routes``."""
    return Starlette(routes=[*routes(app, webhook_path=webhook_path, secret=secret),
                             *extra_routes])
