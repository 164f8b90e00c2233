"""Koira's screens: a player's private message and the group's table (Telegram HTML, names
escaped with ``name_html``).

Hidden cards: both are drawn from ``GAMES["koira"].view(state, seat)`` only — the private
message from the reader's seat (their own hand and pile, the public table), the table from
the public view (``seat=None``: no hand at all). Source: ``shared/rules/koira.md``.
"""

from __future__ import annotations

from datetime import UTC
from typing import Any

from engine import GAMES
from league.store.snapshots import GameSnapshot, PlayerInfo
from telegram_app.games.koira.keyboards import pickup_cards
from telegram_app.games.koira.words import (
    card_label,
    cards_label,
    hand_label,
    suit_name,
    trump_rule,
)
from telegram_app.i18n import _, format_moment, join_list, n_
from telegram_app.render import results
from telegram_app.render.common import name_html, seat_label, time_html
from telegram_app.render.language import (
    for_chat,
    for_player,
    in_chat_language,
    in_seat_language,
)
from telegram_app.render.place import with_place
from telegram_app.render.tournament_table import heading_lines

SHOWN_PLAYS = 12
"""The latest plays of a trick a message lists (a long phase-2 trick of pick-ups and
re-beats must not push the message past Telegram's limit)."""


def player_label(player: PlayerInfo) -> str:
    """A player's escaped name, with 🤖 and its level for a computer player."""
    return seat_label(player)


def _who(game: GameSnapshot, seat: int) -> str:
    try:
        return name_html(game.at_seat(seat))
    except KeyError:
        return "?"


def ordinal(place: int) -> str:
    """A place as players read it (``1`` → ``place 1``)."""
    return _("place {n}").format(n=place)


def heading(game: GameSnapshot, view: dict[str, Any]) -> str:
    """``🐕 Koira #12 · phase 1 · trick 4``."""
    phase = _("phase 1 (collecting)") if view["phase"] == 1 else _("phase 2 (shedding)")
    return _("🐕 <b>Koira</b> #{id} · {phase} · trick {trick}").format(
        id=game.id, phase=phase, trick=view["trick_no"])


def trump_line(game: GameSnapshot, view: dict[str, Any]) -> str:
    """The trump once known (R7: from the moment the last stock card is drawn), with who
    holds that card face up in phase 1; before, that the last stock card will decide."""
    if view["trump"] is None:
        return _("Trump: not known yet (the last card of the stock decides).")
    face_up = view["face_up"]
    if face_up is not None:
        return _("Trump: {suit} ({card} face up in {name}'s hand).").format(
            suit=suit_name(view["trump"]), card=card_label(face_up[1]),
            name=_who(game, face_up[0]))
    return _("Trump: {suit}.").format(suit=suit_name(view["trump"]))


def stock_line(view: dict[str, Any]) -> str:
    """Phase 1: the stock's size (and whether it may be turned up); phase 2: the cards that
    have left the game."""
    if view["phase"] == 2:
        return n_("{n} card has left the game.", "{n} cards have left the game.",
                  len(view["discarded"])).format(n=len(view["discarded"]))
    if view["stock"] == 0:
        return _("The stock is empty.")
    return n_("Stock: {n} card.", "Stock: {n} cards.", view["stock"]).format(n=view["stock"])


def trick_lines(game: GameSnapshot, view: dict[str, Any]) -> list[str]:
    """The trick on the table: each play with its player (``from the stock`` marked), a tie
    being replayed (R1), and in phase 2 how many cards complete it (R9)."""
    plays = view["trick"]
    if not plays:
        return [_("The trick is empty.")]
    parts = []
    for play in plays[-SHOWN_PLAYS:]:
        cards = f"<b>{cards_label(play['cards'])}</b>"
        if play["from_stock"]:
            cards = _("{cards} (from the stock)").format(cards=cards)
        parts.append(f"{_who(game, play['seat'])} {cards}")
    if len(plays) > SHOWN_PLAYS:
        parts.insert(0, "…")
    lines = [_("On the table: {plays}").format(plays=" → ".join(parts))]
    if view["phase"] == 1 and view["tied"]:
        lines.append(_("⚖️ Tie: {names} play another card each.").format(
            names=join_list(_who(game, s) for s in view["tied"])))
    if view["phase"] == 2:
        lying = sum(len(p["cards"]) for p in plays)
        lines.append(_("{n} of {need} cards: the trick is complete at {need}.").format(
            n=lying, need=view["need"]))
    return lines


