"""Koira drawn for the Mini App: the engine's view of one seat turned into the table the page
draws, the engine's legal actions into controls, and the log's events into short lines.

No rule is decided here (rules: ``shared/rules/koira.md``). Every card the page gets comes
from ``GAMES["koira"].view(state, seat)`` and only from its public parts and the seat's own
hand: the other hands travel as counts; the view's ``known`` lists (cards publicly known to
lie with someone) are not sent at all, and the face-up trump card is shown on its holder's
seat because everyone saw it drawn (R7). A player out of the game (out of cards, or removed)
holds no card, so their seat's view is the public table and their empty hand: as in Coyote,
where such a seat sees the public table, nothing in play reaches them that a chat member
without a seat would not see. The moves are exactly ``legal_actions`` (every
card, every sequence that may be played, ``stock``, ``pickup``); the page lights Play only
for a selection that is one of them.

:func:`table` adds to the generic shape of :mod:`telegram_app.miniapp.table`::

    "layout": "koira",
    "koira": {"phase": 1 | 2, "trick_no": int, "stock": int, "can_stock": bool,
              "trump": {"suit", "symbol", "text"} or None, "trump_card": card or None,
              "hand": [card] or None (the public table), "hand_text": str,
              "trick": [{"seat", "name", "you", "cards": [card], "from_stock", "top",
                         "bottom", "tied"}],
              "trick_text": str, "stock_text": str, "discarded": int}

A card is ``{"code": "10H", "label": "10♥", "rank": "10", "suit": "♥", "tone": "red" |
"black", "trump": bool}`` (a trump adds ``"title"``, what a trump does: the tooltip of the
★ the page draws on it, which the table's ``"legend"`` says too); a seat's ``cards`` hold at
most the face-up trump card, and its ``count``/``count_text`` the size of its hand, ``pile``
(phase 1) its won cards.
"""

from __future__ import annotations

from typing import Any

from engine import GAMES
from league.store.snapshots import GameSnapshot
from telegram_app.games.koira.words import trump_rule
from telegram_app.i18n import _, join_list, n_
from telegram_app.miniapp.text import clean_name

SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
RED = {"H", "D"}


def suit_name(letter: str) -> str:
    """The suit's name in the reader's language."""
    return {"S": _("spades"), "H": _("hearts"), "D": _("diamonds"), "C": _("clubs")}[letter]


def label(code: str) -> str:
    """``"10H"`` → ``"10♥"``."""
    return code[:-1] + SYMBOLS[code[-1]]


def card(code: str, trump: str | None = None) -> dict[str, Any]:
    """A playing card for the page (see the module's docstring); a trump adds ``"title"``,
    what a trump does (the tooltip of its ★)."""
    out: dict[str, Any] = {"code": code, "label": label(code), "rank": code[:-1],
                           "suit": SYMBOLS[code[-1]],
                           "tone": "red" if code[-1] in RED else "black",
                           "trump": code[-1] == trump}
    return out | {"title": trump_rule()} if out["trump"] else out


def legend(trump: str | None) -> list[dict[str, str]]:
    """The page's line for the ★ on trump cards once the trump is known (``{"label",
    "text"}``, as Coyote's special cards): what a trump does."""
    return [] if trump is None else [{"label": "★", "text": trump_rule()}]


def cards_text(codes: list[str] | tuple[str, ...]) -> str:
    """``7♥ 8♥ 9♥``."""
    return " ".join(label(c) for c in codes)


def _name(game: GameSnapshot, seat: int | None) -> str:
    if seat is None:
        return "?"
    try:
        return clean_name(game.at_seat(seat).name)
    except KeyError:
        return "?"


def _seats(game: GameSnapshot, view: dict[str, Any], own: int | None) -> list[dict[str, Any]]:
    seats = []
    face_up = view["face_up"]
    for player in game.seated:
        s = player.seat or 0
        badges = []
        if s in view["out"]:
            badges.append(_("(safe)"))
        if s in view["removed"]:
            badges.append(_("left the game"))
        if s == view["dealer"] and view["phase"] == 1:
            badges.append(_("dealer"))
        shown = []
        if face_up is not None and face_up[0] == s:  # R7: everyone saw it drawn
            shown.append(card(face_up[1], view["trump"]) | {"note": _("face up")})
        count = view["counts"][s]
        seats.append({
            "seat": s, "name": clean_name(player.name), "you": s == own, "ai": player.is_ai,
            "turn": s == view["turn"], "out": not view["in_game"][s],
            "tally": None, "max_tally": None, "tally_label": None, "cards": shown,
            "badges": badges,
            "count": count, "count_text": n_("{n} card", "{n} cards", count).format(n=count),
            "pile": view["pile_counts"][s] if view["phase"] == 1 else None,
            "pile_text": n_("{n} won", "{n} won", view["pile_counts"][s]).format(
                n=view["pile_counts"][s]) if view["phase"] == 1 else None,
            # (the league's places, as the group's final message shows them; else the game's)
            "place": None if not view["over"] else player.placement
            if player.placement is not None else view["placements"][s],
        })
    return seats


