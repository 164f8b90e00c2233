"""The Mini App's league endpoints: a chat's standings (week, last week, season), a player's
profile with their Elo history (the page draws the chart), the chat's history and a game's
replay, step by step. The figures are the chat commands' own: the same queries
(:mod:`league.queries`) and the same formatting (:mod:`telegram_app.render.league`).

A chat's pages are for people who took a seat in one of its games (:mod:`league.access`)."""

from __future__ import annotations

from datetime import timedelta
from zoneinfo import ZoneInfo

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from league import access
from league.errors import ServiceError
from league.ratings import START, format_rating
from telegram_app.context import BotServices
from telegram_app.i18n import _
from telegram_app.miniapp.initdata import WebAppUser
from telegram_app.miniapp.text import clean_name, id_of, plain
from telegram_app.render import league as render

PERIODS = ("week", "last", "season")


def _chat_id(request: Request) -> int:
    return id_of(request.path_params["chat_id"], signed=True)


async def _member(bot: BotServices, chat_id: int, user: WebAppUser) -> None:
    if not await access.played_in(bot.db, chat_id, user.id):
        raise ServiceError("not_allowed")


async def chat(request: Request, bot: BotServices, user: WebAppUser) -> Response:
    """GET: ``{"id", "title"}`` of a chat the user played in."""
    chat_id = _chat_id(request)
    await _member(bot, chat_id, user)
    return JSONResponse({"id": chat_id, "title": await access.chat_title(bot.db, chat_id)
                         or _("This chat")})


async def standings(request: Request, bot: BotServices, user: WebAppUser) -> Response:
    """GET ``?period=week|last|season``: ``{"title", "range", "rows": [{"rank", "name",
    "points", "games", "wins", "elo", "change", "you"}], "empty"}``, as ``/standings``."""
    chat_id = _chat_id(request)
    await _member(bot, chat_id, user)
    period = request.query_params.get("period", "week")
    if period not in PERIODS:
        raise ServiceError("bad_option")
    table = await bot.service.standings(chat_id, period, kind="coyote")
    lines = plain(render.standings_text(table)).split("\n")
    zone = ZoneInfo(table.tz)
    last_day = (table.end - timedelta(seconds=1)).astimezone(zone)
    rows = [{"rank": row.rank, "name": clean_name(table.names.get(row.player, "?")),
             "points": f"{row.points:g}", "games": row.games, "wins": row.wins,
             "elo": format_rating(row.rating, table.games_played.get(row.player, 0)),
             "change": f"{row.rating_change:+.1f}", "you": row.player == user.id,
             "user_id": row.player} for row in table.rows]
    return JSONResponse({
        "period": period, "title": lines[0], "rows": rows,
        "range": _("{start} – {end}").format(start=table.start.astimezone(zone)
                                             .strftime("%a %d %b"),
                                             end=last_day.strftime("%a %d %b")),
        "empty": None if rows else lines[-1]})


async def profile(request: Request, bot: BotServices, user: WebAppUser) -> Response:
    """GET ``/profile/{user_id}?chat=``: the rating card (``/rating``'s lines) and the Elo
    after each rated game ``[{"at": ISO time, "elo": float}]``, oldest first. Your own, or
    that of someone in a chat you played in (``chat`` given)."""
    target = id_of(request.path_params["user_id"])
    raw = request.query_params.get("chat")
    chat_id = id_of(raw, signed=True) if raw else None
    if target != user.id:
        if chat_id is None:
            raise ServiceError("not_allowed")
        await _member(bot, chat_id, user)
        if not await access.played_in(bot.db, chat_id, target):
            raise ServiceError("not_allowed")
    elif chat_id is not None and not await access.played_in(bot.db, chat_id, user.id):
        chat_id = None
    card = await bot.service.rating_card(target, chat_id, kind="coyote")
    history = await bot.service.rating_history(target, kind="coyote")
    return JSONResponse({
        "user_id": target, "name": clean_name(card.name),
        "title": _("Elo of {name}").format(name=clean_name(card.name)),
        "elo": format_rating(card.rating, card.games), "games": card.games, "wins": card.wins,
        "lines": plain(render.rating_text(card)).split("\n"),
        "points": [{"at": at.isoformat(), "elo": round(elo, 1)} for at, elo in history],
        "start": START,
        "empty": _("No rated game yet")})


async def history(request: Request, bot: BotServices, user: WebAppUser) -> Response:
    """GET: the chat's last games ``[{"id", "date", "edition", "places": [{"place",
    "name", "change"}]}]``, newest first, as ``/history``."""
    chat_id = _chat_id(request)
    await _member(bot, chat_id, user)
    entries = await bot.service.history(chat_id, kind="coyote")
    return JSONResponse({"title": plain(render.history_text([]).split("\n")[0]), "games": [
        {"id": e.game_id, "date": e.finished_at.strftime("%d %b"),
         "edition": e.options.get("edition", "classic"),
         "places": [{"place": place, "name": clean_name(name),
                     "change": None if delta is None else f"{delta:+.1f}"}
                    for place, name, delta in e.placements]} for e in entries],
        "empty": None if entries else _("No finished game yet.")})


async def replay(request: Request, bot: BotServices, user: WebAppUser) -> Response:
    """GET ``/replay/{game_id}``: ``{"title", "steps": [[line, ...], ...]}``, one entry per
    logged step that says something, in order; the lines are ``/replay``'s."""
    game = await bot.service.get(id_of(request.path_params["game_id"]))
    await _member(bot, game.chat_id, user)
    game, log = await bot.service.replay(game.id, game.chat_id)
    steps = []
    for step in log:
        lines = plain(render.replay_text(game, [step])).split("\n")[1:]
        if lines:
            steps.append(lines)
    return JSONResponse({"title": plain(render.replay_text(game, [])), "chat_id": game.chat_id,
                         "steps": steps})