def seat_lines(game: GameSnapshot, view: dict[str, Any]) -> list[str]:
    """Per seat: 👉 on the player to act, name, cards in hand, won pile (phase 1), or out
    with their place, or left."""
    lines = []
    places = {seat: n for n, seat in enumerate(view["out"], start=1)}
    for player in game.seated:
        seat = player.seat or 0
        pointer = "👉 " if seat == view["turn"] else ""
        name = player_label(player)
        if seat in view["removed"]:
            lines.append(_("{name} · left the game").format(name=name))
            continue
        if seat in places:
            lines.append(_("{name} · out of cards, safe ({place})").format(
                name=name, place=ordinal(places[seat])))
            continue
        count = n_("{n} card", "{n} cards", view["counts"][seat]).format(
            n=view["counts"][seat])
        if view["phase"] == 1:
            lines.append(_("{pointer}{name} · {count} in hand · {won} won").format(
                pointer=pointer, name=name, count=count, won=view["pile_counts"][seat]))
        else:
            lines.append(_("{pointer}{name} · {count} in hand").format(
                pointer=pointer, name=name, count=count))
    return lines


def _table_body(game: GameSnapshot, view: dict[str, Any]) -> list[str]:
    lines = [*heading_lines(game), heading(game, view), trump_line(game, view),
             stock_line(view), ""]
    if not view["over"]:  # cards a finished game leaves on the table are nobody's business
        lines += trick_lines(game, view) + [""]
    return lines + seat_lines(game, view)


def koira_line(game: GameSnapshot, view: dict[str, Any]) -> str:
    """``🐕 The koira is {name}.`` once over."""
    return _("🐕 The koira is {name}.").format(name=_who(game, view["koira"]))


@in_chat_language
def table_text(game: GameSnapshot) -> str:
    """The group's table of the current phase (edited in place as its moves happen): the
    trick so far, the trump, the stock, every player's cards and pile, whose turn and the
    clock; the koira once over. No hand is on it."""
    view = GAMES[game.kind].view(game.state or {}, None)
    lines = _table_body(game, view)
    if view["over"]:
        lines += ["", _("The game is over."), koira_line(game, view)]
    elif view["turn"] is not None:
        lines += ["", _("Waiting for {name}.").format(name=_who(game, view["turn"]))]
        clock = clock_line(game)
        if clock:
            lines.append(clock)
    lines.append(_("🎴 shows you your cards and moves here; our private chat has them too."))
    return "\n".join(lines)


@in_chat_language
def closed_table_text(game: GameSnapshot, changed: bool) -> str:
    """The table of the phase on screen (the one before the game's, if phase 2 began since:
    ``changed``), once the next table, the game's end or its cancellation is below it: its
    heading, no turn, no 🎴."""
    now = GAMES[game.kind].view(game.state or {}, None)["phase"]
    phase = _("phase 2 (shedding)") if now == 2 and not changed else _("phase 1 (collecting)")
    return "\n".join([*heading_lines(game), _("🐕 <b>Koira</b> #{id} · {phase}").format(
        id=game.id, phase=phase), "", _("⏹ This phase is over: see below.")])


def clock_line(game: GameSnapshot) -> str:
    """The turn's clock: paused, or the deadline (a date-time entity, UTC as fallback)."""
    if game.paused:
        return _("⏸ The clock is paused (/resume).")
    if game.deadline_at is None:
        return ""
    return _("⏱ Turn ends {time}.").format(time=time_html(
        game.deadline_at, "dt", format_moment(game.deadline_at.astimezone(UTC)) + " UTC"))


