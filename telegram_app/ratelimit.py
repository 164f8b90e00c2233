"""Telegram's flood limits, per chat: one group's flood control never stalls the others.

PTB's ``AIORateLimiter`` pauses every request of the bot while any one of them waits out a
``RetryAfter`` (its ``_retry_after_event``), so one busy group slowed every game. This
limiter keeps Telegram's budgets (30 requests a second overall, 20 a minute per group,
counted only for requests that carry a ``chat_id``: answering a callback query is free) and
a 429 pauses only the chat it came for. A budget is a sliding window, not a token bucket: a
bucket (``aiolimiter``, as PTB's) lets a full bucket through and then refills, so one minute
held up to 39 messages to a group, and Telegram answered the excess with 429s that stalled
the group. A group that became a supergroup (as the messenger learned it) gets the sends
still waiting for it at the supergroup's id.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import warnings
from collections import OrderedDict, deque
from collections.abc import Callable, Coroutine
from typing import Any

from telegram.error import RetryAfter
from telegram.ext import BaseRateLimiter
from telegram.warnings import PTBDeprecationWarning

log = logging.getLogger(__name__)
KEPT_CHATS = 10_000
"""Per-group windows kept (least recently used dropped first: an idle group's is empty)."""

Result = bool | dict[str, Any] | list[dict[str, Any]]


class _Window:
    """At most ``limit`` calls in any ``period`` seconds: the start times of the last
    ``limit`` calls; a call waits (in order of arrival) until the oldest of them is
    ``period`` old."""

    def __init__(self, limit: int, period: float) -> None:
        self.starts: deque[float] = deque(maxlen=limit)
        self.period = period
        self.turn = asyncio.Lock()

    async def room(self) -> None:
        """Wait until one more call fits (called holding :attr:`turn`)."""
        loop = asyncio.get_running_loop()
        while len(self.starts) == self.starts.maxlen and \
                (wait := self.starts[0] + self.period - loop.time()) > 0:  # noqa: ASYNC110
            await asyncio.sleep(wait)


class ChatRateLimiter(BaseRateLimiter[int]):
    """``overall_max_rate`` requests a second for the bot, ``group_max_rate`` a minute per
    group or channel (negative or ``@name`` chat ids), in any second or minute; a
    ``RetryAfter`` pauses that chat for the time Telegram asked, then the request is tried
    again, up to ``max_retries`` times (``rate_limit_args`` of a call overrides it); after
    that the error is raised."""

    def __init__(self, overall_max_rate: float = 30, group_max_rate: float = 20,
                 max_retries: int = 3) -> None:
        self._overall = _Window(int(overall_max_rate), 1) if overall_max_rate else None
        self._group_rate = int(group_max_rate)
        self._groups: OrderedDict[int | str, _Window] = OrderedDict()
        self._paused: dict[int | str, float] = {}  # chat -> loop time its pause ends
        self._moved: dict[int | str, int] = {}  # group -> the supergroup it became
        self._max_retries = max_retries
        self.waits = 0.0
        """Seconds requests spent waiting for a budget or a pause, in total (for metrics)."""

    async def initialize(self) -> None:
        """Nothing to set up."""

    async def shutdown(self) -> None:
        """Nothing to release."""

    def migrated(self, old_chat_id: int, new_chat_id: int) -> None:
        """Group ``old_chat_id`` became supergroup ``new_chat_id``: a send to the group
        (waiting, or still to come) goes to the supergroup when its turn comes, without a
        reply (its message id is the group's). An edit is left to fail: it names a message
        of the group, and the supergroup's ids start again."""
        self._moved[old_chat_id] = new_chat_id

    def _group(self, chat: int | str) -> _Window:
        window = self._groups.get(chat)
        if window is None:
            window = self._groups[chat] = _Window(self._group_rate, 60)
            while len(self._groups) > KEPT_CHATS:
                self._groups.popitem(last=False)
        self._groups.move_to_end(chat)
        return window

    async def _wait_turn(self, chat: int | str | None, endpoint: str,
                         data: dict[str, Any]) -> int | str | None:
        """Wait for the chat's turn; the chat the request goes to (see :meth:`migrated`)."""
        loop = asyncio.get_running_loop()
        start = loop.time()
        sends = endpoint.startswith("send")
        while chat is not None:
            if sends and chat in self._moved:
                chat = data["chat_id"] = self._moved[chat]
                data.pop("reply_parameters", None)
            # (a loop: another 429 for the chat may extend its pause meanwhile)
            while (until := self._paused.get(chat, 0.0)) > loop.time():  # noqa: ASYNC110
                await asyncio.sleep(until - loop.time())
            self._paused.pop(chat, None)
            windows = [w for w in (self._group(chat) if _is_group(chat) and self._group_rate
                                   else None, self._overall) if w is not None]
            async with contextlib.AsyncExitStack() as turns:
                for window in windows:
                    await turns.enter_async_context(window.turn)
                    await window.room()
                if not (sends and chat in self._moved):  # (else it moved while it waited)
                    now = loop.time()  # (counted in both only now: the call starts now)
                    for window in windows:
                        window.starts.append(now)
                    break
        self.waits += loop.time() - start
        return chat

    async def process_request(self, callback: Callable[..., Coroutine[Any, Any, Result]],
                              args: Any, kwargs: dict[str, Any], endpoint: str,
                              data: dict[str, Any], rate_limit_args: int | None) -> Result:
        """Wait for the chat's budget (and the bot's), then make the request; a
        ``RetryAfter`` pauses the chat and retries (see the class)."""
        chat: int | str | None = data.get("chat_id")
        with contextlib.suppress(ValueError, TypeError):
            chat = int(chat)  # type: ignore[arg-type]
        retries = self._max_retries if rate_limit_args is None else rate_limit_args
        for attempt in range(retries + 1):
            chat = await self._wait_turn(chat, endpoint, data)
            try:
                return await callback(*args, **kwargs)
            except RetryAfter as exc:
                if attempt == retries:
                    raise
                with warnings.catch_warnings():  # (PTB 22 warns of a coming type change)
                    warnings.simplefilter("ignore", PTBDeprecationWarning)
                    pause = exc.retry_after
                seconds = pause if isinstance(pause, int | float) else pause.total_seconds()
                log.info("flood control for chat %s (%s): pausing it %.1f s", chat, endpoint,
                         seconds)
                if chat is not None:
                    self._paused[chat] = max(self._paused.get(chat, 0.0),
                                             asyncio.get_running_loop().time() + seconds + 0.1)
                else:
                    await asyncio.sleep(seconds + 0.1)
        raise AssertionError("unreachable")  # the loop returns or raises


def _is_group(chat: int | str) -> bool:
    return isinstance(chat, str) or chat < 0
