"""The per-chat rate limiter: a 429 for one chat pauses only that chat, no minute (second)
holds more than a group's (the bot's) budget, and a group's queued sends follow it to the
supergroup it became."""

from __future__ import annotations

import asyncio
import bisect
from collections.abc import Coroutine
from datetime import timedelta
from typing import Any

from telegram.error import RetryAfter

from telegram_app.transport.ratelimit import ChatRateLimiter


async def test_flood_control_in_one_group_does_not_hold_up_another() -> None:
    limiter = ChatRateLimiter(overall_max_rate=1000, group_max_rate=1000)
    done: list[str] = []
    floods = {"a": 1}

    async def call(name: str) -> bool:
        if floods.get(name):
            floods[name] -= 1
            raise RetryAfter(timedelta(milliseconds=80))
        done.append(name)
        return True

    async def request(name: str, chat_id: int) -> bool:
        return await limiter.process_request(call, (name,), {}, "sendMessage",
                                             {"chat_id": chat_id}, None)

    first = asyncio.create_task(request("a", -1))
    await asyncio.sleep(0.01)  # group -1 is paused now
    assert await request("b", -2) and done == ["b"]  # another group goes at once
    assert await first and done == ["b", "a"]  # the paused one retried after its pause


async def test_requests_without_a_chat_and_repeated_floods() -> None:
    limiter = ChatRateLimiter(max_retries=1)

    async def flood() -> bool:
        raise RetryAfter(timedelta(milliseconds=5))

    async def answer() -> bool:
        return True

    assert await limiter.process_request(answer, (), {}, "answerCallbackQuery", {}, None)
    try:
        await limiter.process_request(flood, (), {}, "sendMessage", {"chat_id": 5}, None)
    except RetryAfter:
        pass
    else:
        raise AssertionError("the flood after the last retry is raised")


class VirtualTimeLoop(asyncio.SelectorEventLoop):
    """An event loop whose clock jumps ahead instead of waiting: ``asyncio.sleep(60)``
    returns at once and ``loop.time()`` (the limiter's clock) then says 60 s passed."""

    def __init__(self) -> None:
        super().__init__()
        self.now = 0.0
        select = self._selector.select  # type: ignore[attr-defined]

        def jump(timeout: float | None = None) -> list:
            events = select(0)
            if not events:
                if timeout is None:
                    raise RuntimeError("nothing left to wait for: a deadlock")
                self.now += timeout
            return events

        self._selector.select = jump  # type: ignore[attr-defined]

    def time(self) -> float:
        return self.now


def on_virtual_time(main: Coroutine[Any, Any, None]) -> None:
    loop = VirtualTimeLoop()
    try:
        loop.run_until_complete(main)
    finally:
        loop.close()


def most_in_any_window(times: list[float], period: float) -> int:
    """The most calls of ``times`` that fall in one half-open window of ``period`` s."""
    times = sorted(times)
    return max(bisect.bisect_left(times, t + period) - i for i, t in enumerate(times))


def test_no_minute_holds_more_than_a_groups_budget() -> None:
    """45 messages to a busy group, 5 to a quiet one, all at once: the busy group gets 20 in
    any 60 s (a token bucket let 20 through and refilled, ~39 in a minute), the quiet one
    is not held up by it."""
    calls: dict[int, list[float]] = {-1: [], -2: []}

    async def main() -> None:
        limiter = ChatRateLimiter(overall_max_rate=30, group_max_rate=20)
        loop = asyncio.get_running_loop()

        async def call(chat_id: int) -> bool:
            calls[chat_id].append(loop.time())
            return True

        await asyncio.gather(*(
            limiter.process_request(call, (chat,), {}, "sendMessage", {"chat_id": chat}, None)
            for chat in [-1] * 40 + [-2] * 5 + [-1] * 5))

    on_virtual_time(main())
    assert len(calls[-1]) == 45 and len(calls[-2]) == 5
    assert most_in_any_window(calls[-1], 60) == 20
    assert max(calls[-1]) == 120  # and no slower: 20 at once, 20 a minute later, then 5
    assert max(calls[-2]) == 0  # the quiet group's 5 went at once, not after the busy one's


def test_no_second_holds_more_than_the_overall_budget() -> None:
    """70 private messages (no group budget) at once: 30 in any second, no more."""
    times: list[float] = []

    async def main() -> None:
        limiter = ChatRateLimiter(overall_max_rate=30, group_max_rate=20)
        loop = asyncio.get_running_loop()

        async def call() -> bool:
            times.append(loop.time())
            return True

        await asyncio.gather(*(
            limiter.process_request(call, (), {}, "sendMessage", {"chat_id": user}, None)
            for user in range(1, 71)))

    on_virtual_time(main())
    assert len(times) == 70 and most_in_any_window(times, 1) == 30
    assert max(times) == 2


def test_sends_queued_for_a_group_that_became_a_supergroup_go_there() -> None:
    """The messenger learned that group -5 became supergroup -1005 while three requests
    waited for the group's next minute: at their turn its sends go to the supergroup,
    without their reply (it names a message of the group); the edit still names the group
    (its message id means nothing in the supergroup: it fails, and is not repeated); a send
    made after the news goes at once, not after the dead group's minute. In the supergroup
    they count against its own budget."""
    old, new = -5, -1005
    calls: list[tuple[float, str, int, bool]] = []

    async def main() -> None:
        limiter = ChatRateLimiter(group_max_rate=2)
        loop = asyncio.get_running_loop()

        async def call(endpoint: str, data: dict[str, Any]) -> bool:
            calls.append((loop.time(), endpoint, data["chat_id"], "reply_parameters" in data))
            return True

        def request(endpoint: str, **params: Any) -> asyncio.Future[Any]:
            data = {"chat_id": old, **params}
            return asyncio.ensure_future(
                limiter.process_request(call, (endpoint, data), {}, endpoint, data, None))

        sent = [request("sendMessage"), request("sendMessage")]  # the group's minute
        queued = [request("sendMessage", reply_parameters={"message_id": 7}),
                  request("editMessageText", message_id=3), request("sendPhoto")]
        await asyncio.sleep(1)
        limiter.migrated(old, new)
        await asyncio.gather(*sent, *queued, request("sendMessage", text="late"))

    on_virtual_time(main())
    assert sorted(calls) == [(0, "sendMessage", old, False), (0, "sendMessage", old, False),
                             (1, "sendMessage", new, False),
                             (60, "editMessageText", old, False),
                             (60, "sendMessage", new, False),
                             (61, "sendPhoto", new, False)]  # (the supergroup's budget)
