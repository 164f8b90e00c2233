"""Data kept by the fake Bot API: chats, stored messages, the request record and the log."""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, field
from typing import Any


class ApiError(Exception):
    """A Bot API error response; raised inside method handlers, turned into JSON."""

    def __init__(self, error_code: int, description: str, parameters: dict | None = None):
        super().__init__(f"{error_code} {description}")
        self.error_code = error_code
        self.description = description
        self.parameters = parameters

    def to_json(self) -> dict:
        """The body Telegram would send for this error."""
        body: dict[str, Any] = {
            "ok": False,
            "error_code": self.error_code,
            "description": self.description,
        }
        if self.parameters:
            body["parameters"] = self.parameters
        return body


def bad_request(what: str, parameters: dict | None = None) -> ApiError:
    """Shortcut for ``400 Bad Request: <what>``."""
    return ApiError(400, f"Bad Request: {what}", parameters)


@dataclass
class RecordedRequest:
    """One HTTP request the bot made: lower-cased-insensitive ``method`` as sent, decoded
    ``params`` (uploaded files appear as ``bytes``) and the monotonic ``time``."""

    method: str
    params: dict[str, Any]
    time: float = field(default_factory=time.monotonic)


@dataclass
class LogEntry:
    """One visible event, in order: ``kind`` is send/edit/delete/photo/answer/user/topic (the
    bot opened a forum topic: ``text`` is its name, ``message_id`` its thread id).

    ``actor`` is the user's display name for ``user``/``answer`` entries, ``"bot"`` otherwise.
    ``buttons`` holds the inline keyboard rows as ``[[text, ...], ...]``. An entry of an
    ephemeral message (its send, edits, deletion, and presses of its buttons) has
    ``receiver`` (the one user who sees it) and ``ephemeral_id``; ``message_id`` is 0 then.
    """

    kind: str
    chat_id: int | None
    message_id: int | None
    text: str | None
    buttons: list[list[str]] = field(default_factory=list)
    actor: str = "bot"
    show_alert: bool = False
    receiver: int | None = None
    ephemeral_id: int | None = None

    def seen_by(self, user_id: int | None) -> bool:
        """Whether ``user_id`` (``None``: anyone else in the chat) sees this entry."""
        return self.receiver is None or self.receiver == user_id


@dataclass
class StoredMessage:
    """A message as the fake server currently knows it (text/markup reflect the last edit)."""

    chat_id: int
    message_id: int
    date: int
    from_bot: bool
    sender_id: int
    text: str | None = None
    html: str | None = None
    entities: list[dict] = field(default_factory=list)
    reply_markup: dict | None = None
    thread_id: int | None = None
    edits: int = 0
    edit_date: int | None = None
    deleted: bool = False
    kind: str = "text"  # "text", "photo" or "service"
    photo: bytes | str | None = None
    reply_to: int | None = None
    service: dict | None = None  # extra fields of a service message
    receiver_id: int | None = None  # an ephemeral message's receiver (Bot API 10.2)
    ephemeral_id: int | None = None  # its ephemeral_message_id (message_id is 0 then)
    seq: int = field(default_factory=lambda: next(_ORDER))  # the order messages were made in

    @property
    def is_ephemeral(self) -> bool:
        """Whether only :attr:`receiver_id` sees it."""
        return self.ephemeral_id is not None

    @property
    def caption(self) -> str | None:
        """Photo caption (stored in ``text``)."""
        return self.text if self.kind == "photo" else None


