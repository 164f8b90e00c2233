"""The table-together tests' group, computer names, table fixture and lobby and game moves."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from telegram_app.i18n import _, use_language
from tests.clock import Clock
from tests.e2e.harness import bot_table, play_turn, wait_for
from tests.e2e.koira_play import service_of
from tests.fakebot import FakeBotAPI, StoredMessage

GROUP = -100916
WILE, HOWLER = "\u2068Wile\u2069", "\u2068Howler\u2069"  # computer names, isolated


@pytest.fixture(name="table")
async def table_fixture(pg_db, pg_url):
    """The bot in ``GROUP`` with Ann, Bob and Cat on a controlled clock, sweeping every
    50 ms: ``(api, players, clock, runner)``."""
    clock = Clock(datetime(2026, 12, 2, 9, 0, tzinfo=UTC))
    async with bot_table(pg_url, GROUP, "Table", ["Ann", "Bob", "Cat"], clock=clock,
                         sweep_interval=0.05) as (api, players, runner):
        service_of(runner).new_seed = lambda: 20261202
        yield api, players, clock, runner


def tr(language: str, message: str) -> str:
    with use_language(language):
        return _(message)


async def new_lobby(api: FakeBotAPI, user, command: str, marker: str = "new game #"
                    ) -> StoredMessage:
    before = {m.message_id for m in api.find_messages(GROUP, marker)}
    await user.send(GROUP, command)
    await wait_for(lambda: any(m.message_id not in before
                               for m in api.find_messages(GROUP, marker)))
    await api.settle(quiet=0.05)
    return next(m for m in reversed(api.find_messages(GROUP, marker))
                if m.message_id not in before)


async def tap(api: FakeBotAPI, user, lobby: StoredMessage, *labels_: str) -> dict:
    answer: dict = {}
    for label in labels_:
        answer = await user.press_and_settle(api.get_message(GROUP, lobby.message_id), label,
                                             quiet=0.02)
    return answer


async def coyote_to_the_end(api: FakeBotAPI, humans, runner, game_id: int) -> StoredMessage:
    turns = 0
    while (await service_of(runner).get(game_id)).status == "running":
        assert await play_turn(api, humans, GROUP), "nobody can act, the game goes on"
        turns += 1
        assert turns < 800
    await api.settle(quiet=0.05)
    return api.find_messages(GROUP, "is over!")[-1]
