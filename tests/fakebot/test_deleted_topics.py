"""Deleted forum topics in the fake Bot API, driven through PTB's real ``Bot``: deleteForumTopic
with its rights and refusals, an admin deleting a topic, and what Telegram answers then: a send
into it "message thread not found", an edit of one of its messages "message to edit not
found" (its messages are gone with it)."""

from __future__ import annotations

import pytest
from telegram import Bot
from telegram.error import BadRequest

from tests.fakebot import FakeBotAPI

FORUM = -1001000000005
pytestmark = pytest.mark.timeout(10)


def forum(api: FakeBotAPI, **kwargs):
    return api.add_group(FORUM, "Cup night", type="supergroup", is_forum=True,
                         admins=[1], **kwargs)


async def test_the_bot_deletes_a_topic_with_its_messages(bot: Bot, api: FakeBotAPI) -> None:
    chat = forum(api, bot_admin=True)
    topic = (await bot.create_forum_topic(FORUM, "Table 1")).message_thread_id
    table = await bot.send_message(FORUM, "table", message_thread_id=topic)
    general = await bot.send_message(FORUM, "in General")
    await bot.close_forum_topic(FORUM, topic)
    assert await bot.delete_forum_topic(FORUM, topic)
    assert api.topic_messages(FORUM, topic, bot_only=False) == []
    assert [m.message_id for m in api.bot_messages(FORUM)] == [general.message_id]
    assert topic not in chat.topics and chat.closed_topics == set()
    with pytest.raises(BadRequest, match="(?i)topic_id_invalid"):
        await bot.delete_forum_topic(FORUM, topic)
    with pytest.raises(BadRequest, match="(?i)message to edit not found"):
        await bot.edit_message_text("table, edited", FORUM, table.message_id)
    with pytest.raises(BadRequest, match="(?i)message to delete not found"):
        await bot.delete_message(FORUM, table.message_id)


async def test_deleting_needs_an_administrator(bot: Bot, api: FakeBotAPI) -> None:
    chat = forum(api, bot_admin=True)
    own = (await bot.create_forum_topic(FORUM, "Mine")).message_thread_id
    chat.bot_admin = False
    with pytest.raises(BadRequest, match="(?i)not enough rights to delete a topic"):
        await bot.delete_forum_topic(FORUM, own)  # (even its own topic)
    api.add_group(FORUM + 1, "Plain", type="supergroup", admins=[1], bot_admin=True)
    with pytest.raises(BadRequest, match="(?i)the chat is not a forum"):
        await bot.delete_forum_topic(FORUM + 1, own)


async def test_a_send_to_a_deleted_topic_is_refused(bot: Bot, api: FakeBotAPI) -> None:
    """An admin deletes a topic: a message, photo or ephemeral message sent into it is
    refused with "message thread not found" (an administrator's too); General and the other
    topics are as before; the bot is told nothing."""
    chat = forum(api, bot_admin=True)
    ann = api.add_user(1, "Ann")
    topic = api.create_topic(FORUM, "Coyote", ann)
    other = api.create_topic(FORUM, "Koira", ann)
    seen = await bot.get_updates()
    old = await bot.send_message(FORUM, "table", message_thread_id=topic)
    api.delete_topic(FORUM, topic, ann)
    assert await bot.get_updates(offset=seen[-1].update_id + 1) == ()
    for send in (lambda: bot.send_message(FORUM, "new table", message_thread_id=topic),
                 lambda: bot.send_photo(FORUM, b"png", message_thread_id=topic),
                 lambda: bot.do_api_request("sendMessage", api_kwargs={
                     "chat_id": FORUM, "text": "🎴", "message_thread_id": topic,
                     "receiver_user_id": ann.id})):
        with pytest.raises(BadRequest, match="(?i)message thread not found"):
            await send()
    with pytest.raises(BadRequest, match="(?i)message to edit not found"):
        await bot.edit_message_text("table, edited", FORUM, old.message_id)
    assert (await bot.send_message(FORUM, "General")).message_thread_id is None
    assert (await bot.send_message(FORUM, "x", message_thread_id=other)).message_thread_id \
        == other
    chat.bot_admin = False
    with pytest.raises(BadRequest, match="(?i)message thread not found"):
        await bot.send_message(FORUM, "new table", message_thread_id=topic)
