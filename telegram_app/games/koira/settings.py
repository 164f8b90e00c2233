"""Koira's name, its games' title in ``/history`` and the labels of its options in
``/settings`` (a chat's defaults)."""

from __future__ import annotations

from typing import Any

from engine.core import OptionSpec
from telegram_app.i18n import _


def game_name() -> str:
    """``Koira``, as players read it."""
    return _("Koira")


def _on_off(value: Any) -> str:
    return _("on") if value else _("off")


def setting_label(spec: OptionSpec, value: Any) -> str:
    """The ``/settings`` button of a chat's default of ``spec`` at ``value``."""
    if spec.name == "tie_split":
        return _("🤝 Ties share the cards: {value}").format(value=_on_off(value))
    if spec.name == "trump_ends_trick":
        return _("♠️ Trump ends the trick: {value}").format(value=_on_off(value))
    if spec.name == "pickup_single":
        return _("🫳 Pick up one card: {value}").format(value=_on_off(value))
    if spec.name == "min_sequence":
        return _("🔗 Shortest sequence: {value}").format(value=value)
    return f"{spec.name}: {value}"
