"""The Mini App's tournament pages: a tournament (its game and options, where it stands, the
standings with Buchholz, each round's tables with every player's place and points, the byes)
and a chat's list of tournaments. The words are the chat's (:mod:`telegram_app.render.league`
for where a tournament stands), the figures the league's
(:class:`~league.tournaments.records.TournamentSnapshot`: standings worked out from the
results).

A tournament's page follows the rule of its chat's league pages (:mod:`league.store.access`:
those who sat in one of the chat's games) and is also open to its own players (a player who
joined the sign-up may not have played in the group yet). Anyone else gets 403
``tournament_members_only``, an unknown tournament 404 ``tournament_not_found``."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from engine import GAMES
from league.store import access
from league.store.errors import ServiceError
from league.tournaments.pages import chat_tournaments
from league.tournaments.records import ROUND_PACES, TournamentSnapshot
from telegram_app.games.registry import UIS
from telegram_app.i18n import _, format_number, join_list, n_
from telegram_app.miniapp.initdata import WebAppUser
from telegram_app.miniapp.text import chat_id_of, clean_name, id_of, plain
from telegram_app.render import league as render
from telegram_app.render.chat_settings import game_name, game_title
from telegram_app.services import BotServices
from telegram_app.tournaments.words import podium

ID_LIMIT = 2**31
"""Tournament ids are 32-bit (``league.tournaments.records.read_tournament``)."""


def tournament_id_of(raw: object) -> int:
    """A path's tournament id; raises ``tournament_not_found`` for anything that is none."""
    value = id_of(raw, missing="tournament_not_found")
    if not 0 < value < ID_LIMIT:
        raise ServiceError("tournament_not_found")
    return value


async def visible_tournament(bot: BotServices, tournament_id: int,
                             user: WebAppUser) -> TournamentSnapshot:
    """The tournament, once ``user`` may see it (see the module docstring); raises
    ``tournament_not_found`` or ``tournament_members_only``."""
    cup = await bot.service.tournament(tournament_id)
    if cup.entry_of(user.id) is None and not await access.played_in(bot.db, cup.chat_id,
                                                                     user.id):
        raise ServiceError("tournament_members_only")
    return cup


def _points(value: float) -> str:
    """Tournament points as the page shows them: up to 2 decimals (⅓ → 0.33)."""
    return format_number(value, "#,##0.##")


def _points_text(value: float) -> str:
    """``1 point``, ``0.5 points`` (a fraction takes the plural, as 2 does)."""
    return n_("{points} point", "{points} points", 1 if value == 1 else 2).format(
        points=_points(value))


def settings_lines(cup: TournamentSnapshot) -> list[str]:
    """The tournament's settings as lines: rounds, a round's length, the tables' size, then
    the game's options as ``/settings`` labels them."""
    pace = ROUND_PACES.get(cup.round_seconds)
    length = {"quick": _("Each round lasts an hour"), "standard": _("Each round lasts a day"),
              "relaxed": _("Each round lasts a week")}.get(pace or "") or \
        _("Each round lasts {hours} h").format(hours=format_number(cup.round_seconds / 3600,
                                                                   "#,##0.#"))
    lines = [_("Rounds: {n}").format(n=cup.rounds), length,
             _("Tables of about {n} players").format(n=cup.table_size)]
    ui, rules = UIS.get(cup.kind), GAMES.get(cup.kind)
    if ui is not None and rules is not None:
        for spec in rules.setting_specs(cup.options):
            if spec.name in cup.options:
                lines.append(plain(ui.setting_label(spec, cup.options[spec.name],
                                                    cup.options)))
    return lines


def _standings(cup: TournamentSnapshot, user_id: int) -> list[dict[str, Any]]:
    return [{"place": row.place, "name": clean_name(row.entry.name),
             "points": _points(row.points), "buchholz": _points(row.buchholz),
             "played": row.played, "ai": row.entry.is_ai, "withdrawn": not row.entry.active,
             "you": row.entry.user_id == user_id, "user_id": row.entry.user_id}
            for row in cup.standings]


