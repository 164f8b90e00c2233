"""The sweeper's ticker: PTB's JobQueue calls the league's sweep every few seconds, and the
tournaments' tick (:func:`tournaments_job`) as a job of its own at the same pace: a round's
posts wait for one group's message budget (a forum's new round: a topic and a first message
per table, 20 calls a minute), and the sweep must not wait with them, nor every other
group's timeouts and reminders behind it.

Deadlines live in the database, so the JobQueue is only a ticker: after a restart the first
tick handles every overdue game at once, and several bot processes may tick against one
PostgreSQL database (the sweep claims games with SKIP LOCKED). Messages go out after the
sweep's commit.

A job's work runs in a task of its own that stopping the bot does not cancel: PTB's JobQueue
waits for the jobs running when it stops, but APScheduler cancels one that starts during that
wait, and a sweep cancelled after its commit would lose its reminder or timeout report.
:func:`finish_jobs` (the Application's ``post_stop``) waits for that work instead.

The whole stop has one bound, :data:`FINISH_TIMEOUT` seconds from the Application's stop
(:func:`bounded_stop`): the handlers still running, the jobs and the deliveries end by then or
are cut off, and no Bot API call waits for a rate limit any more (one waiting is given up:
:meth:`ChatRateLimiter.give_up`). An update whose handling was cut off stays undone in the
inbox and is released (:meth:`Intake.release`): the next process handles it at once. A delivery
cut off is shown again by the next sweep (its records are written as it ends).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from typing import Any

from telegram.ext import Application, ContextTypes

from league.match.sweeper import SweepResult
from telegram_app import metrics
from telegram_app.games.registry import ui_for
from telegram_app.i18n import use_language
from telegram_app.render import league as league_text
from telegram_app.render.language import for_chat, for_player
from telegram_app.render.turns import reminder_text
from telegram_app.services import KEY, BotServices, services
from telegram_app.tournaments import announcements
from telegram_app.tournaments.memory import memory_of
from telegram_app.transport.outage import is_outage
from telegram_app.transport.ratelimit import ChatRateLimiter

log = logging.getLogger(__name__)
JOB_NAME = "sweep"
TOURNAMENTS_JOB = "tournaments"
IN_FLIGHT = "jobs_in_flight"  # bot_data key: the set of job tasks not yet finished
# Seconds from the Application's stop to the end of its handlers, jobs and deliveries (the
# rest of the stop, closing connections, takes well under a second): below Docker's default
# stop grace of 10 s, after which it kills (compose.yaml gives 30 s for a slow last getUpdates).
FINISH_TIMEOUT = 6.0
STOP_DEADLINE = "stop_deadline"  # bot_data key: the loop time by which the stop's work ends
CUT_GRACE = 1.0  # seconds PTB's stop gets after the bound, its work cut off, to end

Job = Callable[[ContextTypes.DEFAULT_TYPE], Coroutine[Any, Any, None]]


def uncancelled(work: Job) -> Job:
    """``work`` as a JobQueue callback whose body survives the job's cancellation: it runs in
    its own task, kept in ``bot_data[IN_FLIGHT]`` until it ends, for :func:`finish_jobs`."""

    async def job(context: ContextTypes.DEFAULT_TYPE) -> None:
        running: set[asyncio.Task] = context.application.bot_data.setdefault(IN_FLIGHT, set())
        task = asyncio.get_running_loop().create_task(work(context))
        running.add(task)
        task.add_done_callback(running.discard)
        try:
            await asyncio.shield(task)
        except asyncio.CancelledError:
            # The JobQueue is stopping; the work goes on and post_stop waits for it. Not
            # re-raised: APScheduler would log the stop as the job's error.
            if task.cancelled():
                raise

    job.__name__ = work.__name__
    job.__doc__ = work.__doc__
    return job


def begin_stop(app: Application) -> float:
    """The stop begins (once): its deadline is :data:`FINISH_TIMEOUT` seconds from now, and
    the Bot API calls waiting for a rate limit are given up, as is every later one that would
    have to wait. Returns the deadline (the event loop's time)."""
    deadline: float | None = app.bot_data.get(STOP_DEADLINE)
    if deadline is None:
        deadline = app.bot_data[STOP_DEADLINE] = \
            asyncio.get_running_loop().time() + FINISH_TIMEOUT
        limiter = getattr(app.bot, "rate_limiter", None)
        if isinstance(limiter, ChatRateLimiter) and (waiting := limiter.give_up()):
            log.info("stopping: %d Bot API calls waiting for a rate limit given up", waiting)
    return deadline


def cut_off(app: Application) -> None:
    """The stop's deadline passed: cancel the handlers still running (their updates stay
    undone: :meth:`Intake.release`) and the job work."""
    intake = app.bot_data.get("intake")
    updates = intake.cut_off() if intake is not None else 0
    jobs = [task for task in app.bot_data.get(IN_FLIGHT, ()) if not task.done()]
    for task in jobs:
        task.cancel()
    log.warning("stopping: %d updates and %d jobs were still handled %s s after the stop "
                "began; cut off (the next start handles the updates again)", updates,
                len(jobs), FINISH_TIMEOUT)


async def bounded_stop(app: Application, stop: Callable[[], Coroutine[Any, Any, None]]) -> None:
    """PTB's ``Application.stop`` (``stop``: it waits for every handler, then the JobQueue)
    within the stop's bound (:func:`begin_stop`); the work left at the deadline is cut off
    (:func:`cut_off`). Should PTB's stop still not end (a job outside our wrappers hung), the
    stop goes on without it after :data:`CUT_GRACE`."""
    loop = asyncio.get_running_loop()
    deadline = begin_stop(app)
    stopping: asyncio.Task[None] = loop.create_task(stop())
    done, _ = await asyncio.wait({stopping}, timeout=max(0.0, deadline - loop.time()))
    if not done:
        cut_off(app)
        done, _ = await asyncio.wait({stopping}, timeout=CUT_GRACE)
    if not done:
        log.warning("stopping: the Application's stop did not end; going on without it")
        return
    stopping.result()


async def finish_jobs(app: Application) -> None:
    """Wait, until the stop's deadline (:func:`begin_stop`; :data:`FINISH_TIMEOUT` seconds
    from now without one), for job work a stop interrupted and for the deliveries under way;
    then release the updates this process did not handle (:meth:`Intake.release`). Meant for
    ``post_stop``, while the bot and the database are still open."""
    loop = asyncio.get_running_loop()
    deadline = app.bot_data.get(STOP_DEADLINE) or loop.time() + FINISH_TIMEOUT
    running: set[asyncio.Task] = app.bot_data.get(IN_FLIGHT, set())
    if KEY in app.bot_data:
        await app.bot_data[KEY].presenter.drain(max(0.0, deadline - loop.time()))
    if running:
        _, late = await asyncio.wait(set(running), timeout=max(0.0, deadline - loop.time()))
        for task in late:
            log.warning("a job still ran when the stop's %s s were up; cancelling it",
                        FINISH_TIMEOUT)
            task.cancel()
    intake = app.bot_data.get("intake")
    if intake is not None and (released := await intake.release()):
        log.info("stopping: %d updates not handled here left for the next start", released)


class _NotAnError(logging.Filter):
    """Drops APScheduler's "Error running job" for a job cancelled because the bot stops:
    submitted just before, it is cancelled before it starts, so nothing was lost."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not (record.exc_info and isinstance(record.exc_info[1], asyncio.CancelledError))


_EXECUTOR_LOG = logging.getLogger("apscheduler.executors.default")


class _Skipped(logging.Filter):
    """Makes APScheduler's "skipped: maximum number of running instances reached" a debug
    line: a sweep still running when the next is due (one waiting for a group's message
    budget) makes it wait, by design (``max_instances=1``), nothing for an operator to do."""

    def filter(self, record: logging.LogRecord) -> bool:
        if "maximum number of running instances" in str(record.msg):
            record.levelno, record.levelname = logging.DEBUG, "DEBUG"
            return logging.getLogger(record.name).isEnabledFor(logging.DEBUG)
        return True


_SCHEDULER_LOG = logging.getLogger("apscheduler.scheduler")


def schedule(app: Application, interval: float, league_interval: float) -> None:
    """Run :func:`sweep_job` and :func:`tournaments_job` every ``interval`` seconds and
    :func:`league_job` every ``league_interval`` seconds, the first time as soon as the
    JobQueue starts, however long the start took (overdue turns are handled at once after a
    restart)."""
    if app.job_queue is None:  # the job-queue extra is a dependency; this is a safeguard
        raise RuntimeError("python-telegram-bot's JobQueue is not available")
    if not any(isinstance(f, _NotAnError) for f in _EXECUTOR_LOG.filters):
        _EXECUTOR_LOG.addFilter(_NotAnError())
    if not any(isinstance(f, _Skipped) for f in _SCHEDULER_LOG.filters):
        _SCHEDULER_LOG.addFilter(_Skipped())
    _every(app, sweep_job, interval, JOB_NAME, delay=0.1)
    _every(app, tournaments_job, interval, TOURNAMENTS_JOB, delay=0.15)
    _every(app, league_job, league_interval, "league", delay=0.2)


def _every(app: Application, work: Job, interval: float, name: str, *, delay: float) -> None:
    """Run ``work`` ``delay`` seconds after the JobQueue starts, then every ``interval``
    seconds. A repeating job cannot say so itself: its first run counts from when it is
    added (before getMe and the migration), and APScheduler moves a start already past to
    one whole interval later. So a one-off job (run however late it comes) does the first
    run and then adds the repeating one."""
    job = uncancelled(work)
    once = {"max_instances": 1, "coalesce": True}

    async def first(context: ContextTypes.DEFAULT_TYPE) -> None:
        try:
            await job(context)
        finally:  # after the first run: the two never overlap
            if context.job_queue is not None and context.job_queue.scheduler.running:
                context.job_queue.run_repeating(job, interval=interval, first=interval,
                                                name=name, job_kwargs=once)

    first.__name__ = work.__name__
    assert app.job_queue is not None
    app.job_queue.run_once(first, when=delay, name=name,
                           job_kwargs={"misfire_grace_time": None})


async def league_job(context: ContextTypes.DEFAULT_TYPE) -> None:
    """Post each finished week's (and season's) final table of every game kind rated in it
    into every chat that played it, once: the post is claimed in the database before it is
    sent (per chat, game kind, period; a claim not marked sent is retried, so a kill
    between the send and the mark may post it twice); a period missed while the bot was
    stopped is drawn as it ended (``at``). A post Telegram refuses with a Bad Request (an
    admin muted the bot: "not enough rights to send text messages") is given up for its
    period, marked like a sent one: no knocking every ``POST_RETRY`` on a group the bot may
    not write in, and the next period's post is tried as usual. (A 403, the bot out of the
    group, is the messenger's to record: those posts wait for its return.)"""
    bot = services(context)
    try:
        due = await bot.service.due_posts()
    except Exception:
        log.exception("looking for due league posts failed")
        return
    for chat_id, game_kind, post, end in due:
        if not await bot.service.claim_post(chat_id, game_kind, post, end):
            continue  # another process (or an earlier run) has it
        period = "last" if post == "week" else "last_season"
        table = await bot.service.standings(chat_id, period, kind=game_kind, at=end)
        with use_language(await bot.service.chat_language(chat_id)):
            text = league_text.standings_text(table, final=True)
            if post == "season":
                text += "\n\n" + league_text.champion_line(table)
        sent = await bot.messenger.send_result(chat_id, text)
        if sent == "denied":
            log.info("chat %s refused its %s %s post of %s: given up for that period",
                     chat_id, game_kind, post, end.date())
        if isinstance(sent, int) or sent == "denied":
            # The send may have found the group become a supergroup and moved the claim.
            await bot.service.mark_posted(bot.messenger.current_chat(chat_id), game_kind,
                                          post, end)


