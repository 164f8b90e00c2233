"""Coyote's words: cards, editions, masks and coins, lives as players read them."""

from __future__ import annotations

from collections.abc import Iterable

from telegram_app.i18n import _

SPECIAL_CARDS = frozenset({"x2", "max0", "?", "night", "max-", "0b", "J", "Q", "K"})
"""The cards that do something besides their number (the poker deck's J, Q and K too)."""


def card_label(card: str) -> str:
    """A card in rules notation as players see it (``"-5"`` → ``"−5"``, ``"x2"`` → ``"×2"``)."""
    specials = {
        "x2": "×2", "max0": _("MAX→0"), "?": "?", "night": _("🌙 night"),
        "max-": _("MAX→−"), "0b": _("blue 0"),
    }
    if card in specials:
        return specials[card]
    return card.replace("-", "−")


def special_text(code: str, edition: str = "classic") -> str | None:
    """What a special card does in ``edition``, in a few words (the rules' wording), or
    ``None`` for a plain number."""
    feathers = edition == "feathers"
    texts = {
        "?": lambda: _("turns up the top feather of the draw pile, which counts instead")
        if feathers else _("turns up the top card of the draw pile, which counts instead"),
        "max0": lambda: _("the highest green feather counts 0") if feathers
        else _("the highest positive card counts 0"),
        "max-": lambda: _("the highest green feather left counts as negative"),
        "x2": lambda: _("doubles the green feathers still positive") if feathers
        else _("doubles the total"),
        "night": lambda: _("counts 0; all cards are reshuffled after this round"),
        "0b": lambda: _("counts 0; all feathers are reshuffled after this round"),
        "Q": lambda: _("becomes a random undealt card"),
        "K": lambda: _("removes the highest card"),
        "J": lambda: _("doubles the total"),
    }
    text = texts.get(code)
    return text() if text else None


def specials_among(codes: Iterable[str | None]) -> list[str]:
    """The special cards among ``codes`` (``None``: a hidden card), each once, in order of
    appearance."""
    out: list[str] = []
    for code in codes:
        if code in SPECIAL_CARDS and code not in out:
            out.append(code)
    return out


def legend_line(codes: Iterable[str | None], edition: str) -> str | None:
    """One line (Telegram HTML) saying what each special card among ``codes`` does, where
    a message first shows them (a newcomer cannot guess what "MAX→0" or "×2" does):
    ``ℹ️ <b>MAX→0</b>: the highest positive card counts 0 · <b>×2</b>: doubles the total``;
    ``None`` when there is none."""
    items = [_("{card}: {effect}").format(card=f"<b>{card_label(code)}</b>",
                                          effect=special_text(code, edition) or "")
             for code in specials_among(codes)]
    return "ℹ️ " + " · ".join(items) if items else None


def edition_name(edition: str) -> str:
    """An edition's name as players read it (typed, it stays ``/newgame feathers``)."""
    names = {"classic": _("classic"), "feathers": _("feathers"), "poker-deck": _("poker-deck")}
    return names.get(edition, edition)


def turned_up(edition: str) -> str:
    """What a showdown calls the card turned up from the deck (not a player's): in feathers
    it is a feather, as every other line of that edition says."""
    return _("turned-up feather") if edition == "feathers" else _("turned up")


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


def tally(lives: int | None, max_lives: int, edition: str) -> str:
    """A player's standing as the edition counts it: lives as hearts (:func:`hearts`), or,
    in poker-deck, whose rules count penalty cards ("the player who takes the 4th penalty
    card" loses), the penalty cards taken out of that limit (``🂠 1/4``); a skull once
    out."""
    if edition == "poker-deck" and lives:
        return f"🂠 {max_lives - lives}/{max_lives}"
    return hearts(lives)
