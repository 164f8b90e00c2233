"""The fake Bot API's own tests: a fresh fake server, and PTB's ``Bot`` talking to it."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from telegram import Bot

from tests.fakebot import FakeBotAPI

TOKEN = "123:ABC"


@pytest.fixture
async def api() -> AsyncIterator[FakeBotAPI]:
    async with FakeBotAPI(token=TOKEN) as server:
        yield server


@pytest.fixture
async def bot(api: FakeBotAPI) -> AsyncIterator[Bot]:
    async with Bot(api.token, base_url=api.base_url) as tg_bot:
        yield tg_bot
