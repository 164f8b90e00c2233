"""Inline keyboards: the lobby's, the table's and a player's private one.

A move keyboard offers only what the rules allow now (the engine's ``legal_actions``): bids,
Coyote!, and the special actions still available; choosing a target or a card to guess is a
second keyboard, with a way back.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from engine import GAMES
from engine.coyote import get_edition
from engine.coyote.editions import MAX_BID
from league.snapshots import GameSnapshot
from telegram_app.callbacks import (
    OPTION_CODES,
    PACE_ORDER,
    SETTING_CODES,
    SPECIAL_CODES,
    Callback,
    mod_of,
    unmod,
)
from telegram_app.i18n import NATIVE_NAMES, _
from telegram_app.miniapp import links
from telegram_app.render.common import card_label, edition_name, plain_name, special_name
from telegram_app.render.language import in_chat_language, in_seat_language

BIDS_SHOWN = 8
BIDS_PER_ROW = 4
Button = InlineKeyboardButton


def deep_link(bot_username: str, game_id: int) -> str:
    """``https://t.me/<bot>?start=g<id>``: opens the private chat and sends ``/start g<id>``."""
    return f"https://t.me/{bot_username}?start=g{game_id}"


def _cb(verb: str, game: GameSnapshot, *args: int | None) -> str:
    return Callback(verb, game.id, tuple(a for a in args if a is not None)).encode()


def pace_label(pace: str) -> str:
    """A pace's short name as players see it."""
    return {"quick": _("quick"), "standard": _("standard"), "relaxed": _("relaxed")}.get(
        pace, pace)


def settings_keyboard(settings: dict[str, Any], choices: dict[str, tuple[Any, ...]]
                      ) -> InlineKeyboardMarkup:
    """/settings: one button per chat default; pressing it moves to the next allowed value."""
    def label(key: str, value: Any) -> str:
        if key == "pace":
            return _("⏱ Pace: {value}").format(value=pace_label(value))
        if key == "edition":
            return _("🃏 Edition: {value}").format(value=edition_name(value))
        if key == "lives":
            return _("❤️ Lives: {value}").format(value=value or _("edition default"))
        if key == "specials":
            return _("🎭 Special actions: {value}").format(value=_("on") if value else _("off"))
        if key == "language":
            return _("🌐 Language: {value}").format(value=NATIVE_NAMES.get(value, value))
        return _("⏰ On timeout: {value}").format(
            value=_("computer plays, removed after 2") if value == "ai" else _("removed"))

    rows = []
    for key, values in choices.items():
        current = settings.get(key, values[0])
        following = (values.index(current) + 1) % len(values) if current in values else 0
        rows.append([Button(label(key, current), callback_data=Callback(
            "z", 0, (SETTING_CODES[key], following)).encode())])
    return InlineKeyboardMarkup(rows)