async def sweep_job(context: ContextTypes.DEFAULT_TYPE) -> None:
    """One tick: sweep (its timeouts reach the presenter as commits), show the reminders and
    expired lobbies, then show again every game whose last change was not shown (a kill
    after a commit, a note that did not arrive, a private message never delivered). The
    tournaments move on in their own job (:func:`tournaments_job`)."""
    bot = services(context)
    try:
        results = await bot.service.sweep()
        behind = await bot.service.behind()
    except Exception as exc:  # a database outage must not kill the ticker; the next tick retries
        intake = context.application.bot_data.get("intake")
        if intake is not None and is_outage(exc):
            intake.outage.failed(exc)  # one warning per outage, not a traceback per tick
        else:
            log.exception("sweep failed")
        return
    metrics.swept()

    async def show_one(result: SweepResult) -> None:
        try:
            await show(bot, result, context.bot.username)
        except Exception:
            log.exception("showing the sweep of game %s failed", result.game.id)

    bot.presenter.represent(behind)
    # Each game at once: one game's slow sends must not hold up another's.
    await asyncio.gather(*(show_one(result) for result in results if not result.steps))


async def tournaments_job(context: ContextTypes.DEFAULT_TYPE) -> None:
    """Move the tournaments whose round is over on (a table a sweep finished: at the next
    tick, one interval on at most) and post what they owe the group
    (:func:`telegram_app.tournaments.announcements.tick`; failures are logged there, never
    raised). Apart from :func:`sweep_job`: a tick waiting for a group's budget holds up only
    the next ticks of this job (``max_instances=1``), not the sweep."""
    await announcements.tick(services(context), memory_of(context.application.bot_data))


