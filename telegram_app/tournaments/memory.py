"""What one bot process keeps of tournaments between updates: a lock per tournament, so its
sign-up message and its announcements are drawn by one task at a time (each reads the
tournament anew). Everything else is the database's."""

from __future__ import annotations

from typing import Any

from telegram_app.transport.keylocks import KeyLocks

KEY = "tournaments"
"""The application's ``bot_data`` key of its :class:`TournamentMemory`."""


class TournamentMemory:
    """One process's locks per tournament (see the module)."""

    def __init__(self) -> None:
        self.locks = KeyLocks()


def memory_of(bot_data: dict[str, Any]) -> TournamentMemory:
    """The application's :class:`TournamentMemory` (made at first use)."""
    found = bot_data.get(KEY)
    if found is None:
        found = bot_data[KEY] = TournamentMemory()
    return found
