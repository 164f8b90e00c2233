"""The Mini App's requests are authenticated by Telegram's ``initData`` in the header
``Authorization: tma <initData>`` (never in the URL: URLs end up in logs). A request without
it, or with a forged or expired one, gets 401 and changes nothing.

Every answer is in the user's language: the one they chose with ``/language`` in the private
chat, else their Telegram app's (``initData``'s ``language_code``), as the bot's private
messages are (``handlers/language.py``). A user whose language is unknown (neither: the
``language_code`` is optional) reads a page about one game, one group's league or one
tournament in that group's language, as the chat's messages about it are
(``render.language.for_player``), once they may read that page (:func:`group_language`);
a profile seen from a group's league (``?chat=``) likewise; their own profile, and a
request naming nothing (the home screen: the page opened with no start parameter, its words,
``/me``), in the language of the group of their most recent game; a refusal to someone who
may not, and anything else, in English."""

from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from telegram.ext import Application

from league.store import access
from league.store.errors import ServiceError
from telegram_app.i18n import _, normalize
from telegram_app.miniapp.initdata import InitDataError, WebAppUser, claimed_language, validate
from telegram_app.miniapp.text import chat_id_of, id_of, language
from telegram_app.miniapp.tournament_api import tournament_id_of, visible_tournament
from telegram_app.render.common import error_text
from telegram_app.services import KEY, BotServices

log = logging.getLogger(__name__)
SCHEME = "tma "

Handler = Callable[[Request, BotServices, WebAppUser], Awaitable[Response]]


def init_data_of(request: Request) -> str | None:
    """The ``initData`` ``request`` carries (``None``: no ``tma`` header)."""
    header = request.headers.get("authorization", "")
    return header[len(SCHEME):].strip() if header.startswith(SCHEME) else None


def user_of(request: Request, app: Application, bot: BotServices) -> WebAppUser:
    """The signed user of ``request``; raises :class:`InitDataError`."""
    return validate(init_data_of(request), app.bot.token, bot.service.clock())


async def reader_language(bot: BotServices, user: WebAppUser,
                          request: Request | None = None) -> str:
    """The language ``user`` reads: chosen with ``/language``, else their app's, else (their
    app sends none) that of the group ``request`` is about, or, about nothing, of their most
    recent game (:func:`group_language`)."""
    own = await bot.service.chosen_language(user.id) or user.language_code
    if own or request is None:
        return normalize(own)
    return normalize(await group_language(request, bot, user))


START = {"g": "game_id", "r": "game_id", "c": "chat_id", "t": "tournament_id"}
"""A Mini App start parameter's letter: the path parameter it names (``links.direct_link``)."""
OWN_PROFILE = "p"
"""The start parameter of the reader's own profile (``app.js``)."""


async def group_language(request: Request, bot: BotServices, user: WebAppUser) -> str | None:
    """The language setting of the group whose game (``game_id``), league (``chat_id``) or
    tournament (``tournament_id``) the request's path names (the page's words: the screen
    its ``start`` query opens, :data:`START`), looked up as the chat side
    does (``handlers/language.py``); for a profile (``user_id``), that of the chat its
    ``?chat=`` names, else, for the reader's own (and :data:`OWN_PROFILE`), of the group of
    their most recent game (:func:`profile_language`); for a request naming nothing (the
    home screen), that of the group of their most recent game too (:func:`latest_language`);
    ``None`` for any other path, and unless ``user`` may read that page (its own rule,
    :mod:`league.store.access`): a refusal's words must not tell someone else whether the
    game exists or which language its group speaks."""
    params = dict(request.path_params)
    start = request.query_params.get("start", "")  # (the page's words: the screen it opens)
    if not params and len(start) > 1 and start[0] in START:
        params[START[start[0]]] = start[1:]
    if not params and start == OWN_PROFILE:
        params["user_id"] = str(user.id)
    if not params:  # (the home screen, also for a start the page does not know: app.js)
        return await latest_language(bot, user.id)
    try:
        if "user_id" in params:
            return await profile_language(request, bot, user, id_of(params["user_id"]))
        if "game_id" in params:  # (a game's pages and its replay: its chat's members)
            game_id = id_of(params["game_id"])
            if not await access.may_see_game(bot.db, game_id, user.id):
                return None
            return (await bot.service.get(game_id)).language
        if "chat_id" in params:
            chat_id = chat_id_of(params["chat_id"])
            if not await access.played_in(bot.db, chat_id, user.id):
                return None
            return await bot.service.chat_language(chat_id)
        if "tournament_id" in params:
            cup = await visible_tournament(
                bot, tournament_id_of(params["tournament_id"]), user)
            return await bot.service.chat_language(cup.chat_id)
    except ServiceError:  # (no such game, a mangled id, not theirs: the endpoint refuses)
        return None
    return None


