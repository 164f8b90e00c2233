"""The fake Bot API's ``createForumTopic``, driven through PTB's real ``Bot``: a topic in a
forum supergroup whose administrator bot may manage topics, messages sent into it, and the
refusals (not a forum, not enough rights, a bad name or colour, the bot removed, a flood
limit)."""

from __future__ import annotations

import pytest
from telegram import Bot
from telegram.error import BadRequest, Forbidden, RetryAfter

from tests.fakebot import FakeBotAPI, render_transcript

FORUM = -1001000000003
pytestmark = pytest.mark.timeout(10)


def forum(api: FakeBotAPI, **kwargs):
    return api.add_group(FORUM, "Cup night", type="supergroup", is_forum=True,
                         admins=[1], bot_admin=True, **kwargs)


async def test_a_topic_is_opened_and_messages_land_in_it(bot: Bot, api: FakeBotAPI) -> None:
    chat = forum(api)
    topic = await bot.create_forum_topic(FORUM, "🏆 #1 · Round 1 · Table 1")
    assert topic.name == "🏆 #1 · Round 1 · Table 1" and topic.icon_color == 7322096
    assert topic.message_thread_id > 0 and chat.topics == {topic.message_thread_id: topic.name}
    other = await bot.create_forum_topic(FORUM, "Table 2", icon_color=16478047)
    assert other.message_thread_id > topic.message_thread_id and other.icon_color == 16478047
    sent = await bot.send_message(FORUM, "<b>Table</b> one", parse_mode="HTML",
                                  message_thread_id=topic.message_thread_id)
    assert sent.message_thread_id == topic.message_thread_id and sent.is_topic_message
    await bot.send_message(FORUM, "General")
    assert [m.text for m in api.topic_messages(FORUM, topic.message_thread_id)] == ["Table one"]
    assert api.topic_messages(FORUM, other.message_thread_id) == []
    # the creation is a service message of the bot's, no update (its own message)
    created = api.get_message(FORUM, topic.message_thread_id)
    assert created is not None and created.from_bot and created.kind == "service"
    assert created.service == {"forum_topic_created": {"name": topic.name,
                                                       "icon_color": 7322096}}
    assert await bot.get_updates() == ()
    assert api.counts["createforumtopic"] == 2
    assert f"🗂 (msg {topic.message_thread_id}) topic created: {topic.name}" in \
        render_transcript(api, FORUM)
    member = await bot.get_chat_member(FORUM, bot.id)
    assert member.status == "administrator" and member.can_manage_topics


@pytest.mark.parametrize("kind", ["group", "supergroup", "private"])
async def test_only_a_forum_has_topics(bot: Bot, api: FakeBotAPI, kind: str) -> None:
    user = api.add_user(5, "Eve")
    await user.start_bot()
    chat_id = user.id if kind == "private" else FORUM
    if kind != "private":
        api.add_group(FORUM, "Plain", type=kind, admins=[1], bot_admin=True)
    with pytest.raises(BadRequest, match="(?i)the chat is not a forum"):
        await bot.create_forum_topic(chat_id, "Table 1")
    assert not [e for e in api.log if e.kind == "topic"]


async def test_the_bot_needs_the_right_to_manage_topics(bot: Bot, api: FakeBotAPI) -> None:
    chat = forum(api)
    chat.bot_can_manage_topics = False
    with pytest.raises(BadRequest, match="(?i)not enough rights to create a topic"):
        await bot.create_forum_topic(FORUM, "Table 1")
    member = await bot.get_chat_member(FORUM, bot.id)
    assert member.status == "administrator" and member.can_manage_topics is False
    chat.bot_can_manage_topics, chat.bot_admin = True, False  # a plain member
    with pytest.raises(BadRequest, match="(?i)not enough rights to create a topic"):
        await bot.create_forum_topic(FORUM, "Table 1")
    assert chat.topics == {} and not api.log


async def test_a_name_and_a_colour_are_checked(bot: Bot, api: FakeBotAPI) -> None:
    forum(api)
    for name in ("", "   "):
        with pytest.raises(BadRequest, match="(?i)TOPIC_TITLE_EMPTY"):
            await bot.create_forum_topic(FORUM, name)
    with pytest.raises(BadRequest, match="(?i)TOPIC_TITLE_TOO_LONG"):
        await bot.create_forum_topic(FORUM, "x" * 129)
    assert (await bot.create_forum_topic(FORUM, "x" * 128)).name == "x" * 128
    with pytest.raises(BadRequest, match="(?i)TOPIC_ICON_COLOR_INVALID"):
        await bot.create_forum_topic(FORUM, "Table", icon_color=123)


@pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")  # retry_after
async def test_a_removed_bot_and_a_flood_limit(bot: Bot, api: FakeBotAPI) -> None:
    chat = forum(api)
    api.fail_next("createForumTopic", chat_id=FORUM)
    with pytest.raises(RetryAfter):
        await bot.create_forum_topic(FORUM, "Table 1")
    assert (await bot.create_forum_topic(FORUM, "Table 1")).name == "Table 1"
    chat.statuses[api.bot_id] = "kicked"
    with pytest.raises(Forbidden, match="kicked"):
        await bot.create_forum_topic(FORUM, "Table 2")
    assert list(chat.topics.values()) == ["Table 1"]
