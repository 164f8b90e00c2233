"""First contact, through the real Application and the fake Bot API: adding the bot to a group
posts one welcome in the adder's language (not on a promotion, not twice for one update, not
a crash when the bot is already gone again; a basic group's at once, a supergroup's after
``WELCOME_DELAY``, and none when a group the bot is in becomes a supergroup, whatever the
order of Telegram's updates); until a group has a language, commands answer in their
sender's; once it has one, in that one.

Expected texts are rendered from the catalogs, each checked to differ from the English.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from datetime import UTC, datetime

import pytest
from telegram.ext import Job

from telegram_app.games.registry import ui_for
from telegram_app.handlers import members
from telegram_app.i18n import use_language
from telegram_app.render import texts
from telegram_app.services import KEY
from tests.e2e.harness import BotRunner, labels, wait_for
from tests.fakebot import FakeBotAPI, StoredMessage, parse_html

GROUP = -100515
OLD, NEW = -5150, -1005150  # a basic group and the supergroup it becomes


def plain(html: str) -> str:
    """What a client shows of an HTML text."""
    return parse_html(html)[0]


def welcome(language: str, name: str | None) -> str:
    with use_language(language):
        text = plain(texts.group_welcome_text(name))
    with use_language("en"):
        assert language == "en" or text != plain(texts.group_welcome_text(name))
    return text


def help_in(language: str) -> str:
    with use_language(language):
        text = plain(texts.help_text())
    with use_language("en"):
        assert language == "en" or text != plain(texts.help_text())
    return text


def failures(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]


@pytest.fixture(autouse=True)
def quick_welcome(monkeypatch: pytest.MonkeyPatch) -> None:
    """A supergroup's welcome waits a fifth of a second (a test may set its own wait)."""
    monkeypatch.setattr(members, "WELCOME_DELAY", 0.2)


def pending_welcomes(runner: BotRunner, chat_id: int) -> tuple[Job, ...]:
    assert runner.app is not None and runner.app.job_queue is not None
    return runner.app.job_queue.get_jobs_by_name(f"welcome:{chat_id}")


async def run_welcome_now(api: FakeBotAPI, runner: BotRunner, chat_id: int) -> None:
    """The chat's pending welcome runs now (its wait over), through the JobQueue."""
    [job] = pending_welcomes(runner, chat_id)
    job.job.modify(next_run_time=datetime.now(UTC))
    await wait_for(lambda: not pending_welcomes(runner, chat_id))
    await api.settle()


async def migrated_from(runner: BotRunner, chat_id: int) -> int | None:
    assert runner.app is not None
    return await runner.app.bot_data[KEY].service.migrated_from(chat_id)


@pytest.fixture
async def bot(pg_db, pg_url: str) -> AsyncIterator[tuple[FakeBotAPI, BotRunner]]:
    async with FakeBotAPI() as api:
        runner = BotRunner(api, pg_url)
        await runner.start()
        try:
            yield api, runner
        finally:
            await runner.stop()


def texts_in(api: FakeBotAPI, chat_id: int) -> list[StoredMessage]:
    return api.bot_messages(chat_id)


async def test_adding_the_bot_posts_one_welcome_in_the_adders_language(bot) -> None:
    api, _runner = bot
    # A forum: the welcome goes to the General topic (no thread). A name with markup.
    api.add_group(GROUP, "모임 <b>", type="supergroup", is_forum=True)
    kim = api.add_user(11, "<민준> & co", language_code="ko-KR")
    added = api.bot_membership(GROUP, "member", by=kim)
    api._updates.append(dict(added))  # the same update again (same update_id)
    api._updates_event.set()
    await wait_for(lambda: bool(texts_in(api, GROUP)))
    await api.settle()
    [message] = texts_in(api, GROUP)
    assert message.text == welcome("ko", "<민준> & co")
    assert "&lt;민준&gt; &amp; co" in (message.html or "")
    assert message.thread_id is None
    assert api.calls("sendMessage")[-1].params.get("message_thread_id") is None

    # Promoted to admin while in the group: not an addition, nothing said.
    api.bot_membership(GROUP, "administrator", old="member", by=kim)
    await api.settle()
    assert len(texts_in(api, GROUP)) == 1

    # Removed, then added again (as admin, by someone else): a new addition, a new welcome,
    # in the new adder's language (a language we do not ship: English).
    api.bot_membership(GROUP, "kicked", old="administrator", by=kim)
    await api.settle()
    pedro = api.add_user(12, "Pedro", language_code="pt-br")
    api.bot_membership(GROUP, "administrator", old="kicked", by=pedro)
    await wait_for(lambda: len(texts_in(api, GROUP)) == 2)
    await api.settle()
    assert texts_in(api, GROUP)[-1].text == welcome("en", "Pedro")
    assert len(texts_in(api, GROUP)) == 2