def _trick(game: GameSnapshot, view: dict[str, Any], own: int | None) -> list[dict[str, Any]]:
    trick = view["trick"]
    tied = set(view["tied"])
    return [{"seat": p["seat"], "name": _name(game, p["seat"]), "you": p["seat"] == own,
             "cards": [card(c, view["trump"]) for c in p["cards"]],
             "from_stock": bool(p["from_stock"]), "top": i == len(trick) - 1,
             "bottom": i == 0 and view["phase"] == 2,
             "tied": view["phase"] == 1 and i >= view["round_from"] > 0 and p["seat"] in tied}
            for i, p in enumerate(trick)]


def _prompt(game: GameSnapshot, view: dict[str, Any], seat: int | None) -> str:
    if view["over"]:
        if view["koira"] is None:
            return _("The game is over.")
        if view["koira"] == seat:
            return _("The game is over: you are the koira. 🐕")
        return _("The game is over: {name} is the koira. 🐕").format(
            name=_name(game, view["koira"]))
    turn = view["turn"]
    if turn is None:
        return ""
    if turn != seat:
        return _("Waiting for {name}.").format(name=_name(game, turn))
    if view["phase"] == 1:
        if view["tied"] and seat in view["tied"]:
            return _("Your turn: you are tied for the highest card: play another one.")
        if view["can_stock"]:
            return _("Your turn: play a card, or turn up the stock's top card.")
        return _("Your turn: play a card.")
    if not view["trick"]:
        return _("Your turn: lead a card or a sequence.")
    top = view["trick"][-1]["cards"]
    return _("Your turn: beat {cards} or pick up.").format(cards=cards_text(top))


def _notes(view: dict[str, Any]) -> list[str]:
    notes = []
    if view["phase"] == 2 and view["trick"] and not view["over"]:
        lying = sum(len(p["cards"]) for p in view["trick"])
        left = max(0, view["need"] - lying)
        notes.append(n_("{n} more card completes this trick.",
                        "{n} more cards complete this trick.", left).format(n=left))
    return notes


def table(game: GameSnapshot, seat: int | None) -> dict[str, Any]:
    """The running or finished game as ``seat`` sees it (``None``: the public table)."""
    view = GAMES[game.kind].view(game.state or {}, seat)
    trump = view["trump"]
    hand = view["hand"]
    over = bool(view["over"])
    return {
        "title": _("🐕 Koira #{id} · phase {phase} · trick {trick}").format(
            id=game.id, phase=view["phase"], trick=view["trick_no"]),
        "layout": "koira", "seats": _seats(game, view, seat), "claims": [], "pile": None,
        "prompt": _prompt(game, view, seat), "notes": _notes(view), "over": over,
        "legend": [] if over else legend(trump),
        "your_turn": seat is not None and view["turn"] == seat and not over,
        "koira": {
            "phase": view["phase"], "trick_no": view["trick_no"], "stock": view["stock"],
            "can_stock": view["can_stock"],
            "stock_text": n_("Stock: {n} card", "Stock: {n} cards", view["stock"]).format(
                n=view["stock"]),
            "trump": None if trump is None else {
                "suit": SYMBOLS[trump], "text": _("Trump: {suit} {name}").format(
                    suit=SYMBOLS[trump], name=suit_name(trump))},
            "trump_card": None if view["trump_card"] is None
            else card(view["trump_card"], trump),
            "hand": None if hand is None else [card(c, trump) for c in hand],
            "hand_text": _("Your hand") if hand is not None else "",
            "trick": _trick(game, view, seat),
            "trick_text": _("On the table") if view["trick"] else _("No card on the table."),
            "discarded": len(view["discarded"]),
        },
    }