@in_chat_language
def lobby_keyboard(game: GameSnapshot, bot_username: str | None) -> InlineKeyboardMarkup:
    """Join / Leave, options (lives, special actions), computer players, Start, and a deep
    link to the private chat."""
    rows = [[Button(_("✋ Join"), callback_data=_cb("j", game)),
             Button(_("🚪 Leave"), callback_data=_cb("l", game))]]
    choices = GAMES[game.kind].option_choices(game.options)
    lives = game.options.get("lives", choices["lives"][0])
    option_row = []
    if len(choices["lives"]) > 1:
        ordered = sorted(choices["lives"])
        following = ordered[(ordered.index(lives) + 1) % len(ordered)]
        option_row.append(Button(_("❤️ Lives: {n}").format(n=lives), callback_data=_cb(
            "o", game, OPTION_CODES["lives"], following)))
    if "specials" in choices:
        on = bool(game.options.get("specials"))
        if GAMES[game.kind].specials_kind(game.options) == "coins":
            label = _("🪙 Coins: on") if on else _("🪙 Coins: off")
        else:
            label = _("🎭 Masks: on") if on else _("🎭 Masks: off")
        option_row.append(Button(label, callback_data=_cb("o", game, OPTION_CODES["specials"],
                                                          0 if on else 1)))
    pace = game.options.get("pace", "standard")
    option_row.append(Button(_("⏱ Pace: {pace}").format(pace=pace_label(pace)), callback_data=_cb(
        "o", game, OPTION_CODES["pace"],
        (PACE_ORDER.index(pace) + 1) % len(PACE_ORDER) if pace in PACE_ORDER else 1)))
    rows.append(option_row)
    if "after_elimination" in choices:
        after = game.options.get("after_elimination", choices["after_elimination"][0])
        following = choices["after_elimination"][
            (choices["after_elimination"].index(after) + 1) % len(choices["after_elimination"])]
        label = _("🔁 After a knock-out: the winner starts") if after == "winner" else \
            _("🔁 After a knock-out: the next player starts")
        rows.append([Button(label, callback_data=_cb(
            "o", game, OPTION_CODES["after_elimination"],
            choices["after_elimination"].index(following)))])
    # With the version: a double tap adds (or removes) one computer player, not two.
    rows.append([Button(_("🤖 Add AI"), callback_data=_cb("a", game, game.version)),
                 Button(_("➖ Remove AI"), callback_data=_cb("r", game, game.version))])
    last = [Button(_("▶️ Start"), callback_data=_cb("s", game))]
    if bot_username:
        last.append(Button(_("💬 Private chat"), url=deep_link(bot_username, game.id)))
    rows.append(last)
    return InlineKeyboardMarkup(rows)


def _legal(game: GameSnapshot, seat: int) -> tuple[set[str], set[tuple[str, int]], bool]:
    """(standalone specials, (bid special, target) pairs, can call) legal for ``seat`` now."""
    actions = GAMES[game.kind].legal_actions(game.state or {}, seat)
    alone = {a.special for a in actions if a.kind == "special" and a.special}
    with_bid = {(a.special, a.target if a.target is not None else -1) for a in actions
                if a.kind == "bid" and a.special}
    return alone, with_bid, any(a.kind == "call" for a in actions)


def move_rows(game: GameSnapshot, first: int | None = None,
              mod: int | None = None) -> list[list[Button]]:
    """The current player's buttons: eight bids from ``first`` (default: the lowest legal
    bid), paging to reach any higher bid, Coyote!, and the specials legal now. With ``mod``
    (a mask chosen with a bid) the bids carry it and a Back button replaces the specials."""
    state = game.state or {}
    seat = state.get("turn")
    if state.get("over") or seat is None:
        return []
    v = game.version
    low = state["bids"][-1][1] + 1 if state["bids"] else 1
    first = max(low, first or low)
    first = min(first, max(low, MAX_BID - BIDS_SHOWN + 1))
    bids = [Button(str(n), callback_data=_cb("b", game, v, n, mod))
            for n in range(first, min(first + BIDS_SHOWN, MAX_BID + 1))]
    rows = [bids[i:i + BIDS_PER_ROW] for i in range(0, len(bids), BIDS_PER_ROW)]
    paging = []
    if first > low:
        paging.append(Button("◀", callback_data=_cb("m", game, v, max(low, first - BIDS_SHOWN),
                                                      mod)))
    if first + BIDS_SHOWN <= MAX_BID:
        paging.append(Button(_("Higher ▶"), callback_data=_cb("m", game, v,
                                                               first + BIDS_SHOWN, mod)))
    if paging:
        rows.append(paging)
    if mod is not None:
        special, target = unmod(mod)
        title = special_name(special or "")
        if target is not None:
            title += " → " + plain_name(game.at_seat(target).name, 16)
        rows.insert(0, [Button(_("🎭 {special}: choose your bid").format(special=title),
                               callback_data=_cb("m", game, v, low))])
        rows.append([Button(_("↩️ Back"), callback_data=_cb("m", game, v, low))])
        return rows
    alone, with_bid, can_call = _legal(game, seat)
    if can_call:
        rows.append([Button(_("🐺 Coyote!"), callback_data=_cb("c", game, v))])
    icon = "🪙" if GAMES[game.kind].specials_kind(game.options) == "coins" else "🎭"
    specials = [Button(f"{icon} {special_name(n)}", callback_data=_cb(
        "g" if n == "guess" else "x", game, v, None if n == "guess" else SPECIAL_CODES[n]))
        for n in SPECIAL_CODES if n in alone]
    specials += [Button(f"🎭 {special_name(n)}…", callback_data=_cb("k", game, v,
                                                                    SPECIAL_CODES[n]))
                 for n in ("double", "draw1", "shot") if any(s == n for s, _t in with_bid)]
    rows += [specials[i:i + 3] for i in range(0, len(specials), 3)]
    return rows


