"""Pieces every message uses: safe names, mentions, times and error alerts."""

from __future__ import annotations

import re
from datetime import datetime
from html import escape, unescape
from typing import Any

import regex

from league.store.snapshots import PlayerInfo
from telegram_app.i18n import _

FSI, PDI = "\u2068", "\u2069"  # isolate a name so right-to-left text cannot reorder the line
MAX_NAME = 48


BIDI_CONTROLS = dict.fromkeys(map(ord, "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"))
"""Embeddings, overrides and isolates: inside a name they could close its isolate early and
reorder the rest of the line (a bid of 12 shown as 21)."""


def plain_name(name: str, limit: int = MAX_NAME) -> str:
    """A display name cut to ``limit`` characters and isolated for bidi (its own bidi
    controls dropped); not escaped."""
    name = " ".join(name.translate(BIDI_CONTROLS).split()) or "?"
    if len(name) > limit:  # (cut between the characters a reader sees: no half flag or emoji)
        first, *rest = regex.findall(r"\X", name)
        kept = first  # (one whole character at least, however many code points it takes)
        for grapheme in rest:
            if len(kept) + len(grapheme) > limit - 1:
                break
            kept += grapheme
        name = kept + "…"
    return f"{FSI}{name}{PDI}"


def name_html(player: PlayerInfo) -> str:
    """A player's name, escaped for Telegram HTML."""
    return escape(plain_name(player.name), quote=False)


def level_name(level: str) -> str:
    """A computer player's level as players read it (``Game.ai_levels``)."""
    names = {"easy": _("easy"), "normal": _("normal"), "hard": _("hard")}
    return names.get(level, level)


def pace_text(pace: str) -> str:
    """A game's pace as its lobby and start tell it, with a turn's time ("⏱ standard (1 h a
    turn)"); empty for an unknown one."""
    names = {"quick": lambda: _("⏱ quick (1 min a turn)"),
             "standard": lambda: _("⏱ standard (1 h a turn)"),
             "relaxed": lambda: _("⏱ relaxed (24 h a turn)")}
    return names[pace]() if pace in names else ""


def seat_label(player: PlayerInfo) -> str:
    """A seat's escaped name as lobbies and tables list it: a computer player's with 🤖 and
    its level ("🤖 Wile (hard)")."""
    if not player.is_ai:
        return name_html(player)
    return _("🤖 {name} ({level})").format(name=name_html(player),
                                          level=level_name(player.level or "normal"))


def mention_html(player: PlayerInfo) -> str:
    """A link that mentions the player (notifies them) when sent in a new message."""
    if player.user_id is None:
        return name_html(player)
    return f'<a href="tg://user?id={player.user_id}">{name_html(player)}</a>'


def time_html(moment: datetime, fmt: str, fallback: str) -> str:
    """A Bot API date-time entity: clients that know it show ``moment`` in the reader's own
    time zone and locale (``fmt``: "Date-time entity formatting", ``r|w?[dD]?[tT]?``); older
    ones show ``fallback`` (escaped here). ``moment`` must be timezone-aware."""
    return (f'<tg-time unix="{int(moment.timestamp())}" format="{fmt}">'
            f"{escape(fallback, quote=False)}</tg-time>")


