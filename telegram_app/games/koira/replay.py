"""Koira's ``/replay`` lines: plays, pick-ups and tricks from a game's event log."""

from __future__ import annotations

from html import escape

from league.store.snapshots import GameSnapshot
from telegram_app.games.koira.notes import Event, koira_seats, shares
from telegram_app.games.koira.words import card_label, cards_label, suit_name
from telegram_app.i18n import _, join_list
from telegram_app.render.common import plain_name
from telegram_app.render.results import places_text, ranked, timed_out_text


def _plain(game: GameSnapshot, seat: int | None) -> str:
    try:
        return escape(plain_name(game.at_seat(seat if seat is not None else -1).name, 16),
                      quote=False)
    except KeyError:
        return "?"


def replay_part(game: GameSnapshot, event: Event, events: list[Event]) -> str | None:
    """A short /replay entry for an event (entries of one trick share a line), or ``None``
    for one the replay leaves out (``events``: all of its move's, as the group's notes read
    them: a removal for timeouts is told by the timeout, not as a leave)."""
    kind = event["type"]
    who = _plain(game, event.get("seat"))
    if kind == "card_played" and event.get("from_stock"):
        return _("{name} {card} (stock)").format(name=who, card=card_label(event["cards"][0]))
    if kind == "card_played":
        return f"{who} {cards_label(event['cards'])}"
    if kind == "tie":
        return _("tie")
    if kind == "trick_over" and event.get("seat") is not None and not event.get("shared"):
        n = len(event.get("cards") or [])
        if event["phase"] == 1:
            return _("→ {name} wins {n}").format(name=who, n=n)
        return _("→ {n} cards leave the game").format(n=n)
    if kind == "trick_shared":
        return _("→ shared: {shares}").format(shares=shares(game, event))
    if kind == "picked_up":
        return _("{name} picks up {cards}").format(name=who, cards=cards_label(event["cards"]))
    if kind == "player_out":
        return _("{name} is out of cards (place {place})").format(name=who, place=event["place"])
    if kind == "turn_timed_out":  # (as Coyote's replay: the sentence only for a removal)
        return timed_out_text(who, removed=True) if event.get("removed") else \
            _("{name}: ⏰ timed out").format(name=who)
    if kind == "player_removed" and not any(e["type"] == "turn_timed_out" for e in events):
        return _("{name} leaves").format(name=who)
    return None


def replay_lines(game: GameSnapshot, log: list[list[Event]]) -> tuple[list[str], list[str]]:
    """The /replay lines of a Koira game's log (``log``: each move's events): one line per
    trick (``5. Kim 9♣️ · Sato K♦️ · … → Sato wins 4``), the trump, the change of phase;
    and apart, the end (the koira), which a cut replay keeps."""
    lines: list[str] = []
    end: list[str] = []
    trick: list[str] = []
    number = 0

    def close() -> None:
        if trick:
            lines.append(f"{number}. " + " · ".join(trick))
            trick.clear()

    for step in log:
        for e in step:
            kind = e["type"]
            if kind == "trick_started":
                close()
                number = e["trick"]
            elif kind == "trump_revealed":
                close()
                lines.append(_("🎴 trump: {suit} ({card}, {name})").format(
                    suit=suit_name(e["suit"]), card=card_label(e["card"]),
                    name=_plain(game, e["seat"])))
            elif kind == "phase_changed":
                close()
                lines.append(_("— phase 2 —"))
            elif kind == "game_over":
                close()
                end.append(places_text((place, _plain(game, p.seat))
                                       for place, p in ranked(game)))
                seats, _left = koira_seats(game)  # (who the final message names)
                if seats:
                    end.append(_("🐕 koira: {name}").format(
                        name=join_list(_plain(game, s) for s in seats)))
            elif (part := replay_part(game, e, step)) is not None:
                trick.append(part)
    close()
    return lines, end
