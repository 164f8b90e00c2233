"""A lock per key (a lane, a game), kept only while somebody holds or waits for it."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Hashable
from contextlib import asynccontextmanager
from typing import Any


class KeyLocks:
    def __init__(self) -> None:
        self._locks: dict[Hashable, list[Any]] = {}  # key -> [lock, holders and waiters]

    def __contains__(self, key: object) -> bool:  # (held or waited for)
        return key in self._locks

    @asynccontextmanager
    async def hold(self, key: Hashable) -> AsyncIterator[None]:
        entry = self._locks.setdefault(key, [asyncio.Lock(), 0])
        entry[1] += 1
        try:
            async with entry[0]:  # (first come, first served)
                yield
        finally:
            entry[1] -= 1
            if entry[1] == 0:
                del self._locks[key]
