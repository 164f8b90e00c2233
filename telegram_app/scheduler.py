"""The sweeper's ticker: PTB's JobQueue calls the league's sweep every few seconds.

Deadlines live in the database, so the JobQueue is only a ticker: after a restart the first
tick handles every overdue game at once, and several bot processes may tick against one
PostgreSQL database (the sweep claims games with SKIP LOCKED). Messages go out after the
sweep's commit.
"""

from __future__ import annotations

import logging

from telegram.ext import Application, ContextTypes

from league.service import Outcome
from league.sweeper import SweepResult
from telegram_app.context import BotServices, services
from telegram_app.render import coyote as render
from telegram_app.render import coyote_events as events_text

log = logging.getLogger(__name__)
JOB_NAME = "sweep"


def schedule(app: Application, interval: float) -> None:
    """Run :func:`sweep_job` every ``interval`` seconds, the first time right away."""
    if app.job_queue is None:  # the job-queue extra is a dependency; this is a safeguard
        raise RuntimeError("python-telegram-bot's JobQueue is not available")
    app.job_queue.run_repeating(sweep_job, interval=interval, first=0.1, name=JOB_NAME,
                                job_kwargs={"max_instances": 1, "coalesce": True})


async def sweep_job(context: ContextTypes.DEFAULT_TYPE) -> None:
    """One tick: sweep, then show what happened."""
    bot = services(context)
    try:
        results = await bot.service.sweep()
    except Exception:  # a database outage must not kill the ticker; the next tick retries
        log.exception("sweep failed")
        return
    for result in results:
        try:
            await show(bot, result, context.bot.username)
        except Exception:
            log.exception("showing the sweep of game %s failed", result.game.id)


async def show(bot: BotServices, result: SweepResult, bot_username: str | None) -> None:
    """Render one sweep result in the group and the player's private chat."""
    game = result.game
    if result.kind == "lobby_expired":
        await bot.messenger.edit(game.chat_id, game.lobby_message_id,
                                 render.lobby_expired_text(game))
        return
    if result.kind == "reminder" and result.seat is not None:
        player = game.at_seat(result.seat)
        await bot.messenger.send(game.chat_id, events_text.reminder_text(game, player),
                                 thread_id=game.thread_id)
        if player.user_id is not None:
            await bot.messenger.send(player.user_id, events_text.reminder_text(game, player))
        return
    await bot.presenter.moved(Outcome(game, result.steps))
