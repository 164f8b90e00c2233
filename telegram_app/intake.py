"""How an update gets from Telegram into a handler: stored, laned, handled once.

- **Receive.** Every update is stored in the league's inbox (:class:`league.inbox.Inbox`)
  before Telegram is told it arrived. Polling: :class:`InboxBot` stores what ``getUpdates``
  returns before returning it; PTB's Updater sends the offset that confirms those updates
  (the last returned ``update_id`` + 1) only with its next ``getUpdates`` call
  (``telegram/ext/_updater.py``, ``_start_polling``'s ``polling_action_cb``), so a kill at
  any instant leaves each fetched update either stored or still on Telegram's side.
  Webhook: :mod:`telegram_app.web` stores before its 200.
- **Deferred store** (polling on PostgreSQL; issue 10: a press's transactions when updates
  arrive one at a time). A button press that is new (its id above any stored one), alone in
  its lane, once the restart's backlog is queued, is handed to its handler *unstored*; the
  commit of the change it causes inserts it, done (:attr:`league.inbox.Work.unstored`), and
  a press that changed nothing is inserted done once handled. The next ``getUpdates`` (the
  one that confirms the batch) first waits for that (:meth:`Intake.settle`), at most
  :data:`DEFER_WAIT` seconds, then stores whatever is still unstored itself; if that store
  meets an outage, ``getUpdates`` returns nothing without asking Telegram, so the offset is
  not sent. A kill at any instant still leaves each press either stored or on Telegram's
  side, and a press's store costs no transaction of its own.
- **Dispatch.** :class:`LaneProcessor` (PTB's ``BaseUpdateProcessor``) handles updates
  concurrently with one update at a time per *lane* (:func:`lane_of`: the game a button
  names, else the chat's topic, a private chat by its user). Updates of one lane start in
  order of arrival (an ``asyncio.Lock`` is first come, first served); lanes wait on nothing
  but their own lock, so one busy group does not hold up another. Across processes the lane is
  held in PostgreSQL too (:meth:`Inbox.lane`).
- **Handle once.** Under the lane, the lane's undone items up to this update are handled in
  order (an earlier one a dead process left, or a restart's backlog); an update already done
  (a repeat, or one another worker handled) is dropped. In polling mode (``shared`` false:
  Telegram answers a second ``getUpdates`` taker with 409 Conflict, so this process is the
  only one) an update this process stored as new, once the first replay has queued the
  restart's backlog, has nothing undone before it in its lane and is no repeat: its lane is
  held in memory only, with no transaction (issue 10: a press's transactions). Webhook
  workers (``shared``) always hold it in the database. The change a handler commits marks
  the item done in its own transaction (:mod:`league.inbox`); otherwise it is marked done
  once the handler returned.
- **Replay.** :func:`replay_job` (a JobQueue job) queues undone items older than a grace
  period that no one here is handling (a restart's backlog, or a killed worker's), marks
  done the items answered with the outage note, and prunes old done items. Its first run
  after a start also answers the button presses of the minute before the start whose item
  is done (:meth:`Intake.answer_owed`: a kill between a move's commit and its answer).
- **Outages.** A database that cannot be reached is met with one warning per outage
  (:class:`telegram_app.outage.OutageLog`) and the outage answer to the sender. Telegram is
  told that an update arrived only if it was stored or its sender was told "nothing was
  changed" (:meth:`Intake.receive`); one with nobody to answer (a departure from the group,
  a migration) is left on Telegram's side, so a kill during the outage loses nothing of
  it: polling returns only the updates before it (:meth:`InboxBot.get_updates`: the offset
  does not move past it), a webhook answers it 503 (:mod:`telegram_app.web`); Telegram
  delivers it again until it is stored. (A press that comes after it in the same
  ``getUpdates`` batch waits for the database too, and is then handled, not refused.)
  What stays in memory is which *stored* updates met the outage while being handled and
  were answered "nothing was changed" (``Intake.abandoned``), to be marked done rather than
  handled once the database is back; a kill during the outage loses that, and the restart
  handles them after all (a bid applied late, though its sender was told nothing changed,
  and their retry then refused as out of date). The README's soak section says why it is
  not kept on disk.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import time
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Sequence
from contextlib import asynccontextmanager
from datetime import timedelta
from typing import Any

from telegram import Update
from telegram.error import RetryAfter, TelegramError
from telegram.ext import Application, BaseUpdateProcessor, ContextTypes, ExtBot

from league.inbox import CURRENT, Inbox, Item, Work
from league.models import utcnow
from telegram_app import metrics
from telegram_app.callbacks import parse
from telegram_app.handlers.common import thread_of
from telegram_app.outage import OutageLog, answer_outage, answerable, is_outage

log = logging.getLogger(__name__)
KEY = "intake"  # bot_data key of the Intake
ANSWER_WINDOW = 60.0
"""Seconds after its arrival that a button press is still answered after a restart. Telegram's
own limit is undocumented (reports say some seconds to a minute); an answer it refuses as too
old is dropped."""
HOLD_PAUSE = 1.0
"""Seconds ``getUpdates`` waits before it returns when it held updates back (an outage):
Telegram answers the next call with them at once, and the poll must not spin."""
DEFER_WAIT = 0.2
"""Seconds the next ``getUpdates`` waits for the presses whose store was deferred to be
stored by their own change's commit (:meth:`Intake.settle`) before it stores the rest itself.
A direct move commits some milliseconds after it arrives; a press that takes longer (one
that changes nothing and answers first, a slow handler) costs at most this once."""


def lane_of(update: Update) -> str:
    """The lane of an update (at most 64 characters): ``g<id>`` for a button that names a
    game, else ``c<chat id>:<topic>`` in a group, ``u<user id>`` in a private chat (or when
    there is no chat at all), ``-`` for an update with neither."""
    query = update.callback_query
    if query is not None:
        data = parse(query.data)
        if data is not None and data.game_id > 0:
            return f"g{data.game_id}"
    chat, user = update.effective_chat, update.effective_user
    if chat is not None and chat.type != "private":
        return f"c{chat.id}:{thread_of(update.effective_message)}"
    if user is not None:
        return f"u{user.id}"
    return f"c{chat.id}:0" if chat is not None else "-"


def kind_of(update: Update) -> str:
    """What an update is, for the metrics."""
    if update.callback_query is not None:
        return "press"
    message = update.message
    if message is not None and message.text is not None:
        return "command" if message.text.startswith("/") else "text"
    return "other"


class Intake:
    """The receive and dispatch side of one bot process (see the module's docstring).
    ``concurrency``: updates handled at once (lanes beyond it wait for a slot);
    ``grace``: seconds an undone item may wait before :func:`replay_job` takes it over;
    ``keep``: how long done items stay before they are pruned."""

    def __init__(self, app: Application, inbox: Inbox, *, concurrency: int = 16,
                 grace: float = 10.0, keep: timedelta = timedelta(days=1),
                 shared: bool = True) -> None:
        self.app = app
        self.inbox = inbox
        # Whether other processes may take this bot's updates too (webhook workers). Polling
        # has one taker by Telegram's rule (a second getUpdates gets 409 Conflict), so there
        # an update this process stored itself, once the restart's backlog is queued, can
        # only be new work whose lane holds nothing undone before it: its lane is held here
        # alone, with no transaction (see handle).
        self.shared = shared
        self.fresh: set[int] = set()       # stored by this process as new, not yet handled
        self._settled = False              # the first replay has queued the backlog
        self.grace = grace
        self.keep = keep
        self.outage = OutageLog()
        self.pending: set[int] = set()     # ids queued or being handled in this process
        self.unstored: set[int] = set()    # received during an outage: answered, not handled
        self.abandoned: set[int] = set()   # answered with the outage note: done once it ends
        self.started_at: dict[int, float] = {}
        self.born = utcnow()  # items received before this are no one's here (a restart's)
        self._owed_answered = False
        self._slots = asyncio.Semaphore(concurrency)
        self._locks: dict[str, list[Any]] = {}  # lane -> [lock, users]
        self._replays = 0
        # Deferred stores (polling on PostgreSQL; see receive and settle): a press handled
        # before it is stored, whose change's commit inserts it done, saving the store's own
        # transaction (issue 10: a press's transactions when updates arrive one at a time).
        self.defers = not shared and inbox.db.dialect == "postgresql"
        self.deferred: dict[int, Work] = {}  # received, handled or not, not yet stored
        self._resolved = asyncio.Event()     # set when a deferred item leaves self.deferred
        self.high_water = 0  # ids up to this may be stored already (a repeat after a restart)

    @property
    def settled(self) -> bool:
        """Whether the first replay has queued the restart's backlog (see :meth:`replay`)."""
        return self._settled

    # --- receive ---------------------------------------------------------------------------
    async def receive(self, updates: Sequence[Update],
                      raw: Sequence[dict[str, Any]] | None = None) -> int:
        """Store ``updates`` (``raw``: their JSON as received, else PTB's ``to_dict()``);
        returns how many of them, from the first, Telegram may now be told arrived. All of
        them once stored. During an outage, the leading ones with somebody to answer
        (:func:`~telegram_app.outage.answerable`: a press, a command, a private text) are
        remembered as unstored, to be answered "nothing was changed" by :meth:`handle`; the
        first with nobody to answer (a departure from a group, a migration) and all after it
        are not counted, so Telegram delivers them again and they are stored once the
        database is back. A refusal of a reachable database (a payload it will not take) is
        logged and counts every update (held back, one would stall the bot for good): the
        answerable ones get the note, the rest are dropped. Never raises."""
        if not updates:
            return 0
        now = time.monotonic()
        payloads = raw if raw is not None else [u.to_dict() for u in updates]
        items = [Item(u.update_id, lane_of(u), p) for u, p in zip(updates, payloads,
                                                                   strict=True)]
        deferred = self._deferrable(updates, items)
        self.high_water = max(self.high_water, *(u.update_id for u in updates))
        arrived = [u.update_id for u in updates if u.update_id not in self.pending]
        for u in updates:
            self.pending.add(u.update_id)
            self.started_at.setdefault(u.update_id, now)
        for item in deferred:
            self.deferred[item.id] = Work(item.id, unstored=item,
                                          on_done=functools.partial(self._stored, item.id))
            self.fresh.add(item.id)
        try:
            if len(deferred) < len(items):  # (the database answered: the outage is over)
                skip = {i.id for i in deferred}
                self.fresh |= await self.inbox.store([i for i in items if i.id not in skip])
                self.outage.ok()
            return len(updates)
        except Exception as exc:
            for item in deferred:  # (stored with the rest or not at all: as the rest)
                self.deferred.pop(item.id, None)
                self.fresh.discard(item.id)
            confirmed = len(updates)
            if not is_outage(exc):
                log.exception("storing %d updates failed", len(items))
            else:
                self.outage.failed(exc)
                confirmed = next((n for n, u in enumerate(updates) if not answerable(u)),
                                 len(updates))
            told = {u.update_id for u in updates[:confirmed]}
            self.unstored.update(u.update_id for u in updates[:confirmed] if answerable(u))
            for uid in arrived:  # held back: nothing of them is this process's to do
                if uid not in told:
                    self.pending.discard(uid)
                    self.started_at.pop(uid, None)
            return confirmed

    def _deferrable(self, updates: Sequence[Update], items: list[Item]) -> list[Item]:
        """The items of a batch whose store waits for their own change's commit: button
        presses (a direct move commits within milliseconds), once the restart's backlog is
        queued (:meth:`replay`), newer than any stored id (no repeat), each alone in its lane
        (nothing before it to wait for, so its commit comes soon), and the only update of its
        lane in the batch."""
        if not self.defers or not self._settled:
            return []
        busy = set(self._locks) | {w.unstored.lane for w in self.deferred.values()
                                   if w.unstored is not None}
        # (a lane with two updates in the batch defers neither: a kill before the first's
        # commit would leave the second stored alone, and the restart would handle it first)
        lanes = Counter(item.lane for item in items)
        return [item for update, item in zip(updates, items, strict=True)
                if update.callback_query is not None and item.id > self.high_water
                and item.id not in self.pending and item.lane not in busy
                and lanes[item.lane] == 1]

    def _stored(self, uid: int) -> None:
        """A deferred item is stored, or needs no store (see :meth:`settle`)."""
        if self.deferred.pop(uid, None) is not None:
            self._resolved.set()

    async def settle(self) -> bool:
        """Before Telegram is told that the last batch arrived (the next ``getUpdates``):
        wait up to :data:`DEFER_WAIT` for its deferred items to be stored by their commits
        (or to need no store: answered "nothing was changed" in an outage), then store the
        rest in one transaction. ``False`` when that store met an outage (after
        :data:`HOLD_PAUSE`): Telegram must not be told yet, and the caller tries again.
        Never raises."""
        deadline = time.monotonic() + DEFER_WAIT
        while True:
            self._resolved.clear()
            left = deadline - time.monotonic()
            if not self.deferred or left <= 0:
                break
            try:
                await asyncio.wait_for(self._resolved.wait(), left)
            except TimeoutError:
                break
        rest = list(self.deferred.values())
        if not rest:
            return True
        try:
            await self.inbox.store([w.unstored for w in rest if w.unstored is not None])
            self.outage.ok()
        except Exception as exc:
            if is_outage(exc):
                self.outage.failed(exc)
                await asyncio.sleep(HOLD_PAUSE)
                return False
            # (as receive: a payload the database refuses would stall the bot for good)
            log.exception("storing %d deferred updates failed", len(rest))
        for work in rest:
            work.unstored = None  # stored: a later commit marks it (an UPDATE)
            self._stored(work.id)
        return True

    # --- dispatch --------------------------------------------------------------------------
    @asynccontextmanager
    async def _local_lane(self, lane: str) -> AsyncIterator[None]:
        entry = self._locks.setdefault(lane, [asyncio.Lock(), 0])
        entry[1] += 1
        try:
            async with entry[0]:
                yield
        finally:
            entry[1] -= 1
            if entry[1] == 0:
                del self._locks[lane]

    async def handle(self, update: Update, coroutine: Awaitable[Any] | None) -> None:
        """Handle ``update`` (``coroutine``: PTB's handling of it) in its lane; see the
        module's docstring."""
        uid = update.update_id
        started = False
        try:
            if uid in self.unstored:
                self.unstored.discard(uid)
                metrics.DROPPED.labels("outage").inc()
                await answer_outage(update)
                return
            lane = lane_of(update)
            # (see __init__: a new update of the one taker needs nothing held in the database)
            alone = not self.shared and self._settled and uid in self.fresh
            async with self._local_lane(lane), self._slots:
                try:
                    async with _only(uid) if alone else self.inbox.lane(lane, uid) as items:
                        if not alone:  # (the database answered; a deferred press asked none)
                            self.outage.ok()
                        if not any(item.id == uid for item in items):
                            metrics.DROPPED.labels("repeat").inc()
                        for item in items:
                            if item.id == uid:
                                # (an outage in an earlier item leaves this one unhandled:
                                # its sender is told so below)
                                started = True
                                if coroutine is not None:  # (the update's id is unique)
                                    await self._run(uid, update, coroutine)
                                coroutine = None
                            else:  # an earlier update of this lane that nobody finished
                                earlier = Update.de_json(item.payload, self.app.bot)
                                await self._run(item.id, earlier,
                                                self.app.process_update(earlier))
                except Exception as exc:
                    if not is_outage(exc):
                        raise
                    self.outage.failed(exc)
                    self.abandoned.add(uid)
                    if not started:
                        metrics.DROPPED.labels("outage").inc()
                        await answer_outage(update)
        finally:
            if coroutine is not None and hasattr(coroutine, "close"):
                coroutine.close()  # never awaited: a repeat, or answered with the outage note
            if uid in self.abandoned:  # (told "nothing was changed": nothing to store)
                self._stored(uid)
            self.fresh.discard(uid)
            self.pending.discard(uid)
            self.started_at.pop(uid, None)

    async def _run(self, uid: int, update: Update, coroutine: Awaitable[Any]) -> None:
        work = self.deferred.get(uid) or Work(uid)
        token = CURRENT.set(work)
        try:
            await coroutine
        finally:
            CURRENT.reset(token)
        kind = kind_of(update)
        metrics.UPDATES.labels(kind).inc()
        begun = self.started_at.get(uid)
        if kind == "press" and begun is not None:
            metrics.PRESS_SECONDS.observe(time.monotonic() - begun)
        if work.failed:
            self.abandoned.add(uid)
        elif work.done:
            self.outage.ok()  # (its change committed: the database answered)
        else:
            if work.unstored is not None:  # (deferred, and it changed nothing)
                await self.inbox.store_done([work.unstored])
                self._stored(uid)
            else:
                await self.inbox.mark_done([uid])

    # --- replay ----------------------------------------------------------------------------
    async def replay(self, *, grace: float | None = None) -> int:
        """Queue the undone items received more than ``grace`` seconds ago (default: the
        intake's) that no one here handles; returns how many were queued."""
        grace = self.grace if grace is None else grace
        if not self._owed_answered:
            answered = await self.answer_owed()
            self._owed_answered = True
            if answered:
                log.info("answered %d button presses a killed process had not answered",
                         answered)
        if self.abandoned:
            done = set(self.abandoned)
            await self.inbox.mark_done(done)
            self.abandoned -= done
        items = await self.inbox.undone(received_before=utcnow() - timedelta(seconds=grace))
        self.outage.ok()
        queued = 0
        for item in items:
            if item.id in self.pending:
                continue
            self.pending.add(item.id)
            await self.app.update_queue.put(Update.de_json(item.payload, self.app.bot))
            queued += 1
        if not self._settled:  # (ids up to the newest stored may come again: not deferred)
            newest = await self.inbox.newest_id()  # (read before high_water: receive raises it)
            self.high_water = max(self.high_water, newest)
        self._replays += 1
        self._settled = True  # (the backlog is queued: later updates come after it)
        if self._replays % 100 == 1:
            pruned = await self.inbox.prune(self.keep)
            if pruned:
                log.info("pruned %d handled updates from the inbox", pruned)
        return queued


    async def answer_owed(self) -> int:
        """Answer (with nothing: the spinner stops) the button presses received before this
        process started, within :data:`ANSWER_WINDOW`, whose item is done: a press whose
        change committed (which marks its item done) just before the process was killed
        never got its ``answerCallbackQuery``, and nothing else would answer it. Which of
        them the dead process did answer is not recorded (that would cost a write per
        press), so each is answered again; Telegram refuses a second answer ("query is too
        old … or query ID is invalid"), which is dropped. Returns how many were accepted."""
        items = await self.inbox.done_since(
            self.born - timedelta(seconds=ANSWER_WINDOW), self.born)
        # (a done item that is pending here is a repeat Telegram delivered again, which
        # handle drops unanswered: a press whose deferred store was its commit, killed before
        # its answer and before the confirming getUpdates; it is answered here too)
        queries = [query["id"] for item in items
                   if isinstance(query := item.payload.get("callback_query"), dict)
                   and query.get("id")]

        async def answer(query_id: str) -> bool:
            try:
                return bool(await self.app.bot.answer_callback_query(query_id))
            except TelegramError as exc:  # answered already, or too old: nothing to do
                log.debug("press %s: %s", query_id, exc)
                return False

        return sum(await asyncio.gather(*(answer(q) for q in queries)))


@asynccontextmanager
async def _only(uid: int) -> AsyncIterator[list[Item]]:
    """The lane's items when only ``uid`` is undone in it (:meth:`Intake.handle`)."""
    yield [Item(uid, "", {})]


async def replay_job(context: ContextTypes.DEFAULT_TYPE) -> None:
    """JobQueue callback: :meth:`Intake.replay` (the first run after a start takes every
    undone item at once: nobody else here handles them yet)."""
    intake: Intake | None = context.application.bot_data.get(KEY)
    if intake is None:
        return
    try:
        first = intake._replays == 0
        queued = await intake.replay(grace=0 if first else None)
        if queued:
            log.info("queued %d received but unhandled updates", queued)
    except Exception as exc:
        if not is_outage(exc):
            raise
        intake.outage.failed(exc)


class LaneProcessor(BaseUpdateProcessor):
    """PTB's update processor for :class:`Intake`: every update goes to
    :meth:`Intake.handle` once :attr:`intake` is set (before: one at a time, as PTB does).
    PTB's own limit (``max_concurrent_updates``) is set high, because an update that waits
    for its lane must not take a slot from another lane; the intake's ``concurrency`` is the
    real limit."""

    def __init__(self) -> None:
        super().__init__(max_concurrent_updates=4096)
        self.intake: Intake | None = None
        self._before = asyncio.Lock()

    async def do_process_update(self, update: object, coroutine: Awaitable[Any]) -> None:
        if self.intake is not None and isinstance(update, Update):
            await self.intake.handle(update, coroutine)
            return
        async with self._before:
            await coroutine

    async def initialize(self) -> None:
        pass

    async def shutdown(self) -> None:
        pass


class InboxBot(ExtBot):
    """The bot: ``getUpdates`` stores what it fetched in the inbox before returning it (see
    the module's docstring), and every Bot API call is counted for the metrics."""

    __slots__ = ("_intake", "_raw")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._intake: Intake | None = None
        self._raw: list[Any] | None = None  # the last getUpdates's JSON

    async def initialize(self) -> None:
        try:
            await super().initialize()
        except BaseException:
            # PTB shuts a bot's HTTP clients down only once it has initialized; a refused
            # getMe here must not leave aiohttp's sessions open ("Unclosed client session")
            await asyncio.gather(*(r.shutdown() for r in self._request),
                                 return_exceptions=True)
            raise

    def attach(self, intake: Intake) -> None:
        """Store fetched updates through ``intake`` from now on."""
        self._intake = intake

    async def get_updates(self, *args: Any, **kwargs: Any) -> tuple[Update, ...]:
        """Fetch updates, store them (as Telegram sent them: the JSON ``_do_post`` saw, not
        PTB's ``to_dict`` again), and return those Telegram may be told arrived: PTB's
        Updater (``telegram/ext/_updater.py``, ``_start_polling``'s ``polling_action_cb``)
        puts what this returns in the update queue and sets its next offset to the last
        one's ``update_id + 1``, which confirms them with the next call; what this does not
        return stays on Telegram's side. So when storing fails (an outage), only the prefix
        :meth:`Intake.receive` counts is returned, after :data:`HOLD_PAUSE`: the updates
        held back come again with the next call, until they are stored."""
        if self._intake is not None and not await self._intake.settle():
            return ()  # (the last batch is not all stored: this call would confirm it)
        self._raw = None
        updates = await super().get_updates(*args, **kwargs)
        if updates and self._intake is not None:
            raw, self._raw = self._raw, None
            same = raw is not None and len(raw) == len(updates) and all(
                isinstance(r, dict) and r.get("update_id") == u.update_id
                for r, u in zip(raw, updates, strict=True))
            confirmed = await self._intake.receive(updates, raw if same else None)
            if confirmed < len(updates):
                await asyncio.sleep(HOLD_PAUSE)
                return updates[:confirmed]
        return updates

    async def _do_post(self, endpoint: str, data: Any, **kwargs: Any) -> Any:
        metrics.API_CALLS.labels(endpoint).inc()
        try:
            result = await super()._do_post(endpoint, data, **kwargs)
            if endpoint == "getUpdates" and isinstance(result, list):
                self._raw = result  # (see get_updates)
            return result
        except TelegramError as exc:
            metrics.API_ERRORS.labels(endpoint, type(exc).__name__).inc()
            if isinstance(exc, RetryAfter):
                metrics.RATE_LIMIT_WAITS.inc()
            raise
