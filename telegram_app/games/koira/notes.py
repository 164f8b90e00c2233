"""Koira's events as group notes, the end of the game and /replay lines.

Events are the engine's (``engine/koira/game.py`` lists them with their fields) plus the
league's ``turn_timed_out``; they carry only public facts (a card appears once it is played,
turned up or picked up), so nothing here can show a hidden card. Source:
``shared/rules/koira.md``.
"""

from __future__ import annotations

from typing import Any

from engine import GAMES
from engine.koira.cards import RANKS
from league.store.snapshots import GameSnapshot
from telegram_app.games.koira.screens import trick_lines
from telegram_app.games.koira.words import card_label, cards_label, suit_name, trump_rule
from telegram_app.i18n import _, join_list, n_
from telegram_app.render import results
from telegram_app.render.common import (
    mention_html,
    name_html,
)

Event = dict[str, Any]


def _who(game: GameSnapshot, seat: int | None) -> str:
    try:
        return name_html(game.at_seat(seat if seat is not None else -1))
    except KeyError:
        return "?"


def rank_label(value: int) -> str:
    """A rank value as on the cards (``13`` → ``K``)."""
    return RANKS[value - 2] if 2 <= value <= 14 else str(value)


def _names(game: GameSnapshot, seats: list[int]) -> str:
    return join_list(_who(game, s) for s in seats)


def shares(game: GameSnapshot, event: Event) -> str:
    """``Ann 3, Bo 3`` (a shuffled share: counts only, R3) or ``Ann K♦️ 3♣️, Bo K♥️`` (R5:
    sorted, every card public); a list as the language writes one (Japanese 「、」)."""
    if event.get("how") == "sorted":
        shares = event.get("shares") or {}
        return join_list(f"{_who(game, int(seat))} {cards_label(cards)}"
                         for seat, cards in shares.items())
    return join_list(f"{_who(game, seat)} {count}"
                     for seat, count in zip(event["seats"], event.get("counts") or [],
                                            strict=False))


def _played(game: GameSnapshot, event: Event) -> str:
    name, cards = _who(game, event["seat"]), event["cards"]
    if event.get("from_stock"):
        return _("{name} turns up the stock and plays <b>{card}</b>.").format(
            name=name, card=card_label(cards[0]))
    if len(cards) > 1:
        return _("{name} plays the sequence <b>{cards}</b>.").format(
            name=name, cards=cards_label(cards))
    return _("{name} plays <b>{card}</b>.").format(name=name, card=card_label(cards[0]))


def _trick_over(game: GameSnapshot, event: Event) -> str | None:
    if event.get("shared") or event.get("seat") is None:
        return None  # told by trick_shared, or by the pick-up that emptied the trick (R12)
    n = len(event.get("cards") or [])
    if event["phase"] == 1:
        return n_("🏆 {name} wins the trick ({n} card).", "🏆 {name} wins the trick ({n} "
                  "cards).", n).format(name=_who(game, event["seat"]), n=n)
    if event.get("trump_cut"):  # (R17: before it held its count of cards)
        return n_("🗑 The trump ends the trick early: its {n} card leaves the game ({name} "
                  "played the trump).", "🗑 The trump ends the trick early: its {n} cards "
                  "leave the game ({name} played the trump).", n).format(
                      name=_who(game, event["seat"]), n=n)
    return n_("🗑 The trick is complete: its {n} card leaves the game ({name} played last).",
              "🗑 The trick is complete: its {n} cards leave the game ({name} played last).",
              n).format(name=_who(game, event["seat"]), n=n)


def event_line(game: GameSnapshot, event: Event, events: list[Event]) -> str | None:
    """The group's line for one event of a move (``events``: all of that move's), or
    ``None`` for one told otherwise (draws are gathered by :func:`step_lines`)."""
    kind = event["type"]
    seat = event.get("seat")
    if kind == "game_dealt":
        return _("🃏 {name} deals 3 cards to each player; {n} cards are left in the "
                 "stock.").format(name=_who(game, event["dealer"]), n=event["stock"])
    if kind == "trick_started":
        return _("🔹 Trick {trick}: {name} leads.").format(trick=event["trick"],
                                                           name=_who(game, event["leader"]))
    if kind == "card_played":
        return _played(game, event)
    if kind == "tie":
        return _("⚖️ Tie on {rank}: {names} play another card each.").format(
            rank=rank_label(event["rank"]), names=_names(game, event["seats"]))
    if kind == "trick_over":
        return _trick_over(game, event)
    if kind == "trick_shared" and event.get("how") == "sorted":
        return _("🔀 The tie is shared out: {shares}.").format(shares=shares(game, event))
    if kind == "trick_shared":
        return _("🔀 The tie cannot be broken: the cards are shuffled and shared out "
                 "({shares}).").format(shares=shares(game, event))
    if kind == "trump_revealed":  # (with what a trump does: the trump is new here)
        return _("🎴 {name} draws the last card of the stock and shows it: <b>{card}</b>. "
                 "Trump is {suit}.").format(name=_who(game, seat), card=card_label(event["card"]),
                                            suit=suit_name(event["suit"])) + \
            "\nℹ️ " + trump_rule()
    if kind == "phase_changed":  # (who left before it takes up nothing: not listed)
        gone = set((game.state or {}).get("removed") or [])
        counts = join_list(f"{name_html(p)} {event['counts'][p.seat or 0]}"
                           for p in game.seated if (p.seat or 0) < len(event["counts"])
                           and not (p.seat in gone and event["counts"][p.seat or 0] == 0))
        return _("🔁 <b>Phase 2</b>: everyone takes up the cards they won ({counts}). Trump "
                 "is {suit}. Beat the top card or pick up; the last player holding cards is "
                 "the koira.").format(counts=counts, suit=suit_name(event["trump"]))
    if kind == "picked_up":
        return _("📥 {name} picks up <b>{cards}</b>.").format(name=_who(game, seat),
                                                              cards=cards_label(event["cards"]))
    if kind == "player_out":
        return _("✅ {name} has no cards left: safe, in place {place}.").format(
            name=_who(game, seat), place=event["place"])
    if kind == "turn_timed_out":
        return results.timed_out_text(_who(game, seat), removed=bool(event.get("removed")))
    if kind == "player_removed" and not any(e["type"] == "turn_timed_out" for e in events):
        return _("🚪 {name} leaves the game (placed last).").format(
            name=_who(game, seat))
    return None


