"""The Mini App's league endpoints: a chat's standings (week, last week, season), a player's
profile with their Elo history (the page draws the chart), the chat's history and a game's
replay, step by step. The figures are the chat commands' own: the same queries
(:mod:`league.queries`) and the same formatting (:mod:`telegram_app.render.league`).

A chat's pages are for people who took a seat in one of its games (:mod:`league.access`)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any
from zoneinfo import ZoneInfo

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from engine import GAMES
from league import access
from league.errors import ServiceError
from league.ratings import START, format_rating
from league.snapshots import GameSnapshot
from telegram_app.context import BotServices
from telegram_app.games.base import default_kind, ui_for
from telegram_app.i18n import _
from telegram_app.miniapp.initdata import WebAppUser
from telegram_app.miniapp.text import clean_name, id_of, plain
from telegram_app.render import league as render
from telegram_app.render.settings import game_title

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


def _kind(request: Request) -> str:
    """The game named by ``?game=`` (a kind of ``engine.GAMES``), else the default game's;
    raises ``bad_option`` for a game there is none of."""
    kind = request.query_params.get("game") or default_kind()
    if kind not in GAMES:
        raise ServiceError("bad_option")
    return kind


async def standings(request: Request, bot: BotServices, user: WebAppUser) -> Response:
    """GET ``?period=week|last|season&game=<kind>``: ``{"title", "range", "rows": [{"rank",
    "name", "points", "games", "wins", "elo", "change", "you"}], "empty"}``, as
    ``/standings`` (the default game's league without ``game``)."""
    chat_id = _chat_id(request)
    await _member(bot, chat_id, user)
    period = request.query_params.get("period", "week")
    if period not in PERIODS:
        raise ServiceError("bad_option")
    table = await bot.service.standings(chat_id, period, kind=_kind(request))
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
    """GET ``/profile/{user_id}?chat=&game=``: the rating card (``/rating``'s lines) and the
    Elo after each rated game ``[{"at": ISO time, "elo": float}]``, oldest first, in one
    game's league (``game``, else the default game's). Your own, or that of someone in a
    chat you played in (``chat`` given)."""
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
    kind = _kind(request)
    card = await bot.service.rating_card(target, chat_id, kind=kind)
    history = await bot.service.rating_history(target, kind=kind)
    return JSONResponse({
        "user_id": target, "name": clean_name(card.name),
        "title": _("Elo of {name}").format(name=clean_name(card.name)),
        "elo": format_rating(card.rating, card.games), "games": card.games, "wins": card.wins,
        "lines": plain(render.rating_text(card)).split("\n"),
        "points": [{"at": at.isoformat(), "elo": round(elo, 1)} for at, elo in history],
        "start": START,
        "empty": _("No rated game yet")})


async def history(request: Request, bot: BotServices, user: WebAppUser) -> Response:
    """GET: the chat's last games of every game ``[{"id", "date", "kind", "title",
    "places": [{"place", "name", "change"}]}]``, newest first, as ``/history`` (``title``:
    the game as a list names it, ``GameUI.title``: Coyote's edition, Koira)."""
    chat_id = _chat_id(request)
    await _member(bot, chat_id, user)
    entries = await bot.service.history(chat_id, kind=None)
    return JSONResponse({"title": plain(render.history_text([]).split("\n")[0]), "games": [
        {"id": e.game_id, "date": e.finished_at.strftime("%d %b"),
         "kind": e.kind, "title": game_title(e.kind, e.options),
         "places": [{"place": place, "name": clean_name(name),
                     "change": None if delta is None else f"{delta:+.1f}"}
                    for place, name, delta in e.placements]} for e in entries],
        "empty": None if entries else _("No finished game yet.")})


async def replay(request: Request, bot: BotServices, user: WebAppUser) -> Response:
    """GET ``/replay/{game_id}``: ``{"title", "steps": [[line, ...], ...]}``, in order, the
    lines ``/replay``'s (the game's ``GameUI.replay_lines``, plain text): see
    :func:`replay_steps`."""
    game = await bot.service.get(id_of(request.path_params["game_id"]))
    await _member(bot, game.chat_id, user)
    game, log = await bot.service.replay(game.id, game.chat_id)
    return JSONResponse({"title": plain(render.replay_text(game, [])), "chat_id": game.chat_id,
                         "steps": replay_steps(game, log)})


def replay_steps(game: GameSnapshot, log: list[list[dict[str, Any]]]) -> list[list[str]]:
    """The replay's lines grouped by the logged moves that brought them, in order: a move's
    step holds the lines it added to the game's replay. A game whose lines sum up several
    moves (Koira: one line per trick) rewrites its last line as the moves come; that line's
    step is then replaced by one holding the new line, so every step shows a whole line
    once. Steps that add nothing are left out."""
    ui = ui_for(game)
    alone = [[plain(line) for line in ui.replay_lines(game, [step])] for step in log]
    if [line for lines in alone for line in lines] == \
            [plain(line) for line in ui.replay_lines(game, log)]:
        return [lines for lines in alone if lines]  # each move's lines its own (Coyote)
    steps: list[list[str]] = []
    before: list[str] = []
    for n in range(1, len(log) + 1):
        now = [plain(line) for line in ui.replay_lines(game, log[:n])]
        same = next((i for i, (a, b) in enumerate(zip(before, now, strict=False))
                     if a != b), min(len(before), len(now)))
        while steps and sum(map(len, steps)) > same:  # lines rewritten: drop their steps
            steps.pop()
        shown = sum(map(len, steps))
        if now[shown:]:
            steps.append(now[shown:])
        before = now
    return steps
