"""Scripted users and groups for the fake Bot API.

A :class:`FakeUser` produces genuine ``Update`` payloads (messages, callback queries) that
the bot receives through getUpdates.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from .html_check import utf16_len
from .models import FakeChat, LogEntry, StoredMessage, buttons_of

if TYPE_CHECKING:
    from .server import FakeBotAPI


class FakeUser:
    """A Telegram user driven by a test. Create with :meth:`FakeBotAPI.add_user`."""

    def __init__(
        self,
        api: FakeBotAPI,
        user_id: int,
        first_name: str,
        last_name: str | None = None,
        username: str | None = None,
        language_code: str | None = "en",
    ):
        self.api = api
        self.id = user_id
        self.first_name = first_name
        self.last_name = last_name
        self.username = username
        self.language_code = language_code
        self.started = False
        self.blocked = False

    def __repr__(self) -> str:
        return f"FakeUser({self.id}, {self.display_name!r})"

    @property
    def display_name(self) -> str:
        """First and last name, as Telegram clients show them."""
        return f"{self.first_name} {self.last_name}" if self.last_name else self.first_name

    def to_dict(self) -> dict:
        """The full ``User`` object."""
        data: dict[str, Any] = {"id": self.id, "is_bot": False, "first_name": self.first_name}
        if self.last_name:
            data["last_name"] = self.last_name
        if self.username:
            data["username"] = self.username
        if self.language_code:
            data["language_code"] = self.language_code
        return data

    async def send(self, chat_id: int, text: str, thread_id: int | None = None) -> StoredMessage:
        """Send a text message to ``chat_id`` (a group id, or ``self.id`` for the private
        chat). A leading ``/command[@bot]`` gets a ``bot_command`` entity."""
        return self.api.user_message(self, chat_id, text, thread_id)

    async def start_bot(self, payload: str | None = None) -> StoredMessage:
        """Send ``/start`` (``/start payload``) in the private chat; unblocks the bot."""
        self.started = True
        self.blocked = False
        text = "/start" if payload is None else f"/start {payload}"
        return self.api.user_message(self, self.id, text)

    def rename(self, first_name: str, last_name: str | None = None,
               username: str | None = None) -> None:
        """Change the user's names (later updates carry the new ones)."""
        self.first_name, self.last_name, self.username = first_name, last_name, username
        chat = self.api.chats.get(self.id)
        if chat is not None:
            chat.first_name, chat.last_name, chat.username = first_name, last_name, username

    def block_bot(self) -> None:
        """Block the bot: further messages to this user fail with 403."""
        self.blocked = True

    async def press(self, message: StoredMessage, data_or_text: str) -> str:
        """Press an inline button of ``message`` by callback_data or visible text.

        Returns the callback query id (see :meth:`FakeBotAPI.wait_answer`). An ephemeral
        message can be pressed by its receiver only (no one else sees it)."""
        current = self._current(message)
        buttons = buttons_of(current.reply_markup)
        by_data = [(t, d) for t, d in buttons if d == data_or_text]
        by_text = [(t, d) for t, d in buttons if t == data_or_text]
        match = (by_data or by_text or [None])[0]
        if match is None:
            raise LookupError(
                f"no button {data_or_text!r} on message {current.message_id} "
                f"(text {current.text!r}); buttons: {buttons}"
            )
        button = next(
            b for row in current.reply_markup["inline_keyboard"]  # type: ignore[index]
            for b in row if (b.get("text"), b.get("callback_data", b.get("url"))) == match
        )
        if "callback_data" not in button:
            raise LookupError(f"button {match[0]!r} has no callback_data (url button?)")
        return self.api.user_press(self, current, button["callback_data"], label=match[0])

    def _current(self, message: StoredMessage) -> StoredMessage:
        """``message`` as it is now on the fake (raises ``LookupError`` if it is gone, or
        is an ephemeral message of someone else)."""
        if message.is_ephemeral:
            current = self.api.get_ephemeral(message.chat_id, message.ephemeral_id or 0)
            if current is not message:  # (its id may have gone to a newer message since)
                raise LookupError(f"ephemeral message {message.ephemeral_id} in chat "
                                  f"{message.chat_id} does not exist (deleted?)")
            if current.receiver_id != self.id:
                raise LookupError(f"{self.display_name} cannot see ephemeral message "
                                  f"{message.ephemeral_id}: it is for {current.receiver_id}")
            return current
        current = self.api.get_message(message.chat_id, message.message_id)
        if current is None or current.deleted:
            raise LookupError(
                f"message {message.message_id} in chat {message.chat_id} does not exist "
                "(deleted?) - cannot press its buttons"
            )
        return current

    async def press_raw(self, chat_id: int, message_id: int, data: str) -> str:
        """Send a callback query with arbitrary (possibly forged) ``data``."""
        msg = self.api.get_message(chat_id, message_id)
        if msg is None:
            raise LookupError(f"message {message_id} in chat {chat_id} does not exist")
        return self.api.user_press(self, msg, data, label=None)

    async def press_raw_on(self, message: StoredMessage, data: str) -> str:
        """Send a callback query with arbitrary ``data`` from ``message`` (an ephemeral one
        too: a client showing an old keyboard of it)."""
        return self.api.user_press(self, self._current(message), data, label=None)

    async def press_and_settle(
        self, message: StoredMessage, data_or_text: str,
        timeout: float = 15,  # noqa: ASYNC109
        quiet: float = 0.15,
    ) -> dict:
        """Press a button, wait for the bot's answer, then :meth:`FakeBotAPI.settle`."""
        query_id = await self.press(message, data_or_text)
        answer = await self.api.wait_answer(query_id, timeout=timeout)
        await self.api.settle(quiet=quiet, timeout=max(timeout, 30))
        return answer


