"""A Koira player's private keyboard, its callback data, and the decoder back to an action.

Callback data, in the bot's format ``<verb>:<game id>[:<n>…]`` (whole numbers of at most 12
digits; ≤ 64 bytes: 2 + 12 + 12 + 8 + 8 characters and 4 colons at most):

| data | meaning |
| --- | --- |
| ``ky:<game>:<version>:<mask>[:<high>]`` | play the mask's cards (one, or a sequence) |
| ``kt:<game>:<version>:<mask>[:<high>]`` | phase 2: select the mask's cards (a redraw) |
| ``kw:<game>:<version>`` | phase 1: turn up the stock's top and play it |
| ``kh:<game>:<version>`` | phase 2: pick up |

The mask is a bitmask (bits 0–25 in ``<mask>``, bits 26–51 in ``<high>``, given only when
not 0, so every number fits 8 digits) over the indexes of the player's hand as their view
sorts it (by suit then rank, :func:`engine.koira.cards.sorted_hand`), bit ``i`` for
``hand[i]``: at one ``version`` the hand is fixed, so the indexes are. Everything is
checked against the game as it is now (:func:`decode`): another game, another version, a
bit past the hand, or a play ``legal_actions`` does not list is refused; nothing changes.

The keyboard offers only legal plays (``legal_actions``): phase 1 one tap plays a card, plus
"turn up the stock" while it is allowed; phase 2 a card with no
legal sequence starting with it plays at once while nothing is selected, other cards toggle
a selection (a tick on the button; before the first, a `` +`` on the cards a tap selects),
**Play** confirms a selection that is a legal play, **Pick up** picks up.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from engine import GAMES
from engine.core import Action
from engine.koira.cards import SUITS, rank, suit
from league.store.snapshots import GameSnapshot
from telegram_app.games.koira.words import card_label, cards_label
from telegram_app.i18n import _
from telegram_app.render.language import in_seat_language

Button = InlineKeyboardButton
PREFIX = "k"
VERBS = {"y": "play", "t": "select", "w": "stock", "h": "pickup"}
"""The second letter of the data: what the button does."""
CARDS_PER_ROW = 6
MAX_MASK_DIGITS = 16  # 2**52 - 1 has 16 digits: a hand never holds more than the 52 cards
_DATA = re.compile(r"(k[ytwh]):([0-9]{1,12}):([0-9]{1,12})(?::([0-9]{1,8}))?(?::([0-9]{1,8}))?")
HALF = 26
"""Bits of the mask per number (52 cards: two numbers of at most 8 digits)."""
VERBS_ARITY: dict[str, tuple[int, ...]] = {"ky": (2, 3), "kt": (2, 3), "kw": (1,), "kh": (1,)}
"""The callback verbs and the counts of numbers after the game id (version first)."""
TICK = "✅ "
SELECTS = " +"
"""Marks a card a tap selects (a legal sequence starts with it) rather than plays."""


class ButtonError(Exception):
    """A press that must change nothing: ``code`` is ``"bad_button"`` (forged or malformed),
    ``"stale"`` (drawn for an earlier version of the game) or ``"not_your_turn"``; the bot
    answers it with ``render.common.error_text(code)``."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


@dataclass(frozen=True)
class KoiraCallback:
    """Parsed data: ``verb`` (a key of :data:`VERBS`), ``game_id``, ``version`` and
    ``mask`` (``None`` for stock and pick-up)."""

    verb: str
    game_id: int
    version: int
    mask: int | None = None

    @property
    def numbers(self) -> tuple[int, ...]:
        """The numbers after the game id: version, then the mask's low and high halves (the
        high one only when not 0)."""
        if self.mask is None:
            return (self.version,)
        low, high = self.mask & ((1 << HALF) - 1), self.mask >> HALF
        return (self.version, low, high) if high else (self.version, low)

    def encode(self) -> str:
        """The ``callback_data`` string (≤ 64 bytes)."""
        return ":".join([PREFIX + self.verb, str(self.game_id), *map(str, self.numbers)])

    @classmethod
    def of(cls, verb: str, game_id: int, numbers: tuple[int, ...]) -> KoiraCallback | None:
        """From a verb (``"ky"`` …) and its numbers (version first), as the bot's parser
        hands them; ``None`` when they do not fit the verb."""
        if verb not in VERBS_ARITY or len(numbers) not in VERBS_ARITY[verb]:
            return None
        version, *halves = numbers
        if any(not 0 <= h < 1 << HALF for h in halves) or (len(halves) == 2 and not halves[1]):
            return None
        mask = None if not halves else halves[0] | (halves[1] << HALF if len(halves) > 1 else 0)
        return cls(verb[1], game_id, version, mask)


