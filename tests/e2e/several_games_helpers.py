"""Shared pieces of the several-games tests (test_several_games_private.py and
test_several_games_groups.py): one player (Ann, who reads Spanish) in several games at
once — Coyote in a Korean group whose title holds markup, Koira in a Japanese group with a
right-to-left title, Coyote in a Spanish forum's topic — with Bob and Cat. The groups, the
headings that tell the games apart, helpers that read her private chat, and the ``world``
fixture."""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import select

from league.store.message_models import PrivateMessage
from tests.e2e.harness import BotRunner
from tests.e2e.test_many_games import three_groups, version
from tests.english_check import log_faults
from tests.fakebot import FakeBotAPI, FakeUser, StoredMessage

A, B, C = -100941, -100942, -1009430  # Korean group, Japanese group, Spanish forum
TITLES = {A: "<b>Ops & Co</b>", B: "מועדון הקלפים", C: "Foro <i>&amp;"}
LANGUAGES = {A: "ko", B: "ja", C: "es"}
TOPIC = "Noche & <Coyote>"
MOVE_VERBS = ("b", "c", "cc", "m", "k", "x", "q", "g", "ky", "kt", "kw", "kh")


NAMES = ("Ann", "Bob", "Cat", "Ops & Co", "Foro", "Noche & <Coyote>", "Coyote")


def assert_in_their_languages(api: FakeBotAPI, ann: FakeUser) -> None:
    """Each group's messages in its language, Ann's private chat and alerts in Spanish."""
    faults = log_faults(api.log, {A: "ko", B: "ja", C: "es", ann.id: "es"}, {ann.id: "es"},
                        NAMES)
    assert not faults, faults[:10]


def heading(chat: int, topic: str | None = None) -> str:
    """The first line of a private message about a game in ``chat`` (as the reader sees
    it: markup shown as typed, bidi isolates dropped)."""
    return f"👥 {TITLES[chat]}" + (f" › {topic}" if topic else "")


def keyboards_of(api: FakeBotAPI, user: FakeUser, game_id: int) -> list[StoredMessage]:
    """``user``'s private messages that carry move buttons of ``game_id``."""
    return [m for m in api.bot_messages(user.id)
            if any(d and d.split(":")[0] in MOVE_VERBS and d.split(":")[1] == str(game_id)
                   for _, d in api.buttons(m))]


def ids_of(api: FakeBotAPI, user: FakeUser) -> set[int]:
    return {m.message_id for m in api.bot_messages(user.id)}


def new_messages(api: FakeBotAPI, user: FakeUser, seen: set[int]) -> list[StoredMessage]:
    """The bot's messages in ``user``'s private chat not among ``seen`` (ids)."""
    return [m for m in api.bot_messages(user.id) if m.message_id not in seen]


def lowest_bid(api: FakeBotAPI, message: StoredMessage) -> int:
    return min(int(d.split(":")[3]) for _, d in api.buttons(message)
               if d and d.startswith("b:") and d.count(":") == 3)


async def private_row(db, game_id: int, user_id: int) -> PrivateMessage | None:
    async with db.sessions() as session:
        return await session.scalar(select(PrivateMessage).where(
            PrivateMessage.game_id == game_id, PrivateMessage.user_id == user_id))


async def until(condition, timeout: float = 30) -> None:  # noqa: ASYNC109
    """Poll the coroutine function ``condition`` until it is true."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not await condition():
        if loop.time() > deadline:
            raise TimeoutError("the bot did not get there in time")
        await asyncio.sleep(0.02)


def answered_or_moved(api: FakeBotAPI, user: FakeUser, seen: int, runner: BotRunner,
                      game_id: int, before: int):
    """A condition for :func:`until`: ``user`` got a new private message, or the game
    moved past ``before``."""
    async def check() -> bool:
        return len(api.bot_messages(user.id)) > seen or \
            await version(runner, game_id) != before
    return check


@pytest.fixture(name="world")
async def world_fixture(pg_db, pg_url):
    """Three groups (Ann admin of each) in three languages, titles with markup and
    right-to-left text; Ann (es), Bob (en), Cat (ko) started the bot."""
    async with three_groups(pg_url, TITLES, LANGUAGES, C, "ko") as world:
        yield (*world, pg_db)


def _out_of_one(service, user_id: int, games: tuple[int, ...]):
    async def check() -> bool:
        for g in games:
            if not (await service.get(g)).player(user_id).playing:
                return True
        return False
    return check