async def test_a_bot_removed_again_at_once_fails_quietly(bot, caplog) -> None:
    api, _runner = bot
    caplog.set_level(logging.INFO)
    api.add_group(GROUP, "Flash")
    ann = api.add_user(21, "Ann", language_code="es")
    # Added and removed before the bot handles the addition: every call to the group
    # fails (403, "bot is not a member"), and nothing else goes wrong.
    api.bot_membership(GROUP, "member", by=ann)
    api.bot_membership(GROUP, "left", old="member", by=ann)
    await api.settle()
    assert api.calls("sendMessage"), "the welcome was not tried"
    assert not texts_in(api, GROUP)
    assert not failures(caplog)

    # A private chat's my_chat_member (a user blocks and restarts the bot) says nothing.
    await ann.start_bot()
    await api.settle()
    before = len(api.bot_messages(ann.id))
    api.enqueue_update({"my_chat_member": {
        "chat": api.private_chat(ann).to_dict(), "from": ann.to_dict(), "date": 0,
        "old_chat_member": {"status": "kicked", "user": api.bot_user_dict(), "until_date": 0},
        "new_chat_member": {"status": "member", "user": api.bot_user_dict()}}})
    await api.settle()
    assert len(api.bot_messages(ann.id)) == before

    # Added again for good: welcomed (in Spanish) this time.
    api.bot_membership(GROUP, "member", by=ann)
    await wait_for(lambda: bool(texts_in(api, GROUP)))
    assert texts_in(api, GROUP)[-1].text == welcome("es", "Ann")
    assert not failures(caplog)


async def test_a_basic_group_is_welcomed_at_once(bot, monkeypatch) -> None:
    api, runner = bot
    monkeypatch.setattr(members, "WELCOME_DELAY", 600)  # (a wait would fail the test)
    api.add_group(OLD, "Basic")
    ann = api.add_user(41, "Ann", language_code="es")
    api.bot_membership(OLD, "member", by=ann)
    await wait_for(lambda: bool(texts_in(api, OLD)))
    await api.settle()
    assert [m.text for m in texts_in(api, OLD)] == [welcome("es", "Ann")]
    assert not pending_welcomes(runner, OLD)


async def test_a_supergroup_is_welcomed_once_after_the_wait(bot, monkeypatch) -> None:
    api, runner = bot
    monkeypatch.setattr(members, "WELCOME_DELAY", 1.0)
    api.add_group(GROUP, "Super", type="supergroup")
    kim = api.add_user(42, "김민준", language_code="ko")
    api.bot_membership(GROUP, "member", by=kim)
    await wait_for(lambda: bool(pending_welcomes(runner, GROUP)))
    assert not texts_in(api, GROUP)  # (not at once: it waits for a migration's messages)
    await wait_for(lambda: bool(texts_in(api, GROUP)))
    await api.settle()
    assert [m.text for m in texts_in(api, GROUP)] == [welcome("ko", "김민준")]
    assert not pending_welcomes(runner, GROUP)
    assert await migrated_from(runner, GROUP) is None


async def welcomed_basic_group(api: FakeBotAPI) -> None:
    """The bot is added to :data:`OLD` (by its creator, Ann) and welcomes it."""
    api.add_group(OLD, "Basic", admins=[51])
    ann = api.add_user(51, "Ann")
    api.bot_membership(OLD, "member", by=ann)
    await wait_for(lambda: bool(texts_in(api, OLD)))
    await api.settle()


async def test_no_welcome_when_the_bot_joins_before_the_migration_messages(
        bot, monkeypatch) -> None:
    """Telegram shows the bot joining the supergroup, then the group's and the supergroup's
    service messages: the welcome waits for them, and then says nothing."""
    api, runner = bot
    await welcomed_basic_group(api)
    monkeypatch.setattr(members, "WELCOME_DELAY", 600)  # (run by hand below)
    api.migrate_group(OLD, NEW, announce=False)
    api.bot_membership(NEW, "member", by=api.users[51])
    await wait_for(lambda: bool(pending_welcomes(runner, NEW)))  # (handled: it waits)
    assert not texts_in(api, NEW)
    api.service_message(OLD, 51, {"migrate_to_chat_id": NEW})
    api.service_message(NEW, 51, {"migrate_from_chat_id": OLD})
    await api.settle()
    assert await migrated_from(runner, NEW) == OLD
    await run_welcome_now(api, runner, NEW)
    assert not texts_in(api, NEW)
    assert len(texts_in(api, OLD)) == 1


