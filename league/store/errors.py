"""The typed error every service call raises when a request is refused."""

from __future__ import annotations

from typing import Any


class ServiceError(Exception):
    """A refused request; nothing was changed.

    ``code`` is stable and maps to a translated message in the bot. Service codes:
    ``game_not_found``, ``game_open`` and ``rematch_started`` (detail ``game_id``),
    ``not_in_lobby``, ``not_running``,
    ``already_joined``, ``game_full`` (``max``), ``not_joined``, ``not_creator``,
    ``too_few_players`` (``min``), ``not_a_player``, ``stale``, ``not_allowed``; a rule
    violation keeps the engine's code (``not_your_turn``, ``bid_too_low`` with ``min_bid`` …).
    """

    def __init__(self, code: str, **detail: Any) -> None:
        super().__init__(code if not detail else f"{code} {detail}")
        self.code = code
        self.detail = detail
