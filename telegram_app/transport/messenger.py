"""Bot API calls that tolerate Telegram's failures: logged and reported, never raised."""

from __future__ import annotations

import asyncio
import json
import logging
import warnings
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from functools import partial
from typing import Literal, Protocol, TypeVar

import aiohttp
import httpx
from telegram import Bot, InlineKeyboardMarkup, LinkPreviewOptions, ReplyParameters
from telegram.constants import ParseMode
from telegram.error import (
    BadRequest,
    ChatMigrated,
    Forbidden,
    NetworkError,
    RetryAfter,
    TelegramError,
    TimedOut,
)
from telegram.warnings import PTBUserWarning

from telegram_app.transport.ratelimit import ChatRateLimiter

log = logging.getLogger(__name__)
SHOWN_CACHE = 20_000
NO_PREVIEW = LinkPreviewOptions(is_disabled=True)
# (Messenger uses do_api_request for these on purpose; PTB asks for the named methods)
warnings.filterwarnings("ignore", category=PTBUserWarning, message=r"Please use 'Bot\.("
                        r"sendMessage|editMessageText|editMessageReplyMarkup|deleteMessage)'")
PLACEHOLDER = "🎴"
"""What an ephemeral send shows until the Bot API server proved it knows ephemeral messages
(:meth:`Messenger.send_ephemeral`): nothing of a game."""
RETRY_DELAY = 0.3  # before the one retry after a passing fault: short, as a handler waits
EditResult = Literal["ok", "gone", "failed"]
SendFailure = Literal["lost", "refused", "denied"]
T = TypeVar("T")
Key = tuple[int, ...]  # a message: (chat, message id) or (group, receiver, ephemeral id)


class ChatEvents(Protocol):
    """Who hears what Telegram said of a chat while a message went out (the match service):
    the messenger reports it upward instead of knowing the layer above."""

    async def migrate_chat(self, old_chat_id: int, new_chat_id: int) -> None:
        """The group ``old_chat_id`` became the supergroup ``new_chat_id``."""

    async def set_can_message(self, user_id: int, value: bool) -> None:
        """Private messages reach ``user_id`` (``False``: a 403, they blocked or never started
        the bot)."""

    async def set_bot_present(self, chat_id: int, present: bool) -> None:
        """Whether the bot is in group ``chat_id`` (``False``: a 403 there, it was removed)."""