def _turn_lines(game: GameSnapshot, view: dict[str, Any], seat: int) -> list[str]:
    """What ``seat`` may do on their turn (from their view and the legal actions)."""
    legal = GAMES[game.kind].legal_actions(game.state or {}, seat)
    can_play = any(a.kind == "play" for a in legal)
    if view["phase"] == 1:
        if seat in view["tied"]:
            text = _("<b>Your turn:</b> you are tied for the highest card: play another one.")
        elif view["trick"]:
            text = _("<b>Your turn:</b> play a card; the highest rank wins the trick.")
        else:
            text = _("<b>Your turn:</b> lead a card; the highest rank wins the trick.")
        lines = [text]
        if view["can_stock"]:
            lines.append(_("Instead of a card of your hand you may turn up the top card of "
                           "the stock and play it."))
        return lines
    if not view["trick"]:
        lines = [_("<b>Your turn:</b> lead a card or a sequence.")]
    else:
        top = view["trick"][-1]["cards"]
        take = cards_label(pickup_cards(view))
        if can_play:
            lines = [_("<b>Your turn:</b> beat <b>{top}</b>, or pick up {cards}.").format(
                top=cards_label(top), cards=take)]
        else:
            lines = [_("<b>Your turn:</b> you cannot beat <b>{top}</b>: pick up "
                       "{cards}.").format(top=cards_label(top), cards=take)]
    if any(a.kind == "play" and a.cards and len(a.cards) > 1 for a in legal):
        lines.append(_("A card marked + starts a sequence: tap it and the sequence's other "
                       "cards, then Play. Other cards play with one tap."))
    return lines


@in_seat_language
def private_text(game: GameSnapshot, seat: int, *, in_group: bool = False) -> str:
    """``seat``'s private message, under its group (and topic): the table as the group sees
    it (once the trump is known, with a line saying what a trump does), then their own hand
    (sorted by suit then rank) and what they may do on their turn. Drawn from that seat's
    view: no other player's card. ``in_group``: shown in the group by 🎴, without the
    group's heading, and, off-turn, only the hand (the table shows the rest)."""
    view = GAMES[game.kind].view(game.state or {}, seat)
    if in_group and view["turn"] != seat and not view["over"] and seat not in view["out"] \
            and seat not in view["removed"]:  # (the table just above shows the trick and
        # counts, kept current; this view is edited only when the hand or turn changes)
        return "\n".join([
            _("Your hand: {cards}").format(cards=hand_label(view["hand"])) if view["hand"]
            else _("Your hand is empty."), "",
            _("The table above shows the trick; your buttons come here on your turn.")])
    lines = _table_body(game, view) + [""]
    if view["trump"] is not None and not view["over"]:  # what the trump line means, under it
        lines.insert(lines.index(trump_line(game, view)) + 1, "ℹ️ " + trump_rule())
    hand = view["hand"] or []
    if seat in view["out"]:
        lines.append(_("You are out of cards: you are safe ({place}).").format(
            place=ordinal(view["out"].index(seat) + 1)))
    elif seat in view["removed"]:
        lines.append(_("You have left this game."))
    elif hand:
        lines.append(_("Your hand: {cards}").format(cards=hand_label(hand)))
    else:
        lines.append(_("Your hand is empty."))
    if view["phase"] == 1 and view["pile"]:
        lines.append(n_("You have won {n} card.", "You have won {n} cards.",
                        len(view["pile"])).format(n=len(view["pile"])))
    if view["over"]:
        lines += ["", _("The game is over."), koira_line(game, view)]
    elif view["turn"] == seat:
        lines += ["", *_turn_lines(game, view, seat)]
        if clock := clock_line(game):
            lines.append(clock)
    elif view["turn"] is not None:
        lines += ["", _("Waiting for {name}.").format(name=_who(game, view["turn"]))]
    return "\n".join(lines) if in_group else with_place(game, "\n".join(lines))


def private_closed_text(game: GameSnapshot, phase: int, *,
                        reader: PlayerInfo | None = None) -> str:
    """A player's old private message once its phase (a hand of Koira) is over, in
    ``reader``'s language (without one, the group's). Once the game is over, the last one
    says where ``reader`` came and their Elo change (``results.own_result``), not "see the
    group"."""
    with for_player(game, reader) if reader is not None else for_chat(game):
        result = results.own_result(game, reader)
        if result is None:
            text = _("🐕 Koira #{id} · phase {phase} is over (see the group).").format(
                id=game.id, phase=phase)
        elif result[2] is None:
            text = _("🐕 Koira #{id} is over: you came {place} of {count}.").format(
                id=game.id, place=result[0], count=result[1])
        else:
            text = _("🐕 Koira #{id} is over: you came {place} of {count} (Elo {change})."
                     ).format(id=game.id, place=result[0], count=result[1], change=result[2])
        return with_place(game, text)
