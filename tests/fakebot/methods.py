"""Bot API method implementations of the fake server (mixed into ``FakeBotAPI``): the object
builders, the shared checks, the bot's settings and the message methods.

Each ``_m_<lowercase method name>(params)`` returns the ``result`` or raises ``ApiError``
with Telegram's exact description. Ephemeral messages are in :mod:`tests.fakebot.ephemeral`,
chats and members in :mod:`tests.fakebot.chats`.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from .html_check import HtmlParseError, parse_html
from .models import (
    ApiError,
    FakeChat,
    LogEntry,
    StoredMessage,
    bad_request,
    button_rows,
    validate_inline_keyboard,
)

if TYPE_CHECKING:
    from .clients import FakeUser

_NOT_MODIFIED = (
    "message is not modified: specified new message content and reply markup are exactly the "
    "same as a current content and reply markup of the message"
)


class MethodsMixin:
    """Implementation of the Bot API methods; expects the attributes of ``FakeBotAPI``."""

    token: str
    bot_id: int
    bot_username: str
    bot_name: str
    strict_html_amp: bool
    chats: dict[int, FakeChat]
    users: dict[int, FakeUser]
    commands: dict[tuple[str, str], list[dict]]
    log: list[LogEntry]
    webhook_url: str
    _updates: list[dict]
    _queries: dict[str, dict]
    _answers: dict[str, dict]

    def _drop_pending(self) -> None:  # provided by UpdatesMixin (before this in the bases)
        raise NotImplementedError

    # ------------------------------------------------------------------ object builders
    def bot_user_dict(self) -> dict:
        """The bot's ``User`` object (what getMe returns)."""
        return {
            "id": self.bot_id, "is_bot": True, "first_name": self.bot_name,
            "username": self.bot_username, "can_join_groups": True,
            "can_read_all_group_messages": False, "supports_inline_queries": False,
            "can_connect_to_business": False, "has_main_web_app": False,
        }

    def user_dict(self, user_id: int) -> dict:
        """``User`` object for a user id (a stub for unknown ids)."""
        if user_id == self.bot_id:
            return self.bot_user_dict()
        user = self.users.get(user_id)
        if user is None:
            return {"id": user_id, "is_bot": False, "first_name": f"User {user_id}"}
        return user.to_dict()

    def message_dict(self, m: StoredMessage) -> dict:
        """The ``Message`` object for a stored message, as Telegram would send it."""
        chat = self.chats[m.chat_id]
        data: dict[str, Any] = {
            "message_id": m.message_id, "date": m.date, "chat": chat.to_dict(),
            "from": self.user_dict(m.sender_id),
        }
        if m.kind == "photo":
            size = len(m.photo) if isinstance(m.photo, bytes) else 0
            data["photo"] = [{
                "file_id": f"photo-{m.chat_id}-{m.message_id}",
                "file_unique_id": f"u{abs(m.chat_id)}x{m.message_id}",
                "width": 640, "height": 480, "file_size": size,
            }]
            if m.text:
                data["caption"] = m.text
            if m.entities:
                data["caption_entities"] = m.entities
        elif m.kind == "service":
            data.update(m.service or {})
        else:
            data["text"] = m.text or ""
            if m.entities:
                data["entities"] = m.entities
        if m.reply_markup and "inline_keyboard" in m.reply_markup:
            data["reply_markup"] = m.reply_markup
        if m.thread_id is not None:
            data["message_thread_id"] = m.thread_id
            if chat.is_forum:
                data["is_topic_message"] = True
        if m.edit_date:
            data["edit_date"] = m.edit_date
        if m.reply_to is not None and m.reply_to in chat.messages:
            replied = dict(self.message_dict(chat.messages[m.reply_to]))
            replied.pop("reply_to_message", None)
            data["reply_to_message"] = replied
        if m.is_ephemeral:  # (Bot API 10.2: message_id 0, the receiver and the id in the chat)
            data["receiver_user"] = self.user_dict(m.receiver_id or 0)
            data["ephemeral_message_id"] = m.ephemeral_id
        return data

    def private_chat(self, user: FakeUser) -> FakeChat:
        """The private chat between the bot and ``user`` (created on first use)."""
        chat = self.chats.get(user.id)
        if chat is None:
            chat = FakeChat(
                id=user.id, type="private", first_name=user.first_name,
                last_name=user.last_name, username=user.username,
            )
            self.chats[user.id] = chat
        return chat

    # ------------------------------------------------------------------ shared checks
    def _target_chat(self, p: dict) -> FakeChat:
        chat_id = p.get("chat_id")
        user = self.users.get(chat_id) if isinstance(chat_id, int) else None
        if user is not None:
            if user.blocked:
                raise ApiError(403, "Forbidden: bot was blocked by the user")
            if not user.started:
                raise ApiError(403, "Forbidden: bot can't initiate conversation with a user")
            return self.private_chat(user)
        chat = self.chats.get(chat_id) if isinstance(chat_id, int) else None
        if chat is None:
            raise bad_request("chat not found")
        status = chat.statuses.get(self.bot_id)
        if status == "kicked":
            raise ApiError(403, f"Forbidden: bot was kicked from the {chat.type} chat")
        if status == "left":
            raise ApiError(403, f"Forbidden: bot is not a member of the {chat.type} chat")
        return chat

    def _may_send(self, chat: FakeChat, what: str) -> None:
        """A bot restricted in the group (``statuses[bot_id] == "restricted"``: an admin
        muted it, ``can_send_messages`` false) may not post there: Telegram answers a send
        with 400 ``not enough rights to send <what> to the chat`` (its edits and deletes
        still work)."""
        if chat.type != "private" and chat.statuses.get(self.bot_id) == "restricted":
            raise bad_request(f"not enough rights to send {what} to the chat")

    def _render(self, p: dict, key: str, limit: int) -> tuple[str, str | None, list[dict]]:
        """Validate text/caption ``p[key]``; return (plain text, html or None, entities)."""
        raw = p.get(key)
        raw = "" if raw is None else str(raw)
        mode = str(p.get("parse_mode") or "").lower()
        html = None
        if mode == "html":
            try:
                plain, entities = parse_html(raw, strict_amp=self.strict_html_amp)
            except HtmlParseError as exc:
                raise bad_request(f"can't parse entities: {exc}") from exc
            html = raw
        else:
            plain = raw
            entities = p.get("entities" if key == "text" else "caption_entities") or []
        if key == "text" and not plain.strip():
            raise bad_request("message text is empty")
        if len(plain) > limit:
            raise bad_request("message is too long" if key == "text" else
                              "message caption is too long")
        return plain, html, entities

    def _markup(self, p: dict) -> dict | None:
        markup = p.get("reply_markup")
        if markup is not None and not isinstance(markup, dict):
            raise bad_request("can't parse reply keyboard markup JSON object")
        validate_inline_keyboard(markup)
        return markup

    def _editable(self, p: dict) -> tuple[FakeChat, StoredMessage]:
        if p.get("inline_message_id"):
            raise bad_request("message to edit not found")
        chat = self._target_chat(p)
        msg = chat.messages.get(p.get("message_id"))  # type: ignore[arg-type]
        if msg is None or msg.deleted:
            raise bad_request("message to edit not found")
        if not msg.from_bot:
            raise bad_request("message can't be edited")
        return chat, msg

    def _add_log(self, kind: str, m: StoredMessage, text: str | None = None) -> None:
        self.log.append(LogEntry(kind, m.chat_id, m.message_id,
                                 m.text if text is None else text, button_rows(m.reply_markup),
                                 receiver=m.receiver_id, ephemeral_id=m.ephemeral_id))

    def store_message(self, chat: FakeChat, **fields: Any) -> StoredMessage:
        """Create a message in ``chat`` with the next message id."""
        msg = StoredMessage(chat_id=chat.id, message_id=chat.allocate_id(),
                            date=int(time.time()), **fields)
        chat.messages[msg.message_id] = msg
        return msg

    def _reply_to(self, p: dict) -> int | None:
        params = p.get("reply_parameters")
        if isinstance(params, dict):
            return params.get("message_id")
        return p.get("reply_to_message_id")

    # ------------------------------------------------------------------ methods
    def _m_getme(self, p: dict) -> dict:
        return self.bot_user_dict()

    def _m_deletewebhook(self, p: dict) -> bool:
        self.webhook_url = ""
        if p.get("drop_pending_updates"):
            self._drop_pending()
        return True

    def _m_setwebhook(self, p: dict) -> bool:
        self.webhook_url = str(p.get("url") or "")
        return True

    def _m_getwebhookinfo(self, p: dict) -> dict:
        return {"url": self.webhook_url, "has_custom_certificate": False,
                "pending_update_count": len(self._updates)}

    def _commands_key(self, p: dict) -> tuple[str, str]:
        scope = p.get("scope") or {"type": "default"}
        return (str(sorted(scope.items())), str(p.get("language_code") or ""))

    def _m_setmycommands(self, p: dict) -> bool:
        commands = p.get("commands")
        if not isinstance(commands, list):
            raise bad_request("can't parse commands JSON object")
        self.commands[self._commands_key(p)] = commands
        return True

    def _m_deletemycommands(self, p: dict) -> bool:
        self.commands.pop(self._commands_key(p), None)
        return True

    def _m_getmycommands(self, p: dict) -> list:
        return self.commands.get(self._commands_key(p), [])

    def _m_sendmessage(self, p: dict) -> dict:
        if p.get("receiver_user_id") is not None or p.get("callback_query_id") is not None:
            return self._send_ephemeral(p)
        chat = self._target_chat(p)
        self._may_send(chat, "text messages")
        self._topic_open(chat, p)
        text, html, entities = self._render(p, "text", 4096)
        markup = self._markup(p)
        msg = self.store_message(
            chat, from_bot=True, sender_id=self.bot_id, text=text, html=html,
            entities=entities, reply_markup=markup, thread_id=p.get("message_thread_id"),
            reply_to=self._reply_to(p),
        )
        self._add_log("send", msg)
        return self.message_dict(msg)

    def _m_sendphoto(self, p: dict) -> dict:
        chat = self._target_chat(p)
        self._may_send(chat, "photos")
        self._topic_open(chat, p)
        photo = p.get("photo")
        if photo is None or photo == "" or photo == b"":
            raise bad_request("there is no photo in the request")
        caption, html, entities = self._render(p, "caption", 1024)
        markup = self._markup(p)
        msg = self.store_message(
            chat, from_bot=True, sender_id=self.bot_id, text=caption, html=html,
            entities=entities, reply_markup=markup, thread_id=p.get("message_thread_id"),
            kind="photo", photo=photo, reply_to=self._reply_to(p),
        )
        self._add_log("photo", msg)
        return self.message_dict(msg)

    def _m_editmessagetext(self, p: dict) -> dict:
        chat, msg = self._editable(p)
        if msg.kind != "text":
            raise bad_request("there is no text in the message to edit")
        text, html, entities = self._render(p, "text", 4096)
        markup = self._markup(p)
        if text == msg.text and entities == msg.entities and markup == msg.reply_markup:
            raise bad_request(_NOT_MODIFIED)
        msg.text, msg.html, msg.entities, msg.reply_markup = text, html, entities, markup
        msg.edits += 1
        msg.edit_date = int(time.time())
        self._add_log("edit", msg)
        return self.message_dict(msg)

    def _m_editmessagereplymarkup(self, p: dict) -> dict:
        chat, msg = self._editable(p)
        markup = self._markup(p)
        if markup == msg.reply_markup:
            raise bad_request(_NOT_MODIFIED)
        msg.reply_markup = markup
        msg.edits += 1
        msg.edit_date = int(time.time())
        self._add_log("edit", msg, text="")
        return self.message_dict(msg)

    def _m_deletemessage(self, p: dict) -> bool:
        chat = self._target_chat(p)
        msg = chat.messages.get(p.get("message_id"))  # type: ignore[arg-type]
        if msg is None or msg.deleted:
            raise bad_request("message to delete not found")
        if not msg.from_bot and chat.type != "private" and not chat.bot_admin:
            raise bad_request("message can't be deleted")
        msg.deleted = True
        self.log.append(LogEntry("delete", chat.id, msg.message_id, msg.text))
        return True

    def _m_answercallbackquery(self, p: dict) -> bool:
        query_id = str(p.get("callback_query_id") or "")
        query = self._queries.get(query_id)
        if query is None or query_id in self._answers:
            raise bad_request(
                "query is too old and response timeout expired or query ID is invalid"
            )
        text = p.get("text")
        if text is not None and len(str(text)) > 200:
            raise bad_request("MESSAGE_TOO_LONG")
        answer = {"text": text, "show_alert": bool(p.get("show_alert")),
                  "url": p.get("url"), "cache_time": p.get("cache_time")}
        self._answers[query_id] = answer
        user = self.users.get(query["user_id"])
        self.log.append(LogEntry(
            "answer", query["chat_id"], query["message_id"], text,
            actor=user.display_name if user else str(query["user_id"]),
            show_alert=answer["show_alert"],
        ))
        return True

    def _m_close(self, p: dict) -> bool:
        return True

    def _m_logout(self, p: dict) -> bool:
        return True

    def _m_setmydescription(self, p: dict) -> bool:
        return True

    def _m_setmyshortdescription(self, p: dict) -> bool:
        return True

    def _m_setchatmenubutton(self, p: dict) -> bool:
        return True
