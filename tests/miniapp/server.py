"""A small web server for the Mini App in tests and the demo: uvicorn on a free loopback
port, serving :func:`telegram_app.miniapp.routes` for the running bot (until the bot's own
web app mounts them), and signed ``initData`` for a fake user."""

from __future__ import annotations

import asyncio
import json
import socket
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from urllib.parse import quote

import uvicorn
from starlette.applications import Starlette
from telegram.ext import Application

from telegram_app.miniapp import PREFIX, routes
from telegram_app.miniapp.initdata import sign


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@asynccontextmanager
async def miniapp_server(app: Application) -> AsyncIterator[str]:
    """Serve the Mini App of ``app``; yields its base URL (``http://127.0.0.1:PORT/app/``)."""
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(
        Starlette(routes=routes(app)), host="127.0.0.1", port=port, log_level="warning",
        access_log=False, lifespan="off", timeout_graceful_shutdown=1))
    task = asyncio.create_task(server.serve())
    try:
        while not server.started:
            if task.done():
                task.result()
            await asyncio.sleep(0.01)
        yield f"http://127.0.0.1:{port}{PREFIX}/"
    finally:
        server.should_exit = True
        await asyncio.wait_for(task, 10)


def init_data(token: str, user_id: int, first_name: str, *, start_param: str | None = None,
              auth_date: float | None = None, language: str = "en") -> str:
    """``initData`` as Telegram's client would send it for this user, signed with ``token``."""
    fields = {"auth_date": str(int(auth_date if auth_date is not None else time.time())),
              "query_id": f"AA{user_id}",
              "user": json.dumps({"id": user_id, "first_name": first_name,
                                  "language_code": language}, separators=(",", ":"))}
    if start_param:
        fields["start_param"] = start_param
    return sign(fields, token)


def page_url(base: str, token: str, user_id: int, first_name: str, start_param: str,
             theme: dict[str, str] | None = None, language: str = "en") -> str:
    """The page as Telegram opens it: launch parameters in the URL's fragment (never sent
    to the server), ``tgWebAppData`` being the signed ``initData`` (of a client in
    ``language``)."""
    data = init_data(token, user_id, first_name, start_param=start_param, language=language)
    fragment = f"tgWebAppData={quote(data, safe='')}&tgWebAppStartParam={start_param}" \
               "&tgWebAppVersion=8.0&tgWebAppPlatform=web"
    if theme:
        fragment += "&tgWebAppThemeParams=" + quote(json.dumps(theme), safe="")
    return f"{base}#{fragment}"
