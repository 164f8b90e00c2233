"""Helpers of the tests of players the bot cannot message privately and of their comebacks
(test_unreachable_players.py, test_comebacks.py)."""

from __future__ import annotations

from tests.e2e.harness import MOVE_VERBS, wait_for
from tests.fakebot import FakeBotAPI, FakeUser, StoredMessage, parse_html

CARDS = "🎴 My cards"


def plain(text: str | None) -> str:
    return parse_html(text or "")[0].replace("\u2068", "").replace("\u2069", "")


def table_message(api: FakeBotAPI, group: int) -> StoredMessage | None:
    tables = [m for m in api.bot_messages(group) if any(t == CARDS for t, _ in api.buttons(m))]
    return tables[-1] if tables else None


def lowest_bid(api: FakeBotAPI, message: StoredMessage) -> str:
    return min((int(d.split(":")[3]), d) for _, d in api.buttons(message)
               if d and d.startswith("b:") and d.count(":") == 3)[1]


def call_of(api: FakeBotAPI, message: StoredMessage) -> str:
    return next(d for _, d in api.buttons(message) if d and d.startswith(("c:", "cc:")))


def sent_to(api: FakeBotAPI, user: FakeUser) -> list[StoredMessage]:
    """Every message the bot sent ``user`` privately, deleted ones too."""
    return [m for m in api.messages(user.id, include_deleted=True) if m.from_bot]


def move_keyboards(api: FakeBotAPI, user: FakeUser) -> list[StoredMessage]:
    """``user``'s private messages that carry Coyote move buttons."""
    return [m for m in api.bot_messages(user.id)
            if any(d and d.split(":")[0] in MOVE_VERBS for _, d in api.buttons(m))]


async def peek(api: FakeBotAPI, user: FakeUser, group: int) -> StoredMessage:
    """``user`` presses 🎴 on the table: their ephemeral message in the group."""
    table = table_message(api, group)
    assert table is not None
    before = len(api.ephemeral_messages(group, user.id, include_deleted=True))
    await user.press_and_settle(table, CARDS, quiet=0.05)
    await wait_for(lambda: len(api.ephemeral_messages(group, user.id, include_deleted=True))
                   > before)
    return api.ephemeral_messages(group, user.id)[-1]
