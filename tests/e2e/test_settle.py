"""The harness's ``settle()`` waits for an update the bot fetched while it is still being
written to the inbox (``Intake.pending`` counts ``Received.storing``): before, it returned
at once, and a check made right after a typed bid or a /start under load could catch the
bot in the middle of a delivery (found by the random sweep of test_fuzz.py; failed before
its fix)."""

from __future__ import annotations

import asyncio

from tests.e2e.harness import bot_table, wait_for

GROUP = -100_990_002


async def test_settle_waits_for_an_update_being_stored(pg_db, pg_url) -> None:
    """The harness's ``settle()`` promises the bot at rest (``BotRunner.busy``: "updates it
    fetched but has not finished handling … from the fetch"), yet it returns while an
    update fetched is still being written to the inbox: ``Intake.pending`` is
    ``received.fresh | handling``, and ``Received.receive`` puts an id in ``fresh`` only
    after ``await inbox.store(...)``. Here the inbox is locked for a second (as a loaded
    machine's slow write would hold it): ``settle()`` returns at once, before /help was
    even handled. Seen in the random sweep: a check right after a typed bid or a /start
    found the bid not made, or a /start's new keyboard beside the old one not closed yet
    (a check made in the middle of a delivery); any e2e test that types and then settles
    can flake so under load."""
    import psycopg
    from sqlalchemy.engine import make_url

    async with bot_table(pg_url, GROUP, "Rest", ["Ann"]) as (api, players, runner):
        ann = players[0]
        await api.settle()
        before = len(api.bot_messages(ann.id))
        dsn = make_url(pg_url).set(drivername="postgresql").render_as_string(hide_password=False)
        lock = await psycopg.AsyncConnection.connect(dsn)
        await lock.execute("LOCK TABLE inbox IN EXCLUSIVE MODE")  # (held until the rollback)
        try:
            await ann.send(ann.id, "/help")
            settling = asyncio.ensure_future(api.settle(quiet=0.2))
            await asyncio.sleep(1.0)
            returned_early = settling.done()
        finally:
            await lock.rollback()
            await lock.close()
        await settling
        await wait_for(lambda: len(api.bot_messages(ann.id)) > before)  # (it comes)
        assert not returned_early, "settle() returned while /help was still being stored"
