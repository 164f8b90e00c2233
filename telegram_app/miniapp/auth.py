"""The Mini App's requests are authenticated by Telegram's ``initData`` in the header
``Authorization: tma <initData>`` (never in the URL: URLs end up in logs). A request without
it, or with a forged or expired one, gets 401 and changes nothing."""

from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from telegram.ext import Application

from league.store.errors import ServiceError
from telegram_app.i18n import _
from telegram_app.miniapp.initdata import InitDataError, WebAppUser, validate
from telegram_app.miniapp.text import language
from telegram_app.render.common import error_text
from telegram_app.services import KEY, BotServices

log = logging.getLogger(__name__)
SCHEME = "tma "

Handler = Callable[[Request, BotServices, WebAppUser], Awaitable[Response]]


def user_of(request: Request, app: Application, bot: BotServices) -> WebAppUser:
    """The signed user of ``request``; raises :class:`InitDataError`."""
    header = request.headers.get("authorization", "")
    if not header.startswith(SCHEME):
        raise InitDataError("missing")
    return validate(header[len(SCHEME):].strip(), app.bot.token, bot.service.clock())


def page_text(code: str) -> str | None:
    """The refusals only the Mini App's pages give (the chat's are ``error_text``'s)."""
    return {
        "tournament_members_only": _("This tournament's page is for its players and those "
                                     "who have played a game in its group."),
    }.get(code)


def refusal(code: str, status: int, detail: dict[str, Any] | None = None,
            message: str | None = None) -> JSONResponse:
    """``{"error": code, "message": translated text}`` with ``status``."""
    return JSONResponse({"error": code, "message": message or page_text(code)
                         or error_text(code, detail)}, status_code=status)


STATUS = {"game_not_found": 404, "not_a_player": 403, "not_allowed": 403, "stale": 409,
          "not_running": 409, "game_members_only": 403, "league_members_only": 403,
          "profile_not_shared": 403, "tournament_not_found": 404,
          "tournament_members_only": 403}


def authed(app: Application) -> Callable[[Handler], Callable[[Request], Awaitable[Response]]]:
    """Wrap an endpoint: 401 without a valid ``initData`` (the reason code only: the data
    itself is never logged), 503 before the bot's services exist; a ``ServiceError`` becomes
    its polite text (``STATUS``, else 400). The endpoint runs in the user's language."""
    def wrap(handler: Handler) -> Callable[[Request], Awaitable[Response]]:
        @functools.wraps(handler)
        async def endpoint(request: Request) -> Response:
            bot: BotServices | None = app.bot_data.get(KEY)
            if bot is None:
                return JSONResponse({"error": "starting"}, status_code=503)
            try:
                user = user_of(request, app, bot)
            except InitDataError as exc:
                log.debug("Mini App request refused: %s", exc.code)  # the code only
                return JSONResponse({"error": "unauthorized", "reason": exc.code},
                                    status_code=401)
            with language(user.language_code):
                try:
                    return await handler(request, bot, user)
                except ServiceError as exc:
                    return refusal(exc.code, STATUS.get(exc.code, 400), exc.detail)
        return endpoint
    return wrap