class UserActionsMixin:
    """The parts of ``FakeBotAPI`` that create users/groups and turn their actions into
    updates."""

    chats: dict[int, FakeChat]
    users: dict[int, FakeUser]
    log: list[LogEntry]
    bot_username: str
    _queries: dict[str, dict]
    _query_counter: int

    def add_user(
        self: FakeBotAPI,
        user_id: int,
        first_name: str,
        last_name: str | None = None,
        username: str | None = None,
        language_code: str | None = "en",
    ) -> FakeUser:
        """Register a user (names may contain markup characters or RTL text)."""
        user = FakeUser(self, user_id, first_name, last_name, username, language_code)
        self.users[user_id] = user
        return user

    def add_group(
        self: FakeBotAPI,
        chat_id: int = -1001234567890,
        title: str = "Test group",
        type: str = "group",  # noqa: A002 - mirrors the Bot API field
        is_forum: bool = False,
        admins: list[int] | tuple[int, ...] = (),
        bot_admin: bool = False,
    ) -> FakeChat:
        """Register a ``group``/``supergroup`` chat. The first admin is the creator."""
        chat = FakeChat(id=chat_id, type=type, title=title, is_forum=is_forum,
                        admins=list(admins), bot_admin=bot_admin)
        self.chats[chat_id] = chat
        return chat

    def migrate_group(
        self: FakeBotAPI, old_id: int, new_id: int, announce: bool = True
    ) -> FakeChat:
        """Upgrade group ``old_id`` to supergroup ``new_id``: later bot calls with
        ``old_id`` get ``ChatMigrated``. With ``announce`` the service messages
        (``migrate_to_chat_id`` / ``migrate_from_chat_id``) are sent as updates."""
        old = self.chats[old_id]
        new = FakeChat(id=new_id, type="supergroup", title=old.title, admins=list(old.admins),
                       bot_admin=old.bot_admin, statuses=dict(old.statuses))
        self.chats[new_id] = new
        if announce:
            sender = old.admins[0] if old.admins else next(iter(self.users), self.bot_id)
            for chat, extra in ((old, {"migrate_to_chat_id": new_id}),
                                (new, {"migrate_from_chat_id": old_id})):
                msg = self.store_message(chat, from_bot=False, sender_id=sender,
                                         kind="service", service=extra)
                self.enqueue_update({"message": self.message_dict(msg)})
        old.migrated_to = new_id
        return new

    def service_message(self: FakeBotAPI, chat_id: int, sender_id: int, fields: dict, *,
                        thread_id: int | None = None, own_thread: bool = False
                        ) -> StoredMessage:
        """Store a service message (``fields``: e.g. ``{"new_chat_title": …}``) and enqueue
        its ``message`` update; ``own_thread``: it opens a forum topic (its thread id is its
        own message id)."""
        chat = self.chats[chat_id]
        msg = self.store_message(chat, from_bot=False, sender_id=sender_id, kind="service",
                                 service=fields, thread_id=thread_id)
        if own_thread:
            msg.thread_id = msg.message_id
        self.enqueue_update({"message": self.message_dict(msg)})
        return msg

    def user_leaves(self: FakeBotAPI, user: FakeUser, chat_id: int,
                    by: FakeUser | None = None) -> StoredMessage:
        """``user`` leaves the group (``by``: an admin removes them): the
        ``left_chat_member`` service message."""
        self.chats[chat_id].statuses[user.id] = "left" if by is None else "kicked"
        return self.service_message(chat_id, (by or user).id,
                                    {"left_chat_member": user.to_dict()})

    def member_update(self: FakeBotAPI, chat_id: int, user: FakeUser, status: str, *,
                      old: str = "member", by: FakeUser | None = None) -> dict:
        """A ``chat_member`` update: ``user``'s status goes from ``old`` to ``status``
        (``left``, ``kicked``, ``member`` …), changed by ``by`` (default: themselves).
        Delivered only when the bot's getUpdates asked for ``chat_member``, as Telegram
        does (and Telegram sends it only to a bot that administers the group)."""
        chat = self.chats[chat_id]
        chat.statuses[user.id] = old
        before = self.member_dict(chat, user.id)
        chat.statuses[user.id] = status
        return self.enqueue_update({"chat_member": {
            "chat": chat.to_dict(), "from": (by or user).to_dict(), "date": int(time.time()),
            "old_chat_member": before, "new_chat_member": self.member_dict(chat, user.id),
        }})

    def bot_membership(self: FakeBotAPI, chat_id: int, status: str, *, by: FakeUser,
                       old: str = "left") -> dict:
        """A ``my_chat_member`` update: the bot's own status in the group goes from ``old``
        to ``status`` (``member``, ``administrator``, ``left``, ``kicked``, ``restricted``),
        changed by ``by`` (who added, promoted, muted or removed it). Telegram sends it without
        being asked (it is not one of the update types ``allowed_updates`` must name). Calls
        to the group fail with 403 while the bot is ``left`` or ``kicked``, as Telegram's do;
        while it is ``restricted`` (muted) its sends fail with 400 "not enough rights to send
        text messages to the chat"."""
        chat = self.chats[chat_id]
        chat.statuses[self.bot_id] = old
        before = self.member_dict(chat, self.bot_id)
        chat.statuses[self.bot_id] = status
        chat.bot_admin = status == "administrator"
        return self.enqueue_update({"my_chat_member": {
            "chat": chat.to_dict(), "from": by.to_dict(), "date": int(time.time()),
            "old_chat_member": before, "new_chat_member": self.member_dict(chat, self.bot_id),
        }})

    def create_topic(self: FakeBotAPI, chat_id: int, name: str, by: FakeUser) -> int:
        """``by`` opens a forum topic (``forum_topic_created``); returns its thread id."""
        self.chats[chat_id].is_forum = True
        msg = self.service_message(chat_id, by.id, {"forum_topic_created": {
            "name": name, "icon_color": 7322096}}, own_thread=True)
        self.chats[chat_id].topics[msg.message_id] = name
        return msg.message_id

    def edit_topic(self: FakeBotAPI, chat_id: int, thread_id: int, name: str,
                   by: FakeUser) -> StoredMessage:
        """``by`` renames a forum topic (``forum_topic_edited``)."""
        self.chats[chat_id].topics[thread_id] = name
        return self.service_message(chat_id, by.id, {"forum_topic_edited": {"name": name}},
                                    thread_id=thread_id)

    def rename_group(self: FakeBotAPI, chat_id: int, title: str,
                     by: FakeUser) -> StoredMessage:
        """``by`` changes the group's title (``new_chat_title``)."""
        self.chats[chat_id].title = title
        return self.service_message(chat_id, by.id, {"new_chat_title": title})

    def user_message(
        self: FakeBotAPI, user: FakeUser, chat_id: int, text: str, thread_id: int | None = None
    ) -> StoredMessage:
        """Store a message from ``user`` and enqueue the ``message`` update."""
        if chat_id == user.id:
            chat = self.private_chat(user)
            user.started, user.blocked = True, False
        else:
            chat = self.chats.get(chat_id)
            if chat is None or chat.type == "private":
                raise LookupError(f"unknown chat {chat_id}: use api.add_group() first")
            if chat.migrated_to is not None:
                raise LookupError(f"chat {chat_id} migrated to {chat.migrated_to}")
        entities = []
        if text.startswith("/"):
            command = text.split(maxsplit=1)[0]
            entities.append({"type": "bot_command", "offset": 0, "length": utf16_len(command)})
        msg = self.store_message(chat, from_bot=False, sender_id=user.id, text=text,
                                 entities=entities, thread_id=thread_id)
        self.log.append(LogEntry("user", chat.id, msg.message_id, text, actor=user.display_name))
        self.enqueue_update({"message": self.message_dict(msg)})
        return msg

    def user_press(
        self: FakeBotAPI, user: FakeUser, msg: StoredMessage, data: str, label: str | None
    ) -> str:
        """Enqueue a ``callback_query`` update for ``msg``; returns the query id."""
        self._query_counter += 1
        query_id = str(4_800_000_000_000_000_000 + self._query_counter)
        self._queries[query_id] = {"user_id": user.id, "chat_id": msg.chat_id,
                                   "message_id": msg.message_id, "data": data,
                                   "ephemeral_id": msg.ephemeral_id}
        self.log.append(LogEntry("press", msg.chat_id, msg.message_id,
                                 label if label is not None else data, actor=user.display_name,
                                 receiver=msg.receiver_id, ephemeral_id=msg.ephemeral_id))
        self.enqueue_update({"callback_query": {
            "id": query_id,
            "from": user.to_dict(),
            "message": self.message_dict(msg),
            "chat_instance": str(abs(msg.chat_id) * 7919 % 10**18),
            "data": data,
        }})
        return query_id
