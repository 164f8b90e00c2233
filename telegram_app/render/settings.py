"""The /settings keyboard: the league's own defaults of a chat (pace, timeout policy,
language), then each game's options (``Game.setting_specs``), drawn from their specs.

Callback data ``z:<group>:<option>:<value index>``: group 0 holds the league's settings
(:data:`LEAGUE_SETTINGS`, ``option`` its :data:`LEAGUE_CODES`, the codes the keyboard had
before games had their own, so buttons already in chats keep working), group ``i + 1`` the
options of the ``i``-th game in :func:`game_kinds`, ``option`` an index into that game's
``setting_specs`` for the chat's options.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from engine import GAMES, OptionSpec
from league.chats import CHAT_SETTINGS
from telegram_app.callbacks import Callback
from telegram_app.games.coyote.words import edition_name
from telegram_app.i18n import NATIVE_NAMES, SUPPORTED, _
from telegram_app.keyboards import pace_label
from telegram_app.render.common import level_name

LEAGUE_SETTINGS: dict[str, tuple[Any, ...]] = {**CHAT_SETTINGS, "language": SUPPORTED}
"""The league's settings the keyboard cycles through, in order, with their values."""
LEAGUE_CODES = {"pace": 0, "timeout_policy": 4, "language": 5, "stand_in_level": 6}
"""Each league setting's ``option`` in its buttons' data."""

GAME_NAMES: dict[str, Callable[[], str]] = {"coyote": lambda: _("Coyote"),
                                            "koira": lambda: _("Koira")}
"""A game's name as players read it (the kind itself for a game without one here)."""


def _on_off(value: Any) -> str:
    return _("on") if value else _("off")


# The label of each option's button by the spec's ``label`` key. (Per game: these belong to
# each game's UI package once the bot has one; a game without a label here gets its name.)
OPTION_LABELS: dict[str, Callable[[Any], str]] = {
    "option_edition": lambda v: _("🃏 Edition: {value}").format(value=edition_name(v)),
    "option_lives": lambda v: _("❤️ Lives: {value}").format(value=v),
    "option_specials": lambda v: _("🎭 Special actions: {value}").format(value=_on_off(v)),
    "option_after_elimination": lambda v: _("🔁 After a knock-out: the winner starts")
    if v == "winner" else _("🔁 After a knock-out: the next player starts"),
    "option_tie_split": lambda v: _("🤝 Ties share the cards: {value}").format(
        value=_on_off(v)),
    "option_trump_ends_trick": lambda v: _("♠️ Trump ends the trick: {value}").format(
        value=_on_off(v)),
    "option_pickup_single": lambda v: _("🫳 Pick up one card: {value}").format(
        value=_on_off(v)),
    "option_min_sequence": lambda v: _("🔗 Shortest sequence: {value}").format(value=v),
}


def game_kinds() -> list[str]:
    """The games in the keyboard's order (their group is their index + 1)."""
    return sorted(GAMES)


def game_name(kind: str) -> str:
    """A game's name as players read it."""
    name = GAME_NAMES.get(kind)
    return name() if name else kind


VALUE_NAMES: dict[str, Callable[[Any], str]] = {"option_edition": edition_name}
"""The name of an option's value where a game's title shows it (Coyote's edition)."""


def game_title(kind: str, options: dict[str, Any]) -> str:
    """A game as a list of games names it: the values of the options chosen when it was
    opened (``setting_specs`` that are no lobby option: Coyote's edition, "classic"), else
    the game's name."""
    game = GAMES.get(kind)
    if game is None:
        return kind
    lobby = {s.name for s in game.option_specs(options)}
    named = [VALUE_NAMES[s.label](options[s.name]) for s in game.setting_specs(options)
             if s.name not in lobby and s.label in VALUE_NAMES and s.name in options]
    return " ".join(named) or game_name(kind)


def league_label(key: str, value: Any) -> str:
    """The button of one of the league's settings at ``value``."""
    if key == "pace":
        return _("⏱ Pace: {value}").format(value=pace_label(value))
    if key == "language":
        return _("🌐 Language: {value}").format(value=NATIVE_NAMES.get(value, value))
    if key == "stand_in_level":
        return _("🤖 Stand-in level: {value}").format(value=level_name(value))
    return _("⏰ On timeout: {value}").format(
        value=_("computer plays, removed after 2") if value == "ai" else _("removed"))


def option_label(spec: OptionSpec, value: Any) -> str:
    """The button of a game option at ``value``."""
    label = OPTION_LABELS.get(spec.label)
    return label(value) if label else f"{spec.name}: {value}"


def game_specs(kind: str, options: dict[str, Any]) -> list[OptionSpec]:
    """The options of ``kind`` a chat may preset, for its current ones."""
    return GAMES[kind].setting_specs(options)


def _following(values: tuple[Any, ...], current: Any) -> int:
    return (values.index(current) + 1) % len(values) if current in values else 0


def settings_keyboard(settings: dict[str, Any]) -> InlineKeyboardMarkup:
    """One button per setting (``settings`` as ``MatchService.chat_settings`` gives them,
    the language as a supported one); a press moves it to the next allowed value."""
    rows = []
    for key, values in LEAGUE_SETTINGS.items():
        current = settings.get(key, values[0])
        rows.append([InlineKeyboardButton(league_label(key, current), callback_data=Callback(
            "z", 0, (LEAGUE_CODES[key], _following(values, current))).encode())])
    games = settings.get("games", {})
    for group, kind in enumerate(game_kinds(), start=1):
        options = games.get(kind, {})
        for index, spec in enumerate(game_specs(kind, options)):
            current = options.get(spec.name, spec.default)
            text = f"{game_name(kind)} · {option_label(spec, current)}"
            rows.append([InlineKeyboardButton(text, callback_data=Callback(
                "z", group, (index, _following(spec.values, current))).encode())])
    return InlineKeyboardMarkup(rows)


def pressed(settings: dict[str, Any], data: Callback) -> tuple[str | None, str, Any] | None:
    """What a press on the keyboard sets: ``(kind or None for the league's, key, value)``,
    or ``None`` for data that names no setting (an old or forged button)."""
    option, value = data.args
    if data.game_id == 0:
        key = next((k for k, code in LEAGUE_CODES.items() if code == option), None)
        if key is None:
            return None
        values = LEAGUE_SETTINGS[key]
        return (None, key, values[value]) if value < len(values) else None
    kinds = game_kinds()
    if not 1 <= data.game_id <= len(kinds):
        return None
    kind = kinds[data.game_id - 1]
    specs = game_specs(kind, settings.get("games", {}).get(kind, {}))
    if option >= len(specs) or value >= len(specs[option].values):
        return None
    return kind, specs[option].name, specs[option].values[value]