@pytest.mark.parametrize("messages", ["both", "supergroup's"])
async def test_no_welcome_when_the_migration_messages_come_first(bot, messages) -> None:
    """The service messages, then the bot's joining the supergroup: the move is recorded
    by then (by either message alone), and nothing waits. Both: Telegram's two messages;
    the supergroup's: its ``migrate_from_chat_id`` alone records the move."""
    api, runner = bot
    await welcomed_basic_group(api)
    if messages == "both":
        api.migrate_group(OLD, NEW)
    else:
        api.migrate_group(OLD, NEW, announce=False)
        api.service_message(NEW, 51, {"migrate_from_chat_id": OLD})
    await api.settle()
    assert await migrated_from(runner, NEW) == OLD
    api.bot_membership(NEW, "member", by=api.users[51])
    await api.settle()
    assert not pending_welcomes(runner, NEW)
    await asyncio.sleep(0.4)  # (twice the wait a welcome would have had)
    await api.settle()
    assert not texts_in(api, NEW)
    assert len(texts_in(api, OLD)) == 1


async def test_a_converted_supergroup_is_welcomed_when_the_bot_is_added_again(bot) -> None:
    """The join that came with the move is owed no welcome; a later removal and add is."""
    api, runner = bot
    await welcomed_basic_group(api)
    api.migrate_group(OLD, NEW)
    await api.settle()
    api.bot_membership(NEW, "member", by=api.users[51])
    await api.settle()
    assert not pending_welcomes(runner, NEW)
    api.bot_membership(NEW, "left", old="member", by=api.users[51])
    api.bot_membership(NEW, "member", by=api.users[51])
    await wait_for(lambda: bool(texts_in(api, NEW)))
    await api.settle()
    assert [m.text for m in texts_in(api, NEW)] == [welcome("en", "Ann")]


async def test_a_supergroup_that_removes_the_bot_within_the_wait_gets_no_call(bot) -> None:
    api, runner = bot
    api.add_group(GROUP, "Flash", type="supergroup")
    ann = api.add_user(21, "Ann")
    api.bot_membership(GROUP, "member", by=ann)
    await wait_for(lambda: bool(pending_welcomes(runner, GROUP)))
    api.bot_membership(GROUP, "left", old="member", by=ann)
    await api.settle()
    await asyncio.sleep(0.4)  # (twice the wait)
    await api.settle()
    assert not [c for c in api.calls("sendMessage") if c.params.get("chat_id") == GROUP]


async def test_a_group_without_a_language_answers_in_the_senders(bot) -> None:
    api, _runner = bot
    api.add_group(GROUP, "Nuevo", admins=[31])
    eve = api.add_user(31, "Eve", language_code="en")
    sofia = api.add_user(32, "Sofía", language_code="es-MX")
    kim = api.add_user(33, "김민준", language_code="ko")

    await sofia.send(GROUP, "/help")
    await wait_for(lambda: bool(texts_in(api, GROUP)))
    await api.settle()
    assert texts_in(api, GROUP)[-1].text == help_in("es")
    await kim.send(GROUP, "/help")
    await wait_for(lambda: len(texts_in(api, GROUP)) == 2)
    assert texts_in(api, GROUP)[-1].text == help_in("ko")
    await kim.send(GROUP, "/rules koira")
    await wait_for(lambda: len(texts_in(api, GROUP)) == 3)
    with use_language("ko"):
        rules = plain(ui_for("koira").rules_text([], None))
    with use_language("en"):
        assert rules != plain(ui_for("koira").rules_text([], None))
    assert texts_in(api, GROUP)[-1].text == rules

    # /settings says no language is set yet (not "English").
    await eve.send(GROUP, "/settings")
    await wait_for(lambda: len(texts_in(api, GROUP)) == 4)
    shown = labels(api, texts_in(api, GROUP)[-1])
    assert "🌐 Language: each member's own" in shown
    assert not any(label.startswith("🌐 Language: English") for label in shown)

    # An admin sets the group's language to English: everyone is answered in English.
    await eve.send(GROUP, "/settings language en")
    await wait_for(lambda: len(texts_in(api, GROUP)) == 5)
    await api.settle()
    await kim.send(GROUP, "/help")
    await wait_for(lambda: len(texts_in(api, GROUP)) == 6)
    assert texts_in(api, GROUP)[-1].text == help_in("en")
    await sofia.send(GROUP, "/help")
    await wait_for(lambda: len(texts_in(api, GROUP)) == 7)
    assert texts_in(api, GROUP)[-1].text == help_in("en")