async def profile_language(request: Request, bot: BotServices, user: WebAppUser,
                           target: int) -> str | None:
    """The language of ``target``'s profile for ``user``: seen from a chat's league
    (``?chat=``), that chat's once ``user`` may see its league (as the endpoint's first
    check); else, for ``user``'s own, that of the group of their most recent game (their
    own data: ``None`` for anyone else's profile, and before any game)."""
    raw = request.query_params.get("chat")
    if raw and await access.played_in(bot.db, chat_id_of(raw), user.id):
        return await bot.service.chat_language(chat_id_of(raw))
    return await latest_language(bot, user.id) if target == user.id else None


async def latest_language(bot: BotServices, user_id: int) -> str | None:
    """The language of the group of ``user_id``'s most recent game (``None`` before any):
    their own data, asked for by them alone."""
    chats = await access.chats_of(bot.db, user_id)  # (most recent game first)
    return await bot.service.chat_language(chats[0]) if chats else None


def unauthorized(request: Request, exc: InitDataError, *, explain: bool) -> JSONResponse:
    """401 for refused ``initData``: its reason code (only the code is logged, never the
    data); ``explain`` (the page's words, which the page asks for before anything else): with
    the page's text for it, ``message``, in the language of the app the data names."""
    log.debug("Mini App request refused: %s", exc.code)  # the code only
    body = {"error": "unauthorized", "reason": exc.code}
    if explain:
        with language(claimed_language(init_data_of(request))):
            body["message"] = _("Open this page from Telegram: the link has expired or is "
                                "not valid.")
    return JSONResponse(body, status_code=401)


def page_text(code: str) -> str | None:
    """The refusals only the Mini App's pages give (the chat's are ``error_text``'s)."""
    return {
        "league_not_found": _("This league does not exist."),
        "tournament_members_only": _("This tournament's page is for its players and those "
                                     "who have played a game in its group."),
    }.get(code)


def refusal(code: str, status: int, detail: dict[str, Any] | None = None,
            message: str | None = None) -> JSONResponse:
    """``{"error": code, "message": translated text}`` with ``status``."""
    return JSONResponse({"error": code, "message": message or page_text(code)
                         or error_text(code, detail)}, status_code=status)


STATUS = {"game_not_found": 404, "league_not_found": 404, "not_a_player": 403,
          "out_of_game": 403, "not_allowed": 403, "stale": 409, "not_running": 409,
          "game_members_only": 403, "league_members_only": 403, "profile_not_shared": 403,
          "tournament_not_found": 404, "tournament_members_only": 403}


def authed(app: Application) -> Callable[..., Callable[[Request], Awaitable[Response]]]:
    """Wrap an endpoint: 401 without a valid ``initData`` (:func:`unauthorized`; ``explain``
    for the page's words), 503 before the bot's services exist; a ``ServiceError`` becomes
    its polite text (``STATUS``, else 400). The endpoint runs in the user's language
    (:func:`reader_language`, the request's group's for a user whose language is
    unknown)."""
    def wrap(handler: Handler, *, explain: bool = False
             ) -> Callable[[Request], Awaitable[Response]]:
        @functools.wraps(handler)
        async def endpoint(request: Request) -> Response:
            bot: BotServices | None = app.bot_data.get(KEY)
            if bot is None:
                return JSONResponse({"error": "starting"}, status_code=503)
            try:
                user = user_of(request, app, bot)
            except InitDataError as exc:
                return unauthorized(request, exc, explain=explain)
            with language(await reader_language(bot, user, request)):
                try:
                    return await handler(request, bot, user)
                except ServiceError as exc:
                    return refusal(exc.code, STATUS.get(exc.code, 400), exc.detail)
        return endpoint
    return wrap
