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

Closed topics: ``closeForumTopic`` / ``reopenForumTopic`` (the bot must be an administrator
with ``can_manage_topics``, unless it created the topic) and ``closeGeneralForumTopic`` /
``reopenGeneralForumTopic`` (no exception for General), as the Bot API documents them; an
admin does the same with :meth:`TopicsMixin.close_topic` (a ``forum_topic_closed`` or
``forum_topic_reopened`` service message in the topic, sent as an update). A message sent
into a closed topic (or, without a thread, into a closed General) is refused with 400
``TOPIC_CLOSED``, as Telegram does, unless the bot is an administrator that may manage topics;
edits and deletions of the messages there still work. "TOPIC_CLOSED" and "TOPIC_NOT_MODIFIED"
(closing a closed topic, reopening an open one) are Telegram's wording; "TOPIC_ID_INVALID"
(no such topic) and "not enough rights to manage topics" are the fake's own.

Deleted topics: ``deleteForumTopic`` deletes a topic along with all its messages (the bot must
be an administrator with ``can_delete_messages``, which every administrator has here), as the
Bot API documents it; an admin does the same with :meth:`TopicsMixin.delete_topic` (no
update: Telegram has no service message for it, nor tells a bot of deleted messages). A
message sent into a deleted topic is refused with 400 "message thread not found", an edit of
one of its messages with "message to edit not found" (as for any deleted message): Telegram's
wording ("TOPIC_ID_INVALID" and "not enough rights to delete a topic": the fake's own). A
topic is deleted when its creation message is (a thread whose root is gone).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .models import FakeChat, LogEntry, StoredMessage, bad_request

if TYPE_CHECKING:
    from .clients import FakeUser
    from .server import FakeBotAPI

ICON_COLORS = (7322096, 16766590, 13338331, 9367192, 16749490, 16478047)
"""The colours a topic's icon may have (RGB); the first is the default here."""
MAX_NAME = 128


class TopicsMixin:
    """``createForumTopic``, closed and deleted topics and an admin's closing or deleting of
    one; expects the attributes of ``FakeBotAPI``."""

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

    # ------------------------------------------------------------------ closed topics
    def _topic_open(self: FakeBotAPI, chat: FakeChat, p: dict) -> None:
        """Refuse a message to a deleted topic, or to a closed one (``message_thread_id``;
        none: General) of a forum unless the bot is an administrator that may manage topics."""
        thread = p.get("message_thread_id")
        if chat.is_forum and thread and self._topic_deleted(chat, thread):
            raise bad_request("message thread not found")
        if not chat.is_forum or (chat.bot_admin and chat.bot_can_manage_topics):
            return
        if (thread in chat.closed_topics) if thread else chat.general_closed:
            raise bad_request("TOPIC_CLOSED")

    def _topic_of(self: FakeBotAPI, p: dict) -> tuple[FakeChat, int]:
        """The forum and its topic a topic method names (refused: no forum, no such topic)."""
        chat = self._target_chat(p)
        if chat.type != "supergroup" or not chat.is_forum:
            raise bad_request("the chat is not a forum")
        thread = p.get("message_thread_id")
        if not isinstance(thread, int) or thread not in chat.topics:
            raise bad_request("TOPIC_ID_INVALID")
        return chat, thread

    def _closable(self: FakeBotAPI, p: dict) -> tuple[FakeChat, int]:
        chat, thread = self._topic_of(p)
        created = chat.messages.get(thread)
        if not (chat.bot_admin and chat.bot_can_manage_topics) and \
                (created is None or created.sender_id != self.bot_id):
            raise bad_request("not enough rights to manage topics")
        return chat, thread

    def _m_closeforumtopic(self: FakeBotAPI, p: dict) -> bool:
        chat, thread = self._closable(p)
        self._toggle(chat, thread, True, self.bot_id)
        return True

    def _m_reopenforumtopic(self: FakeBotAPI, p: dict) -> bool:
        chat, thread = self._closable(p)
        self._toggle(chat, thread, False, self.bot_id)
        return True

    def _m_closegeneralforumtopic(self: FakeBotAPI, p: dict) -> bool:
        return self._toggle_general(p, True)

    def _m_reopengeneralforumtopic(self: FakeBotAPI, p: dict) -> bool:
        return self._toggle_general(p, False)

    def _toggle_general(self: FakeBotAPI, p: dict, closed: bool) -> bool:
        chat = self._target_chat(p)
        if chat.type != "supergroup" or not chat.is_forum:
            raise bad_request("the chat is not a forum")
        if not chat.bot_admin or not chat.bot_can_manage_topics:
            raise bad_request("not enough rights to manage topics")
        if chat.general_closed == closed:
            raise bad_request("TOPIC_NOT_MODIFIED")
        chat.general_closed = closed
        return True

    def _toggle(self: FakeBotAPI, chat: FakeChat, thread: int, closed: bool,
                sender_id: int) -> StoredMessage:
        if (thread in chat.closed_topics) == closed:
            raise bad_request("TOPIC_NOT_MODIFIED")
        (chat.closed_topics.add if closed else chat.closed_topics.discard)(thread)
        fields: dict = {"forum_topic_closed" if closed else "forum_topic_reopened": {}}
        if sender_id == self.bot_id:  # (Telegram sends no update of the bot's own message)
            return self.store_message(chat, from_bot=True, sender_id=sender_id, kind="service",
                                      service=fields, thread_id=thread)
        return self.service_message(chat.id, sender_id, fields, thread_id=thread)

    def close_topic(self: FakeBotAPI, chat_id: int, thread_id: int | None, by: FakeUser, *,
                    closed: bool = True) -> StoredMessage | None:
        """Admin ``by`` closes forum topic ``thread_id`` (``None``: General) of ``chat_id``
        (``closed=False``: reopens it): its service message, sent as an update (none for
        General)."""
        chat = self.chats[chat_id]
        if thread_id is None:
            chat.general_closed = closed
            return None
        return self._toggle(chat, thread_id, closed, by.id)

    # ------------------------------------------------------------------ deleted topics
    @staticmethod
    def _topic_deleted(chat: FakeChat, thread: object) -> bool:
        created = chat.messages.get(thread)  # type: ignore[arg-type]
        return created is not None and created.deleted and \
            "forum_topic_created" in (created.service or {})

    def _m_deleteforumtopic(self: FakeBotAPI, p: dict) -> bool:
        chat, thread = self._topic_of(p)
        if not chat.bot_admin:  # (an administrator here may delete messages)
            raise bad_request("not enough rights to delete a topic")
        self._delete_topic(chat, thread)
        return True

    def _delete_topic(self: FakeBotAPI, chat: FakeChat, thread: int) -> None:
        for msg in chat.messages.values():
            if msg.thread_id == thread or msg.message_id == thread:
                msg.deleted = True
        for ephemeral_id, msg in list(chat.ephemeral.items()):
            if msg.thread_id == thread:
                msg.deleted = True
                del chat.ephemeral[ephemeral_id]
        del chat.topics[thread]
        chat.closed_topics.discard(thread)

    def delete_topic(self: FakeBotAPI, chat_id: int, thread_id: int, by: FakeUser) -> None:
        """Admin ``by`` deletes forum topic ``thread_id`` of ``chat_id`` with all its
        messages (Telegram tells the bot nothing of it)."""
        chat = self.chats[chat_id]
        assert by.id in chat.admins, "only an administrator deletes a topic"
        self._delete_topic(chat, thread_id)