def draws_line(game: GameSnapshot, events: list[Event]) -> str | None:
    """All the draws after a phase-1 trick in one line (R6: in drawing order)."""
    draws = [e for e in events if e["type"] == "cards_drawn"]
    if not draws:
        return None
    return _("🃏 Drawn from the stock: {draws}.").format(draws=join_list(
        f"{_who(game, e['seat'])} {e['count']}" for e in draws))


def step_lines(game: GameSnapshot, events: list[Event]) -> list[str]:
    """One line per public event of one move, in order (the draws gathered where they
    begin; the end of the game is :func:`game_over_text`)."""
    lines = []
    drawn = False
    for event in events:
        if event["type"] == "cards_drawn":
            if not drawn and (line := draws_line(game, events)):
                lines.append(line)
            drawn = True
        elif (line := event_line(game, event, events)) is not None:
            lines.append(line)
    return lines


def turn_line(game: GameSnapshot) -> str | None:
    """``➡️ @next, your turn.`` (a mention), or ``None`` when nobody is to act."""
    state = game.state or {}
    if state.get("over") or state.get("turn") is None:
        return None
    return _("➡️ {name}, your turn.").format(name=mention_html(game.at_seat(state["turn"])))


def koira_seats(game: GameSnapshot) -> tuple[list[int], bool]:
    """Who is the koira of a finished game, as its final message and its /replay both name
    them: the seats (in seat order) and whether they left. The engine names one seat; when
    it is a player who left (or was removed), every player who left is the koira: they
    share last place (the league's places). ``([], False)`` while nobody is."""
    view = GAMES[game.kind].view(game.state or {}, None)
    koira, removed = view["koira"], list(view["removed"])
    if koira is None:
        return [], False
    return (sorted(removed), True) if koira in removed else ([koira], False)


def game_over_text(game: GameSnapshot) -> str:
    """The end: the places (the league's, ``render.results``: the order players went out,
    R16, those who left last), the koira marked and mentioned, and what play decided of
    the rating."""
    seats, left = koira_seats(game)
    lines = [_("🏁 Koira #{id} is over!").format(id=game.id), "",
             *results.final_lines(game, dict.fromkeys(seats, "🐕"))]
    try:
        koiras = [mention_html(game.at_seat(s)) for s in seats]
    except KeyError:
        koiras = []
    if len(koiras) > 1:
        lines += ["", _("🐕 {names} share last place, the koira's: who leaves the game comes "
                        "last.").format(names=join_list(koiras))]
    elif koiras and left:  # (one who left comes last)
        lines += ["", _("🐕 {name} is the koira: who leaves the game comes last.").format(
            name=koiras[0])]
    elif koiras:
        lines += ["", _("🐕 {name} is the koira: the last player holding cards.").format(
            name=koiras[0])]
    rating = results.rating_lines(game)
    return "\n".join(lines + ["", *rating] if rating else lines)


def report_lines(game: GameSnapshot, moves: list[tuple[GameSnapshot, list[Event]]], *,
                 mention: bool = True, trick: bool = False) -> list[str]:
    """The group note of one committed change: each move's lines (``moves``: the game right
    after the move and its events, in order), the end of the game, (``trick``) the trick on
    the table now and (``mention``) the player to act now (``game``: as committed)."""
    lines: list[str] = []
    for snap, events in moves:
        lines += step_lines(snap, events)
        over = next((e for e in events if e["type"] == "game_over"), None)
        if over is not None:
            lines += ["", game_over_text(snap)]
    if lines and trick and game.state and not game.state.get("over"):
        lines += trick_lines(game, GAMES[game.kind].view(game.state, None))
    if lines and mention and (turn := turn_line(game)):
        lines.append(turn)
    return lines


