"""The Mini App's league endpoints, per game (each game keeps its own Elo, standings and
history: ``?game=<kind>``; without it, the game the chat or the player played last, see
:func:`_kind`): a chat's standings (week,
last week, season), a player's profile with their Elo history (the page draws the chart), the
chat's history of every game and a game's replay, step by step. The figures are the chat
commands' own: the same queries (:mod:`league.tables.queries`), the same formatting
(:mod:`telegram_app.render.league`) and each game's own replay lines
(:meth:`telegram_app.games.base.GameUI.replay_lines`).

The games offered are those of the registries (``engine.GAMES``, named by
:func:`telegram_app.render.chat_settings.game_name`), sent with each page: the page holds no list.

A chat's pages are for people who took a seat in one of its games (:mod:`league.store.access`)."""

from __future__ import annotations

from datetime import UTC, datetime, tzinfo
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from league.store import access
from league.store.errors import ServiceError
from league.store.snapshots import GameSnapshot
from league.tables.queries import RatingCard
from league.tables.ratings import START, format_rating
from league.tables.standings import zone
from league.tournaments.pages import played_tournaments
from telegram_app.games.registry import UIS, default_kind
from telegram_app.i18n import _, format_day, format_number
from telegram_app.miniapp import table, tournament_api
from telegram_app.miniapp.initdata import WebAppUser
from telegram_app.miniapp.text import chat_id_of, clean_name, id_of, plain
from telegram_app.render import league as render
from telegram_app.render.chat_settings import game_kinds, game_name, game_title
from telegram_app.render.results import signed
from telegram_app.services import BotServices

PERIODS = ("week", "last", "season")


def _chat_id(request: Request) -> int:
    return chat_id_of(request.path_params["chat_id"])


async def _member(bot: BotServices, chat_id: int, user: WebAppUser) -> None:
    if not await access.played_in(bot.db, chat_id, user.id):
        raise ServiceError("league_members_only")


def kinds() -> list[str]:
    """The games with a league, the chat commands' default first."""
    found = game_kinds()
    return sorted(found, key=lambda kind: kind != default_kind())


async def _chat_last(bot: BotServices, chat_id: int) -> str | None:
    """The game of the chat's last rated game (else of its last finished one), or
    ``None`` before its first."""
    entries = [e for e in await bot.service.history(chat_id, kind=None) if e.kind in kinds()]
    rated = [e for e in entries if any(delta is not None for *_, delta in e.placements)]
    return (rated or entries)[0].kind if entries else None


async def _player_last(bot: BotServices, user_id: int) -> str | None:
    """The game of the player's last rated game, or ``None`` before their first."""
    last: tuple[datetime, str] | None = None
    for kind in kinds():
        points = await bot.service.rating_history(user_id, kind=kind)
        if points and (last is None or points[-1][0] > last[0]):
            last = (points[-1][0], kind)
    return None if last is None else last[1]


async def _kind(request: Request, bot: BotServices, *, chat_id: int | None = None,
                user_id: int | None = None) -> str:
    """``?game=``: a kind of :func:`kinds`; raises ``bad_option`` for another. Without it,
    the game the player (``user_id``) or else the chat played last, so that the page opens
    on a league that has figures (a chat that played only Koira would otherwise see an
    empty Coyote league); ``games.registry.default_kind()`` before any game."""
    kind = request.query_params.get("game")
    if not kind and user_id is not None:
        kind = await _player_last(bot, user_id)
    if not kind and chat_id is not None:
        kind = await _chat_last(bot, chat_id)
    kind = kind or default_kind()
    if kind not in kinds():
        raise ServiceError("bad_option")
    return kind


def _games(kind: str) -> dict[str, Any]:
    """The game switch's data: ``{"game": kind, "game_name", "kinds": [{"kind", "name"}]}``
    (``kinds``: every game with a league, in the switch's order)."""
    return {"game": kind, "game_name": game_name(kind),
            "kinds": [{"kind": k, "name": game_name(k)} for k in kinds()]}


async def chat(request: Request, bot: BotServices, user: WebAppUser) -> Response:
    """GET: ``{"id", "title"}`` of a chat the user played in."""
    chat_id = _chat_id(request)
    await _member(bot, chat_id, user)
    return JSONResponse({"id": chat_id, "title": await access.chat_title(bot.db, chat_id)
                         or _("This chat")})


async def standings(request: Request, bot: BotServices, user: WebAppUser) -> Response:
    """GET ``?period=week|last|season&game=<kind>``: ``{"title", "range", "rows": [{"rank",
    "name", "points", "games", "wins", "elo", "change", "you", "user_id"}], "empty"}`` and
    the game switch (:func:`_games`), as ``/standings [game]`` (figures formatted as there;
    without a game, the chat's last one's). Raises ``bad_option`` for another period or
    game."""
    chat_id = _chat_id(request)
    await _member(bot, chat_id, user)
    period = request.query_params.get("period", "week")
    if period not in PERIODS:
        raise ServiceError("bad_option")
    kind = await _kind(request, bot, chat_id=chat_id)
    table = await bot.service.standings(chat_id, period, kind=kind)
    lines = plain(render.standings_text(table)).split("\n")
    rows = [{"rank": row.rank, "name": clean_name(table.names.get(row.player, "?")),
             "points": format_number(row.points, "#,##0.##"), "games": row.games,
             "wins": row.wins,
             "elo": format_rating(row.rating, table.games_played.get(row.player, 0)),
             "change": render.rating_change(row.rating_change),
             "you": row.player == user.id, "user_id": row.player} for row in table.rows]
    return JSONResponse({
        "period": period, "title": lines[0], "rows": rows, "range": lines[1],
        "empty": None if rows else lines[-1], **_games(kind)})