@dataclass
class FakeChat:
    """A group/supergroup (or a user's private chat) known to the fake server.

    ``admins``: user ids, the first one is the creator. ``statuses`` overrides
    getChatMember for single users (e.g. ``{42: "kicked"}``; the bot ``"restricted"``: muted,
    its sends refused). ``bot_admin`` makes the bot an
    administrator (needed to delete other people's messages in groups);
    ``bot_can_manage_topics`` is its ``can_manage_topics`` right then (createForumTopic needs
    both, in a forum). ``topics``: the forum topics opened here (thread id -> name).
    """

    id: int
    type: str
    title: str | None = None
    is_forum: bool = False
    admins: list[int] = field(default_factory=list)
    bot_admin: bool = False
    bot_can_manage_topics: bool = True
    statuses: dict[int, str] = field(default_factory=dict)
    migrated_to: int | None = None
    first_name: str | None = None
    last_name: str | None = None
    username: str | None = None
    next_message_id: int = 1
    messages: dict[int, StoredMessage] = field(default_factory=dict)
    ephemeral: dict[int, StoredMessage] = field(default_factory=dict)
    """Ephemeral messages that exist, by ``ephemeral_message_id`` (freed when deleted)."""
    ephemeral_log: list[StoredMessage] = field(default_factory=list)
    """Every ephemeral message ever sent here, deleted ones included, oldest first."""
    topics: dict[int, str] = field(default_factory=dict)
    """Forum topics opened here (by the bot's createForumTopic or a user), thread id -> name."""
    closed_topics: set[int] = field(default_factory=set)
    """The thread ids of the topics an admin (or the bot) closed: only an administrator who
    may manage topics posts there (:mod:`tests.fakebot.topics`)."""
    general_closed: bool = False
    """Whether the forum's General topic is closed (likewise, for a send without a thread)."""

    def to_dict(self) -> dict:
        """The ``Chat`` object as it appears inside messages."""
        data: dict[str, Any] = {"id": self.id, "type": self.type}
        if self.type == "private":
            data["first_name"] = self.first_name or ""
            if self.last_name:
                data["last_name"] = self.last_name
            if self.username:
                data["username"] = self.username
        else:
            data["title"] = self.title or ""
            if self.is_forum:
                data["is_forum"] = True
        return data

    def to_full_dict(self) -> dict:
        """The ``ChatFullInfo`` object returned by getChat."""
        data = self.to_dict()
        data.update(
            accent_color_id=0,
            max_reaction_count=11,
            accepted_gift_types={
                "unlimited_gifts": False,
                "limited_gifts": False,
                "unique_gifts": False,
                "premium_subscription": False,
                "gifts_from_channels": False,
            },
        )
        return data

    def allocate_id(self) -> int:
        """Next message id in this chat (ids are per chat, starting at 1)."""
        mid = self.next_message_id
        self.next_message_id += 1
        return mid

    def allocate_ephemeral_id(self) -> int:
        """The lowest ephemeral message id not in use: Telegram may reuse the id of a deleted
        (or expired) ephemeral message, and so does the fake, so that a bot which remembers a
        deleted id is caught editing someone else's message."""
        return next(i for i in itertools.count(1) if i not in self.ephemeral)


_ORDER = itertools.count(1)


def buttons_of(markup: dict | None) -> list[tuple[str, str | None]]:
    """Flatten an inline keyboard into ``(text, callback_data or url)`` pairs."""
    if not markup or "inline_keyboard" not in markup:
        return []
    result = []
    for row in markup["inline_keyboard"]:
        for button in row:
            value = button.get("callback_data")
            if value is None:
                value = button.get("url")
            result.append((button.get("text", ""), value))
    return result


def button_rows(markup: dict | None) -> list[list[str]]:
    """Button texts of an inline keyboard, row by row."""
    if not markup or "inline_keyboard" not in markup:
        return []
    return [[b.get("text", "") for b in row] for row in markup["inline_keyboard"]]


def validate_inline_keyboard(markup: Any) -> None:
    """Raise :class:`ApiError` for an inline keyboard Telegram would reject."""
    if not isinstance(markup, dict) or "inline_keyboard" not in markup:
        return
    rows = markup["inline_keyboard"]
    if not isinstance(rows, list) or not all(isinstance(r, list) for r in rows):
        raise bad_request("can't parse reply keyboard markup JSON object")
    count = sum(len(r) for r in rows)
    if count > 100:
        raise bad_request("reply markup is too long")
    for row in rows:
        for button in row:
            if not isinstance(button, dict) or not isinstance(button.get("text"), str):
                raise bad_request(
                    'can\'t parse inline keyboard button: Field "text" must be of type String'
                )
            if not button["text"]:
                raise bad_request("BUTTON_TEXT_INVALID")  # not exact; Telegram varies here
            if "callback_data" in button:
                data = button["callback_data"]
                if not isinstance(data, str) or not 1 <= len(data.encode("utf-8")) <= 64:
                    raise bad_request("BUTTON_DATA_INVALID")
            elif "url" in button:
                url = button["url"]
                if not isinstance(url, str) or not url.startswith(("http://", "https://", "tg://")):
                    raise bad_request("BUTTON_URL_INVALID")
            elif not any(k in button for k in (
                "login_url", "switch_inline_query", "switch_inline_query_current_chat",
                "switch_inline_query_chosen_chat", "callback_game", "pay", "web_app",
                "copy_text",
            )):
                raise bad_request(
                    "can't parse inline keyboard button: Text buttons are unallowed in the "
                    "inline keyboard"
                )
