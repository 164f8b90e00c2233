"""Whether a webhook body is a Telegram update the bot can take: strict JSON
(:func:`~telegram_app.transport.webguard.load_json`), an object with an integer ``update_id``,
read by PTB, and every field the bot's code reads of the type Telegram documents. PTB's
``de_json`` checks no type: a chat id that is a list, or a text that is an object, would reach
the handlers and the database and fail there with a traceback, after the update was stored.

Telegram sends only such updates; this keeps anything else (a proxy's mistake, a test, a
sender who knows the secret) out of the inbox (see :mod:`telegram_app.transport.web`). Polling
holds each fetched item to the same rules (:func:`polled_update`, used by
:class:`~telegram_app.transport.intake.receiving.InboxBot`)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from telegram import (
    Chat,
    ChatMember,
    ChatMemberUpdated,
    ForumTopicCreated,
    ForumTopicEdited,
    Message,
    MessageEntity,
    Update,
    User,
)

from telegram_app.transport.intake.lanes import lane_of
from telegram_app.transport.webguard import INT_LIMIT, load_json

NONE = type(None)
UNSTORABLE = re.compile("[\x00\ud800-\udfff]")
"""Characters no database text or JSON can hold (PostgreSQL refuses U+0000 and unpaired
surrogates): an update carrying one is invalid input (forged callback data), not an outage."""


def unstorable(payload: Any) -> bool:
    """Whether any string (key or value) in ``payload`` holds an :data:`UNSTORABLE` character."""
    pending = [payload]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            if UNSTORABLE.search(item):
                return True
        elif isinstance(item, dict):
            pending.extend(item.keys())
            pending.extend(item.values())
        elif isinstance(item, list | tuple):
            pending.extend(item)
    return False



class NotAnUpdate(ValueError):
    """A webhook body that is not a Telegram update (its ``args[0]`` says why, never with
    the body's content)."""


def update_of(body: bytes, bot: Any) -> tuple[Update, dict[str, Any]]:
    """The update in a webhook body, with its JSON; raises :class:`NotAnUpdate`."""
    try:
        raw = load_json(body)
    except ValueError as exc:  # (UnicodeDecodeError and JSONDecodeError are ValueErrors)
        raise NotAnUpdate(f"not JSON ({exc})") from None
    return update_from(raw, bot), raw


def polled_update(item: Any, bot: Any) -> Update:
    """The update in one item of ``getUpdates``'s result (JSON already parsed, leniently, by
    PTB), held to the webhook's rules (:func:`update_of`); raises :class:`NotAnUpdate`."""
    try:
        # (the same strict JSON as a webhook body: no NaN, no integer past 64 bits, no deep
        # nesting)
        load_json(json.dumps(item, allow_nan=False))
    except (ValueError, TypeError, RecursionError) as exc:
        raise NotAnUpdate(f"not JSON ({type(exc).__name__})") from None
    return update_from(item, bot)


def update_from(raw: Any, bot: Any) -> Update:
    """The update in parsed JSON ``raw``: every field the bot reads (:func:`misshapen`) is
    there with Telegram's type; raises :class:`NotAnUpdate`."""
    if not isinstance(raw, dict):
        raise NotAnUpdate(f"a JSON {type(raw).__name__}, not an object")
    if update_id_of(raw) is None:
        raise NotAnUpdate("no update_id that is a 64-bit number")
    try:
        # PTB raises whatever a field of the wrong shape makes it raise (TypeError,
        # KeyError, AttributeError …)
        update = Update.de_json(raw, bot)
    except Exception as exc:
        raise NotAnUpdate(f"unreadable ({type(exc).__name__})") from None
    wrong = misshapen(update)
    if wrong is not None:
        raise NotAnUpdate(f"{wrong} has the wrong type")
    lane_of(update)  # (reads only fields checked above)
    return update


def update_id_of(raw: Any) -> int | None:
    """``raw``'s ``update_id`` if it is an object with one in the database's range."""
    update_id = raw.get("update_id") if isinstance(raw, dict) else None
    if not isinstance(update_id, int) or isinstance(update_id, bool) or \
            not 0 <= update_id < INT_LIMIT:
        return None
    return update_id


def misshapen(update: Update) -> str | None:
    """The name of the first field the bot reads whose type is not Telegram's, or ``None``.

    PTB's ``de_json`` leaves ``None`` where Telegram always sends an object but the body had
    ``null`` or nothing (``"chat": null``, a ``chat_member`` of ``{}``, a press ``"from":
    null``): each such object is checked to be there before any of its fields is read."""
    for name, value, types in _fields(update):
        if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
            return name
    return None


Fields = Iterator[tuple[str, Any, tuple[type, ...]]]
# Each object is yielded (checked) first, and its fields are read only if it is one.


def _fields(update: Update) -> Fields:
    query = update.callback_query
    if query is not None:
        yield "callback_query.id", query.id, (str,)
        yield "callback_query.data", query.data, (str, NONE)
        yield from _user("callback_query.from", query.from_user)
        if isinstance(query.message, Message):
            yield from _message("callback_query.message", query.message)
        elif query.message is not None:  # (an InaccessibleMessage: its chat and id are read)
            yield "callback_query.message.message_id", query.message.message_id, (int,)
            yield from _chat("callback_query.message.chat", query.message.chat)
    for name in ("message", "edited_message", "channel_post", "edited_channel_post"):
        message = getattr(update, name)
        if message is not None:
            yield from _message(name, message)
    for name in ("my_chat_member", "chat_member"):
        change = getattr(update, name)
        if change is not None:
            yield from _member_change(name, change)
    user, chat = update.effective_user, update.effective_chat
    if user is not None:
        yield from _user("effective user", user)
    if chat is not None:
        yield from _chat("effective chat", chat)


def _member_change(name: str, change: object) -> Fields:
    yield name, change, (ChatMemberUpdated,)
    if not isinstance(change, ChatMemberUpdated):
        return
    yield from _chat(f"{name}.chat", change.chat)
    yield from _user(f"{name}.from", change.from_user)
    for side in ("old_chat_member", "new_chat_member"):
        member = getattr(change, side)
        yield f"{name}.{side}", member, (ChatMember,)
        if isinstance(member, ChatMember):
            yield f"{name}.{side}.status", member.status, (str,)
            yield from _user(f"{name}.{side}.user", member.user)


def _message(name: str, message: object) -> Fields:
    yield name, message, (Message,)
    if not isinstance(message, Message):
        return
    yield f"{name}.message_id", message.message_id, (int,)
    yield f"{name}.message_thread_id", message.message_thread_id, (int, NONE)
    yield f"{name}.is_topic_message", message.is_topic_message, (bool, NONE)
    yield f"{name}.text", message.text, (str, NONE)
    yield f"{name}.migrate_to_chat_id", message.migrate_to_chat_id, (int, NONE)
    yield f"{name}.migrate_from_chat_id", message.migrate_from_chat_id, (int, NONE)
    yield from _chat(f"{name}.chat", message.chat)
    for entity in message.entities:
        yield f"{name}.entities", entity, (MessageEntity,)
        if isinstance(entity, MessageEntity):
            yield f"{name}.entities.type", entity.type, (str,)
            yield f"{name}.entities.offset", entity.offset, (int,)
            yield f"{name}.entities.length", entity.length, (int,)
    if message.from_user is not None:
        yield from _user(f"{name}.from", message.from_user)
    if message.sender_chat is not None:
        yield from _chat(f"{name}.sender_chat", message.sender_chat)
    if message.left_chat_member is not None:
        yield from _user(f"{name}.left_chat_member", message.left_chat_member)
    for member in message.new_chat_members:
        yield from _user(f"{name}.new_chat_members", member)
    for topic, kind in (("forum_topic_created", ForumTopicCreated),
                        ("forum_topic_edited", ForumTopicEdited)):
        value = getattr(message, topic)
        if value is not None:
            yield f"{name}.{topic}", value, (kind,)
        if isinstance(value, kind):
            yield f"{name}.{topic}.name", value.name, (str, NONE)
    reply = message.reply_to_message
    if reply is not None:
        yield f"{name}.reply_to_message", reply, (Message,)
    if isinstance(reply, Message):
        yield f"{name}.reply_to_message.message_id", reply.message_id, (int,)
        if reply.from_user is not None:
            yield from _user(f"{name}.reply_to_message.from", reply.from_user)


def _user(name: str, user: object) -> Fields:
    yield name, user, (User,)
    if not isinstance(user, User):
        return
    yield f"{name}.id", user.id, (int,)
    yield f"{name}.is_bot", user.is_bot, (bool,)
    yield f"{name}.first_name", user.first_name, (str,)
    for field in ("last_name", "username", "language_code"):
        yield f"{name}.{field}", getattr(user, field), (str, NONE)


def _chat(name: str, chat: object) -> Fields:
    yield name, chat, (Chat,)
    if not isinstance(chat, Chat):
        return
    yield f"{name}.id", chat.id, (int,)
    yield f"{name}.type", chat.type, (str,)
    for field in ("title", "username", "first_name", "last_name"):
        yield f"{name}.{field}", getattr(chat, field), (str, NONE)
    yield f"{name}.is_forum", chat.is_forum, (bool, NONE)
