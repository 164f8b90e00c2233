"""Callback data: what an inline button carries, within Telegram's 64 bytes.

Format ``<verb>:<game id>[:<n>…]`` with whole numbers only; a verb is 1–3 ASCII letters.
Every button that changes the game carries the game's version, so a press on an old message
(or a second tap) is refused by the match service instead of being applied twice.

The bot's own verbs (``telegram_app.games.registry.LEAGUE_VERBS``):

| verb | meaning | numbers after the game id |
| --- | --- | --- |
| ``j`` ``l`` ``s`` | join, leave, start the lobby | – |
| ``a`` ``r`` | add, remove a computer player | version (absent on lobbies drawn before) |
| ``o`` | set a lobby option | option index (0: pace, 1…: the game's option_specs), value index |
| ``p`` | 🎴 My cards: one's cards and moves, in the group (ephemeral; else an alert) | – |
| ``z`` | set a chat default (/settings; the id is 0) | setting code, value index |
| ``u`` | choose one's language (/language; the id is 0) | index in ``i18n.SUPPORTED`` |
| ``v`` | a lobby computer player's level | index among the computers, level, version |
| ``n`` | 🔔 tell me privately of this group's next lobbies (the lobby's id) | – |
| ``rm`` | 🔁 Rematch of a finished game | – |
| ``tj`` ``tl`` | join, leave a tournament (its id in the game id's place) | – |
| ``ts`` ``tx`` | start, cancel a tournament in sign-up | version |
| ``ta`` ``tr`` | add, remove a tournament's computer player | version |
| ``to`` | a tournament's setting (rounds, round length, table size, an option) | 3: … version |
| ``tn`` | open a tournament of a game (/tournament, none open; id 0) | game index |

The tournament verbs are detailed in ``telegram_app.tournaments.keyboards``. Every other
verb is a game's (``GameUI.verbs``; its first number the game version), handed
to that game's UI: Coyote's are listed in ``telegram_app.games.coyote.keyboards``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping

from telegram_app.games import registry
from telegram_app.games.registry import Press

PACE_ORDER = ("quick", "standard", "relaxed")
_NUMBER = re.compile(r"[0-9]{1,12}")


class _Arity(Mapping[str, tuple[int, ...]]):
    """Every verb known now (the bot's and each registered game's) -> its allowed counts of
    numbers after the game id."""

    def _all(self) -> dict[str, tuple[int, ...]]:
        verbs = dict(registry.LEAGUE_VERBS)
        for kind in registry.kinds():
            verbs.update(registry.ui_for(kind).verbs)
        return verbs

    def __getitem__(self, verb: str) -> tuple[int, ...]:
        found = registry.arity(verb)
        if found is None:
            raise KeyError(verb)
        return found

    def __iter__(self) -> Iterator[str]:
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())


ARITY: Mapping[str, tuple[int, ...]] = _Arity()


Callback = Press
"""Parsed callback data (``verb``, ``game_id``, ``args``): see :class:`Press`."""


def is_move(verb: str) -> bool:
    """Whether ``verb`` is a game's (pressable in the player's private chat too)."""
    return registry.kind_of_verb(verb) is not None


def parse(data: str | None) -> Callback | None:
    """Parse callback data; ``None`` for anything malformed or forged (never raises)."""
    parts = (data or "").split(":")
    if len(parts) < 2 or not registry.VERB.fullmatch(parts[0]):
        return None
    allowed = registry.arity(parts[0])
    if allowed is None or not all(_NUMBER.fullmatch(p) for p in parts[1:]):
        return None
    numbers = tuple(int(p) for p in parts[2:])
    if len(numbers) not in allowed:
        return None
    return Callback(parts[0], int(parts[1]), numbers)