@dataclass(frozen=True)
class Selection:
    """A press that selects cards (``mask``) without moving: redraw the keyboard with it."""

    mask: int


def parse(data: str | None) -> KoiraCallback | None:
    """Parse Koira callback data; ``None`` for anything malformed (never raises)."""
    match = _DATA.fullmatch(data or "")
    if match is None:
        return None
    verb, game_id, *numbers = match.groups()
    if numbers[1] is None and numbers[2] is not None:
        return None
    return KoiraCallback.of(verb, int(game_id), tuple(int(n) for n in numbers if n is not None))


def mask_of(hand: list[str], cards: tuple[str, ...] | list[str] | set[str]) -> int:
    """The bitmask of ``cards`` over ``hand``'s indexes."""
    return sum(1 << hand.index(c) for c in cards)


def cards_of(hand: list[str], mask: int) -> tuple[str, ...] | None:
    """The cards of ``mask``, lowest first (as the engine wants a sequence), or ``None`` when
    a bit lies past the hand."""
    if mask < 0 or mask >> len(hand):
        return None
    chosen = [c for i, c in enumerate(hand) if mask >> i & 1]
    return tuple(sorted(chosen, key=lambda c: (SUITS.index(suit(c)), rank(c))))


@dataclass(frozen=True)
class Choices:
    """What ``seat`` may do now, from ``legal_actions``: ``hand`` (sorted, the mask's
    indexes), ``plays`` (legal card tuples), ``stock``, ``pickup``; ``toggles``: the cards a
    selection may hold (phase 2), ``at_once``: cards one tap plays (no legal sequence starts
    with them)."""

    hand: list[str]
    phase: int
    plays: frozenset[tuple[str, ...]]
    stock: bool
    pickup: bool
    toggles: frozenset[str]
    at_once: frozenset[str]


def choices(game: GameSnapshot, seat: int) -> Choices:
    """The legal moves of ``seat`` (nothing off-turn) as the keyboard offers them."""
    engine = GAMES[game.kind]
    state = game.state or {}
    view = engine.view(state, seat)
    hand = list(view["hand"] or [])
    actions = engine.legal_actions(state, seat) if state else []
    plays = frozenset(a.cards for a in actions if a.kind == "play" and a.cards)
    singles = {p[0] for p in plays if len(p) == 1}
    starts = {p[0] for p in plays if len(p) > 1}
    toggles = frozenset(c for p in plays for c in p) if view["phase"] == 2 else frozenset()
    return Choices(hand, view["phase"], plays, any(a.kind == "stock" for a in actions),
                   any(a.kind == "pickup" for a in actions), toggles,
                   frozenset(singles - starts))


def _data(verb: str, game: GameSnapshot, mask: int | None = None) -> str:
    return KoiraCallback(verb, game.id, game.version, mask).encode()


def pickup_cards(view: dict[str, Any]) -> list[str]:
    """The cards a pick-up takes now (R11 the bottom play; R18 ``pickup_single``: its lowest
    card), from the public view; ``[]`` on an empty trick."""
    if not view["trick"]:
        return []
    bottom = view["trick"][0]["cards"]
    return bottom[:1] if view["options"].get("pickup_single") else list(bottom)


