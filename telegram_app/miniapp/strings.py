"""The page's own words, translated on the server (``_()``, the user's language), and who the
user is."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from league.store import access
from telegram_app.i18n import _
from telegram_app.miniapp.initdata import WebAppUser
from telegram_app.miniapp.text import clean_name, current_language
from telegram_app.services import BotServices


def ui_strings() -> dict[str, str]:
    """Every label the page shows that the API does not send with the data."""
    return {
        "table": _("Table"), "standings": _("Standings"), "profile": _("Profile"),
        "history": _("History"), "replay": _("Replay"),
        "week": _("This week"), "last": _("Last week"), "season": _("Season"),
        "you": _("you"), "your_card": _("your card"), "claims": _("Bids"),
        "no_bid": _("No bid yet."), "pile": _("Draw pile: {n}"),
        "turn_ends": _("Turn ends in {time}"), "hours": _("{h}h {m}m"),
        "paused": _("The clock is paused."),
        "loading": _("Loading…"), "offline": _("Reconnecting…"),
        "unauthorized": _("Open this page from Telegram: the link has expired or is not "
                          "valid."),
        "error": _("Sorry, something went wrong. Please try again."),
        "no_game": _("No running game. Open the table from a game's message."),
        "rank_cols": _("rank · player · points · games · wins · Elo (change)"),
        # the standings' column heads (rank_cols, under the table, spells them out)
        "col_points": _("P"), "col_games": _("G"), "col_wins": _("W"),
        "prev": _("◀ Previous"), "next": _("Next ▶"),
        "step": _("Step {n} of {total}"), "elo": _("Elo"), "games": _("Rated games"),
        "place": _("Place {n}"), "send": _("Sending…"), "more": _("Higher"),
        "less": _("Lower"), "no_modifier": _("Plain bid"), "out": _("out"),
        "open_replay": _("Replay"), "open_table": _("Open the table"),
        "your_games": _("Your games"), "your_leagues": _("Your leagues"),
        "result": _("Result"),
        # the tournament pages
        "tournaments": _("Tournaments"),
        "t_player": _("Player"), "t_points": _("Points"), "t_buchholz": _("Buchholz"),
        "t_played": _("Games"), "withdrawn": _("withdrawn"), "no_show": _("no-show"),
        "signed_up": _("Signed up"), "byes": _("Byes"),
        "round_ends": _("Round ends {time}"),
        "tables_playing": _("Playing"), "settings": _("Settings"),
        "rounds": _("Rounds"),
    }


async def strings(request: Request, bot: BotServices, user: WebAppUser) -> Response:
    """GET: the labels in the user's language."""
    return JSONResponse({**ui_strings(), "lang": current_language()})


async def me(request: Request, bot: BotServices, user: WebAppUser) -> Response:
    """GET: ``{"id", "name", "games": [{"id", "chat_id", "status"}], "chats": [{"id",
    "title"}]}``: the user's running games and the chats they play in."""
    games = await bot.service.running_games_of(user.id)
    chats = []
    for chat_id in (await access.chats_of(bot.db, user.id))[:10]:
        chats.append({"id": chat_id, "title": await access.chat_title(bot.db, chat_id)
                      or str(chat_id)})
    return JSONResponse({
        "id": user.id, "name": clean_name(" ".join(
            p for p in (user.first_name, user.last_name) if p)),
        "games": [{"id": g.id, "chat_id": g.chat_id, "status": g.status} for g in games],
        "chats": chats})
