"""Coyote's words: cards, editions, masks and coins, lives as players read them."""

from __future__ import annotations

from telegram_app.i18n import _


def card_label(card: str) -> str:
    """A card in rules notation as players see it (``"-5"`` → ``"−5"``, ``"x2"`` → ``"×2"``)."""
    specials = {
        "x2": "×2", "max0": _("MAX→0"), "?": "?", "night": _("🌙 night"),
        "max-": _("MAX→−"), "0b": _("blue 0"),
    }
    if card in specials:
        return specials[card]
    return card.replace("-", "−")


def edition_name(edition: str) -> str:
    """An edition's name as players read it (typed, it stays ``/newgame feathers``)."""
    names = {"classic": _("classic"), "feathers": _("feathers"), "poker-deck": _("poker-deck")}
    return names.get(edition, edition)


def special_name(name: str) -> str:
    """A mask's or coin's name as players see it."""
    names = {
        "pass": _("Pass"), "double": _("Double"), "reverse": _("Reverse"),
        "draw1": _("Draw 1"), "change": _("Change"), "shot": _("Shot"),
        "extra": _("Extra feather"), "skip": _("Skip"), "swap": _("Swap"), "guess": _("Guess"),
    }
    return names.get(name, name)


def hearts(lives: int | None) -> str:
    """Lives as hearts, or a skull once out."""
    if not lives:
        return "💀"
    return "❤️" * lives
