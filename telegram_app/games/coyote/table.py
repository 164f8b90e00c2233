"""Coyote drawn for the Mini App: the engine's view of one seat turned into the generic table
the page draws (:mod:`telegram_app.miniapp.table` describes the shape), and the engine's legal
actions turned into controls. No rule is decided here: cards come from ``view(state, seat)``
(everyone's but the viewer's own), moves from ``legal_actions``; the texts are the chat's."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from engine import GAMES
from engine.coyote.editions import MAX_BID
from league.store.snapshots import GameSnapshot
from telegram_app.games.coyote.keyboards import guess_cards
from telegram_app.games.coyote.notes import step_lines
from telegram_app.games.coyote.screens import status_lines
from telegram_app.games.coyote.showdown import number, showdown_summary
from telegram_app.games.coyote.words import (
    SPECIAL_CARDS,
    card_label,
    special_name,
    special_text,
    specials_among,
    tally,
    turned_up,
)
from telegram_app.i18n import _
from telegram_app.miniapp.text import clean_name, plain


def card(code: str | None, edition: str = "classic") -> dict[str, Any]:
    """A card for the page: ``{"label", "tone"}`` (``pos``, ``neg``, ``zero``, ``special``;
    a special card adds ``"title"``, what it does), or a face-down card (``{"hidden":
    true}``) for ``None``."""
    if code is None:
        return {"hidden": True, "label": "?", "tone": "back"}
    if code in SPECIAL_CARDS:
        return {"label": card_label(code), "tone": "special",
                "title": special_text(code, edition)}
    if code == "A" or (code.isdigit() and code != "0"):
        tone = "pos"
    elif code.startswith("-"):
        tone = "neg"
    else:
        tone = "zero"
    return {"label": card_label(code), "tone": tone}


def legend(codes: list[str | None], edition: str) -> list[dict[str, str]]:
    """One ``{"label", "text"}`` per special card among ``codes``, in order of appearance:
    the page explains a special card where it shows it (a newcomer cannot guess what
    "MAX→0" does)."""
    return [{"label": card_label(code), "text": special_text(code, edition) or ""}
            for code in specials_among(codes)]


def _shown(game: GameSnapshot, view: dict[str, Any]) -> list[str | None]:
    """Every card on the table in the order the page draws them (``None``: face down)."""
    codes: list[str | None] = []
    for player in game.seated:
        s = player.seat or 0
        if view["in_play"][s]:
            codes += [view["cards"][s], *view["extra"][s], *view["face_up"][s], *view["void"][s]]
    return codes


def _seats(game: GameSnapshot, view: dict[str, Any], own: int | None) -> list[dict[str, Any]]:
    seats = []
    edition = view["edition"]
    for player in game.seated:
        s = player.seat or 0
        cards: list[dict[str, Any]] = []
        if view["in_play"][s]:
            cards.append(card(view["cards"][s], edition) | ({"own": True} if s == own else {}))
            cards += [card(c, edition) | {"note": _("Draw 1")} for c in view["extra"][s]]
            cards += [card(c, edition) | {"note": _("face up")} for c in view["face_up"][s]]
            cards += [card(c, edition) | {"void": True} for c in view["void"][s]]
        badges = []
        if view["specials"] == "masks" and view["masks"][s] and view["lives"][s]:
            badges.append("🎭")
        if view["safe"][s]:
            badges.append(_("(safe)"))
        seats.append({
            "seat": s, "name": clean_name(player.name), "you": s == own, "ai": player.is_ai,
            "turn": s == view["turn"], "out": not view["lives"][s],
            "tally": view["lives"][s], "max_tally": view["max_lives"], "cards": cards,
            # (poker-deck counts penalty cards taken, as the chat shows them, not hearts)
            "tally_label": tally(view["lives"][s], view["max_lives"], edition)
            if edition == "poker-deck" else None,
            # (the league's places, as the group's final message shows them; else the game's)
            "badges": badges, "place": None if not view["over"] else player.placement
            if player.placement is not None else (view["placements"] or [None] * view["seats"])[s],
        })
    return seats


def _bids(game: GameSnapshot, view: dict[str, Any], own: int | None) -> list[dict[str, Any]]:
    return [{"name": clean_name(game.at_seat(seat).name), "amount": amount,
             "you": seat == own} for seat, amount in view["bids"]]


def _prompt(view: dict[str, Any], seat: int | None, game: GameSnapshot) -> str:
    if view["over"]:
        return _("The game is over.")
    if view["turn"] is None:
        return ""
    if view["turn"] == seat:
        if view["min_bid"] > MAX_BID:
            return _("Your turn: nobody may bid higher: call Coyote!")
        if view["change"] and view["change"]["target"] == seat and view["can_call"]:
            return _("Your turn: raise your bid to {min} or more, or call Coyote on the bid "
                     "before it.").format(min=view["min_bid"])
        if view["change"] and view["change"]["target"] == seat:
            return _("Your turn: raise your bid to {min} or more.").format(min=view["min_bid"])
        if view["must_bid"] or not view["can_call"]:
            return _("Your turn: bid {min} or more.").format(min=view["min_bid"])
        return _("Your turn: bid {min} or more, or call Coyote!").format(min=view["min_bid"])
    return _("Waiting for {name}.").format(name=clean_name(game.at_seat(view["turn"]).name))


def table(game: GameSnapshot, seat: int | None) -> dict[str, Any]:
    """The running or finished game as ``seat`` sees it (``None``: the public table). A seat
    no longer in play (knocked out, left: ``GameUI.in_hand``) sees the public table, its own
    seat marked: as in the chat, where 🎴 shows them nothing any more, the cards still in
    play must not reach someone who could tell a player."""
    rules = GAMES[game.kind]
    view = rules.view(game.state or {}, seat)
    if seat is not None and not view["in_play"][seat] and not view["over"]:
        view = rules.view(game.state or {}, None)
    return {
        "title": _("🐺 Game #{id} · round {round}").format(id=game.id, round=view["round"]),
        "edition": view["edition"], "seats": _seats(game, view, seat),
        "claims": _bids(game, view, seat), "prompt": _prompt(view, seat, game),
        "notes": [plain(line) for line in status_lines(game, view)],
        "legend": legend(_shown(game, view), view["edition"]),
        "pile": view["draw_count"], "over": view["over"],
        "your_turn": seat is not None and view["turn"] == seat and not view["over"],
    }


def controls(game: GameSnapshot, seat: int) -> list[dict[str, Any]]:
    """The moves ``seat`` may make now, as controls the page draws (empty off-turn):

    - ``{"type": "number", "action": {...}, "field": "amount", "min", "max", "submit",
      "modifiers": [{"label", "patch"}]}``: a number picker; the page sends ``action`` with
      ``field`` set to the number and the chosen modifier's ``patch`` merged in;
    - ``{"type": "buttons", "title", "options": [{"label", "action", "style"}]}``.
    Every action is the engine's own JSON (:meth:`engine.core.Action.to_json`)."""
    state = game.state or {}
    actions = GAMES[game.kind].legal_actions(state, seat)
    if not actions:
        return []
    view = GAMES[game.kind].view(state, seat)
    names = {p.seat: clean_name(p.name) for p in game.seated}
    out: list[dict[str, Any]] = []
    bids = [a for a in actions if a.kind == "bid" and a.special is None]
    if bids:
        modifiers = []
        seen: set[tuple[str, int | None]] = set()
        for a in actions:
            if a.kind == "bid" and a.special and (a.special, a.target) not in seen:
                seen.add((a.special, a.target))
                label = "🎭 " + special_name(a.special)
                if a.target is not None:
                    label += " → " + names.get(a.target, "?")
                patch: dict[str, Any] = {"special": a.special}
                if a.target is not None:
                    patch["target"] = a.target
                modifiers.append({"label": label, "patch": patch})
        out.append({"type": "number", "id": "bid", "title": _("Your bid"),
                    "action": {"kind": "bid"}, "field": "amount",
                    "min": min(a.amount or 0 for a in bids), "max": MAX_BID,
                    "submit": _("Bid {n}"), "modifiers": modifiers})
    if any(a.kind == "call" for a in actions):
        call: dict[str, Any] = {"label": _("🐺 Coyote!"), "action": {"kind": "call"},
                                "style": "danger"}
        if _confirms(game, seat):  # (it ends the round: asked once, as in the chat)
            call["confirm"] = {"label": _("🐺 Yes, call Coyote!"), "back": _("↩️ Back")}
        out.append({"type": "buttons", "id": "call", "options": [call]})
    icon = "🪙" if view["specials"] == "coins" else "🎭"
    alone = [a for a in actions if a.kind == "special" and a.special != "guess"]
    if alone:
        out.append({"type": "buttons", "id": "specials", "title": _("Special actions"),
                    "options": [{"label": f"{icon} {special_name(a.special or '')}",
                                 "action": a.to_json()} for a in alone]})
    guesses = {a.guess for a in actions if a.kind == "special" and a.special == "guess"}
    if guesses:
        out.append({"type": "buttons", "id": "guess",
                    "title": _("🪙 Guess: which card do you have?"),
                    "options": [{"label": card_label(c), "card": card(c, view["edition"]),
                                 "action": {"kind": "special", "special": "guess", "guess": c}}
                                for c in guess_cards(game) if c in guesses]})
    return out


