"""Telegram's flood limits as sliding windows (a token bucket, as PTB's, let 39 messages into
one group's minute: 429s); a 429 pauses only its chat, not the whole bot as PTB's does. When the
bot stops, no call waits for its turn any more (:meth:`ChatRateLimiter.give_up`)."""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import warnings
from collections import OrderedDict, deque
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

from telegram.error import RetryAfter
from telegram.ext import BaseRateLimiter
from telegram.warnings import PTBDeprecationWarning

log = logging.getLogger(__name__)
KEPT_CHATS = 10_000  # group windows kept (least recently used dropped: an idle one is empty)
GIVEN_UP = "the bot stops: a call waiting for its rate limit is given up"

Result = bool | dict[str, Any] | list[dict[str, Any]]


class _Window:
    """At most ``limit`` calls in any ``period`` seconds."""

    def __init__(self, limit: int, period: float) -> None:
        self.starts: deque[float] = deque(maxlen=limit)
        self.period = period
        self.turn = asyncio.Lock()

    async def room(self, sleep: Callable[[float], Awaitable[None]]) -> None:
        """Wait (``sleep``) until one more call fits (called holding :attr:`turn`)."""
        loop = asyncio.get_running_loop()
        while len(self.starts) == self.starts.maxlen and \
                (wait := self.starts[0] + self.period - loop.time()) > 0:  # noqa: ASYNC110
            await sleep(wait)


class ChatRateLimiter(BaseRateLimiter[int]):
    """A ``RetryAfter`` pauses its chat, then the request is retried up to ``max_retries``."""

    def __init__(self, overall_max_rate: float = 30, group_max_rate: float = 20,
                 max_retries: int = 3) -> None:
        self._overall = _Window(int(overall_max_rate), 1)
        self._group_rate = int(group_max_rate)
        self._groups: OrderedDict[int | str, _Window] = OrderedDict()
        self._paused: dict[int | str, float] = {}  # chat -> loop time its pause ends
        self._moved: dict[int | str, int] = {}  # group -> the supergroup it became
        self._max_retries = max_retries
        self._waiting: set[asyncio.Task] = set()  # tasks waiting for a turn right now
        self._given_up = False

    async def initialize(self) -> None:
        """Nothing to set up."""

    async def shutdown(self) -> None:
        """Nothing to release."""

    def give_up(self) -> int:
        """The bot stops: every call now waiting for its turn (a group's minute, the overall
        second, a 429's pause) is cancelled (its task: a handler cut off leaves its update
        undone for the next process), and so is every later call that would have to wait;
        one with room goes at once. Returns how many were waiting."""
        self._given_up = True
        waiting = [task for task in self._waiting if not task.done()]
        for task in waiting:
            task.cancel(GIVEN_UP)
        return len(waiting)

    async def _wait(self, waiting: Awaitable[Any]) -> Any:
        """Await ``waiting`` (a sleep, a lock another call holds): a wait for a turn, which
        :meth:`give_up` ends (at once when it was called already)."""
        if self._given_up:
            if inspect.iscoroutine(waiting):
                waiting.close()
            raise asyncio.CancelledError(GIVEN_UP)
        task = asyncio.current_task()
        assert task is not None
        self._waiting.add(task)
        try:
            return await waiting
        finally:
            self._waiting.discard(task)

    async def _sleep(self, seconds: float) -> None:
        await self._wait(asyncio.sleep(seconds))

    def migrated(self, old_chat_id: int, new_chat_id: int) -> None:
        """Sends to the group go to the supergroup (without a reply); edits are left to fail."""
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
        """Wait for the chat's turn; returns the chat it goes to (:meth:`migrated`)."""
        loop = asyncio.get_running_loop()
        sends = endpoint.startswith("send")
        while chat is not None:
            if sends and chat in self._moved:
                chat = data["chat_id"] = self._moved[chat]
                data.pop("reply_parameters", None)
            # (a loop: another 429 for the chat may extend its pause meanwhile)
            while (until := self._paused.get(chat, 0.0)) > loop.time():  # noqa: ASYNC110
                await self._sleep(until - loop.time())
            self._paused.pop(chat, None)
            group = isinstance(chat, str) or chat < 0  # (or a channel)
            windows = [self._group(chat), self._overall] if group else [self._overall]
            async with contextlib.AsyncExitStack() as turns:
                for window in windows:
                    # (a held turn: a call ahead waits for room; a free one is taken at once)
                    acquire = window.turn.acquire()
                    await (self._wait(acquire) if window.turn.locked() else acquire)
                    turns.callback(window.turn.release)
                    await window.room(self._sleep)
                if not (sends and chat in self._moved):  # (else it moved while it waited)
                    now = loop.time()  # (counted in both only now: the call starts now)
                    for window in windows:
                        window.starts.append(now)
                    break
        return chat

    async def process_request(self, callback: Callable[..., Coroutine[Any, Any, Result]],
                              args: Any, kwargs: dict[str, Any], endpoint: str,
                              data: dict[str, Any], rate_limit_args: int | None) -> Result:
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
                    await self._sleep(seconds + 0.1)
        raise AssertionError("unreachable")  # the loop returns or raises