class Messenger:
    def __init__(self, bot: Bot, chats: ChatEvents) -> None:
        self.bot = bot
        self.chats = chats
        # What each message shows: an unchanged edit is not sent (refused; costs flood budget)
        self._shown: OrderedDict[Key, int] = OrderedDict()
        self._moved: dict[int, int] = {}  # group id -> supergroup id, as Telegram told us
        # Whether the Bot API server answered a send with an ephemeral message (one older
        # than 10.2 ignores receiver_user_id and posts for the whole group): until then a
        # view goes out as a placeholder first (send_ephemeral)
        self._ephemeral_known = False

    def current_chat(self, chat_id: int) -> int:
        """The id ``chat_id`` has now, if this process saw the group become a supergroup."""
        return self._moved.get(chat_id, chat_id)

    async def migrated(self, old_chat_id: int, new_chat_id: int) -> None:
        """Group ``old_chat_id`` became ``new_chat_id``: its games and queued sends move."""
        self._moved[old_chat_id] = new_chat_id
        limiter = getattr(self.bot, "rate_limiter", None)
        if isinstance(limiter, ChatRateLimiter):
            limiter.migrated(old_chat_id, new_chat_id)
        try:
            await self.chats.migrate_chat(old_chat_id, new_chat_id)
        except Exception:  # the send goes on to the new id; the next report retries the move
            log.exception("moving chat %s to %s failed", old_chat_id, new_chat_id)

    def _remember(self, key: Key, content: int) -> None:
        self._shown[key] = content
        self._shown.move_to_end(key)
        while len(self._shown) > SHOWN_CACHE:
            self._shown.popitem(last=False)

    async def _retrying(self, call: Callable[[], Awaitable[T]], *, repeatable: bool) -> T:
        """``call()``, once more after a passing fault (a send: only if it cannot have arrived)."""
        try:
            return await call()
        except NetworkError as exc:
            if not _passing(exc, repeatable):
                raise
            log.info("Bot API call failed (%s); trying again in %s s", exc, RETRY_DELAY)
        await asyncio.sleep(RETRY_DELAY)
        return await call()

    def _call(self, endpoint: str, **params: object) -> Awaitable[dict]:
        """``sendMessage``/``editMessageText``, answer left JSON (a ``Message`` costs 0.25 ms)."""
        kwargs = {k: v for k, v in params.items() if v is not None}
        return self.bot.do_api_request(endpoint, api_kwargs={
            **kwargs, "parse_mode": ParseMode.HTML, "link_preview_options": NO_PREVIEW})

    async def member_status(self, chat_id: int, user_id: int) -> str | None:
        """A chat member's status (``"creator"``, ``"member"`` …), or ``None`` on failure
        (also for a group that became a supergroup, which it notes: :meth:`current_chat`)."""
        try:
            member = await self._retrying(lambda: self.bot.get_chat_member(chat_id, user_id),
                                          repeatable=True)
        except ChatMigrated as exc:  # (a keyboard left in the group: current_chat knows now)
            await self.migrated(chat_id, exc.new_chat_id)
            return None
        except TelegramError as exc:
            log.info("getChatMember %s/%s failed: %s", chat_id, user_id, exc)
            return None
        return member.status

    async def send(self, chat_id: int, text: str, *, thread_id: int = 0,
                   markup: InlineKeyboardMarkup | None = None,
                   reply_to: int | None = None) -> int | None:
        result = await self.send_result(chat_id, text, thread_id=thread_id, markup=markup,
                                        reply_to=reply_to)
        return result if isinstance(result, int) else None

    async def send_result(self, chat_id: int, text: str, *, thread_id: int = 0,
                          markup: InlineKeyboardMarkup | None = None,
                          reply_to: int | None = None) -> int | SendFailure:
        """Its id, ``"lost"`` (surely not arrived), ``"denied"`` (a Bad Request: refused for
        good, not arrived; the bot may not send messages there — an admin muted it —, no
        such chat …) or ``"refused"`` (the bot is out of the group, recorded; or it may have
        arrived: a timeout). Refused by a closed forum topic: to General (:func:`_topic_closed`)."""
        for _attempt in range(3):
            try:
                reply = None if reply_to is None else ReplyParameters(
                    message_id=reply_to, allow_sending_without_reply=True)
                sent = await self._retrying(partial(
                    self._call, "sendMessage", chat_id=chat_id, text=text, reply_markup=markup,
                    message_thread_id=thread_id or None, reply_parameters=reply), repeatable=False)
                message_id = int(sent["message_id"])
                # (the rate limiter sends to the supergroup what was queued for its group)
                self._remember((int(sent["chat"]["id"]), message_id), _content(text, markup))
                return message_id
            except ChatMigrated as exc:
                await self.migrated(chat_id, exc.new_chat_id)
                chat_id, reply_to = exc.new_chat_id, None  # (a message id of the group)
            except Forbidden as exc:
                await self._forbidden("sendMessage", (chat_id,), exc)
                return "refused"
            except TelegramError as exc:
                if _topic_closed(exc, thread_id):
                    thread_id, reply_to = 0, None  # (a reply would land in the topic)
                    continue
                log.warning("sendMessage to %s failed: %s", chat_id, exc)
                if isinstance(exc, BadRequest):
                    return "denied"
                lost = isinstance(exc, RetryAfter) or (
                    isinstance(exc, NetworkError) and not isinstance(exc, TimedOut))
                return "lost" if lost else "refused"
        return "refused"  # migrated twice: not a passing fault

    async def send_photo(self, chat_id: int, png: bytes, caption: str, *,
                         thread_id: int = 0) -> int | None:
        try:
            message = await self._retrying(lambda: self.bot.send_photo(
                chat_id, png, caption=caption, parse_mode=ParseMode.HTML,
                message_thread_id=thread_id or None), repeatable=False)
            return message.message_id
        except TelegramError as exc:
            if _topic_closed(exc, thread_id):
                return await self.send_photo(chat_id, png, caption)
            log.warning("sendPhoto to %s failed: %s", chat_id, exc)
            return None

    async def create_topic(self, chat_id: int, name: str) -> int | None:
        """``createForumTopic``: open a topic named ``name`` in forum ``chat_id``; its message
        thread id, or ``None`` on any refusal or failure (not a forum, the bot may not manage
        topics, removed from the group, an outage): the caller keeps to the thread it has.
        Never repeated after an answer that may have come too late (a second topic)."""
        try:
            topic = await self._retrying(lambda: self.bot.create_forum_topic(chat_id, name),
                                         repeatable=False)
        except ChatMigrated as exc:  # (a forum is a supergroup already: hardly ever)
            await self.migrated(chat_id, exc.new_chat_id)
            return None
        except TelegramError as exc:
            log.info("createForumTopic in %s failed: %s", chat_id, exc)
            return None
        return topic.message_thread_id

    async def edit(self, chat_id: int, message_id: int | None, text: str, *,
                   markup: InlineKeyboardMarkup | None = None) -> EditResult:
        """``"ok"`` (it shows ``text``), ``"gone"`` (nothing to edit) or ``"failed"``."""
        if message_id is None:
            return "gone"
        return await self._edit("editMessageText", (chat_id, message_id), text, markup)

    async def edit_markup(self, chat_id: int, message_id: int | None,
                          markup: InlineKeyboardMarkup | None) -> bool:
        """Replace only a message's inline keyboard (``False`` for no message)."""
        if message_id is None:
            return False
        return await self._edit_markup("editMessageReplyMarkup", (chat_id, message_id), markup)

    async def delete(self, chat_id: int, message_id: int) -> bool:
        """Delete a message; ``True`` unless it stays (gone already counts as deleted; a bot
        may not delete a message older than 48 hours: it stays)."""
        return await self._delete("deleteMessage", (chat_id, message_id))

    # --- ephemeral messages (Bot API 10.2; PTB 22.8 has no method for them) ---------------
    # A message in a group that only its receiver sees. Telegram does not promise that an
    # offline receiver gets it, nor its edits: the caller keeps the truth and redraws.

    async def send_ephemeral(self, chat_id: int, receiver_id: int, text: str, *,
                             thread_id: int = 0, markup: InlineKeyboardMarkup | None = None,
                             query_id: str | None = None) -> tuple[int, int] | None:
        """Send ``text`` in group ``chat_id`` (topic ``thread_id``) for ``receiver_id`` only
        (``query_id``: the callback query that asked for it): ``(the chat it is in, its
        ephemeral_message_id)``, or ``None`` on any failure (the caller falls back). An answer
        that is no ephemeral message (a server that ignored ``receiver_user_id`` posted it
        for the whole group) is deleted at once and counts as a failure. Until the server
        has once answered with an ephemeral message, what goes out is only
        :data:`PLACEHOLDER`, and ``text`` is edited in once it proved to be ephemeral: a
        server that does not know them never shows the group a player's view."""
        known = self._ephemeral_known
        try:
            sent = await self._retrying(partial(
                self._call, "sendMessage", chat_id=chat_id,
                text=text if known else PLACEHOLDER, reply_markup=markup if known else None,
                message_thread_id=thread_id or None, receiver_user_id=receiver_id,
                callback_query_id=query_id), repeatable=False)
        except ChatMigrated as exc:
            await self.migrated(chat_id, exc.new_chat_id)
            return None
        except TelegramError as exc:
            if _topic_closed(exc, thread_id):
                return await self.send_ephemeral(chat_id, receiver_id, text, markup=markup,
                                                 query_id=query_id)
            log.info("ephemeral sendMessage to %s for %s failed: %s", chat_id, receiver_id, exc)
            return None
        chat = int(sent["chat"]["id"])
        ephemeral_id = sent.get("ephemeral_message_id")
        if not isinstance(ephemeral_id, int) or isinstance(ephemeral_id, bool):
            log.warning("sendMessage to %s for %s was no ephemeral message: deleting it",
                        chat, receiver_id)
            if sent.get("message_id"):
                try:
                    await self.bot.delete_message(chat, int(sent["message_id"]))
                except TelegramError as exc:
                    log.warning("deleting it failed: %s", exc)
            return None
        self._ephemeral_known = True
        if not known:
            self._remember((chat, receiver_id, ephemeral_id), _content(PLACEHOLDER, None))
            if await self.edit_ephemeral(chat, receiver_id, ephemeral_id, text,
                                         markup=markup) != "ok":
                await self.delete_ephemeral(chat, receiver_id, ephemeral_id)
                return None
            return chat, ephemeral_id
        self._remember((chat, receiver_id, ephemeral_id), _content(text, markup))
        return chat, ephemeral_id

    async def edit_ephemeral(self, chat_id: int, receiver_id: int, ephemeral_id: int,
                             text: str, *, markup: InlineKeyboardMarkup | None = None,
                             force: bool = False) -> EditResult:
        """``editEphemeralMessageText``: ``"ok"`` (it shows ``text``, unless the receiver is
        offline), ``"gone"`` (no such message: deleted, expired or never received) or
        ``"failed"`` (a passing fault). Unchanged content is not sent, unless ``force``
        (a press showed that the receiver's copy is older than what was sent)."""
        return await self._edit("editEphemeralMessageText", (chat_id, receiver_id, ephemeral_id),
                                text, markup, force=force)

    async def edit_ephemeral_markup(self, chat_id: int, receiver_id: int, ephemeral_id: int,
                                    markup: InlineKeyboardMarkup | None) -> bool:
        """``editEphemeralMessageReplyMarkup``: replace only its keyboard (``True``: done)."""
        return await self._edit_markup("editEphemeralMessageReplyMarkup",
                                       (chat_id, receiver_id, ephemeral_id), markup)

    async def delete_ephemeral(self, chat_id: int, receiver_id: int, ephemeral_id: int) -> bool:
        """``deleteEphemeralMessage``; ``True`` unless it may still be there (one already
        gone counts as deleted, as does one in a group the bot is no longer in)."""
        return await self._delete("deleteEphemeralMessage", (chat_id, receiver_id, ephemeral_id),
                                  left_is_gone=True)

    # --- a message call and what its failures mean: one way for ordinary and ephemeral ones --
    # ``key`` names the message: ``(chat, message id)`` or ``(group, receiver, ephemeral id)``.
    # A log line names the method and the key, never the text, keyboard or a secret.

    async def _edit(self, method: str, key: Key, text: str,
                    markup: InlineKeyboardMarkup | None, *, force: bool = False) -> EditResult:
        """Edit message ``key`` to show ``text`` and ``markup``, unless it shows them already
        and not ``force``."""
        chat_id, content = key[0], _content(text, markup)
        if not force and self._shown.get(key) == content:
            return "ok"
        try:
            await self._retrying(partial(self._call, method, **_ids(key), text=text,
                                         reply_markup=markup), repeatable=True)
        except BadRequest as exc:
            if "not modified" not in exc.message.lower():
                log.info("%s %s failed: %s", method, _named(key), exc.message)
                self._shown.pop(key, None)
                return "gone"
        except ChatMigrated as exc:
            await self.migrated(chat_id, exc.new_chat_id)
            return "gone"
        except Forbidden as exc:
            await self._forbidden(method, key, exc)
            return "gone"
        except TelegramError as exc:
            log.warning("%s %s failed: %s", method, _named(key), exc)
            return "failed"
        self._remember(key, content)
        return "ok"

    async def _edit_markup(self, method: str, key: Key,
                           markup: InlineKeyboardMarkup | None) -> bool:
        """Replace only message ``key``'s keyboard; ``True``: it shows ``markup``."""
        self._shown.pop(key, None)  # its text is not known here
        try:
            await self._retrying(partial(self.bot.do_api_request, method, api_kwargs={
                **_ids(key), "reply_markup": markup}), repeatable=True)
        except BadRequest as exc:
            return "not modified" in exc.message.lower()
        except Forbidden as exc:
            await self._forbidden(method, key, exc)
            return False
        except TelegramError as exc:
            log.warning("%s %s failed: %s", method, _named(key), exc)
            return False
        return True

    async def _delete(self, method: str, key: Key, *, left_is_gone: bool = False) -> bool:
        """Delete message ``key``; ``left_is_gone``: it went with the chat once the bot is out
        of it (ChatMigrated, Forbidden)."""
        self._shown.pop(key, None)
        try:
            await self._retrying(partial(self.bot.do_api_request, method, api_kwargs=_ids(key)),
                                 repeatable=True)
        except BadRequest as exc:
            log.info("%s %s failed: %s", method, _named(key), exc.message)
            return "not found" in exc.message.lower()
        except Forbidden as exc:
            await self._forbidden(method, key, exc)
            return left_is_gone
        except TelegramError as exc:
            if left_is_gone and isinstance(exc, ChatMigrated):
                log.info("cannot %s %s: %s", method, _named(key), exc)
                return True
            log.warning("%s %s failed: %s", method, _named(key), exc)
            return False
        return True

    async def _forbidden(self, method: str, key: Key, exc: Forbidden) -> None:
        """Telegram refused a call in chat ``key[0]``: in a private chat, the user blocked
        the bot (or never started it), which the league notes until they come back; in a
        group, the bot is out of it."""
        if key[0] > 0:  # (ephemeral messages are in groups only)
            await self.chats.set_can_message(key[0], False)
        elif len(key) <= 2:  # (a group's own message: its league posts wait for its return)
            await self.chats.set_bot_present(key[0], False)
        log.info("cannot %s %s: %s", method, _named(key), exc.message)


