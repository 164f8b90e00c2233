"""Coyote's move keyboards: bids, Coyote!, the special actions legal now, and the second
keyboards (more bids, a target, the card to guess), each with a way back.

A move keyboard offers only what the rules allow now (the engine's ``legal_actions``).

The callback verbs (``<verb>:<game id>:<version>[:<n>…]``, see
``telegram_app.callbacks``); they keep the letters of the buttons already in chats.

| verb | meaning | numbers after the game id |
| --- | --- | --- |
| ``b`` | bid | version, amount[, mod] |
| ``c`` | call Coyote | version |
| ``cc`` | ask to confirm a call (the player's preference): show Yes / Back | version |
| ``m`` | show bids from a number | version, first bid[, mod] |
| ``k`` | pick a mask used with a bid | version, special code |
| ``x`` | use a special action on its own | version, special code |
| ``q`` | guess one's own card | version, card index |
| ``g`` | show the guess keyboard | version |

``mod`` = special code × 100 + target seat (Double: no target).

🐺 Coyote! ends the round, so it asks once for confirmation (``cc``: "Yes, call Coyote!", the
``c`` of that version, and Back) unless the player turned that off (``/confirm off``;
``PlayerInfo.confirms_ending``, read with the game).
"""

from __future__ import annotations

from collections import Counter

from telegram import InlineKeyboardButton

from engine import GAMES
from engine.coyote import CoyoteGame, get_edition
from engine.coyote.editions import MAX_BID
from league.store.snapshots import GameSnapshot
from telegram_app.games.base import Rows
from telegram_app.games.coyote.words import card_label, special_name
from telegram_app.games.registry import Press
from telegram_app.i18n import _
from telegram_app.render.common import plain_name

VERBS: dict[str, tuple[int, ...]] = {
    "b": (2, 3), "c": (1,), "m": (2, 3), "k": (2,), "x": (2,), "q": (2,), "g": (1,),
    "cc": (1,),
}
SPECIAL_CODES = {"pass": 1, "double": 2, "reverse": 3, "draw1": 4, "change": 5, "shot": 6,
                 "extra": 7, "skip": 8, "swap": 9, "guess": 10}
SPECIAL_NAMES = {code: name for name, code in SPECIAL_CODES.items()}


def mod_of(special: str | None, target: int | None = None) -> int | None:
    """Encode a bid's mask and target as one number (``None`` for a plain bid)."""
    if special is None:
        return None
    return SPECIAL_CODES[special] * 100 + (target or 0)


def unmod(mod: int | None) -> tuple[str | None, int | None]:
    """Decode :func:`mod_of`: ``(special, target)``; raises ``KeyError`` on a bad code."""
    if mod is None:
        return None, None
    special = SPECIAL_NAMES[mod // 100]
    return special, (mod % 100 if special in ("draw1", "shot") else None)


BIDS_SHOWN = 8
BIDS_PER_ROW = 4
Button = InlineKeyboardButton


def _cb(verb: str, game: GameSnapshot, *args: int | None) -> str:
    return Press(verb, game.id, tuple(a for a in args if a is not None)).encode()


def _legal(game: GameSnapshot, seat: int) -> tuple[set[str], set[tuple[str, int]], bool]:
    """(standalone specials, (bid special, target) pairs, can call) legal for ``seat`` now."""
    actions = GAMES[game.kind].legal_actions(game.state or {}, seat)
    alone = {a.special for a in actions if a.kind == "special" and a.special}
    with_bid = {(a.special, a.target if a.target is not None else -1) for a in actions
                if a.kind == "bid" and a.special}
    return alone, with_bid, any(a.kind == "call" for a in actions)


def specials_icon(game: GameSnapshot) -> str:
    """🪙 for an edition whose special actions are coins, else 🎭 (masks)."""
    return "🪙" if CoyoteGame().specials_kind(game.options) == "coins" else "🎭"


def move_rows(game: GameSnapshot, first: int | None = None,
              mod: int | None = None) -> Rows:
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
        asks = game.at_seat(seat).confirms_ending
        rows.append([Button(_("🐺 Coyote!"), callback_data=_cb("cc" if asks else "c", game, v))])
    icon = specials_icon(game)
    specials = [Button(f"{icon} {special_name(n)}", callback_data=_cb(
        "g" if n == "guess" else "x", game, v, None if n == "guess" else SPECIAL_CODES[n]))
        for n in SPECIAL_CODES if n in alone]
    specials += [Button(f"🎭 {special_name(n)}…", callback_data=_cb("k", game, v,
                                                                    SPECIAL_CODES[n]))
                 for n in ("double", "draw1", "shot") if any(s == n for s, _t in with_bid)]
    rows += [specials[i:i + 3] for i in range(0, len(specials), 3)]
    return rows


def target_rows(game: GameSnapshot, special: str) -> Rows:
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


def confirm_rows(game: GameSnapshot) -> Rows:
    """Second keyboard of 🐺 Coyote! (which ends the round): the call itself (``c`` at the
    game's version, so a confirmation left on screen goes stale with the game) and Back to
    the move keyboard."""
    state = game.state or {}
    low = state["bids"][-1][1] + 1 if state.get("bids") else 1
    return [[Button(_("🐺 Yes, call Coyote!"), callback_data=_cb("c", game, game.version))],
            [Button(_("↩️ Back"), callback_data=_cb("m", game, game.version, low))]]


def guess_cards(game: GameSnapshot) -> list[str]:
    """The cards one may name with the Guess coin, in a fixed order (the callback's index)."""
    return sorted(set(get_edition(game.options.get("edition", "classic")).deck),
                  key=lambda c: (not c.lstrip("-").isdigit(), int(c) if c.lstrip("-").isdigit()
                                 else 0, c))


def guess_rows(game: GameSnapshot) -> Rows:
    """Second keyboard of the Guess coin: every card value of the edition."""
    buttons = [Button(card_label(c), callback_data=_cb("q", game, game.version, i))
               for i, c in enumerate(guess_cards(game))]
    rows = [[Button(_("🪙 Guess: which card do you have?"),
                    callback_data=_cb("m", game, game.version, 1))]]
    rows += [buttons[i:i + 5] for i in range(0, len(buttons), 5)]
    rows.append([Button(_("↩️ Back"), callback_data=_cb("m", game, game.version, 1))])
    return rows
