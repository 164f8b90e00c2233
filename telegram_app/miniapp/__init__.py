"""The Telegram Mini App: the table and the league in a web page served by the bot.

:func:`routes` gives a Starlette ``Mount`` to include in the bot's web app (the webhook's,
``/healthz``'s): the page and its static files, and a JSON API authenticated by Telegram's
``initData`` (:mod:`.initdata`, :mod:`.auth`). The page draws what the API sends (tables,
legal moves, league figures); no rule lives in JavaScript.

Every response under the mount carries :data:`SECURITY_HEADERS`, and a request body longer
than :data:`MAX_BODY` gets 413 unread (:mod:`telegram_app.transport.webguard`)."""

from __future__ import annotations

from pathlib import Path

from starlette.convertors import Convertor, register_url_convertor
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles
from telegram.ext import Application

from telegram_app.transport.webguard import AddHeaders, BodyLimit

STATIC = Path(__file__).resolve().parent / "static"
PREFIX = "/app"
"""Where :func:`routes` mounts the Mini App; ``MINIAPP_URL`` points at ``<origin>/app/``."""
MAX_BODY = 64 * 1024
"""Bytes a Mini App request may carry (a move is a few dozen; see ``game_api.MAX_BODY``)."""
TELEGRAM_WEB_CLIENTS = ("https://web.telegram.org", "https://webk.telegram.org",
                        "https://webz.telegram.org")
"""Telegram's official web clients, which show a Mini App in an iframe (the apps for phones
and computers open it in a web view of its own, which no frame policy concerns)."""
CONTENT_SECURITY_POLICY = "; ".join([
    # The page loads only its own modules and stylesheet (it reads Telegram's launch
    # parameters itself: no telegram-web-app.js) and talks only to its own API.
    "default-src 'none'", "script-src 'self'", "style-src 'self'",
    "img-src 'self' data:",  # (the empty data: favicon)
    "connect-src 'self'", "base-uri 'none'", "form-action 'none'",
    "frame-ancestors " + " ".join(TELEGRAM_WEB_CLIENTS),
])
SECURITY_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    # (launch parameters travel in the fragment, which no Referer carries; nothing else to
    # tell another site either)
    "Referrer-Policy": "no-referrer",
}
"""Headers of every Mini App response. The frame policy is CSP's ``frame-ancestors`` alone:
``X-Frame-Options`` cannot name several origins, and browsers that know CSP ignore it."""


class Digits(Convertor[str]):
    """A path's id as its digits, unconverted (``{game_id:digits}``): the endpoint reads it
    with ``text.id_of``, which answers 404 for anything past 64 bits. (Starlette's ``int``
    convertor calls ``int()`` while routing, which raises past 4300 digits: a 500, before
    any ``initData`` is checked.)"""

    regex = "[0-9]+"

    def convert(self, value: str) -> str:
        return value

    def to_string(self, value: str) -> str:
        return str(value)


register_url_convertor("digits", Digits())


def routes(app: Application, prefix: str = PREFIX) -> list[BaseRoute]:
    """The Mini App's routes for the bot ``app`` (its token checks ``initData``; its
    ``bot_data`` holds the services), under ``prefix``."""
    from telegram_app.games.registry import UIS
    from telegram_app.miniapp import game_api, league_api, tournament_api
    from telegram_app.miniapp.auth import authed
    from telegram_app.miniapp.strings import me, strings

    auth = authed(app)

    async def index(request: Request) -> Response:
        return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})

    async def not_found(request: Request) -> Response:
        return JSONResponse({"error": "not_found"}, status_code=404)

    api = [
        Route("/strings", auth(strings, explain=True)),  # (a refusal says why)
        Route("/me", auth(me)),
        Route("/game/{game_id:digits}", auth(game_api.get_table)),
        Route("/game/{game_id:digits}/moves", auth(game_api.get_moves)),
        Route("/game/{game_id:digits}/move", auth(game_api.post_move), methods=["POST"]),
        Route("/game/{game_id:digits}/events", auth(game_api.events)),
        Route("/chat/{chat_id}", auth(league_api.chat)),
        Route("/chat/{chat_id}/standings", auth(league_api.standings)),
        Route("/chat/{chat_id}/history", auth(league_api.history)),
        Route("/chat/{chat_id}/tournaments", auth(tournament_api.chat_list)),
        Route("/tournament/{tournament_id}", auth(tournament_api.tournament)),
        Route("/profile/{user_id:digits}", auth(league_api.profile)),
        Route("/replay/{game_id:digits}", auth(league_api.replay)),
        Route("/{rest:path}", not_found),
    ]
    return [Mount(prefix, routes=[
        Route("/", index),
        Mount("/api", routes=api),
        # each game's own page scripts (GameUI.page_scripts), before the page's own
        *(Mount(f"/static/games/{ui.kind}", StaticFiles(directory=ui.page_scripts))
          for ui in UIS.values() if ui.page_scripts is not None),
        Mount("/static", StaticFiles(directory=STATIC)),
    ], middleware=[Middleware(AddHeaders, headers=SECURITY_HEADERS),
                   Middleware(BodyLimit, limit=MAX_BODY)])]
