"""The /settings keyboard: the league's own defaults of a chat (pace, timeout policy,
language), then each game's options (``Game.setting_specs``), drawn from their specs.

Callback data ``z:<group>:<option>:<value>``: group 0 holds the league's settings
(:data:`LEAGUE_SETTINGS`, ``option`` its :data:`LEAGUE_CODES`, the codes the keyboard had
before games had their own, so buttons already in chats keep working; ``value`` an index
into its values), group ``i + 1`` the options of the ``i``-th game in :func:`game_kinds`,
``option`` and ``value`` the :func:`_code` of the option's name and of the value the button
sets: a game's options and their values depend on its other options (Coyote's edition), so a
button drawn before another admin changed them names what it sets, not a position in a list
that has changed since (such a press matches nothing: :func:`pressed` gives ``None``).
"""

from __future__ import annotations

import json
import zlib
from typing import Any

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from engine import GAMES, OptionSpec
from league.match.chats import CHAT_SETTINGS
from telegram_app.callbacks import Callback
from telegram_app.games.registry import UIS
from telegram_app.i18n import NATIVE_NAMES, SUPPORTED, _
from telegram_app.keyboards import pace_label
from telegram_app.render.common import level_name

LEAGUE_SETTINGS: dict[str, tuple[Any, ...]] = {**CHAT_SETTINGS, "language": SUPPORTED}
"""The league's settings the keyboard cycles through, in order, with their values."""
LEAGUE_CODES = {"pace": 0, "timeout_policy": 4, "language": 5, "stand_in_level": 6,
                "group_notes": 7}
"""Each league setting's ``option`` in its buttons' data."""

def game_kinds() -> list[str]:
    """The games in the keyboard's order (their group is their index + 1)."""
    return sorted(GAMES)


def game_name(kind: str) -> str:
    """A game's name as players read it (``GameUI.game_name``; the kind itself for a game
    the bot has no UI for)."""
    ui = UIS.get(kind)
    return ui.game_name() if ui else kind


def game_title(kind: str, options: dict[str, Any]) -> str:
    """A finished game as a list of games names it (``GameUI.title``: Coyote's edition),
    from the options it was opened with."""
    ui = UIS.get(kind)
    return ui.title(options) if ui else kind


def league_label(key: str, value: Any) -> str:
    """The button of one of the league's settings at ``value``."""
    if key == "pace":
        return _("⏱ Pace: {value}").format(value=pace_label(value))
    if key == "language":
        if value is None:  # (not chosen yet: each sender is answered in their own)
            return _("🌐 Language: each member's own")
        return _("🌐 Language: {value}").format(value=NATIVE_NAMES.get(value, value))
    if key == "stand_in_level":
        return _("🤖 Stand-in level: {value}").format(value=level_name(value))
    if key == "group_notes":
        return _("🔕 Group: the table is edited") if value == "quiet" else \
            _("🔔 Group: a note per move")
    return _("⏰ On timeout: {value}").format(
        value=_("computer plays, removed after 2") if value == "ai" else _("removed"))


def option_label(kind: str, spec: OptionSpec, value: Any, options: dict[str, Any]) -> str:
    """The button of a chat's default of one of ``kind``'s options at ``value``, headed by
    the game's name (the label is the game's: ``GameUI.setting_label``)."""
    return f"{game_name(kind)} · {UIS[kind].setting_label(spec, value, options)}"


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
        if kind not in UIS:
            continue  # a game the bot does not show (yet) has nothing to preset
        options = games.get(kind, {})
        for spec in game_specs(kind, options):
            if len(spec.values) < 2:
                continue  # (nothing to choose: poker-deck's lives, say; as in a lobby)
            current = options.get(spec.name, spec.default)
            text = option_label(kind, spec, current, options)
            following = spec.values[_following(spec.values, current)]
            rows.append([InlineKeyboardButton(text, callback_data=Callback(
                "z", group, (_code(spec.name), _code(following))).encode())])
    return InlineKeyboardMarkup(rows)


def pressed(settings: dict[str, Any], data: Callback) -> tuple[str | None, str, Any] | None:
    """What a press on the keyboard sets: ``(kind or None for the league's, key, value)``,
    or ``None`` for data that names no setting (forged, or a game's option or value that the
    game no longer offers for the chat's ``settings``: a keyboard drawn before they changed)."""
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
    for spec in game_specs(kind, settings.get("games", {}).get(kind, {})):
        if _code(spec.name) == option:
            allowed = [v for v in spec.values if _code(v) == value]
            return (kind, spec.name, allowed[0]) if allowed else None
    return None


def _code(value: Any) -> int:
    """A game's option name or value as a number in its buttons' data (a CRC-32: at most 10
    digits, so ``z:<group>:<option>:<value>`` stays far within Telegram's 64 bytes)."""
    return zlib.crc32(json.dumps(value, sort_keys=True).encode())