def target_rows(game: GameSnapshot, special: str) -> list[list[Button]]:
    """Second keyboard of Draw 1 / Shot: whom it targets (names; alike ones get their place in
    the table); Double goes straight to the bids."""
    state = game.state or {}
    seat = state.get("turn")
    if seat is None:
        return []
    _alone, with_bid, _call = _legal(game, seat)
    low = state["bids"][-1][1] + 1 if state["bids"] else 1
    if special == "double":
        return move_rows(game, low, mod_of("double"))
    targets = sorted(t for s, t in with_bid if s == special)
    names = {p.seat: plain_name(p.name, 20) for p in game.seated}
    # players whose names look alike get their place in the table's list (no card: this
    # keyboard may be drawn on the group's table, where everyone sees it)
    alike = {n for n, count in Counter(names.values()).items() if count > 1}
    buttons = [Button(names[t] + (f" ({t + 1})" if names[t] in alike else ""),
                      callback_data=_cb("m", game, game.version, low, mod_of(special, t)))
               for t in targets]
    rows = [[Button(_("🎭 {special}: choose a player").format(special=special_name(special)),
                    callback_data=_cb("m", game, game.version, low))]]
    rows += [buttons[i:i + 2] for i in range(0, len(buttons), 2)]
    rows.append([Button(_("↩️ Back"), callback_data=_cb("m", game, game.version, low))])
    return rows


def guess_cards(game: GameSnapshot) -> list[str]:
    """The cards one may name with the Guess coin, in a fixed order (the callback's index)."""
    return sorted(set(get_edition(game.options.get("edition", "classic")).deck),
                  key=lambda c: (not c.lstrip("-").isdigit(), int(c) if c.lstrip("-").isdigit()
                                 else 0, c))


def guess_rows(game: GameSnapshot) -> list[list[Button]]:
    """Second keyboard of the Guess coin: every card value of the edition."""
    buttons = [Button(card_label(c), callback_data=_cb("q", game, game.version, i))
               for i, c in enumerate(guess_cards(game))]
    rows = [[Button(_("🪙 Guess: which card do you have?"),
                    callback_data=_cb("m", game, game.version, 1))]]
    rows += [buttons[i:i + 5] for i in range(0, len(buttons), 5)]
    rows.append([Button(_("↩️ Back"), callback_data=_cb("m", game, game.version, 1))])
    return rows


@in_chat_language
def table_keyboard(game: GameSnapshot, rows: list[list[Button]] | None = None
                   ) -> InlineKeyboardMarkup:
    """The group table: 👀 (the moves are in each player's private chat, so the table need
    not be edited on every move; ``rows``: the keyboard a press on an old table asked for)
    and the Mini App's direct link where it is configured."""
    peek = [[Button(_("👀 See the cards"), callback_data=_cb("p", game)),
             *links.group_row(game.id)]]
    return InlineKeyboardMarkup(peek + (rows or []))


@in_seat_language
def private_keyboard(game: GameSnapshot, seat: int, rows: list[list[Button]] | None = None
                     ) -> InlineKeyboardMarkup | None:
    """A player's moves in their private chat, only on their turn (and the Mini App's
    button, when it is set up)."""
    state = game.state or {}
    row = links.private_row(game.id)
    app = [row] if row and not state.get("over") else []
    if state.get("turn") != seat or state.get("over"):
        return InlineKeyboardMarkup(app) if app else None
    return InlineKeyboardMarkup((move_rows(game) if rows is None else rows) + app)
