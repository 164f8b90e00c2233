"""Callback data: what an inline button carries, within Telegram's 64 bytes.

Format ``<verb>:<game id>[:<version>[:<number>]]``. Moves carry the game's version so a press on
an old message (or a second tap) is refused by the match service instead of being applied twice.

Verbs: ``j`` join, ``l`` leave, ``s`` start, ``p`` peek (the 👀 alert), ``b`` bid (number),
``c`` Coyote call, ``m`` more bids (number: the first bid shown).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

LOBBY_VERBS = {"j", "l", "s", "p"}
MOVE_VERBS = {"b", "c", "m"}
_PATTERN = re.compile(r"([a-z]):([0-9]{1,12})(?::([0-9]{1,9}))?(?::([0-9]{1,9}))?")


@dataclass(frozen=True)
class Callback:
    """Parsed callback data. ``version`` and ``number`` are ``None`` where the verb has none."""

    verb: str
    game_id: int
    version: int | None = None
    number: int | None = None

    def encode(self) -> str:
        """The string to put in ``callback_data`` (at most 64 bytes by construction)."""
        parts = [self.verb, str(self.game_id)]
        if self.version is not None:
            parts.append(str(self.version))
            if self.number is not None:
                parts.append(str(self.number))
        return ":".join(parts)


def parse(data: str | None) -> Callback | None:
    """Parse callback data; ``None`` for anything malformed or forged (never raises)."""
    match = _PATTERN.fullmatch(data or "")
    if not match:
        return None
    verb, game_id, version, number = match.groups()
    if verb in LOBBY_VERBS and version is None:
        return Callback(verb, int(game_id))
    if verb == "c" and version is not None and number is None:
        return Callback(verb, int(game_id), int(version))
    if verb in ("b", "m") and version is not None and number is not None:
        return Callback(verb, int(game_id), int(version), int(number))
    return None
