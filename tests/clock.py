"""A clock the tests move by hand (aware UTC), injected wherever the code asks for the time."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta


class Clock:
    """Call it for the current time; :meth:`advance` moves it on."""

    def __init__(self, start: datetime = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)) -> None:
        self.now = start
        self.moved_at: float | None = None  # time.monotonic() of the last advance

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        """Move the clock ``seconds`` forward."""
        self.now += timedelta(seconds=seconds)
        self.moved_at = time.monotonic()
