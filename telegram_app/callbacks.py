"""Callback data: what an inline button carries, within Telegram's 64 bytes.

Format ``<verb>:<game id>[:<n>…]`` with whole numbers only. Every button that changes the
game carries the game's version, so a press on an old message (or a second tap) is refused by
the match service instead of being applied twice.

| verb | meaning | numbers after the game id |
| --- | --- | --- |
| ``j`` ``l`` ``s`` | join, leave, start the lobby | – |
| ``a`` ``r`` | add, remove a computer player | version (absent on lobbies drawn before) |
| ``o`` | set a lobby option | option code, value |
| ``p`` | peek (the 👀 alert) | – |
| ``b`` | bid | version, amount[, mod] |
| ``c`` | call Coyote | version |
| ``m`` | show bids from a number | version, first bid[, mod] |
| ``k`` | pick a mask used with a bid | version, special code |
| ``x`` | use a special action on its own | version, special code |
| ``q`` | guess one's own card | version, card index |
| ``g`` | show the guess keyboard | version |
| ``z`` | set a chat default (/settings; the id is 0) | setting code, value index |
| ``u`` | choose one's language (/language; the id is 0) | index in ``i18n.SUPPORTED`` |

``mod`` = special code × 100 + target seat (Double: no target).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

ARITY: dict[str, tuple[int, ...]] = {
    "j": (0,), "l": (0,), "s": (0,), "a": (0, 1), "r": (0, 1), "p": (0,), "o": (2,),
    "b": (2, 3), "c": (1,), "m": (2, 3), "k": (2,), "x": (2,), "q": (2,), "g": (1,),
    "z": (2,), "u": (1,),
}
MOVE_VERBS = frozenset("bcmkxqg")
SPECIAL_CODES = {"pass": 1, "double": 2, "reverse": 3, "draw1": 4, "change": 5, "shot": 6,
                 "extra": 7, "skip": 8, "swap": 9, "guess": 10}
SPECIAL_NAMES = {code: name for name, code in SPECIAL_CODES.items()}
OPTION_CODES = {"lives": 0, "specials": 1, "pace": 2, "after_elimination": 3}
PACE_ORDER = ("quick", "standard", "relaxed")
SETTING_CODES = {"pace": 0, "edition": 1, "lives": 2, "specials": 3, "timeout_policy": 4,
                 "language": 5}
SETTING_NAMES = {code: name for name, code in SETTING_CODES.items()}
OPTION_NAMES = {code: name for name, code in OPTION_CODES.items()}
_NUMBER = re.compile(r"[0-9]{1,12}")


@dataclass(frozen=True)
class Callback:
    """Parsed callback data: ``verb``, ``game_id`` and the verb's numbers ``args``."""

    verb: str
    game_id: int
    args: tuple[int, ...] = ()

    @property
    def version(self) -> int | None:
        """The game version a move button was drawn for (``None`` for lobby buttons)."""
        return self.args[0] if self.verb in MOVE_VERBS else None

    def encode(self) -> str:
        """The string to put in ``callback_data`` (at most 64 bytes by construction)."""
        return ":".join([self.verb, str(self.game_id), *map(str, self.args)])


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


def parse(data: str | None) -> Callback | None:
    """Parse callback data; ``None`` for anything malformed or forged (never raises)."""
    parts = (data or "").split(":")
    if len(parts) < 2 or len(parts[0]) != 1 or parts[0] not in ARITY:
        return None
    if not all(_NUMBER.fullmatch(p) for p in parts[1:]):
        return None
    numbers = tuple(int(p) for p in parts[2:])
    if len(numbers) not in ARITY[parts[0]]:
        return None
    return Callback(parts[0], int(parts[1]), numbers)
