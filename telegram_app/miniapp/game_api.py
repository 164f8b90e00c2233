"""The Mini App's game endpoints: the table a user may see, their legal moves, a move (through
the same :meth:`MatchService.act` and version check as a button press) and an event stream
that tells the page when the game changed.

A game's endpoints are for its players and the members of its chat, known as for the chat's
league pages (:func:`league.store.access.may_see_game`: anyone who sat in one of its games); others
get 403 ``game_members_only``, an unknown game 404."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse

from engine import Action, RuleError
from league.store import access
from league.store.errors import ServiceError
from league.store.snapshots import GameSnapshot
from telegram_app.i18n import _
from telegram_app.miniapp import table
from telegram_app.miniapp.auth import refusal
from telegram_app.miniapp.initdata import WebAppUser
from telegram_app.miniapp.text import id_of
from telegram_app.services import BotServices
from telegram_app.transport.webguard import load_json

log = logging.getLogger(__name__)
POLL = 0.1
"""Seconds between two looks at the game's version for the event stream (one indexed
SELECT of one integer)."""
STREAM_FOR = 25.0
"""An event stream ends after this long; the page opens a new one (no connection is held
forever, and a restart of the server loses nothing)."""
RECENT_STEPS = 6
MAX_BODY = 4096
"""A move is a few dozen bytes; a bigger body is refused unread."""
OUT_CODES = ("not_your_turn", "not_a_player")
"""What the engine answers a move of a seat no longer in the game (Coyote checks the turn
first: "It is not your turn."; Koira: "You are not playing in this game."): the page
answers as the chat's 🎴 does instead (:func:`table.out_line`)."""


def game_id_of(request: Request) -> int:
    return id_of(request.path_params["game_id"])


async def visible_game_id(request: Request, bot: BotServices, user: WebAppUser) -> int:
    """The request's game id, once ``user`` may see that game (see the module docstring);
    raises ``game_not_found`` or ``game_members_only``."""
    game_id = game_id_of(request)
    allowed = await access.may_see_game(bot.db, game_id, user.id)
    if allowed is None:
        raise ServiceError("game_not_found")
    if not allowed:
        raise ServiceError("game_members_only")
    return game_id


async def recent_lines(bot: BotServices, game: GameSnapshot) -> list[str]:
    """The last moves as short plain lines (the game's adapter words them), newest last."""
    adapter = table.adapter_of(game.kind)
    if game.state is None or adapter is None:
        return []
    rows = (await bot.service.log(game.id))[-RECENT_STEPS:]
    return adapter.recent(game, [row.events for row in rows])[-8:]


async def _page(bot: BotServices, game: GameSnapshot, user: WebAppUser) -> dict[str, Any]:
    return table.page(game, user.id, await recent_lines(bot, game))


async def get_table(request: Request, bot: BotServices, user: WebAppUser) -> Response:
    """GET: the game as this user may see it (their seat's view, else the public table)."""
    game = await bot.service.get(await visible_game_id(request, bot, user))
    return JSONResponse(await _page(bot, game, user))


async def get_moves(request: Request, bot: BotServices, user: WebAppUser) -> Response:
    """GET: ``{"version", "controls"}``: the user's legal moves now (empty off-turn)."""
    game = await bot.service.get(await visible_game_id(request, bot, user))
    return JSONResponse({"version": game.version, "controls": table.controls(game, user.id)})


async def post_move(request: Request, bot: BotServices, user: WebAppUser) -> Response:
    """POST ``{"version": int, "action": {...}}``: the move, if the game is still at
    ``version``. 409 ``stale`` ("the game moved on") with the table as it is now; a refused
    move gets its rule's polite text and changes nothing."""
    game_id = await visible_game_id(request, bot, user)  # first: a stale answer holds the table
    raw = b""
    async for chunk in request.stream():
        raw += chunk
        if len(raw) > MAX_BODY:
            return refusal("bad_action", 413)
    try:
        body = load_json(raw)
        version = body["version"]
        action = Action.from_json(body["action"])
        if not isinstance(version, int) or isinstance(version, bool):
            raise TypeError(version)
    except (ValueError, KeyError, TypeError, RuleError):
        return refusal("bad_action", 400)
    try:
        outcome = await bot.service.act(game_id, user.id, version, action)
    except ServiceError as exc:
        if exc.code in OUT_CODES:  # (a seat out of the game: the engine's code misleads)
            game = await bot.service.get(game_id)
            out = table.out_line(game, table.seat_of(game, user.id))
            if out is not None:
                return refusal("out_of_game", 403, message=out)
        if exc.code != "stale":
            raise
        game = await bot.service.get(game_id)
        response = refusal("stale", 409, message=_("The game moved on: here it is now."))
        body = json.loads(bytes(response.body))
        body["table"] = await _page(bot, game, user)
        return JSONResponse(body, status_code=409)
    # (the service reports the commit: the chats are told as after a button press)
    return JSONResponse(await _page(bot, outcome.game, user))


async def events(request: Request, bot: BotServices, user: WebAppUser) -> Response:
    """GET: a ``text/event-stream`` of ``data: {"version": n}``, once at the start and then
    whenever the game's version changes (any move, by button, page or timeout), within
    :data:`POLL` s. Read by the page with ``fetch`` (so the header carries ``initData``)."""
    game_id = await visible_game_id(request, bot, user)

    async def stream() -> AsyncIterator[str]:
        loop = asyncio.get_running_loop()
        end = loop.time() + STREAM_FOR
        last: int | None = None
        beat = loop.time()
        while loop.time() < end:
            version = await access.version_of(bot.db, game_id)
            if version != last:
                last = version
                beat = loop.time()
                yield f"data: {json.dumps({'version': version})}\n\n"
            elif loop.time() - beat > 15:
                beat = loop.time()
                yield ": still here\n\n"  # keeps proxies from closing an idle stream
            await asyncio.sleep(POLL)

    return StreamingResponse(stream(), media_type="text/event-stream",
                             headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})
