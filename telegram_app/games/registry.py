"""Which game owns which callback verb, and every game's UI by kind (:data:`UIS`, as
``engine.GAMES`` is for rules).

Callback data (``telegram_app.callbacks``): ``<verb>:<game id>[:<n>…]``, whole numbers only,
at most 64 bytes. The league's verbs (:data:`LEAGUE_VERBS`) are the lobby's, 🎴 My cards
(``p``), the settings/language ones and the tournaments'; every other verb belongs to
exactly one game (:attr:`~telegram_app.games.base.GameUI.verbs`; :func:`register` refuses a
clash) and its presses are handed to that game's UI. A verb is 1–3 ASCII letters. A press
whose verb's game is not the pressed game's kind (a button drawn before the game changed)
gets the ``game_changed`` alert.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from league.store.snapshots import GameSnapshot, PlayerInfo
    from telegram_app.games.base import GameUI

LEAGUE_VERBS: dict[str, tuple[int, ...]] = {
    "j": (0,), "l": (0,), "s": (0,), "a": (0, 1), "r": (0, 1), "o": (2,), "p": (0,),
    "z": (2,), "u": (1,), "v": (3,), "n": (0,), "rm": (0,),
    "tj": (0,), "tl": (0,), "ts": (1,), "tx": (1,), "ta": (1,), "tr": (1,), "to": (3,),
    "tn": (1,),
}
"""Verbs the bot itself handles, with the allowed counts of numbers after the game id: join,
leave, start, add/remove a computer player (version), a lobby option (``o:<game>:<option
index>:<value index>``: indexes, so no game's words), peek, a chat setting, a language, a
computer player's level (``v``), the next-game alerts (``n``) and 🔁 Rematch (``rm``); and a
tournament's (``t…``: the tournament's id in the game id's place; join, leave, start,
cancel, add/remove a computer player, a setting, open one; see
``telegram_app.tournaments.keyboards``)."""

VERB = re.compile(r"[A-Za-z]{1,3}")
MAX_NUMBERS = 3
"""The most numbers a button carries after the game id (the version included)."""


@dataclass(frozen=True)
class Press:
    """A parsed button press: ``verb``, ``game_id`` and the verb's numbers ``args``. For a
    game's verb ``args[0]`` is the game version the button was drawn for (a press on an older
    version is refused as ``stale`` before the game's UI sees it)."""

    verb: str
    game_id: int
    args: tuple[int, ...] = ()

    @property
    def version(self) -> int | None:
        """The game version a game's button was drawn for (``None`` for the bot's own)."""
        return self.args[0] if self.args and self.verb in _VERBS else None

    def encode(self) -> str:
        """The string to put in ``callback_data``: ``verb:game_id[:n…]`` (at most 64 bytes:
        a verb of ≤ 3 letters, the id and at most :data:`MAX_NUMBERS` numbers of ≤ 12
        digits each: 3 + 4 × 13 = 55)."""
        return ":".join([self.verb, str(self.game_id), *map(str, self.args)])


UIS: dict[str, GameUI] = {}
"""Every game's UI by kind, as ``engine.GAMES`` is for rules; the first registered is the
default of ``/newgame`` without a kind."""
_VERBS: dict[str, str] = {}  # verb -> the kind that owns it


def register(ui: GameUI) -> GameUI:
    """Add ``ui`` to :data:`UIS` under ``ui.kind`` (again: replaced). Raises ``ValueError`` if
    one of its verbs is malformed, carries more than :data:`MAX_NUMBERS` numbers, is the
    league's, or another kind's. Returns ``ui``."""
    for verb in ui.verbs:
        owner = _VERBS.get(verb)
        if not VERB.fullmatch(verb) or verb in LEAGUE_VERBS or owner not in (None, ui.kind) \
                or not ui.verbs[verb] or max(ui.verbs[verb]) > MAX_NUMBERS:
            raise ValueError(f"verb {verb!r} of {ui.kind!r} is taken or malformed")
    for verb in [v for v, kind in _VERBS.items() if kind == ui.kind]:
        del _VERBS[verb]
    _VERBS.update(dict.fromkeys(ui.verbs, ui.kind))
    UIS[ui.kind] = ui
    return ui


def unregister(kind: str) -> None:
    """Remove ``kind``'s UI and its verbs (a test's toy game)."""
    UIS.pop(kind, None)
    for verb in [v for v, owner in _VERBS.items() if owner == kind]:
        del _VERBS[verb]


def ui_for(game: GameSnapshot | str) -> GameUI:
    """The UI of a game (or of a kind); raises ``KeyError`` for a kind with none."""
    return UIS[game if isinstance(game, str) else game.kind]


def private_end_text(game: GameSnapshot, reader: PlayerInfo | None,
                     hand: int | None = None) -> str:
    """The last text of ``reader``'s private message of a game that is over: cancelled, or
    closed at ``hand`` (by default the game's current hand)."""
    from telegram_app.games.base import hand_number  # (base imports this module's types)

    ui = ui_for(game)
    if game.status == "cancelled":
        return ui.private_cancelled_text(game, reader=reader)
    return ui.private_closed_text(game, hand_number(game) if hand is None else hand,
                                  reader=reader)


def kind_of_verb(verb: str) -> str | None:
    """The kind whose UI owns ``verb``, or ``None`` (a league verb, or nobody's)."""
    return _VERBS.get(verb)


def arity(verb: str) -> tuple[int, ...] | None:
    """The allowed counts of numbers after the game id for ``verb`` (``None``: unknown)."""
    if verb in LEAGUE_VERBS:
        return LEAGUE_VERBS[verb]
    kind = _VERBS.get(verb)
    return None if kind is None else UIS[kind].verbs[verb]


def default_kind() -> str:
    """The kind ``/newgame`` opens without a kind argument (the first registered)."""
    return next(iter(UIS))


def kinds() -> Iterable[str]:
    """Every registered kind, in registration order."""
    return tuple(UIS)
