"""Forum topics in the fake Bot API: ``createForumTopic`` (mixed into ``FakeBotAPI``) and a
query of the messages in one topic.

As the Bot API documents it: in a forum supergroup (``FakeChat.is_forum``) the bot must be an
administrator (``bot_admin``) with the ``can_manage_topics`` right
(``bot_can_manage_topics``). The answer is a ``ForumTopic``; the topic's creation is a
``forum_topic_created`` service message from the bot, whose id is the topic's
``message_thread_id`` (Telegram sends no update of the bot's own message). Messages sent with
that ``message_thread_id`` are in the topic (:meth:`TopicsMixin.topic_messages`).

Refusals: "the chat is not a forum" and "not enough rights to create a topic" are
Telegram's wording; those of a bad name or icon colour are the fake's own (the API documents
none). A flood limit is injected as for any call (``FakeBotAPI.fail_next``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .models import LogEntry, StoredMessage, bad_request

if TYPE_CHECKING:
    from .server import FakeBotAPI

ICON_COLORS = (7322096, 16766590, 13338331, 9367192, 16749490, 16478047)
"""The colours a topic's icon may have (RGB); the first is the default here."""
MAX_NAME = 128


class TopicsMixin:
    """``createForumTopic``; expects the attributes of ``FakeBotAPI``."""

    def _m_createforumtopic(self: FakeBotAPI, p: dict) -> dict:
        chat = self._target_chat(p)
        name = p.get("name")
        if not isinstance(name, str) or not name.strip():
            raise bad_request("TOPIC_TITLE_EMPTY")
        if len(name) > MAX_NAME:
            raise bad_request("TOPIC_TITLE_TOO_LONG")
        color = p.get("icon_color")
        if color is None:
            color = ICON_COLORS[0]
        elif color not in ICON_COLORS:
            raise bad_request("TOPIC_ICON_COLOR_INVALID")
        if chat.type != "supergroup" or not chat.is_forum:
            raise bad_request("the chat is not a forum")
        if not chat.bot_admin or not chat.bot_can_manage_topics:
            raise bad_request("not enough rights to create a topic")
        created: dict[str, object] = {"name": name, "icon_color": color}
        emoji = p.get("icon_custom_emoji_id")
        if emoji:
            created["icon_custom_emoji_id"] = str(emoji)
        msg = self.store_message(chat, from_bot=True, sender_id=self.bot_id, kind="service",
                                 service={"forum_topic_created": created})
        msg.thread_id = msg.message_id  # (a topic's thread id is its creation message's id)
        chat.topics[msg.message_id] = name
        self.log.append(LogEntry("topic", chat.id, msg.message_id, name))
        return {"message_thread_id": msg.message_id, **created}

    def topic_messages(self: FakeBotAPI, chat_id: int, thread_id: int, *,
                       bot_only: bool = True) -> list[StoredMessage]:
        """The messages (``bot_only``: the bot's text messages) in forum topic ``thread_id``
        of ``chat_id``, not deleted, oldest first (its creation message left out)."""
        return [m for m in self.messages(chat_id) if m.thread_id == thread_id
                and m.kind != "service" and (m.from_bot or not bot_only)]