def controls(game: GameSnapshot, seat: int) -> list[dict[str, Any]]:
    """The moves ``seat`` may make now (empty off-turn), every one from ``legal_actions``:

    - ``{"type": "cards", "id": "play", "plays": [[code, …], …], "action": {"kind":
      "play"}, "field": "cards", "submit": "Play {cards}", "empty": str}``: the page lets the
      player tap hand cards and sends ``action`` with ``field`` set to the play whose cards
      are exactly the ones selected (no other selection can be sent);
    - ``{"type": "buttons", "id": "stock" | "pickup", "options": [{"label", "action"}]}``.
    """
    state = game.state or {}
    actions = GAMES[game.kind].legal_actions(state, seat)
    if not actions:
        return []
    out: list[dict[str, Any]] = []
    plays = [list(a.cards) for a in actions if a.kind == "play" and a.cards]
    if plays:
        out.append({"type": "cards", "id": "play", "plays": plays,
                    "action": {"kind": "play"}, "field": "cards",
                    "submit": _("Play {cards}"), "empty": _("Tap cards to play")})
    if any(a.kind == "stock" for a in actions):
        out.append({"type": "buttons", "id": "stock", "options": [
            {"label": _("🂠 Turn up the stock"), "action": {"kind": "stock"}}]})
    if any(a.kind == "pickup" for a in actions):
        out.append({"type": "buttons", "id": "pickup", "options": [
            {"label": _("⤵️ Pick up"), "action": {"kind": "pickup"},
             "style": "secondary" if plays else "primary"}]})
    return out


def event_lines(game: GameSnapshot, events: list[dict[str, Any]]) -> list[str]:
    """What the events of one logged step say, as plain lines (public events only)."""
    lines: list[str] = []
    for event in events:
        kind = event["type"]
        who = _name(game, event.get("seat"))
        if kind == "card_played":
            text = cards_text(event["cards"])
            lines.append(_("{name} turns up the stock: {cards}").format(name=who, cards=text)
                         if event.get("from_stock") else
                         _("{name} plays {cards}").format(name=who, cards=text))
        elif kind == "tie":
            lines.append(_("A tie: {names} play again.").format(
                names=join_list(_name(game, s) for s in event["seats"])))
        elif kind == "trick_over" and event.get("seat") is not None and \
                not event.get("shared"):
            lines.append(_("{name} wins the trick.").format(name=who))
        elif kind == "trick_shared":
            lines.append(_("The trick is shared out among {names}.").format(
                names=join_list(_name(game, s) for s in event["seats"])))
        elif kind == "trump_revealed":
            lines.append(_("{name} draws the last stock card, {card}: {suit} are trump.")
                         .format(name=who, card=label(event["card"]),
                                 suit=suit_name(event["suit"])))
        elif kind == "phase_changed":
            lines.append(_("Phase 2: everyone takes up the cards they won."))
        elif kind == "picked_up":
            lines.append(_("{name} picks up {cards}").format(
                name=who, cards=cards_text(event["cards"])))
        elif kind == "player_out":
            lines.append(_("{name} is out of cards and safe.").format(name=who))
        elif kind == "player_removed":
            lines.append(_("{name} left the game.").format(name=who))
        elif kind == "turn_timed_out":
            lines.append(_("{name} ran out of time.").format(name=who))
        elif kind == "game_over" and event.get("koira") is not None:
            lines.append(_("{name} is the koira! 🐕").format(name=_name(game, event["koira"])))
    return lines


def recent(game: GameSnapshot, rows: list[list[dict[str, Any]]]) -> list[str]:
    """The lines of the last logged steps (each a list of events), newest last."""
    return [line for events in rows for line in event_lines(game, events)]


def replay_marks(log: list[list[dict[str, Any]]]) -> list[tuple[int, str]]:
    """The replay's places to jump to: the first card of each trick (a trick starts in the
    move that ended the one before, whose step does not show it yet)."""
    marks: list[tuple[int, str]] = []
    started: dict[str, Any] | None = None
    for i, events in enumerate(log):
        for e in events:
            if e["type"] == "trick_started":
                started = e
            elif e["type"] == "card_played" and started is not None:
                marks.append((i, _("Phase {phase} · trick {trick}").format(
                    phase=started["phase"], trick=started["trick"])))
                started = None
    return marks


def replay_cards(game: GameSnapshot, events: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The cards played among ``events``, each with who played it; ``None`` for none."""
    shown = [{"name": _name(game, e.get("seat")), "card": card(code), "value": None}
             for e in events if e["type"] == "card_played" for code in e["cards"]]
    return {"cards": shown, "legend": []} if shown else None
