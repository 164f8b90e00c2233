"""Helpers of the /settings and league-post edge tests: a group on a controlled clock, its
/settings message and presses, a second admin, the texts as plain lines."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime

from tests.clock import Clock
from tests.e2e.harness import (
    BotRunner,
    bot_table,
    labels,
    wait_for,
)
from tests.e2e.koira_play import service_of
from tests.e2e.messy_telegram_helpers import plain
from tests.fakebot import FakeBotAPI, FakeUser, StoredMessage

GROUP = -100515001
SUPERGROUP = -1005150019
HEADER = "Defaults for new games"
WEEKLY = "Final standings of the week"


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


WEDNESDAY = utc(2026, 5, 6, 9)  # (the week of Monday 4 May 2026; a season ends on 18 May)


def said(api: FakeBotAPI, chat_id: int, text: str) -> list[StoredMessage]:
    """The bot's messages in ``chat_id`` whose text holds ``text``."""
    return [m for m in api.bot_messages(chat_id) if text in plain(m.text)]


def now(api: FakeBotAPI, message: StoredMessage) -> StoredMessage:
    found = api.get_message(message.chat_id, message.message_id)
    assert found is not None
    return found


def data_of(api: FakeBotAPI, message: StoredMessage, starts: str) -> str:
    """The callback data of ``message``'s button whose label starts with ``starts``."""
    found = [d for t, d in api.buttons(message) if plain(t).startswith(starts)]
    assert found and found[0], (starts, labels(api, message))
    return found[0]


async def until(read, expected, timeout: float = 30) -> None:  # noqa: ASYNC109
    """Wait until ``await read()`` gives ``expected``."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while (got := await read()) != expected:
        if loop.time() > deadline:
            raise TimeoutError(f"still {got!r}, not {expected!r}")
        await asyncio.sleep(0.02)


async def ask(api: FakeBotAPI, user: FakeUser, chat_id: int, text: str) -> StoredMessage:
    """``user`` sends ``text``; the bot's next message in the chat (its answer)."""
    before = len(api.bot_messages(chat_id))
    await user.send(chat_id, text)
    await wait_for(lambda: len(api.bot_messages(chat_id)) > before)
    await api.settle(quiet=0.05)
    return api.bot_messages(chat_id)[before]


async def panel(api: FakeBotAPI, admin: FakeUser, chat_id: int = GROUP) -> StoredMessage:
    """``admin`` sends /settings: the settings message (with its keyboard)."""
    message = await ask(api, admin, chat_id, "/settings")
    assert any((d or "").startswith("z:") for _, d in api.buttons(message)), message.text
    return message


async def press(api: FakeBotAPI, user: FakeUser, message: StoredMessage, data: str) -> dict:
    """``user`` presses ``data`` (raw) on ``message`` as it is now; the answer."""
    answer = await api.wait_answer(await user.press_raw(message.chat_id, message.message_id,
                                                        data))
    await api.settle(quiet=0.05)
    return answer


@asynccontextmanager
async def group(pg_url: str, start: datetime = WEDNESDAY,
                names: tuple[str, ...] = ("Ann", "Bob", "Cat")
                ) -> AsyncIterator[tuple[FakeBotAPI, list[FakeUser], Clock, BotRunner]]:
    """The bot in GROUP (Ann its admin) with ``names`` (all started the bot), on a clock moved
    by hand, sweeping and looking for league posts every 200 ms (every 50 ms, a loaded machine
    ran the jobs back to back and ``settle`` never saw the bot idle); the deals' seed fixed."""
    clock = Clock(start)
    async with bot_table(pg_url, GROUP, "Settings night", list(names), clock=clock,
                         sweep_interval=0.2, league_interval=0.2) as (api, players, runner):
        service_of(runner).new_seed = lambda: 7
        yield api, players, clock, runner


async def second_admin(api: FakeBotAPI, user_id: int, name: str, language: str) -> FakeUser:
    """Another admin of GROUP, whose app is in ``language``; started the bot."""
    user = api.add_user(user_id, name, language_code=language)
    api.chats[GROUP].admins.append(user_id)
    await user.start_bot()
    await api.settle(quiet=0.05)
    return user