async def _others(bot: BotServices, card: RatingCard, chat_id: int | None,
                  kind: str) -> list[tuple[str, RatingCard]]:
    """The player's cards in the other games they played rated games of (as ``/rating``
    lists them)."""
    cards = [(other, await bot.service.rating_card(card.user_id, chat_id, kind=other))
             for other in kinds() if other != kind]
    return [(other, c) for other, c in cards if c.games]


async def profile(request: Request, bot: BotServices, user: WebAppUser) -> Response:
    """GET ``/profile/{user_id}?chat=&game=``: the rating card in that game (``/rating``'s
    lines, the other games' Elo after them) and the Elo after each rated game of it
    ``[{"at": ISO time, "day": its date in the reader's language, the chat's day (as its
    ``/profile`` chart's; UTC's without a chat), "elo": float, "shown": that Elo as the
    game's final message gave it, ``"1513?"``}]``, oldest first, with the game switch
    (without a game, the one the player last played rated, else the chat's last), and
    their latest tournaments ``[{"id", "chat_id", "line"}]``
    (:func:`tournament_api.list_item`). Your own
    (with the tournaments of every group), or that of someone in a chat you played in
    (``chat`` given; that chat's tournaments alone: which other groups someone plays in is
    theirs to tell)."""
    # (an id past 64 bits is nobody the reader shares a group with, as an unknown one)
    target = id_of(request.path_params["user_id"], missing="profile_not_shared")
    raw = request.query_params.get("chat")
    chat_id = chat_id_of(raw) if raw else None
    if target != user.id:
        if chat_id is None:
            raise ServiceError("profile_not_shared")
        await _member(bot, chat_id, user)  # (first: whom the chat holds is its own business)
        if not await access.played_in(bot.db, chat_id, target):
            raise ServiceError("profile_not_shared")
    elif chat_id is not None and not await access.played_in(bot.db, chat_id, user.id):
        chat_id = None
    kind = await _kind(request, bot, chat_id=chat_id, user_id=target)
    card = await bot.service.rating_card(target, chat_id, kind=kind)
    history = await bot.service.rating_history(target, kind=kind)
    others = await _others(bot, card, chat_id, kind)
    own = target == user.id
    cups = await played_tournaments(bot.db, target, None if own else chat_id)
    text = render.rating_text(card, in_group=chat_id is not None) + \
        render.other_games_text(others)
    # the chart's days: a chat's (as its /profile chart, /history and the standings), else UTC
    tz: tzinfo = zone((await bot.service.chat_zone(chat_id))[0]) if chat_id is not None \
        else UTC
    return JSONResponse({
        "user_id": target, "name": clean_name(card.name),
        "title": _("Elo of {name}").format(name=clean_name(card.name)),
        "elo": format_rating(card.rating, card.games), "games": card.games, "wins": card.wins,
        "lines": plain(text).split("\n"),
        # ("elo" places the dot; "shown" is what its title says: the Elo after that game as
        # every message gave it, rounded and "?" while provisional, never 1497.5 for 1497?)
        "points": [{"at": at.isoformat(),
                    "day": format_day(at.astimezone(tz), skeleton="yMMMd"),
                    "elo": round(elo, 1), "shown": format_rating(elo, games)}
                   for games, (at, elo) in enumerate(history, start=1)],
        "start": START,
        "empty": _("No rated game yet"), **_games(kind),
        "tournaments": [tournament_api.list_item(c, target, group=own) for c in cups]})


async def history(request: Request, bot: BotServices, user: WebAppUser) -> Response:
    """GET: the chat's last games of every game ``[{"id", "date", "kind", "game",
    "label", "places": [{"place", "name", "change"}]}]``, newest first, as ``/history``
    (``game``: the game's name; ``label``: as /history names the game, Coyote's edition or
    the game's name)."""
    chat_id = _chat_id(request)
    await _member(bot, chat_id, user)
    entries = await bot.service.history(chat_id, kind=None)
    return JSONResponse({"title": plain(render.history_text([]).split("\n")[0]), "games": [
        {"id": e.game_id, "date": format_day(e.finished_at, skeleton="MMMd"),
         "kind": e.kind, "game": game_name(e.kind), "label": game_title(e.kind, e.options),
         "places": [{"place": place, "name": clean_name(name),
                     "change": None if delta is None else signed(delta)}
                    for place, name, delta in e.placements]} for e in entries],
        "empty": None if entries else _("No finished game yet.")})


