"""Inline keyboards the bot draws for every game: the lobby's (from the game's
``option_specs``), the table's and the frame of a player's private one; the game's own rows
come from its UI (``telegram_app.games.base.GameUI``).
"""

from __future__ import annotations

from typing import Any

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from engine import GAMES
from engine.core import OptionSpec
from league.match.lobby import fits
from league.store.snapshots import GameSnapshot
from telegram_app.callbacks import PACE_ORDER, Callback
from telegram_app.games.base import Rows, is_over
from telegram_app.games.registry import ui_for
from telegram_app.i18n import _
from telegram_app.miniapp import links
from telegram_app.render.common import level_name, plain_name
from telegram_app.render.language import in_chat_language, in_seat_language

Button = InlineKeyboardButton
OPTION_ROW = 3
"""The most option buttons (the pace included) the lobby puts in one row."""

def deep_link(bot_username: str, game_id: int, *, join: bool = False) -> str:
    """``https://t.me/<bot>?start=g<id>``: opens the private chat and sends ``/start g<id>``
    (``join``: ``j<id>``, which also seats the sender in that lobby if they subscribed to
    its group's alerts)."""
    return f"https://t.me/{bot_username}?start={'j' if join else 'g'}{game_id}"


def _cb(verb: str, game: GameSnapshot, *args: int | None) -> str:
    return Callback(verb, game.id, tuple(a for a in args if a is not None)).encode()


def pace_label(pace: str) -> str:
    """A pace's short name as players see it."""
    return {"quick": _("quick"), "standard": _("standard"), "relaxed": _("relaxed")}.get(
        pace, pace)


def option_specs(game: GameSnapshot) -> list[OptionSpec]:
    """The game's lobby options (``Game.option_specs``); the lobby's ``o`` buttons number
    them from 1 (0 is the league's pace)."""
    return list(GAMES[game.kind].option_specs(game.options))


def following_value(spec: OptionSpec, current: Any, game: GameSnapshot | None = None) -> Any:
    """The value a press on ``spec``'s button sets: the next one, numbers in rising order,
    passing over those the lobby's players could not play with (``game``'s; Coyote
    Feathers' 4 lives with six seated)."""
    values = list(spec.values)
    if all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        values.sort()
    if game is not None:
        values = [v for v in values if v == current or fits(
            GAMES[game.kind], game.options, len(game.players), spec.name, v)]
    if current not in values:
        return values[0]
    return values[(values.index(current) + 1) % len(values)]


@in_chat_language
def lobby_keyboard(game: GameSnapshot, bot_username: str | None) -> InlineKeyboardMarkup:
    """Join / Leave, the game's options and the pace (``o:<game>:<option index>:<value
    index>``: 0 is the pace, 1… the game's ``option_specs``; an option with a
    single value is not shown; one of words, not numbers or on/off, gets its own row),
    computer players and their levels (:func:`level_rows`), Start, 🔔 (tell me of the
    group's next games) and a deep link to the private chat."""
    ui = ui_for(game)
    rows = [[Button(_("✋ Join"), callback_data=_cb("j", game)),
             Button(_("🚪 Leave"), callback_data=_cb("l", game))]]
    option_row, long_rows = [], []
    for index, spec in enumerate(option_specs(game), start=1):
        if len(spec.values) < 2:
            continue
        current = game.options.get(spec.name, spec.default)
        label = ui.option_label(game, spec, current)
        button = Button(label, callback_data=_cb(
            "o", game, index, list(spec.values).index(following_value(spec, current, game))))
        if not all(isinstance(v, int) for v in spec.values):  # (a word: a long label)
            long_rows.append([button])
        else:
            option_row.append(button)
    pace = game.options.get("pace", "standard")
    option_row.append(Button(_("⏱ Pace: {pace}").format(pace=pace_label(pace)), callback_data=_cb(
        "o", game, 0,
        (PACE_ORDER.index(pace) + 1) % len(PACE_ORDER) if pace in PACE_ORDER else 1)))
    # (up to three buttons share a row, Coyote's; more, as Koira's four and the pace, go
    # two a row, so that their labels stay readable on a phone)
    width = len(option_row) if len(option_row) <= OPTION_ROW else 2
    rows += [option_row[i:i + width] for i in range(0, len(option_row), width)]
    rows += long_rows
    # With the version: a double tap adds (or removes) one computer player, not two.
    rows.append([Button(_("🤖 Add AI"), callback_data=_cb("a", game, game.version)),
                 Button(_("➖ Remove AI"), callback_data=_cb("r", game, game.version))])
    rows += level_rows(game)
    last = [Button(_("▶️ Start"), callback_data=_cb("s", game)),
            Button(_("🔔 Next games"), callback_data=_cb("n", game))]
    if bot_username:
        last.append(Button(_("💬 Private chat"), url=deep_link(bot_username, game.id)))
    rows.append(last)
    return InlineKeyboardMarkup(rows)


