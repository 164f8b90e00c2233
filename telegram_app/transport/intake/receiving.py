"""Receiving: every update is stored in the inbox before Telegram is told it arrived."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Sequence
from datetime import timedelta
from typing import Any

from telegram import Update
from telegram.error import RetryAfter, TelegramError
from telegram.ext import ExtBot

from league.store.inbox import Inbox, Item
from telegram_app import metrics
from telegram_app.i18n import use_language
from telegram_app.render.common import error_text
from telegram_app.transport.intake.lanes import lane_of
from telegram_app.transport.outage import OutageLog, answerable, is_outage
from telegram_app.transport.update_check import NotAnUpdate, polled_update, unstorable, update_id_of

log = logging.getLogger(__name__)
HOLD_PAUSE = 1.0
"""Seconds ``getUpdates`` waits before it returns when it held updates back (an outage):
Telegram answers the next call with them at once, and the poll must not spin."""
class Received:
    """The updates this process received and has yet to handle: ``fresh[id]`` is ``True`` for
    one stored as new (work), ``False`` for one received during an outage (its sender is
    answered "nothing was changed"); a repeat of a stored update is in neither."""

    def __init__(self, inbox: Inbox, outage: OutageLog, held_for: timedelta) -> None:
        self.inbox = inbox
        self.held_for = held_for  # (no other process replays what this one stored meanwhile)
        self.outage = outage
        self.fresh: dict[int, bool] = {}
        self.storing: set[int] = set()  # (being written to the inbox: not yet in fresh)
        self.started_at: dict[int, float] = {}  # (for the press latency metric)
        self.polling: Callable[[], bool] = lambda: True  # (False: PTB's Updater stopped)

    async def receive(self, updates: Sequence[Update],
                      raw: Sequence[dict[str, Any]] | None = None) -> int:
        """Store ``updates`` (``raw``: their JSON as received); how many of them, from the
        first, Telegram may be told arrived. In an outage only those up to the first with
        nobody to answer "nothing was changed" (it comes again); one a reachable database
        refuses is logged and counted (it would stall the bot); one no database can store is
        refused (:meth:`refuse`). Never raises."""
        if not updates:
            return 0
        now = time.monotonic()
        payloads = raw if raw is not None else [u.to_dict() for u in updates]
        refused = {u.update_id for u, p in zip(updates, payloads, strict=True)
                   if unstorable(p)}
        items = [Item(u.update_id, lane_of(u), p)
                 for u, p in zip(updates, payloads, strict=True) if u.update_id not in refused]
        ids = {item.id for item in items}
        self.storing |= ids
        try:
            return await self._store(updates, items, refused, now)
        finally:
            self.storing -= ids

    async def _store(self, updates: Sequence[Update], items: list[Item], refused: set[int],
                     now: float) -> int:
        new: set[int] | None = None  # (None: not stored)
        confirmed = len(updates)
        try:
            new = await self.inbox.store(items, held_for=self.held_for)
            self.outage.ok()
        except Exception as exc:
            if not is_outage(exc):
                log.exception("storing %d updates failed", len(items))
            else:
                self.outage.failed(exc)
                confirmed = next((n for n, u in enumerate(updates)
                                  if not answerable(u) and u.update_id not in refused),
                                 len(updates))
        for update in updates[:confirmed]:
            uid = update.update_id
            if uid in refused:
                await self.refuse(update)
            elif new is None and answerable(update):
                self.fresh[uid] = False
            elif new is not None and uid in new:
                self.fresh[uid], self.started_at[uid] = True, now
        return confirmed

    @staticmethod
    async def refuse(update: Update) -> None:
        """Drop an update that cannot be stored: one warning (its id only), and a press is
        told "That button is not valid." in its presser's language."""
        log.warning("update %d refused: it holds a character no database can store (U+0000 "
                    "or an unpaired surrogate)", update.update_id)
        query = update.callback_query
        if query is None:
            return
        try:
            with use_language(query.from_user.language_code if query.from_user else None):
                await query.answer(error_text("bad_button"), show_alert=True)
        except TelegramError as exc:
            log.info("could not answer a refused press: %s", exc)


