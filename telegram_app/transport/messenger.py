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
# (Messenger._call uses do_api_request for these on purpose; PTB asks for the named methods)
warnings.filterwarnings("ignore", message=r"Please use 'Bot\.(sendMessage|editMessageText)'",
                        category=PTBUserWarning)
RETRY_DELAY = 0.3  # before the one retry after a passing fault: short, as a handler waits
EditResult = Literal["ok", "gone", "failed"]
SendFailure = Literal["lost", "refused"]
T = TypeVar("T")


class ChatEvents(Protocol):
    """Who hears what Telegram said of a chat while a message went out (the match service):
    the messenger reports it upward instead of knowing the layer above."""

    async def migrate_chat(self, old_chat_id: int, new_chat_id: int) -> None:
        """The group ``old_chat_id`` became the supergroup ``new_chat_id``."""

    async def set_can_message(self, user_id: int, value: bool) -> None:
        """Private messages reach ``user_id`` (``False``: a 403, they blocked or never started
        the bot)."""


class Messenger:
    def __init__(self, bot: Bot, chats: ChatEvents) -> None:
        self.bot = bot
        self.chats = chats
        # What each message shows: an unchanged edit is not sent (refused; costs flood budget)
        self._shown: OrderedDict[tuple[int, int], int] = OrderedDict()
        self._moved: dict[int, int] = {}  # group id -> supergroup id, as Telegram told us
        # What each ephemeral message shows, by (group, receiver, ephemeral message id)
        self._shown_ephemeral: OrderedDict[tuple[int, int, int], int] = OrderedDict()

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

    def _remember(self, chat_id: int, message_id: int, content: int) -> None:
        self._shown[(chat_id, message_id)] = content
        self._shown.move_to_end((chat_id, message_id))
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
        """A chat member's status (``"creator"``, ``"member"`` …), or ``None`` on failure."""
        try:
            member = await self._retrying(lambda: self.bot.get_chat_member(chat_id, user_id),
                                          repeatable=True)
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
        """Its id, ``"lost"`` (surely not arrived) or ``"refused"`` (for good, or may have)."""
        for _attempt in range(2):
            try:
                reply = None if reply_to is None else ReplyParameters(
                    message_id=reply_to, allow_sending_without_reply=True)
                sent = await self._retrying(partial(
                    self._call, "sendMessage", chat_id=chat_id, text=text, reply_markup=markup,
                    message_thread_id=thread_id or None, reply_parameters=reply), repeatable=False)
                message_id = int(sent["message_id"])
                # (the rate limiter sends to the supergroup what was queued for its group)
                self._remember(int(sent["chat"]["id"]), message_id, _content(text, markup))
                return message_id
            except ChatMigrated as exc:
                await self.migrated(chat_id, exc.new_chat_id)
                chat_id, reply_to = exc.new_chat_id, None  # (a message id of the group)
            except Forbidden as exc:
                if chat_id > 0:
                    await self.chats.set_can_message(chat_id, False)
                log.info("cannot message %s: %s", chat_id, exc.message)
                return "refused"
            except TelegramError as exc:
                log.warning("sendMessage to %s failed: %s", chat_id, exc)
                lost = isinstance(exc, RetryAfter) or (
                    isinstance(exc, NetworkError) and not isinstance(exc, (BadRequest, TimedOut)))
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
                   markup: InlineKeyboardMarkup | None = None) -> bool:
        """Edit a message in place; ``True`` if it now shows ``text`` (or already did)."""
        return await self.edit_result(chat_id, message_id, text, markup=markup) == "ok"

    async def edit_result(self, chat_id: int, message_id: int | None, text: str, *,
                          markup: InlineKeyboardMarkup | None = None) -> EditResult:
        """``"ok"`` (it shows ``text``), ``"gone"`` (nothing to edit) or ``"failed"``."""
        if message_id is None:
            return "gone"
        content = _content(text, markup)
        if self._shown.get((chat_id, message_id)) == content:
            return "ok"
        try:
            await self._retrying(lambda: self._call(
                "editMessageText", chat_id=chat_id, message_id=message_id, text=text,
                reply_markup=markup), repeatable=True)
            self._remember(chat_id, message_id, content)
            return "ok"
        except BadRequest as exc:
            if "not modified" in exc.message.lower():
                return "ok"
            log.info("editMessageText %s/%s failed: %s", chat_id, message_id, exc.message)
            return "gone"
        except ChatMigrated as exc:
            await self.migrated(chat_id, exc.new_chat_id)
            return "gone"
        except Forbidden as exc:
            if chat_id > 0:
                await self.chats.set_can_message(chat_id, False)
            log.info("cannot edit for %s: %s", chat_id, exc.message)
            return "gone"
        except TelegramError as exc:
            log.warning("editMessageText %s/%s failed: %s", chat_id, message_id, exc)
            return "failed"

    async def edit_markup(self, chat_id: int, message_id: int | None,
                          markup: InlineKeyboardMarkup | None) -> bool:
        """Replace only a message's inline keyboard (``False`` for no message)."""
        if message_id is None:
            return False
        self._shown.pop((chat_id, message_id), None)  # its text is not known here
        try:
            await self._retrying(lambda: self.bot.edit_message_reply_markup(
                chat_id=chat_id, message_id=message_id, reply_markup=markup), repeatable=True)
            return True
        except BadRequest as exc:
            return "not modified" in exc.message.lower()
        except TelegramError as exc:
            log.warning("editMessageReplyMarkup %s/%s failed: %s", chat_id, message_id, exc)
            return False

    async def delete(self, chat_id: int, message_id: int) -> bool:
        """Delete a message; ``True`` unless it stays (gone already counts as deleted; a bot
        may not delete a message older than 48 hours: it stays)."""
        self._shown.pop((chat_id, message_id), None)
        try:
            await self._retrying(lambda: self._call(
                "deleteMessage", chat_id=chat_id, message_id=message_id), repeatable=True)
            return True
        except BadRequest as exc:
            log.info("deleteMessage %s/%s failed: %s", chat_id, message_id, exc.message)
            return "not found" in exc.message.lower()
        except TelegramError as exc:
            log.warning("deleteMessage %s/%s failed: %s", chat_id, message_id, exc)
            return False

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
        for the whole group) is deleted at once and counts as a failure."""
        try:
            sent = await self._retrying(partial(
                self._call, "sendMessage", chat_id=chat_id, text=text, reply_markup=markup,
                message_thread_id=thread_id or None, receiver_user_id=receiver_id,
                callback_query_id=query_id), repeatable=False)
        except ChatMigrated as exc:
            await self.migrated(chat_id, exc.new_chat_id)
            return None
        except TelegramError as exc:
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
        self._remember_ephemeral((chat, receiver_id, ephemeral_id), _content(text, markup))
        return chat, ephemeral_id

    async def edit_ephemeral(self, chat_id: int, receiver_id: int, ephemeral_id: int,
                             text: str, *, markup: InlineKeyboardMarkup | None = None,
                             force: bool = False) -> EditResult:
        """``editEphemeralMessageText``: ``"ok"`` (it shows ``text``, unless the receiver is
        offline), ``"gone"`` (no such message: deleted, expired or never received) or
        ``"failed"`` (a passing fault). Unchanged content is not sent, unless ``force``
        (a press showed that the receiver's copy is older than what was sent)."""
        key = (chat_id, receiver_id, ephemeral_id)
        content = _content(text, markup)
        if not force and self._shown_ephemeral.get(key) == content:
            return "ok"
        try:
            await self._retrying(lambda: self._call(
                "editEphemeralMessageText", chat_id=chat_id, receiver_user_id=receiver_id,
                ephemeral_message_id=ephemeral_id, text=text, reply_markup=markup),
                repeatable=True)
            self._remember_ephemeral(key, content)
            return "ok"
        except BadRequest as exc:
            if "not modified" in exc.message.lower():
                self._remember_ephemeral(key, content)
                return "ok"
            log.info("editEphemeralMessageText %s/%s/%s failed: %s", chat_id, receiver_id,
                     ephemeral_id, exc.message)
            self._shown_ephemeral.pop(key, None)
            return "gone"
        except ChatMigrated as exc:
            await self.migrated(chat_id, exc.new_chat_id)
            return "gone"
        except Forbidden as exc:  # (the bot left the group)
            log.info("cannot edit ephemeral %s/%s: %s", chat_id, ephemeral_id, exc.message)
            return "gone"
        except TelegramError as exc:
            log.warning("editEphemeralMessageText %s/%s/%s failed: %s", chat_id, receiver_id,
                        ephemeral_id, exc)
            return "failed"

    async def edit_ephemeral_markup(self, chat_id: int, receiver_id: int, ephemeral_id: int,
                                    markup: InlineKeyboardMarkup | None) -> bool:
        """``editEphemeralMessageReplyMarkup``: replace only its keyboard (``True``: done)."""
        self._shown_ephemeral.pop((chat_id, receiver_id, ephemeral_id), None)
        try:
            await self._retrying(lambda: self.bot.do_api_request(
                "editEphemeralMessageReplyMarkup", api_kwargs={
                    "chat_id": chat_id, "receiver_user_id": receiver_id,
                    "ephemeral_message_id": ephemeral_id, "reply_markup": markup}),
                repeatable=True)
            return True
        except BadRequest as exc:
            return "not modified" in exc.message.lower()
        except TelegramError as exc:
            log.warning("editEphemeralMessageReplyMarkup %s/%s/%s failed: %s", chat_id,
                        receiver_id, ephemeral_id, exc)
            return False

    async def delete_ephemeral(self, chat_id: int, receiver_id: int, ephemeral_id: int) -> bool:
        """``deleteEphemeralMessage``; ``True`` unless it may still be there (one already
        gone counts as deleted)."""
        self._shown_ephemeral.pop((chat_id, receiver_id, ephemeral_id), None)
        try:
            await self._retrying(lambda: self.bot.do_api_request(
                "deleteEphemeralMessage", api_kwargs={
                    "chat_id": chat_id, "receiver_user_id": receiver_id,
                    "ephemeral_message_id": ephemeral_id}), repeatable=True)
            return True
        except BadRequest as exc:
            log.info("deleteEphemeralMessage %s/%s/%s failed: %s", chat_id, receiver_id,
                     ephemeral_id, exc.message)
            return "not found" in exc.message.lower()
        except (ChatMigrated, Forbidden) as exc:  # (not in that group any more: nothing left)
            log.info("cannot delete ephemeral %s/%s: %s", chat_id, ephemeral_id, exc)
            return True
        except TelegramError as exc:
            log.warning("deleteEphemeralMessage %s/%s/%s failed: %s", chat_id, receiver_id,
                        ephemeral_id, exc)
            return False

    def _remember_ephemeral(self, key: tuple[int, int, int], content: int) -> None:
        self._shown_ephemeral[key] = content
        self._shown_ephemeral.move_to_end(key)
        while len(self._shown_ephemeral) > SHOWN_CACHE:
            self._shown_ephemeral.popitem(last=False)


def _passing(exc: NetworkError, repeatable: bool) -> bool:
    # (BadRequest is a NetworkError, but final; a timed-out send may have arrived)
    if isinstance(exc, (BadRequest, TimedOut)):
        return False
    cause = exc.__cause__
    if cause is None:  # Telegram answered with a 5xx
        return True
    return repeatable or isinstance(cause, (aiohttp.ClientConnectorError, httpx.ConnectError,
                                            httpx.ConnectTimeout))  # (never connected: not sent)


def _content(text: str, markup: InlineKeyboardMarkup | None) -> int:
    return hash((text, json.dumps(markup.to_dict(), sort_keys=True) if markup else None))