def _passing(exc: NetworkError, repeatable: bool) -> bool:
    # (BadRequest is a NetworkError, but final; a timed-out send may have arrived, and a
    # timed-out edit or delete may be made again: done already, it changes nothing)
    if isinstance(exc, BadRequest):
        return False
    if isinstance(exc, TimedOut):
        return repeatable
    cause = exc.__cause__
    if cause is None:  # Telegram answered with a 5xx
        return True
    return repeatable or isinstance(cause, (  # (never connected: not sent)
        aiohttp.ClientConnectorError, aiohttp.ConnectionTimeoutError, httpx.ConnectError,
        httpx.ConnectTimeout))


def _topic_closed(exc: TelegramError, thread_id: int) -> bool:
    """Whether an admin closed forum topic ``thread_id`` (400 TOPIC_CLOSED: only admins who may
    manage topics post there; edits still work): the send goes to General instead, once (a
    game's new tables and result, an announcement, are not lost; General closed: refused)."""
    return bool(thread_id) and isinstance(exc, BadRequest) and "topic_closed" in exc.message.lower()


def _content(text: str, markup: InlineKeyboardMarkup | None) -> int:
    return hash((text, json.dumps(markup.to_dict(), sort_keys=True) if markup else None))


def _ids(key: Key) -> dict[str, int]:
    """Message ``key`` as the Bot API's parameters name it."""
    names = ("chat_id", "message_id") if len(key) == 2 else (
        "chat_id", "receiver_user_id", "ephemeral_message_id")
    return dict(zip(names, key, strict=True))


def _named(key: Key) -> str:
    return "/".join(map(str, key))