class InboxBot(ExtBot):
    """The bot: ``getUpdates`` stores what it fetched in the inbox before returning it, and
    every Bot API call is counted for the metrics.

    A fetched item that is no update (the webhook's rules, :func:`.update_check.polled_update`)
    is one warning, neither stored nor handled, as a webhook body would be: PTB reads it as its
    bare ``update_id`` (else one such item fails the whole batch, which is fetched again and
    again and nothing after it is ever handled), and it is returned to be confirmed by the next
    offset, not to be handled (the intake drops what it did not store)."""

    __slots__ = ("_ignored", "_raw", "_received")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._received: Received | None = None
        self._raw: list[Any] | None = None  # the last getUpdates's JSON
        self._ignored: set[int] = set()  # ids of its items that are no update

    async def initialize(self) -> None:
        try:
            await super().initialize()
        except BaseException:
            # PTB shuts a bot's HTTP clients down only once it has initialized; a refused
            # getMe here must not leave aiohttp's sessions open ("Unclosed client session")
            await asyncio.gather(*(r.shutdown() for r in self._request),
                                 return_exceptions=True)
            raise

    def attach(self, received: Received) -> None:
        """Store fetched updates through ``received`` from now on."""
        self._received = received

    async def get_updates(self, *args: Any, **kwargs: Any) -> tuple[Update, ...]:
        """Fetch updates, store them (as Telegram sent them: the JSON ``_do_post`` saw), and
        return those Telegram may be told arrived: PTB's Updater
        (``telegram/ext/_updater.py``, ``_start_polling``) puts what this returns in the
        update queue and confirms them with its next call's offset; what this does not
        return stays on Telegram's side. So when storing fails (an outage), only the prefix
        :meth:`Received.receive` counts is returned, after :data:`HOLD_PAUSE`. Once the
        Updater stops (``Received.polling``), nothing is stored: see below."""
        self._raw, self._ignored = None, set()
        updates = await super().get_updates(*args, **kwargs)
        ignored, self._ignored = self._ignored, set()
        if updates and self._received is not None and not self._received.polling():
            # The Updater stopped: it drops what this returns (its last call, which confirms
            # the batch before, or a poll that ended after the stop began) and Telegram keeps
            # it (not confirmed). Stored as held here, the next process would take it as a
            # repeat once the hold lapsed, after newer updates; unstored, it comes as new.
            return updates
        if updates and self._received is not None:
            raw, self._raw = self._raw, None
            same = raw is not None and len(raw) == len(updates) and all(
                isinstance(r, dict) and r.get("update_id") == u.update_id
                for r, u in zip(raw, updates, strict=True))
            kept = [n for n, u in enumerate(updates) if u.update_id not in ignored]
            confirmed = await self._received.receive(
                [updates[n] for n in kept], [raw[n] for n in kept] if raw and same else None)
            if confirmed < len(kept):
                await asyncio.sleep(HOLD_PAUSE)
                return updates[:kept[confirmed]]
        return updates

    def _screen(self, result: list[Any]) -> list[Any]:
        """``getUpdates``'s result with each item that is no update logged and replaced by
        its bare ``update_id`` (its id put in ``_ignored``), or left out if it has none."""
        screened = []
        for item in result:
            try:
                polled_update(item, self)
            except NotAnUpdate as exc:
                log.warning("getUpdates: ignored an item that is no update: %s", exc)
                update_id = update_id_of(item)
                if update_id is not None:
                    self._ignored.add(update_id)
                    screened.append({"update_id": update_id})
                continue
            screened.append(item)
        return screened

    async def _do_post(self, endpoint: str, data: Any, **kwargs: Any) -> Any:
        metrics.API_CALLS.labels(endpoint).inc()
        try:
            result = await super()._do_post(endpoint, data, **kwargs)
            if endpoint == "getUpdates" and isinstance(result, list):
                result = self._raw = self._screen(result)  # (see get_updates)
            return result
        except TelegramError as exc:
            metrics.API_ERRORS.labels(endpoint, type(exc).__name__).inc()
            if isinstance(exc, RetryAfter):
                metrics.RATE_LIMIT_WAITS.inc()
            raise
