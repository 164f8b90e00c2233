"""The tournament's inline keyboards and callback verbs.

Callback data is ``<verb>:<tournament id>[:<n>…]`` (``telegram_app.callbacks``; the
tournament's id in the game id's place), every admin button carrying the tournament's
``version`` last, so a second tap or an old message's button is refused as ``stale``:

| verb | meaning | numbers after the id |
| --- | --- | --- |
| ``tj`` ``tl`` | ✋ join, 🚪 leave | – |
| ``ts`` ``tx`` | ▶️ start, ✖️ cancel | version |
| ``ta`` ``tr`` | 🤖 add, ➖ remove a computer player | version |
| ``to`` | a setting (below) | setting, value, version |
| ``tn`` | open a tournament of a game (/tournament, none open; id 0) | index in kinds() |

``to``'s settings: 0 the rounds (value: the number), 1 a round's length (value: its index
in :data:`LENGTHS`), 2 the table size (the number), 3 + i the game's option i
(``Game.option_specs``; value: the index of the value).
"""

from __future__ import annotations

from typing import Any

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from engine import GAMES
from league.store.errors import ServiceError
from league.tournaments.records import ROUND_PACES, ROUNDS, TournamentSnapshot
from telegram_app.callbacks import Callback
from telegram_app.games.registry import LEAGUE_VERBS, kinds, ui_for
from telegram_app.i18n import _
from telegram_app.keyboards import following_value
from telegram_app.tournaments.words import option_label, option_specs, round_length

Button = InlineKeyboardButton
VERBS: dict[str, tuple[int, ...]] = {
    verb: LEAGUE_VERBS[verb] for verb in ("tj", "tl", "ts", "tx", "ta", "tr", "to", "tn")}
"""The tournament verbs and their counts of numbers (the league's verbs:
``games.registry.LEAGUE_VERBS``)."""
ADMIN_VERBS = ("ts", "tx", "ta", "tr", "to")
LENGTHS = tuple(sorted(ROUND_PACES))
"""A round's lengths in seconds, shortest first (the ``to`` button's index)."""
ROUNDS_SETTING, LENGTH_SETTING, SIZE_SETTING, FIRST_OPTION = 0, 1, 2, 3
OPTION_ROW = 3


def _cb(verb: str, tournament_id: int, *args: int) -> str:
    return Callback(verb, tournament_id, args).encode()


def signup_keyboard(cup: TournamentSnapshot) -> InlineKeyboardMarkup | None:
    """In sign-up: ✋ Join / 🚪 Leave for everyone, and the settings, computer players, ▶️
    Start and ✖️ Cancel for whoever opened it or an admin (everyone sees them; a press by
    anyone else is refused). Once running: ✋ Join while late joining is open; else none."""
    if cup.status == "running" and cup.late_join_open:
        return InlineKeyboardMarkup([[Button(_("✋ Join"), callback_data=_cb("tj", cup.id))]])
    if cup.status != "signup":
        return None
    v = cup.version
    rows = [[Button(_("✋ Join"), callback_data=_cb("tj", cup.id)),
             Button(_("🚪 Leave"), callback_data=_cb("tl", cup.id))]]
    steps = []
    if cup.rounds > ROUNDS[0]:
        steps.append(Button(_("🔢 Fewer rounds"), callback_data=_cb(
            "to", cup.id, ROUNDS_SETTING, cup.rounds - 1, v)))
    if cup.rounds < ROUNDS[-1]:
        steps.append(Button(_("🔢 More rounds"), callback_data=_cb(
            "to", cup.id, ROUNDS_SETTING, cup.rounds + 1, v)))
    rows.append(steps)
    low, high = GAMES[cup.kind].player_limits(cup.options)
    sizes = []
    if cup.table_size > low:
        sizes.append(Button(_("🪑 Smaller tables"), callback_data=_cb(
            "to", cup.id, SIZE_SETTING, cup.table_size - 1, v)))
    if cup.table_size < high:
        sizes.append(Button(_("🪑 Bigger tables"), callback_data=_cb(
            "to", cup.id, SIZE_SETTING, cup.table_size + 1, v)))
    if sizes:
        rows.append(sizes)
    length = LENGTHS.index(cup.round_seconds) if cup.round_seconds in LENGTHS else 0
    option_row = [Button(_("⏱ A round: {length}").format(
        length=round_length(cup.round_seconds)), callback_data=_cb(
        "to", cup.id, LENGTH_SETTING, (length + 1) % len(LENGTHS), v))]
    long_rows = []
    for index, spec in enumerate(option_specs(cup)):
        if len(spec.values) < 2:
            continue
        current = cup.options.get(spec.name, spec.default)
        button = Button(option_label(cup, spec, current), callback_data=_cb(
            "to", cup.id, FIRST_OPTION + index,
            list(spec.values).index(following_value(spec, current)), v))
        if all(isinstance(value, int) for value in spec.values):
            option_row.append(button)
        else:  # (a word: a long label, a row of its own, as in the lobby)
            long_rows.append([button])
    width = len(option_row) if len(option_row) <= OPTION_ROW else 2
    rows += [option_row[i:i + width] for i in range(0, len(option_row), width)]
    rows += long_rows
    rows.append([Button(_("🤖 Add AI"), callback_data=_cb("ta", cup.id, v)),
                 Button(_("➖ Remove AI"), callback_data=_cb("tr", cup.id, v))])
    rows.append([Button(_("▶️ Start"), callback_data=_cb("ts", cup.id, v)),
                 Button(_("✖️ Cancel"), callback_data=_cb("tx", cup.id, v))])
    return InlineKeyboardMarkup(rows)


def open_keyboard() -> InlineKeyboardMarkup:
    """One button per game to open a tournament of it (``tn:0:<kind index>``)."""
    return InlineKeyboardMarkup([[Button(f"🏆 {ui_for(kind).game_name()}",
                                         callback_data=_cb("tn", 0, index))
                                  for index, kind in enumerate(kinds())]])


def setting_of(cup: TournamentSnapshot, setting: int, value: int) -> tuple[str, Any]:
    """The (name, value) a ``to`` press asks the league to set; numbers are handed on as
    they are (the league refuses an impossible one: ``bad_option``), indexes are looked
    up (one that does not exist: ``bad_option``)."""
    if setting == ROUNDS_SETTING:
        return "rounds", value
    if setting == SIZE_SETTING:
        return "table_size", value
    if setting == LENGTH_SETTING and value < len(LENGTHS):
        return "round_seconds", LENGTHS[value]
    specs = option_specs(cup)
    index = setting - FIRST_OPTION
    if 0 <= index < len(specs) and value < len(specs[index].values):
        return specs[index].name, specs[index].values[value]
    raise ServiceError("bad_option")
