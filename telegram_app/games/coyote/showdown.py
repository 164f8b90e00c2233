"""Coyote's showdown as group lines: the revealed table when someone calls Coyote (every card
with what it did, the total against the bid, who loses), its one-line summary for rounds told in
brief, and who is out after an elimination outside a showdown. The per-move notes, the round
tables and the Mini App's log all tell a showdown, so its wording lives here once."""

from __future__ import annotations

from typing import Any

from engine.coyote.editions import get_edition
from league.store.snapshots import GameSnapshot
from telegram_app.games.coyote.words import (
    card_label,
    legend_line,
    special_text,
    tally,
    turned_up,
)
from telegram_app.i18n import _, join_list
from telegram_app.render.common import name_html

EFFECTS = {
    "draws": lambda: _("turns up the top card"),
    "draws_nothing": lambda: _("finds no card to turn up (counts 0)"),
    "replaced": lambda: _("is replaced by an undealt card"),
    "zeroed": lambda: _("MAX→0"),
    "negated": lambda: _("MAX→−"),
    "removed": lambda: _("is removed by K"),
    "doubled": lambda: _("doubled"),
    "doubles": lambda: _("doubles the total"),
    "counts_zero": lambda: _("counts 0"),
    "reshuffles": lambda: _("counts 0; all cards are reshuffled after this round"),
}


SOURCES = {
    "draw1": lambda: _("Draw 1"),
    "face_up": lambda: _("face up"),
}


FEATHER_EFFECTS = {
    "doubles": lambda: _("doubles the green feathers still positive"),  # x2 on green only
    "draws": lambda: _("turns up the top feather"),
    "draws_nothing": lambda: _("finds no feather to turn up (counts 0)"),
    "reshuffles": lambda: _("counts 0; all feathers are reshuffled after this round"),
}


def _effect(edition: str, effect: str) -> str | None:
    if edition == "feathers" and effect in FEATHER_EFFECTS:
        return FEATHER_EFFECTS[effect]()
    label = EFFECTS.get(effect)
    return label() if label else None


def number(n: int) -> str:
    """A signed number with a true minus sign, as on the cards (``-4`` → ``−4``)."""
    return str(n).replace("-", "−")


def showdown_text(game: GameSnapshot, showdown: dict[str, Any]) -> str:
    """The revealed table: every card with what it did, a legend of the special cards whose
    note does not already say what they do (🌙 night's does), the total, the bid and the
    loser. ``game`` is the game right after the showdown (for the lives left)."""
    caller = game.at_seat(showdown["caller"])
    bidder = game.at_seat(showdown["bidder"])
    lines = [_("🐺 {caller} calls <b>Coyote!</b> on {bidder}'s bid of {bid}.").format(
        caller=name_html(caller), bidder=name_html(bidder), bid=showdown["bid"]), ""]
    owners = list(showdown["owners"])
    sources = list(showdown.get("sources") or [])
    edition = game.options.get("edition", "classic")
    explained: set[str] = set()  # special cards whose note says what the legend would
    for i, card in enumerate(showdown["cards"]):
        who = name_html(game.at_seat(owners[i])) if i < len(owners) else turned_up(edition)
        source = SOURCES.get(sources[i] if i < len(sources) else "own")
        notes = ([source()] if source else []) + list(
            filter(None, (_effect(edition, e) for e in card["effects"])))
        if special_text(card["card"], edition) in notes:
            explained.add(card["card"])
        changed = card["face"] is not None and card["value"] != card["face"]
        value = f" → {number(card['value'])}" if changed else ""
        shown = f"<b>{card_label(card['card'])}</b>{value}"
        if notes:
            shown = _("{what} ({notes})").format(what=shown, notes=join_list(notes))
        lines.append(_("{name}: {what}").format(name=who, what=shown))
    reshuffling = get_edition(edition).full_reshuffle_cards
    for seat, cards in enumerate(showdown.get("void") or []):
        for card in cards:
            text = (_("{name}: {card} (swapped away, does not count; all feathers are reshuffled "
                      "after this round)") if card in reshuffling
                    else _("{name}: {card} (swapped away, does not count)"))
            lines.append(text.format(name=name_html(game.at_seat(seat)), card=card_label(card)))
    if legend := legend_line((card["card"] for card in showdown["cards"]
                              if card["card"] not in explained), edition):
        lines.append(legend)  # (what the other special cards shown do: a newcomer cannot guess)
    lines += ["", _("Total: <b>{total}</b> · bid: {bid}").format(
        total=number(showdown["total"]), bid=showdown["bid"])]
    if showdown.get("removed_loser") is not None:
        lines.append(_("The bid was too high, but {name} has left the game: nobody loses a "
                       "life.").format(name=name_html(game.at_seat(showdown["removed_loser"]))))
        return "\n".join(lines)
    if showdown["loser"] is None:
        lines.append(_("The total equals the bid: nobody is penalised."))
        return "\n".join(lines)
    loser = game.at_seat(showdown["loser"])
    lives = (game.state or {})["lives"][loser.seat]
    good = showdown["loser"] == showdown["caller"]
    if game.options.get("edition") == "poker-deck":  # its rules speak of penalty cards
        template = (_("The total is above the bid: {name} takes a penalty card ({hearts}).")
                    if good else _("The bid was too high: {name} takes a penalty card "
                                   "({hearts})."))
    else:
        template = (_("The bid was good: {name} loses {n} ({hearts}).") if good
                    else _("The bid was too high: {name} loses {n} ({hearts})."))
    lost = _("two lives (🎭 Double)") if showdown["lives_lost"] == 2 else _("a life")
    most = (game.state or {}).get("options", {}).get("lives") or get_edition(edition).lives
    lines.append(template.format(name=name_html(loser), n=lost,
                                 hearts=tally(lives, most, edition)))
    if lives == 0:
        lines.append(_("💀 {name} is out of the game.").format(name=name_html(loser)))
    return "\n".join(lines)


def showdown_summary(game: GameSnapshot, showdown: dict[str, Any]) -> str:
    """One line for a showdown among computer players shown in a batch (``game``: as it was
    right after that showdown): who lost one or two lives, and whether they are out."""
    loser = showdown["loser"]
    if loser is None:
        result = _("nobody is penalised")
    else:
        name = name_html(game.at_seat(loser))
        if game.options.get("edition") == "poker-deck":
            result = _("{name} takes a penalty card").format(name=name)
        else:
            result = (_("{name} loses two lives") if showdown["lives_lost"] == 2
                      else _("{name} loses a life")).format(name=name)
        if (game.state or {}).get("lives", [1] * (loser + 1))[loser] == 0:
            result = _("{result} and is out of the game").format(result=result)
    return _("🃏 {caller} called Coyote on {bidder}'s {bid}: total {total}, {result}.").format(
        caller=name_html(game.at_seat(showdown["caller"])),
        bidder=name_html(game.at_seat(showdown["bidder"])), bid=showdown["bid"],
        total=number(showdown["total"]), result=result)


def eliminated_text(game: GameSnapshot, events: list[dict[str, Any]]) -> str | None:
    """``💀 name is out`` for eliminations that happened outside a showdown (a wrong Guess)."""
    out = [e["seat"] for e in events if e["type"] == "player_eliminated"]
    if not out or any(e["type"] == "showdown" for e in events):
        return None
    return "\n".join(_("💀 {name} is out of the game.").format(
        name=name_html(game.at_seat(seat))) for seat in out)