def move_rows(game: GameSnapshot, seat: int, selection: int = 0) -> list[list[Button]]:
    """``seat``'s move buttons now (``[]`` off-turn or once over); ``selection``: the mask
    of the cards selected in phase 2 (ignored where it is not a set of selectable cards)."""
    c = choices(game, seat)
    if not c.plays and not c.stock and not c.pickup:
        return []
    selected = set(cards_of(c.hand, selection) or ())
    if not selected <= c.toggles:
        selected = set()
    mask = mask_of(c.hand, selected)
    rows: list[list[Button]] = []
    if c.phase == 1:  # at most 3 cards (R6): one row, each a tap that plays it
        rows.append([Button(card_label(card), callback_data=_data("y", game, 1 << i))
                     for i, card in enumerate(c.hand) if (card,) in c.plays])
        rows = [row for row in rows if row]
    for s in SUITS if c.phase == 2 else ():
        buttons = []
        for i, card in enumerate(c.hand):
            if suit(card) != s or card not in c.toggles:
                continue
            if not selected and card in c.at_once:
                buttons.append(Button(card_label(card), callback_data=_data("y", game, 1 << i)))
            else:
                label = card_label(card) + (SELECTS if not selected else "")
                if card in selected:
                    label = TICK + label
                buttons.append(Button(label, callback_data=_data("t", game, mask ^ 1 << i)))
        rows += [buttons[i:i + CARDS_PER_ROW] for i in range(0, len(buttons), CARDS_PER_ROW)]
    if selected:
        chosen = cards_of(c.hand, mask) or ()
        last = []
        if chosen in c.plays:
            last.append(Button(_("▶️ Play {cards}").format(cards=cards_label(chosen)),
                               callback_data=_data("y", game, mask)))
        last.append(Button(_("✖️ Clear"), callback_data=_data("t", game, 0)))
        rows.append(last)
    if c.stock:
        rows.append([Button(_("🂠 Turn up the stock"), callback_data=_data("w", game))])
    if c.pickup:
        view = GAMES[game.kind].view(game.state or {}, seat)
        rows.append([Button(_("📥 Pick up {cards}").format(cards=cards_label(
            pickup_cards(view))), callback_data=_data("h", game))])
    return rows


@in_seat_language
def private_keyboard(game: GameSnapshot, seat: int, selection: int = 0,
                     extra: list[list[Button]] | None = None) -> InlineKeyboardMarkup | None:
    """The keyboard under ``seat``'s private message: their moves on their turn (with
    ``selection`` ticked), then ``extra`` rows (the Mini App's button, say); ``None`` when
    there is nothing to press."""
    rows = move_rows(game, seat, selection) + (extra or [])
    return InlineKeyboardMarkup(rows) if rows else None


def decode(data: str | None, game: GameSnapshot, seat: int) -> Action | Selection:
    """The move (or phase-2 selection) a press of ``data`` by ``seat`` asks for, checked
    against ``game`` as it is now.

    Raises :class:`ButtonError`: ``"bad_button"`` for malformed data, another game, a mask
    past the hand or naming cards that are no legal play, ``"stale"`` for a game that is
    over or has moved on since the button was drawn, ``"not_your_turn"`` off-turn."""
    return check(parse(data), game, seat)


def check(cb: KoiraCallback | None, game: GameSnapshot, seat: int) -> Action | Selection:
    """:func:`decode` for parsed data (``None``: malformed); raises :class:`ButtonError`."""
    if cb is None or cb.game_id != game.id:
        raise ButtonError("bad_button")
    state = game.state
    if not state or state.get("over") or cb.version != game.version:
        raise ButtonError("stale")
    engine = GAMES[game.kind]
    if engine.current_seat(state) != seat:
        raise ButtonError("not_your_turn")
    c = choices(game, seat)
    if cb.verb == "w":
        if not c.stock:
            raise ButtonError("bad_button")
        return Action("stock")
    if cb.verb == "h":
        if not c.pickup:
            raise ButtonError("bad_button")
        return Action("pickup")
    assert cb.mask is not None
    cards = cards_of(c.hand, cb.mask)
    if cards is None:
        raise ButtonError("bad_button")
    if cb.verb == "t":
        if c.phase != 2 or not set(cards) <= c.toggles:
            raise ButtonError("bad_button")
        return Selection(cb.mask)
    if cards not in c.plays:
        raise ButtonError("bad_button")
    return Action("play", cards=cards)


def action_of(data: str | None, game: GameSnapshot, seat: int) -> Action | None:
    """:func:`decode` for a move only: the action, or ``None`` for a selection or a press
    that must change nothing."""
    try:
        decoded = decode(data, game, seat)
    except ButtonError:
        return None
    return decoded if isinstance(decoded, Action) else None