def as_after(game: GameSnapshot, events: list[dict[str, Any]]) -> GameSnapshot:
    """``game`` with each life count the step's ``life_lost`` events name as it was right
    after that step: a showdown's line says "out" only when that showdown took the last life
    (the lives now may be fewer, the player having lost again since)."""
    lost = {e["seat"]: e["lives"] for e in events if e["type"] == "life_lost"}
    if not lost or game.state is None:
        return game
    lives = list(game.state.get("lives") or [])
    for seat, left in lost.items():
        if seat < len(lives):
            lives[seat] = left
    return replace(game, state={**game.state, "lives": lives})


def recent(game: GameSnapshot, rows: list[list[dict[str, Any]]]) -> list[str]:
    """The last logged steps (each a list of events) as the group's notes tell them (plain
    text), newest last."""
    lines: list[str] = []
    for events in rows:
        then = as_after(game, events)
        for event in events:
            if event["type"] == "showdown":
                lines.append(plain(showdown_summary(then, event)))
        lines += [plain(line) for line in step_lines(game, events)]
    return lines


def replay_marks(log: list[list[dict[str, Any]]]) -> list[tuple[int, str]]:
    """The replay's places to jump to: the deal of each round."""
    return [(i, _("Round {n}").format(n=e["round"])) for i, events in enumerate(log)
            for e in events if e["type"] == "round_dealt"]


def replay_cards(game: GameSnapshot, events: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The cards a showdown among ``events`` revealed, each with its owner (``turned up``
    for a card drawn from the pile) and its value where the scoring changed it, as the
    group's showdown message lists them (``"through"``: the showdown's index in ``events``,
    whose line the cards follow); ``None`` without a showdown."""
    edition = game.options.get("edition", "classic")
    for index, event in enumerate(events):
        if event["type"] != "showdown":
            continue
        owners = list(event["owners"])
        shown = []
        for i, c in enumerate(event["cards"]):
            try:
                name = clean_name(game.at_seat(owners[i]).name) if i < len(owners) \
                    else turned_up(edition)
            except KeyError:
                name = "?"
            changed = c["face"] is not None and c["value"] != c["face"]
            shown.append({"name": name, "card": card(c["card"], edition),
                          "value": number(c["value"]) if changed else None})
        return {"cards": shown, "legend": legend([c["card"] for c in event["cards"]], edition),
                "through": index}
    return None


def _confirms(game: GameSnapshot, seat: int) -> bool:
    """Whether the player in ``seat`` asked 🐺 Coyote! to be confirmed (``/confirm``)."""
    try:
        return game.at_seat(seat).confirms_ending
    except KeyError:
        return True
