"""Closed forum topics in the fake Bot API, driven through PTB's real ``Bot``: closeForumTopic /
reopenForumTopic (and General's) with their rights and refusals, an admin closing a topic (a
service message update), and a send into a closed topic refused with ``TOPIC_CLOSED`` unless
the bot may manage topics (edits there still work)."""

from __future__ import annotations

import pytest
from telegram import Bot
from telegram.error import BadRequest

from tests.fakebot import FakeBotAPI

FORUM = -1001000000004
pytestmark = pytest.mark.timeout(10)


def forum(api: FakeBotAPI, **kwargs):
    return api.add_group(FORUM, "Cup night", type="supergroup", is_forum=True,
                         admins=[1], bot_admin=True, **kwargs)


async def test_the_bot_closes_and_reopens_a_topic(bot: Bot, api: FakeBotAPI) -> None:
    chat = forum(api)
    topic = (await bot.create_forum_topic(FORUM, "Table 1")).message_thread_id
    assert await bot.close_forum_topic(FORUM, topic)
    assert chat.closed_topics == {topic}
    with pytest.raises(BadRequest, match="(?i)topic_not_modified"):
        await bot.close_forum_topic(FORUM, topic)
    # (an administrator that may manage topics still posts there)
    sent = await bot.send_message(FORUM, "still here", message_thread_id=topic)
    assert sent.message_thread_id == topic
    assert await bot.reopen_forum_topic(FORUM, topic)
    assert chat.closed_topics == set()
    with pytest.raises(BadRequest, match="(?i)topic_not_modified"):
        await bot.reopen_forum_topic(FORUM, topic)
    services = [m.service for m in api.messages(FORUM) if m.kind == "service"
                and m.thread_id == topic and m.message_id != topic]
    assert services == [{"forum_topic_closed": {}}, {"forum_topic_reopened": {}}]
    assert await bot.get_updates() == ()  # (its own service messages: no update)
    with pytest.raises(BadRequest, match="(?i)topic_id_invalid"):
        await bot.close_forum_topic(FORUM, 9999)


async def test_closing_needs_the_right_unless_the_bot_made_the_topic(
        bot: Bot, api: FakeBotAPI) -> None:
    chat = forum(api)
    own = (await bot.create_forum_topic(FORUM, "Mine")).message_thread_id
    theirs = api.create_topic(FORUM, "Theirs", api.add_user(1, "Ann"))
    chat.bot_can_manage_topics = False
    with pytest.raises(BadRequest, match="(?i)not enough rights to manage topics"):
        await bot.close_forum_topic(FORUM, theirs)
    with pytest.raises(BadRequest, match="(?i)not enough rights to manage topics"):
        await bot.close_general_forum_topic(FORUM)
    assert await bot.close_forum_topic(FORUM, own)  # (it created the topic)
    assert chat.closed_topics == {own}
    api.add_group(FORUM + 1, "Plain", type="supergroup", admins=[1], bot_admin=True)
    with pytest.raises(BadRequest, match="(?i)the chat is not a forum"):
        await bot.close_forum_topic(FORUM + 1, own)


async def test_a_send_to_a_closed_topic_is_refused_an_edit_is_not(
        bot: Bot, api: FakeBotAPI) -> None:
    """A bot that may not manage topics gets 400 TOPIC_CLOSED for a message or photo sent
    into a closed topic (and into a closed General without a thread); its old message there
    can still be edited; the admin's reopening lets it post again."""
    chat = forum(api)
    chat.bot_can_manage_topics = False
    ann = api.add_user(1, "Ann")
    topic = api.create_topic(FORUM, "Coyote", ann)
    old = await bot.send_message(FORUM, "table", message_thread_id=topic)
    api.close_topic(FORUM, topic, ann)
    updates = await bot.get_updates()
    assert updates[-1].message is not None
    assert updates[-1].message.forum_topic_closed is not None
    assert updates[-1].message.message_thread_id == topic
    with pytest.raises(BadRequest, match="(?i)topic_closed"):
        await bot.send_message(FORUM, "new table", message_thread_id=topic)
    with pytest.raises(BadRequest, match="(?i)topic_closed"):
        await bot.send_photo(FORUM, b"png", message_thread_id=topic)
    await bot.edit_message_text("table, edited", FORUM, old.message_id)
    assert (await bot.send_message(FORUM, "General")).message_thread_id is None
    api.close_topic(FORUM, None, ann)  # (General)
    with pytest.raises(BadRequest, match="(?i)topic_closed"):
        await bot.send_message(FORUM, "General again")
    api.close_topic(FORUM, topic, ann, closed=False)
    assert (await bot.send_message(FORUM, "back", message_thread_id=topic)).message_id
    chat.bot_can_manage_topics = True  # (an administrator that may: General is open to it)
    assert (await bot.send_message(FORUM, "General")).message_id
