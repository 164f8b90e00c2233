"""What the group-play tests share: a text translated, the fake Bot API fixture, the game now,
who sees a call the bot made."""

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


def seen_by(api: FakeBotAPI, entry, user_ids: list[int], group: int) -> list[int]:  # type: ignore[no-untyped-def]
    """Who of ``user_ids`` sees a log entry of the fake Bot API in a game of ``group`` (an
    answer: its presser only; an ephemeral message: its receiver)."""
    if entry.kind == "answer":
        return [u for u in user_ids if api.users[u].display_name == entry.actor]
    if entry.receiver is not None:
        return [entry.receiver]
    if entry.chat_id == group:
        return list(user_ids)
    return [u for u in user_ids if entry.chat_id == u]
