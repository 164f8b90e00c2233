"""The per-chat rate limiter: a 429 for one chat pauses only that chat."""

from __future__ import annotations

import asyncio
from datetime import timedelta

from telegram.error import RetryAfter

from telegram_app.ratelimit import ChatRateLimiter


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
