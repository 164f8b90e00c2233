"""What the group-play tests share: a text translated, the fake Bot API fixture, the game now."""

from __future__ import annotations

import pytest

from telegram_app.i18n import _, use_language
from tests.e2e.koira_play import service_of
from tests.fakebot import FakeBotAPI


def tr(language: str, message: str) -> str:
    with use_language(language):
        return _(message)


@pytest.fixture(name="api")
async def fake_api():
    async with FakeBotAPI() as fake:
        yield fake


async def current(t):
    """The game at table ``t`` (Koira's or Coyote's ``Table``) once the bot settled."""
    await t.api.settle(quiet=0.05)
    return await service_of(t.runner).get(t.game_id)
