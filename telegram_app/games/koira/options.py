"""Koira's name, its games' title in ``/history`` and the labels of its options in
``/settings`` (a chat's defaults)."""

from __future__ import annotations

from typing import Any

from engine.core import OptionSpec
from telegram_app.i18n import _
from telegram_app.render.common import pace_text


def game_name() -> str:
    """``Koira``, as players read it."""
    return _("Koira")


def _on_off(value: Any) -> str:
    return _("on") if value else _("off")


def setting_label(spec: OptionSpec, value: Any) -> str:
    """The ``/settings`` button of a chat's default of ``spec`` at ``value`` (each option
    with the emoji of its lobby button)."""
    if spec.name == "tie_split":
        return _("⚖️ Ties share the cards: {value}").format(value=_on_off(value))
    if spec.name == "trump_ends_trick":
        return _("✂️ Trump ends the trick: {value}").format(value=_on_off(value))
    if spec.name == "pickup_single":
        return _("📥 Pick up one card: {value}").format(value=_on_off(value))
    if spec.name == "min_sequence":
        return _("🔗 Shortest sequence: {value}").format(value=value)
    return f"{spec.name}: {value}"


def option_label(name: str, value: Any) -> str:
    """A lobby button's label for a Koira option and its current value."""
    if name == "tie_split":
        return _("⚖️ Ties: share") if value else _("⚖️ Ties: replay")
    if name == "trump_ends_trick":
        return _("✂️ Trump ends trick: on") if value else _("✂️ Trump ends trick: off")
    if name == "pickup_single":
        return _("📥 Pick up: one card") if value else _("📥 Pick up: a whole play")
    if name == "min_sequence":
        return _("🔗 Sequences: {n}+ cards").format(n=value)
    return f"{name}: {value}"


def options_line(options: dict[str, Any]) -> str:
    """The rule options of a game and its pace in one line (lobby, closed lobby)."""
    parts = [
        _("ties shared") if options.get("tie_split") else _("ties replayed"),
        _("sequences of {n}+").format(n=options.get("min_sequence", 2)),
    ]
    if options.get("trump_ends_trick"):
        parts.append(_("a trump ends the trick"))
    if options.get("pickup_single"):
        parts.append(_("pick up one card"))
    if pace := pace_text(options.get("pace", "standard")):
        parts.append(pace)
    return " · ".join(parts)
