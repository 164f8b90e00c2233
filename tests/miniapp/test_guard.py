"""The Mini App's API against what a hostile client sends (the real bot, the fake Bot API,
PostgreSQL): a move body that is no move is 400 (never a 500 and a traceback); a body over
the limit is 413, answered before the rest of it is read. Every response carries the page's
security headers (a frame policy that lets only Telegram's web clients frame it)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator

import httpx
from starlette.applications import Starlette

from telegram_app.miniapp import MAX_BODY, routes
from tests.e2e.harness import start_game

GROUP = -100879


async def _announced(client, method: str, path: str, length: int,
                     headers: dict[str, str]) -> int:
    """The status of a request whose headers announce ``length`` bytes of body, of which
    only the first KiB is sent."""
    url = httpx.URL(client.base + "api/" + path)
    reader, writer = await asyncio.open_connection(url.host, url.port)
    try:
        head = [f"{method} {url.raw_path.decode()} HTTP/1.1", f"Host: {url.host}",
                f"Content-Length: {length}", *(f"{k}: {v}" for k, v in headers.items())]
        writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + b"x" * 1024)
        await writer.drain()
        line = await asyncio.wait_for(reader.readline(), 10)
        return int(line.split()[1])
    finally:
        writer.close()


async def test_a_move_body_that_is_no_move_is_400(mini, caplog) -> None:
    api, players, runner, client = mini
    await start_game(api, players, GROUP)
    ann = players[0]
    caplog.set_level(logging.WARNING)
    version = (await client.get("game/1", ann.id)).json()["game"]["version"]
    for body in (b"[" * 3000, b'{"version":1,"action":' + b"[" * 1500 + b"}",
                 b'{"version":NaN,"action":{"kind":"bid","amount":1}}',
                 b'{"version":1e999,"action":{"kind":"bid","amount":1}}',
                 b'{"version":100000000000000000000000,"action":{"kind":"bid"}}',
                 b"\xff\xfe", b'"x"', b"null"):
        response = await client.http.post(client.base + "api/game/1/move", content=body,
                                          headers=client.auth(ann.id))
        assert response.status_code == 400, (body[:40], response.text)
        assert response.json()["error"] == "bad_action" and response.json()["message"]
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert (await client.get("game/1", ann.id)).json()["game"]["version"] == version


async def test_a_body_over_the_limit_is_413_unread(mini) -> None:
    api, players, runner, client = mini
    await start_game(api, players, GROUP)
    ann = players[0]
    big = b"x" * (10 * 1024 * 1024)
    for method, path in (("POST", "game/1/move"), ("GET", "me"), ("POST", "strings"),
                         ("GET", "nowhere")):
        # 10 MB announced, 1 KiB sent: the answer comes without the rest
        status = await _announced(client, method, path, len(big), client.auth(ann.id))
        assert status == 413, (method, path, status)
    # A chunked body (no Content-Length) is read up to the limit, not beyond.
    app = Starlette(routes=routes(runner.app))
    pulled = 0
    chunk = b" " * 16384

    async def chunks() -> AsyncIterator[bytes]:
        nonlocal pulled
        while pulled < len(big):
            pulled += len(chunk)
            yield chunk

    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app),
                                 base_url="http://mini.test") as local:
        response = await local.post("/app/api/game/1/move", content=chunks(),
                                    headers=client.auth(ann.id))
    assert response.status_code == 413
    assert pulled <= MAX_BODY + 2 * len(chunk), pulled


async def test_every_response_carries_the_security_headers(mini) -> None:
    api, players, runner, client = mini
    for path, user in (("", None), ("static/app.js", None), ("api/me", 1), ("api/me", None),
                       ("api/nowhere", 1)):
        response = await client.http.get(client.base + path,
                                          headers=client.auth(user) if user else {})
        headers = response.headers
        assert headers["x-content-type-options"] == "nosniff", path
        assert headers["referrer-policy"] == "no-referrer", path
        policy = dict(part.strip().split(" ", 1) for part in
                      headers["content-security-policy"].split(";"))
        assert policy["frame-ancestors"].split() == [
            "https://web.telegram.org", "https://webk.telegram.org",
            "https://webz.telegram.org"], path
        assert policy["script-src"] == "'self'" and policy["default-src"] == "'none'"

