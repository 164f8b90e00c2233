"""The JobQueue wrapper that keeps a sweep's work alive when stopping the bot cancels its job."""

from __future__ import annotations

import asyncio

from telegram.ext import ApplicationBuilder, CallbackContext

from telegram_app.transport import scheduler


async def test_cancelled_job_finishes_its_work_before_the_stop_ends() -> None:
    app = ApplicationBuilder().token("1:fake").build()
    committed, reported = asyncio.Event(), []

    async def work(context: CallbackContext) -> None:
        committed.set()
        await asyncio.sleep(0.05)  # the messages of a committed sweep are still being sent
        reported.append(context.application is app)

    job = asyncio.ensure_future(scheduler.uncancelled(work)(CallbackContext(app)))
    await committed.wait()
    job.cancel()  # what APScheduler does to a job that starts while the JobQueue stops
    await asyncio.gather(job, return_exceptions=True)
    # the job ends quietly (APScheduler would log a cancelled job as failed); its work goes on
    assert job.done() and not job.cancelled() and reported == []

    await scheduler.finish_jobs(app)
    assert reported == [True]
    assert not app.bot_data[scheduler.IN_FLIGHT]


async def test_finish_jobs_gives_up_on_work_that_hangs(monkeypatch) -> None:
    app = ApplicationBuilder().token("1:fake").build()
    monkeypatch.setattr(scheduler, "FINISH_TIMEOUT", 0.05)
    started = asyncio.Event()

    async def hang(context: CallbackContext) -> None:
        started.set()
        await asyncio.sleep(3600)

    job = asyncio.ensure_future(scheduler.uncancelled(hang)(CallbackContext(app)))
    await started.wait()
    await scheduler.finish_jobs(app)
    await asyncio.wait_for(asyncio.gather(job, return_exceptions=True), 1)
    assert job.cancelled()
    assert not app.bot_data[scheduler.IN_FLIGHT]


def test_a_job_cancelled_by_a_stop_is_not_logged_as_an_error(caplog) -> None:
    """APScheduler cancels a job submitted just before the JobQueue stops (before it runs)
    and logs that as an error; nothing was lost, so the line is dropped."""
    import logging

    from telegram_app.transport.scheduler import schedule

    app = ApplicationBuilder().token("1:fake").build()
    schedule(app, 5, 60)
    executor_log = logging.getLogger("apscheduler.executors.default")
    with caplog.at_level(logging.ERROR):
        try:
            raise asyncio.CancelledError
        except asyncio.CancelledError:
            executor_log.exception("Error running job %s", "abc")
        try:
            raise ValueError("a real failure")
        except ValueError:
            executor_log.exception("Error running job %s", "def")
    assert [r.getMessage() for r in caplog.records] == ["Error running job def"]