def _rounds(cup: TournamentSnapshot, user_id: int) -> list[dict[str, Any]]:
    """Each round seated, first to last: its tables (players in seat order with their place
    and points once the round is scored) and its byes."""
    results = {(r.round, r.entry_id): r for r in cup.results}
    out = []
    for number in range(1, cup.round + 1):
        tables = []
        for table in cup.tables_of(number):
            players = []
            for entry_id in table.entries:
                entry, result = cup.entry(entry_id), results.get((number, entry_id))
                players.append({
                    "name": clean_name(entry.name), "ai": entry.is_ai,
                    "you": entry.user_id == user_id,
                    "place": result.place if result is not None else None,
                    "points": _points(result.points) if result is not None else None,
                    "points_text": _points_text(result.points) if result is not None
                    else None,
                    "no_show": bool(result and result.no_show)})
            tables.append({"table": table.table, "title": _("Table {n}").format(n=table.table),
                           "game_id": table.game_id, "status": table.status,
                           "over": table.status == "finished", "players": players})
        byes = [{"name": clean_name(e.name), "you": e.user_id == user_id,
                 "points": _points(results[(number, e.id)].points),
                 "points_text": _points_text(results[(number, e.id)].points)}
                for e in cup.byes_of(number)]
        out.append({"round": number, "title": _("Round {n}").format(n=number),
                    "tables": tables, "byes": byes,
                    "current": cup.status == "running" and number == cup.round})
    return out


def page(cup: TournamentSnapshot, user_id: int) -> dict[str, Any]:
    """The tournament page's data (``user_id``: the reader, whose lines are marked)."""
    running = cup.status == "running"
    return {
        "id": cup.id, "chat_id": cup.chat_id,
        "chat_title": clean_name(cup.chat_title, 40) if cup.chat_title else None,
        "kind": cup.kind, "game": game_name(cup.kind),
        "label": game_title(cup.kind, cup.options),
        "title": _("🏆 Tournament #{id}").format(id=cup.id),
        "status": cup.status, "stage": plain(render.tournament_stage(cup)),
        "deadline": cup.round_ends_at.isoformat() if running and cup.round_ends_at else None,
        "settings": settings_lines(cup),
        "players": [{"name": clean_name(e.name), "ai": e.is_ai, "you": e.user_id == user_id}
                    for e in cup.entries if e.active],
        "standings": _standings(cup, user_id) if cup.status in ("running", "finished") else [],
        "rounds": _rounds(cup, user_id),
        "tie_break": _("Ties are broken by Buchholz (the points of the opponents one sat "
                       "with), then by Elo."),
    }


async def tournament(request: Request, bot: BotServices, user: WebAppUser) -> Response:
    """GET ``/tournament/{id}``: :func:`page`."""
    cup = await visible_tournament(bot, tournament_id_of(request.path_params["tournament_id"]),
                                   user)
    return JSONResponse(page(cup, user.id))


def list_item(cup: TournamentSnapshot, user_id: int, *, group: bool) -> dict[str, Any]:
    """A tournament in a list of a player's tournaments: ``{"id", "chat_id", "line"}``, the
    line as ``/history`` gives it (``group``: naming its group)."""
    return {"id": cup.id, "chat_id": cup.chat_id,
            "line": plain(render.tournament_line(cup, user_id, group=group))}


async def chat_list(request: Request, bot: BotServices, user: WebAppUser) -> Response:
    """GET ``/chat/{chat_id}/tournaments``: ``{"title", "tournaments": [{"id", "game",
    "label", "stage", "players", "winner", "you"}]}``, the chat's latest tournaments (sign-up,
    running or finished; ``players``: how many, as text; ``winner``: ``Winner: …`` once
    finished, else ``None``; ``you``: the reader plays in it), for those who may read its
    league (``league_members_only`` otherwise)."""
    chat_id = chat_id_of(request.path_params["chat_id"])
    if not await access.played_in(bot.db, chat_id, user.id):
        raise ServiceError("league_members_only")
    items = []
    for cup in await chat_tournaments(bot.db, chat_id):
        # (as the group's final message: no medal for one withdrawn, or for 0 points)
        winners = [clean_name(r.entry.name) for r in podium(cup) if r.place == 1] \
            if cup.status == "finished" else []
        count = len(cup.active) if cup.status == "signup" else len(cup.entries)
        items.append({"id": cup.id, "game": game_name(cup.kind),
                      "label": game_title(cup.kind, cup.options),
                      "stage": plain(render.tournament_stage(cup)),
                      "players": n_("{n} player", "{n} players", count).format(n=count),
                      "winner": _("Winner: {names}").format(names=join_list(winners))
                      if winners else None,
                      "you": cup.entry_of(user.id) is not None})
    return JSONResponse({"title": _("Tournaments"), "tournaments": items})
