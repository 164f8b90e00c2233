"""Coyote's callback verbs (``<verb>:<game id>:<version>[:<n>…]``, see
``telegram_app.callbacks``); they keep the letters of the buttons already in chats.

| verb | meaning | numbers after the game id |
| --- | --- | --- |
| ``b`` | bid | version, amount[, mod] |
| ``c`` | call Coyote | version |
| ``m`` | show bids from a number | version, first bid[, mod] |
| ``k`` | pick a mask used with a bid | version, special code |
| ``x`` | use a special action on its own | version, special code |
| ``q`` | guess one's own card | version, card index |
| ``g`` | show the guess keyboard | version |

``mod`` = special code × 100 + target seat (Double: no target).
"""

from __future__ import annotations

VERBS: dict[str, tuple[int, ...]] = {
    "b": (2, 3), "c": (1,), "m": (2, 3), "k": (2,), "x": (2,), "q": (2,), "g": (1,),
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
