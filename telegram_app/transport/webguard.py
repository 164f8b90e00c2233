"""What the bot's web app (:mod:`~telegram_app.transport.web`, the Mini App) does with a request
before any handler trusts it: a body size limit that reads no more than the limit
(:class:`BodyLimit`), JSON parsed with limits (:func:`load_json`), and headers added to every
response (:class:`AddHeaders`). The two middlewares are plain ASGI: they hold for any route they
wrap, whatever its handler does."""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from typing import Any

from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

MAX_DEPTH = 64
"""Deepest nesting :func:`load_json` accepts: Telegram's updates nest about ten levels (a
reply's message, its keyboard's rows); nothing we read needs more."""
INT_LIMIT = 2**63
"""Integers beyond 64 bits are no id (every id and date Telegram sends fits in 64 bits); the
database's ``bigint`` refuses them."""


class _TooLarge(Exception):
    """The request body went past the limit while the app read it."""


class BodyLimit:
    """Answers 413 ``{"error": "too_large"}`` to a request whose body is longer than ``limit``
    bytes: at once when its ``Content-Length`` says so (nothing is read), else as soon as the
    bytes read pass the limit (a chunked body), so no more than ``limit`` bytes (plus one
    chunk) are ever held."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = _content_length(scope)
        if declared is not None and declared > self.limit:
            await _too_large(scope, receive, send)
            return
        seen = 0
        started = False

        async def limited() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit:
                    raise _TooLarge
            return message

        async def watched(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, limited, watched)
        except _TooLarge:
            if started:  # (a handler that answers while reading: nothing left to say)
                raise
            await _too_large(scope, receive, send)


def _content_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", ()):
        if name == b"content-length":
            return int(value) if value.isdigit() else None
    return None


async def _too_large(scope: Scope, receive: Receive, send: Send) -> None:
    response = JSONResponse({"error": "too_large"}, status_code=413,
                            headers={"Connection": "close"})
    await response(scope, receive, send)


class AddHeaders:
    """Adds ``headers`` to every HTTP response that does not set them itself."""

    def __init__(self, app: ASGIApp, headers: dict[str, str]) -> None:
        self.app = app
        self.headers = [(k.lower().encode("latin-1"), v.encode("latin-1"))
                        for k, v in headers.items()]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                present = {name.lower() for name, _ in message.get("headers", ())}
                message["headers"] = [*message.get("headers", ()),
                                      *((k, v) for k, v in self.headers if k not in present)]
            await send(message)

        await self.app(scope, receive, with_headers)


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError("number out of range")
    return value


def load_json(raw: bytes | str, max_depth: int = MAX_DEPTH) -> Any:
    """``raw`` parsed as strict JSON; raises ``ValueError`` for anything else: invalid JSON,
    ``NaN``/``Infinity`` or a number that overflows to them (the database's JSON refuses
    them), nesting deeper than ``max_depth``, an integer of more than 64 bits. Deep nesting
    is refused before Python's recursion limit turns it into a ``RecursionError``."""
    try:
        value = json.loads(raw, parse_constant=_refuse_constant, parse_float=_finite)
    except RecursionError:
        raise ValueError("nested too deeply") from None
    _check(value, max_depth)
    return value


def _check(value: Any, max_depth: int) -> None:
    """Depth and integer range, without recursion."""
    level: list[tuple[Any, int]] = [(value, 1)]
    while level:
        item, depth = level.pop()
        if isinstance(item, dict | list):
            if depth > max_depth:
                raise ValueError("nested too deeply")
            children: Iterable[Any] = item.values() if isinstance(item, dict) else item
            level.extend((child, depth + 1) for child in children)
        elif isinstance(item, int) and not -INT_LIMIT <= item < INT_LIMIT:
            raise ValueError("integer out of range")
