"""The bot's web app (Starlette, served by uvicorn): Telegram's webhook, ``/healthz``,
``/metrics``, and the routes added to it (the Mini App's). The webhook stores an update before
its 200 (DEVELOPERS.md, "From an update to its messages"); a request without Telegram's
secret header gets 403, unread."""

from __future__ import annotations

import asyncio
import hmac
import logging
from collections.abc import Callable, Coroutine, Sequence
from typing import Any, Generic, TypeVar

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
T = TypeVar("T")
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

    async def select_one() -> None:
        async with asyncio.timeout(HEALTH_TIMEOUT), \
                app.bot_data[SERVICES].db.engine.connect() as connection:
            await connection.execute(text("SELECT 1"))

    async def count_open() -> int:
        async with asyncio.timeout(HEALTH_TIMEOUT), \
                app.bot_data[SERVICES].db.sessions() as session:
            return await session.scalar(select(func.count()).select_from(Game).where(
                Game.status.in_(OPEN_STATUSES))) or 0

    health_check, open_games = OnItsOwn(select_one), OnItsOwn(count_open)

    async def healthz(request: Request) -> Response:
        age = metrics.sweep_age()
        body: dict[str, object] = {"last_sweep_age": None if age is None else round(age, 3)}
        ok = False
        if app.bot_data.get(SERVICES) is not None:
            _none, failure = await health_check.result()
            if failure is not None:  # any failure is the answer: unhealthy
                body["error"] = failure
            ok = failure is None
        body["database"] = "ok" if ok else "unreachable"
        return JSONResponse(body, status_code=200 if ok else 503)

    async def metrics_page(request: Request) -> Response:
        from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

        if app.bot_data.get(SERVICES) is not None:
            count, failure = await open_games.result()
            if failure is None:  # (else the page answers with what it has)
                metrics.ACTIVE_GAMES.set(count or 0)
        age = metrics.sweep_age()
        if age is not None:
            metrics.SWEEPER_LAG.set(age)
        return Response(generate_latest(metrics.REGISTRY), media_type=CONTENT_TYPE_LATEST)

    hook = [Route(webhook_path, webhook, methods=["POST"], middleware=[
        Middleware(BodyLimit, limit=WEBHOOK_MAX_BODY)])] if webhook_path else []
    return Starlette(routes=[*hook, Route("/healthz", healthz, methods=["GET"]),
                             Route("/metrics", metrics_page, methods=["GET"]), *extra_routes])


class OnItsOwn(Generic[T]):
    """A database read for a page, answered within HEALTH_TIMEOUT: a database that stops
    answering holds a read longer (psycopg then cancels the query on the server, up to
    10 s), so the read runs as its own task, one at a time, and a later request waits for
    the same one."""

    def __init__(self, read: Callable[[], Coroutine[Any, Any, T]]) -> None:
        self._read = read
        self._task: asyncio.Task[T] | None = None

    async def result(self) -> tuple[T | None, str | None]:
        """The read's value, or ``None`` and the name of its failure (``TimeoutError`` when
        it did not end in time)."""
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._read())
            self._task.add_done_callback(lambda t: t.cancelled() or t.exception())
        task = self._task
        done, _pending = await asyncio.wait({task}, timeout=HEALTH_TIMEOUT)
        if not done:
            return None, "TimeoutError"
        if task.cancelled():
            return None, "CancelledError"
        failed = task.exception()
        return (None, type(failed).__name__) if failed else (task.result(), None)