LEVELS_PER_ROW = 3
"""Computer players' level buttons in one lobby row."""


def level_rows(game: GameSnapshot) -> Rows:
    """One button per computer seat, three to a row: its name and level; a press moves it
    to the game's next level (``v:<game>:<computer index>:<level index>:<version>``; with
    the version, so a double tap changes it once)."""
    levels = list(GAMES[game.kind].ai_levels)
    if len(levels) < 2:
        return []
    buttons = []
    for index, player in enumerate(p for p in game.players if p.is_ai):
        level = player.level or "normal"
        following = (levels.index(level) + 1) % len(levels) if level in levels else 0
        buttons.append(Button(_("{name}: {level}").format(
            name=plain_name(player.name), level=level_name(level)),
            callback_data=_cb("v", game, index, following, game.version)))
    return [buttons[i:i + LEVELS_PER_ROW] for i in range(0, len(buttons), LEVELS_PER_ROW)]


@in_chat_language
def rematch_keyboard(game: GameSnapshot) -> InlineKeyboardMarkup | None:
    """The 🔁 Rematch button of a finished game's last message (``rm:<game>``); none for a
    tournament's table (the tournament seats the next round)."""
    if game.tournament_id is not None:
        return None
    return InlineKeyboardMarkup([[Button(_("🔁 Rematch"), callback_data=_cb("rm", game))]])


def lobby_option(game: GameSnapshot, index: int, value_index: int) -> tuple[str, Any] | None:
    """The (name, value) an ``o`` press sets, or ``None`` for indexes that do not exist."""
    if index == 0:
        return ("pace", PACE_ORDER[value_index]) if value_index < len(PACE_ORDER) else None
    specs = option_specs(game)
    if not 0 < index <= len(specs) or value_index >= len(specs[index - 1].values):
        return None
    spec = specs[index - 1]
    return spec.name, spec.values[value_index]


@in_chat_language
def table_keyboard(game: GameSnapshot, rows: Rows | None = None) -> InlineKeyboardMarkup:
    """The group table: 🎴 where the game has it (``p``: the presser's own view and moves as
    an ephemeral message in the group, ``presenter/ephemeral.py``; the 👀 alert where
    Telegram refuses one), the Mini App's direct link where it is configured, then the
    game's table rows (or ``rows``: the keyboard a press on an old table asked for)."""
    ui = ui_for(game)
    top = [Button(_("🎴 My cards"), callback_data=_cb("p", game))] if ui.peek else []
    top += links.group_row(game.id)
    extra = ui.table_rows(game) if rows is None else rows
    return InlineKeyboardMarkup(([top] if top else []) + extra)


@in_seat_language
def private_keyboard(game: GameSnapshot, seat: int, rows: Rows | None = None
                     ) -> InlineKeyboardMarkup | None:
    """A player's buttons in their private chat: the game's (``GameUI.private_rows``, or
    ``rows``: another keyboard a press asked for) and the Mini App's button, when it is set
    up; none once the game is over."""
    if is_over(game):
        return None
    row = links.private_row(game.id)
    app = [row] if row else []
    own = ui_for(game).private_rows(game, seat) if rows is None else rows
    return InlineKeyboardMarkup(own + app) if own or app else None