def error_text(code: str, detail: dict[str, Any] | None = None, kind: str | None = None
               ) -> str:
    """A short, polite alert (≤ 200 characters) for a refused request's code: the bot's
    and the league's own, else a game's ``RuleError`` code (``kind``'s UI first, then every
    registered game's)."""
    detail = detail or {}
    messages = {
        "game_not_found": _("This game no longer exists."),
        "game_of_another_chat": _("Game #{id} was not played in this group.").format(
            id=detail.get("game_id", "")),
        "game_open": _("Game #{id} is already open here: its lobby or table is above.").format(
            id=detail.get("game_id", "")),
        "rematch_started": _("The rematch, game #{id}, has already started.").format(
            id=detail.get("game_id", "")),
        "not_in_lobby": _("This game has already started or ended."),
        "not_running": _("This game is not running any more."),
        "typed_before_timeout": _("⏰ That was sent before this turn's message, so I did "
                                  "not play it: it may have been meant for the turn the "
                                  "computer played for you. Type it again if you still "
                                  "mean it."),
        "already_joined": _("You have already joined."),
        "game_full": _("The table is full ({max} players).").format(max=detail.get("max", "")),
        "not_joined": _("You are not in this lobby."),
        "not_creator": _("Only the host (who opened the lobby) can do that."),
        "bad_option": _("That option is not available."),
        "bad_timezone": _("Unknown time zone: use a name like Europe/Berlin or "
                          "America/Sao_Paulo."),
        "no_ai": _("There is no computer player to remove."),
        "too_few_players": _("At least {min} players are needed to start.").format(
            min=detail.get("min", "")),
        "already_paused": _("The clock is already paused; /resume restarts it."),
        "not_paused": _("The clock is not paused."),
        "not_a_player": _("You are not playing in this game."),
        "out_of_game": _("You are out of this game: follow the rest on the table."),
        "stale": _("That button is out of date — the game has moved on."),
        "already_handled": _("That was done already."),
        "not_allowed": _("Only the host or a chat admin can do that."),
        "game_members_only": _("This game's table is for the players of its group."),
        "league_members_only": _("This group's league is for those who have played a game "
                                 "in it."),
        "profile_not_shared": _("You can see another player's profile in a group you have "
                                "both played in."),
        "cancel_running": _("Only a chat admin can cancel a game that other people are still "
                            "playing, so that it still counts for the league. To quit, send "
                            "/leave."),
        "not_your_turn": _("It is not your turn."),
        "game_over": _("This game is over."),
        "not_finished": _("This game is not over yet."),
        "bad_action": _("That move is not allowed."),
        "bad_button": _("That button is not valid."),
        "game_changed": _("This game has changed since that button was drawn."),
        "tournament_not_found": _("This tournament does not exist (any more)."),
        "tournament_closed": _("This tournament is over or was cancelled."),
        "join_closed": _("Too late to join: new players may join only until half of the "
                         "rounds have started."),
        "tournament_full": _("The tournament is full ({max} players).").format(
            max=detail.get("max", "")),
        "not_in_signup": _("The tournament has started: its settings can no longer change."),
        "unknown_game": _("I do not know that game."),
    }
    if code in messages:
        return messages[code]
    return _game_error(code, detail, kind) or _("That cannot be done right now.")


def _game_error(code: str, detail: dict[str, Any], kind: str | None) -> str | None:
    from telegram_app.games import registry  # (the games' packages import this module)

    uis = [registry.UIS[kind]] if kind in registry.UIS else []
    for ui in [*uis, *registry.UIS.values()]:
        if (text := ui.error_text(code, detail)) is not None:
            return text
    return None


MESSAGE_LIMIT = 4000  # Telegram allows 4096 characters; keep room for entities
_TAG = re.compile(r"<[^>]*>")


def visible_length(html: str) -> int:
    """The characters of an HTML message as Telegram counts them against its limit: after
    parsing, so tags and a mention's link count nothing and ``&amp;`` counts one."""
    return len(unescape(_TAG.sub("", html)))


def fit_lines(lines: list[str], limit: int = MESSAGE_LIMIT, *, keep: str = "last") -> str:
    """Join whole lines into one message of at most ``limit`` characters as Telegram counts
    them (:func:`visible_length`), dropping the oldest lines (``keep="last"``), the newest
    (``keep="first"``) or the middle (``keep="ends"``: the first line, the last lines in up
    to half the room, then as many lines after the first as fit) behind a "…" line, so no
    HTML tag is ever cut in half."""
    sizes = [visible_length(line) + 1 for line in lines]
    if sum(sizes) <= limit + 1:
        return "\n".join(lines)
    if keep == "ends":
        tail = _fitting(lines[:0:-1], sizes[:0:-1], (limit - sizes[0]) // 2)
        room = limit - sizes[0] - 2 - sum(sizes[len(lines) - len(tail):])
        head = _fitting(lines[1:], sizes[1:], room)
        return "\n".join([lines[0], *head, "…", *reversed(tail)])
    if keep == "last":
        return "\n".join(["…", *reversed(_fitting(lines[::-1], sizes[::-1], limit - 2))])
    return "\n".join([*_fitting(lines, sizes, limit - 2), "…"])


def _fitting(lines: list[str], sizes: list[int], room: int) -> list[str]:
    """The first of ``lines`` whose ``sizes`` fit in ``room``."""
    kept: list[str] = []
    for line, size in zip(lines, sizes, strict=True):
        if size > room:
            break
        kept.append(line)
        room -= size
    return kept