def replay_steps(lines_after: list[list[str]]
                 ) -> tuple[list[list[str]], list[int], list[int]]:
    """The replay as steps from ``lines_after[i]``, the replay's lines after logged step
    ``i``: each step that changes them becomes ``(kept, new lines)``, the first ``kept``
    lines of the step before staying and the new lines following them. A game that only
    appends (Coyote) keeps everything; Koira's trick line grows with each card, so that
    line is replaced. Returns ``(steps, kept, logged)``, three lists of the same length,
    ``logged`` the index of the logged step each step shows the lines after."""
    steps: list[list[str]] = []
    kept: list[int] = []
    logged: list[int] = []
    before: list[str] = []
    for index, after in enumerate(lines_after):
        if after == before:
            continue
        same = 0
        while same < min(len(before), len(after)) and before[same] == after[same]:
            same += 1
        steps.append(after[same:])
        kept.append(same)
        logged.append(index)
        before = after
    return steps, kept, logged


def replay_marks(marks: list[tuple[int, str]], logged: list[int]) -> list[dict[str, Any]]:
    """``[{"step", "label"}]``: each ``(logged step, label)`` of ``marks`` (a round, a
    trick) at the first step that shows what that logged step did, in order, one per
    step."""
    out: list[dict[str, Any]] = []
    for index, label in marks:
        step = next((k for k, at in enumerate(logged) if at >= index), None)
        if step is None:
            continue
        if out and out[-1]["step"] == step:
            out[-1]["label"] = label  # (the later mark names what the step shows)
        else:
            out.append({"step": step, "label": label})
    return out


async def replay(request: Request, bot: BotServices, user: WebAppUser) -> Response:
    """GET ``/replay/{game_id}``: ``{"title", "game", "label", "kind", "chat_id", "steps":
    [[line, ...], ...], "kept": [n, ...], "cards": [{"cards": [{"name", "card", "value"}],
    "legend": [...], "line"?} or None, ...], "marks": [{"step", "label"}], "jump"}``: one entry per
    logged move that says something, in order, as :func:`replay_steps` (the lines are the
    game's ``/replay`` lines, plain text); ``cards``, per step, the cards it revealed or
    played, each with its owner (the game's adapter: a Coyote showdown, a Koira play), to
    be drawn after the replay's line number ``line`` (else after the step's lines);
    ``marks`` the steps to jump to (Coyote's rounds, Koira's tricks). A cancelled or running
    game's last step is ``/replay``'s last line for it ("— game cancelled: not rated —",
    "— game still in progress —"); a game never started has one step, ``/replay``'s
    sentence ("Game #7 was cancelled."). Raises ``game_not_found`` for a kind the bot has no
    UI for."""
    game = await bot.service.get(id_of(request.path_params["game_id"]))
    await _member(bot, game.chat_id, user)
    game, log = await bot.service.replay(game.id, game.chat_id)
    ui = UIS.get(game.kind)
    if ui is None:
        raise ServiceError("game_not_found")
    if render.never_started(game):  # never started: what /replay says of it, as its one step
        return JSONResponse({**_replay_head(game), "steps": [[plain(render.replay_text(
            game, log))]], "kept": [0], "cards": [None], "marks": []})
    # Each prefix of the log told anew (a game's lines may depend on the moves before, as
    # Koira's trick line does): quadratic, on a few hundred moves at most.
    steps, kept, logged = replay_steps(
        [[plain(line) for line in ui.replay_lines(game, log[:i + 1])] for i in range(len(log))])
    adapter = table.adapter_of(game.kind)
    cards: list[dict[str, Any] | None] = []
    for k, at in enumerate(logged):  # a step shows the cards of the logged steps it covers
        start = logged[k - 1] + 1 if k else 0
        covered = [e for events in log[start:at + 1] for e in events]
        entry = adapter.replay_cards(game, covered) if adapter else None
        if entry is not None and entry.get("through") is not None:
            # the cards follow the line of the event that showed them (a showdown's, not
            # the next round's heading the same move brought)
            told = ui.replay_lines(game, [*log[:start], covered[:entry.pop("through") + 1]])
            entry["line"] = len(told) - 1
        cards.append(entry)
    end = render.replay_end(game)
    if end is not None:  # (a cancelled or running game: its last step says so, as /replay)
        kept.append(kept[-1] + len(steps[-1]) if steps else 0)
        steps.append([end])
        cards.append(None)
    return JSONResponse({
        **_replay_head(game), "steps": steps, "kept": kept, "cards": cards,
        "marks": replay_marks(adapter.replay_marks(log) if adapter else [], logged)})


def _replay_head(game: GameSnapshot) -> dict[str, Any]:
    """The replay page's title, game, label, kind, chat and jump label."""
    return {"title": plain(_("🎬 <b>Replay of game #{id}</b>").format(id=game.id)),
            "game": game_name(game.kind), "label": game_title(game.kind, game.options),
            "kind": game.kind, "chat_id": game.chat_id, "jump": _("Jump to")}