async def show(bot: BotServices, result: SweepResult, bot_username: str | None) -> None:
    """Render a reminder (in the group, and privately to a player private messages reach)
    or an expired lobby (timeouts are delivered by the presenter)."""
    game = result.game
    if result.kind == "lobby_expired":
        await bot.messenger.edit(game.chat_id, game.lobby_message_id,
                                 ui_for(game).lobby_expired_text(game))
        return
    if result.kind == "reminder" and result.seat is not None:
        player = game.at_seat(result.seat)
        with for_chat(game):
            text = reminder_text(game, player, removal=result.removed)
        async with bot.presenter.delivering(game.id) as delivery:
            if delivery.game.version != game.version:
                return  # (a move came in since the sweep: its turn, and reminder, are over)
            ping = delivery.game.reminder_message_id  # (the turn's group ping, if any)
            sent = await bot.messenger.send(game.chat_id, text, thread_id=game.thread_id)
            if sent is not None:
                delivery.set_messages(reminder=sent)
                if ping is not None and ping != sent:  # the reminder names them now: one
                    await bot.messenger.delete(game.chat_id, ping)  # message to delete later
            # Privately: their turn's message again, headed by the reminder (a new message
            # notifies). Not to a player Telegram refused before (blocked the bot, deleted,
            # never started it: User.can_message, read with the game): every turn's attempt
            # would be refused again. /start makes them reachable again.
            if player.user_id is not None and \
                    (current := delivery.game.player(player.user_id)) is not None:
                with for_player(game, current):
                    text = reminder_text(game, current, removal=result.removed)
                await bot.presenter.remind(delivery, current, text)
