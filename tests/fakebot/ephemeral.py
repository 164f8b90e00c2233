"""Ephemeral messages of the fake Bot API (Bot API 10.2; mixed into ``FakeBotAPI``)."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from .methods import _NOT_MODIFIED
from .models import FakeChat, LogEntry, StoredMessage, bad_request

if TYPE_CHECKING:
    from .clients import FakeUser


class EphemeralMixin:
    """Ephemeral sendMessage / edit / delete; expects the attributes and methods of
    ``FakeBotAPI``."""

    bot_id: int
    users: dict[int, FakeUser]
    log: list[LogEntry]
    _queries: dict[str, dict]

    # ------------------------------------------------------------------ ephemeral messages
    # Bot API 10.2: sendMessage with ``receiver_user_id`` (and/or the ``callback_query_id``
    # that triggered it) sends a message in a group that only that user sees: message_id 0,
    # ``receiver_user``, ``ephemeral_message_id`` (unique in the chat while it exists);
    # editEphemeralMessageText / editEphemeralMessageReplyMarkup / deleteEphemeralMessage
    # (chat_id, receiver_user_id, ephemeral_message_id) answer True. The descriptions of the
    # refusals the API documents no wording for are the fake's own.

    def _ephemeral_chat(self, p: dict) -> tuple[FakeChat, int]:
        """The group and the receiver of an ephemeral call, checked."""
        chat_id = p.get("chat_id")
        if isinstance(chat_id, int) and (chat_id in self.users or chat_id > 0):
            raise bad_request("ephemeral messages can be used in group and supergroup chats only")
        chat = self._target_chat(p)
        if chat.type == "private":
            raise bad_request("ephemeral messages can be used in group and supergroup chats only")
        receiver = p.get("receiver_user_id")
        if isinstance(receiver, bool) or not isinstance(receiver, int) or \
                not self.is_member(chat, receiver):
            raise bad_request("user not found")
        return chat, receiver

    def _send_ephemeral(self, p: dict) -> dict:
        query_id = p.get("callback_query_id")
        if query_id is not None:
            query = self._queries.get(str(query_id))
            if query is None:
                raise bad_request(
                    "query is too old and response timeout expired or query ID is invalid")
            if p.get("receiver_user_id") is None:
                p = {**p, "receiver_user_id": query["user_id"]}
            if p["receiver_user_id"] != query["user_id"] or query["chat_id"] != p.get("chat_id"):
                raise bad_request("the callback query was sent by another user or chat")
        chat, receiver = self._ephemeral_chat(p)
        self._topic_open(chat, p)  # (a message in the topic: the API says nothing else)
        text, html, entities = self._render(p, "text", 4096)
        markup = self._markup(p)
        msg = StoredMessage(chat_id=chat.id, message_id=0, date=int(time.time()),
                            from_bot=True, sender_id=self.bot_id, text=text, html=html,
                            entities=entities, reply_markup=markup,
                            thread_id=p.get("message_thread_id"), receiver_id=receiver,
                            ephemeral_id=chat.allocate_ephemeral_id())
        chat.ephemeral[msg.ephemeral_id] = msg  # type: ignore[index]
        chat.ephemeral_log.append(msg)
        self._add_log("send", msg)
        return self.message_dict(msg)

    def _ephemeral(self, p: dict, what: str) -> tuple[FakeChat, StoredMessage]:
        chat, receiver = self._ephemeral_chat(p)
        msg = chat.ephemeral.get(p.get("ephemeral_message_id"))  # type: ignore[arg-type]
        if msg is None or msg.receiver_id != receiver:
            raise bad_request(f"message to {what} not found")
        return chat, msg

    def _m_editephemeralmessagetext(self, p: dict) -> bool:
        chat, msg = self._ephemeral(p, "edit")
        text, html, entities = self._render(p, "text", 4096)
        markup = self._markup(p)
        if text == msg.text and entities == msg.entities and markup == msg.reply_markup:
            raise bad_request(_NOT_MODIFIED)
        msg.text, msg.html, msg.entities, msg.reply_markup = text, html, entities, markup
        msg.edits += 1
        msg.edit_date = int(time.time())
        self._add_log("edit", msg)
        return True

    def _m_editephemeralmessagereplymarkup(self, p: dict) -> bool:
        chat, msg = self._ephemeral(p, "edit")
        markup = self._markup(p)
        if markup == msg.reply_markup:
            raise bad_request(_NOT_MODIFIED)
        msg.reply_markup = markup
        msg.edits += 1
        msg.edit_date = int(time.time())
        self._add_log("edit", msg, text="")
        return True

    def _m_deleteephemeralmessage(self, p: dict) -> bool:
        chat, msg = self._ephemeral(p, "delete")
        msg.deleted = True
        del chat.ephemeral[msg.ephemeral_id]  # type: ignore[arg-type]
        self.log.append(LogEntry("delete", chat.id, 0, msg.text, receiver=msg.receiver_id,
                                 ephemeral_id=msg.ephemeral_id))
        return True
