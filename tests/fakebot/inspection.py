"""Sync and query helpers tests call on the fake Bot API (settle, wait_answer, messages...)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from operator import attrgetter

from .models import FakeChat, RecordedRequest, StoredMessage, buttons_of

_BY_ID = attrgetter("message_id")


class InspectionMixin:
    """Waiting for the bot and looking at what it did; expects the attributes of
    ``FakeBotAPI``."""

    requests: list[RecordedRequest]
    chats: dict[int, FakeChat]
    webhook_targets: list[str]
    busy_checks: list[Callable[[], bool]]
    _webhook_pending: set[int]
    _next_update_id: int
    _delivered_upto: int
    _inflight: int
    _last_activity: float
    _queries: dict[str, dict]
    _answers: dict[str, dict]
    settle_began = 0.0
    """When the last :meth:`settle` began (``time.monotonic()``), for the busy checks."""

    # ------------------------------------------------------------------ sync helpers
    async def settle(self, quiet: float = 0.15, timeout: float = 30) -> None:  # noqa: ASYNC109
        """Wait until every queued update was fetched via getUpdates and no bot request
        (other than a pending long poll) happened for ``quiet`` seconds."""
        self.settle_began = time.monotonic()
        deadline = self.settle_began + timeout
        while True:
            now = time.monotonic()
            undelivered = len(self._webhook_pending) if self.webhook_targets else \
                self._next_update_id - 1 - self._delivered_upto
            if undelivered <= 0 and self._inflight == 0 and now - self._last_activity >= quiet \
                    and not any(busy() for busy in self.busy_checks):
                return
            if now > deadline:
                hint = ""
                if undelivered > 0:
                    hint = (f"{undelivered} update(s) never fetched by getUpdates "
                            "(is the bot polling?); ")
                if any(busy() for busy in self.busy_checks):
                    hint += "the bot is still handling an update; "
                raise TimeoutError(
                    f"settle() timed out after {timeout}s: {hint}{self._inflight} request(s) in "
                    f"flight; last requests: {[r.method for r in self.requests[-5:]]}"
                )
            await asyncio.sleep(0.01)

    async def wait_answer(self, query_id: str, timeout: float = 15) -> dict:  # noqa: ASYNC109
        """Wait for the bot's answerCallbackQuery for ``query_id``; returns the answer dict."""
        deadline = time.monotonic() + timeout
        while query_id not in self._answers:
            if time.monotonic() > deadline:
                query = self._queries.get(query_id)
                raise TimeoutError(
                    f"callback query {query_id!r} (data={query and query['data']!r}) was not "
                    f"answered within {timeout}s; delivered={self._delivered_upto}/"
                    f"{self._next_update_id - 1} updates; last requests: "
                    f"{[r.method for r in self.requests[-5:]]}"
                )
            await asyncio.sleep(0.01)
        return self._answers[query_id]

    # ------------------------------------------------------------------ query helpers
    def calls(self, method: str) -> list[RecordedRequest]:
        """Recorded requests of one method (case-insensitive)."""
        return [r for r in self.requests if r.method.lower() == method.lower()]

    def messages(self, chat_id: int, include_deleted: bool = False, *,
                 viewer: int | None = None) -> list[StoredMessage]:
        """Messages of a chat (bot and user), oldest first, as everyone sees them; with
        ``viewer`` (a user id), as that user sees them: with the ephemeral messages only
        they receive."""
        chat = self.chats.get(chat_id)
        if chat is None:
            return []
        found = sorted(chat.messages.values(), key=_BY_ID)
        if viewer is not None:
            found = sorted(found + self.ephemeral_messages(chat_id, viewer, include_deleted),
                           key=lambda m: m.seq)
        return [m for m in found if include_deleted or not m.deleted]

    def ephemeral_messages(self, chat_id: int, receiver: int | None = None,
                           include_deleted: bool = False) -> list[StoredMessage]:
        """The ephemeral messages of a group (only ``receiver``'s, if given), oldest first."""
        chat = self.chats.get(chat_id)
        if chat is None:
            return []
        return [m for m in chat.ephemeral_log if (receiver is None or m.receiver_id == receiver)
                and (include_deleted or not m.deleted)]

    def get_ephemeral(self, chat_id: int, ephemeral_id: int) -> StoredMessage | None:
        """The ephemeral message of a group that now has this id, or ``None``."""
        chat = self.chats.get(chat_id)
        return chat.ephemeral.get(ephemeral_id) if chat else None

    def bot_messages(self, chat_id: int, *, viewer: int | None = None) -> list[StoredMessage]:
        """Non-deleted messages the bot sent to a chat, oldest first (``viewer``: as
        :meth:`messages`)."""
        return [m for m in self.messages(chat_id, viewer=viewer) if m.from_bot]

    def last_bot_message(self, chat_id: int) -> StoredMessage | None:
        """The newest non-deleted bot message in a chat."""
        found = self.bot_messages(chat_id)
        return found[-1] if found else None

    def find_messages(self, chat_id: int, contains: str) -> list[StoredMessage]:
        """Non-deleted messages whose (plain) text/caption contains ``contains``."""
        return [m for m in self.messages(chat_id) if contains in (m.text or "")]

    def get_message(self, chat_id: int, message_id: int) -> StoredMessage | None:
        """A stored message (deleted ones included) or ``None``."""
        chat = self.chats.get(chat_id)
        return chat.messages.get(message_id) if chat else None

    @staticmethod
    def buttons(message: StoredMessage) -> list[tuple[str, str | None]]:
        """Inline buttons of a message as ``(text, callback_data or url)``."""
        return buttons_of(message.reply_markup)

    def callback_answer(self, query_id: str) -> dict | None:
        """The bot's answer to a callback query (``text``, ``show_alert``...) or ``None``."""
        return self._answers.get(query_id)
