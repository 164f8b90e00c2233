"""Coyote's ``/replay`` lines: bids, calls and showdowns from a game's event log."""

from __future__ import annotations

from html import escape
from typing import Any

from league.store.snapshots import GameSnapshot
from telegram_app.games.coyote.showdown import number
from telegram_app.games.coyote.words import card_label, special_name
from telegram_app.i18n import _
from telegram_app.render.common import plain_name
from telegram_app.render.results import places_text, ranked, timed_out_text


def replay_lines(game: GameSnapshot, log: list[list[dict[str, Any]]]) -> list[str]:
    """One line per event worth telling (``log``: each move's events, in order), and at
    the end the places as every message shows them (``render.results``)."""
    def who(seat: int) -> str:
        try:
            return escape(plain_name(game.at_seat(seat).name, 24), quote=False)
        except KeyError:
            return "?"

    lines = []
    for step in log:
        for e in step:
            kind = e["type"]
            if kind == "round_dealt":
                lines.append(_("— round {n} —").format(n=e["round"]))
            elif kind == "bid_placed":
                bid = str(e["amount"])
                if e.get("special"):
                    bid = _("{what} ({notes})").format(what=bid, notes=special_name(e["special"]))
                lines.append(_("{name}: {what}").format(name=who(e["seat"]), what=bid))
            elif kind == "bid_changed":
                lines.append(_("{name}: {amount} (changed bid)").format(
                    name=who(e["seat"]), amount=e["amount"]))
            elif kind == "special_used" and e["special"] == "guess":
                result = _("right") if e["right"] else _("wrong, it was {card}").format(
                    card=card_label(e["card"]))
                lines.append(_("{name}: Guess {guess} — {result}").format(
                    name=who(e["seat"]), guess=card_label(e["guess"]), result=result))
            elif kind == "special_used":
                lines.append(_("{name}: {what}").format(name=who(e["seat"]),
                                                        what=special_name(e["special"])))
            elif kind == "coyote_called":
                lines.append(_("{name}: Coyote!").format(name=who(e["seat"])))
            elif kind == "showdown":
                cards = " ".join(card_label(c["card"]) for c in e["cards"])
                lines.append(_("  cards {cards} → total {total}; {loser}").format(
                    cards=cards, total=number(e["total"]),
                    loser=_("{name} loses").format(name=who(e["loser"]))
                    if e["loser"] is not None else _("nobody loses")))
            elif kind == "turn_timed_out" and e.get("removed"):  # (as the group was told)
                lines.append(timed_out_text(who(e["seat"]), removed=True))
            elif kind == "turn_timed_out":
                lines.append(_("{name}: ⏰ timed out").format(name=who(e["seat"])))
            elif kind == "player_removed" and not any(
                    x["type"] == "turn_timed_out" for x in step):
                lines.append(_("{name}: 🚪 left the game").format(name=who(e["seat"])))
            elif kind == "game_over":
                lines.append(_("— game over —"))
                lines.append(places_text((place, who(p.seat or 0))
                                         for place, p in ranked(game)))
    return lines
