"""A lock per key (a lane, a game), or ``limit`` holders at once per key (a chat's
deliveries), kept only while somebody holds or waits for it."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Hashable
from contextlib import asynccontextmanager
from typing import Any


class KeyLocks:
    def __init__(self, limit: int = 1) -> None:
        self._limit = limit
        self._locks: dict[Hashable, list[Any]] = {}  # key -> [lock, holders and waiters]

    def __contains__(self, key: object) -> bool:  # (held or waited for)
        return key in self._locks

    @asynccontextmanager
    async def hold(self, key: Hashable) -> AsyncIterator[None]:
        entry = self._locks.get(key) or self._locks.setdefault(
            key, [asyncio.Lock() if self._limit == 1 else asyncio.Semaphore(self._limit), 0])
        entry[1] += 1
        try:
            async with entry[0]:  # (first come, first served)
                yield
        finally:
            entry[1] -= 1
            if entry[1] == 0:
                del self._locks[key]
