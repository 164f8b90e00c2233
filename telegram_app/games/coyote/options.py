"""Coyote's name, its games' titles in ``/history`` and the labels of its options in
``/settings`` (a chat's defaults)."""

from __future__ import annotations

from typing import Any

from engine.core import OptionSpec
from engine.coyote import CoyoteGame
from telegram_app.games.coyote.words import edition_name
from telegram_app.i18n import _


def game_name() -> str:
    """``Coyote``, as players read it."""
    return _("Coyote")


def title(options: dict[str, Any]) -> str:
    """A finished game's edition (``classic``, ``feathers`` …), else the game's name."""
    return edition_name(options["edition"]) if "edition" in options else game_name()


def _on_off(value: Any) -> str:
    return _("on") if value else _("off")


def setting_label(spec: OptionSpec, value: Any, options: dict[str, Any] | None = None) -> str:
    """The ``/settings`` button of a chat's default of ``spec`` at ``value`` (``options``: the
    chat's other Coyote defaults, whose edition names its special actions)."""
    if spec.name == "edition":
        return _("🃏 Edition: {value}").format(value=edition_name(value))
    if spec.name == "lives":
        return _("❤️ Lives: {value}").format(value=value)
    if spec.name == "specials" and CoyoteGame().specials_kind(options) == "coins":
        return _("🪙 Coins: on") if value else _("🪙 Coins: off")  # (as the lobby says)
    if spec.name == "specials":
        return _("🎭 Special actions: {value}").format(value=_on_off(value))
    if spec.name == "after_elimination":
        return _("🔁 After a knock-out: the winner starts") if value == "winner" else \
            _("🔁 After a knock-out: the next player starts")
    return f"{spec.name}: {value}"
