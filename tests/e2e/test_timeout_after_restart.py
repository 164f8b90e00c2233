"""A timeout a freshly started process tells: the timed-out player's private message says
it as a running process's delivery does ("⏰ Your time ran out: the computer played your
last turn for you."; removed: "⏰ Your time ran out, so you are out of game #…"), whichever
process committed the timeout (one that stopped before showing it: another
``MatchService`` on the same database, with no presenter)."""

from __future__ import annotations

from datetime import UTC, datetime

from league.service import MatchService
from telegram_app.services import KEY
from tests.clock import Clock
from tests.e2e.clock_helpers import (
    GROUP,
    bot_fixture,  # noqa: F401 (a fixture)
)
from tests.e2e.harness import bot_table, mover, open_lobby, wait_for

HEADING = "Your time ran out: the computer played your last turn for you."


def _told_privately(api, user) -> list[str]:  # type: ignore[no-untyped-def]
    """The texts of ``user``'s private messages from the bot still in the chat."""
    return [m.text or "" for m in api.bot_messages(user.id) if not m.deleted]


async def _started(api, players):  # type: ignore[no-untyped-def]
    lobby = await open_lobby(api, players, GROUP)
    await players[0].press_and_settle(lobby, "▶️ Start")
    return await mover(api, players)


async def test_a_timeout_swept_by_the_first_sweep_after_a_restart_heads_the_message(
        bot) -> None:
    """Before the fix, as after it (a control), the bot being down when the first turn's
    hour ran out, the first sweep of the new process applied the timeout (the computer
    plays the turn) and delivered it as a running process does: the timed-out player's
    private message is headed "⏰ Your time ran out: the computer played your last turn
    for you." (``Presenter.committed`` hands the sweep's outcome to ``Reports._moved``)."""
    api, players, clock, runner = bot
    late = await _started(api, players)
    await runner.stop()
    clock.advance(3601)  # the turn's hour runs out while the bot is down
    await runner.start()
    await wait_for(lambda: bool(api.find_messages(GROUP, "ran out of time")))
    await api.settle(quiet=0.3)
    assert any(HEADING in t for t in _told_privately(api, late)), _told_privately(api, late)


async def test_a_timeout_committed_but_not_delivered_before_a_restart_heads_the_message(
        bot, pg_db) -> None:
    """Before the fix a timeout committed by a process that stopped before delivering it
    (killed between the sweep's commit and its messages) was told by the next process's
    sweep (``Deliveries.behind``, then ``Reports._represent``) with the group's note "… ran
    out of time: the computer plays …", but the timed-out player's private message was only
    redrawn, without "⏰ Your time ran out: the computer played your last turn for you.":
    ``Delivery.timed_out`` was set only from the committing process's in-memory
    ``Outcome`` (``Reports._moved``), never from the logged events a later delivery
    reads."""
    api, players, clock, runner = bot
    late = await _started(api, players)
    await runner.stop()
    clock.advance(3601)
    # The process that swept it commits the timeout and dies before showing it (another
    # MatchService on the same database, with no presenter listening).
    swept = await MatchService(pg_db, clock=clock).sweep()
    assert [r.kind for r in swept] == ["timeout"], swept
    await runner.start()
    await wait_for(lambda: bool(api.find_messages(GROUP, "ran out of time")))
    await api.settle(quiet=0.3)
    assert any(HEADING in t for t in _told_privately(api, late)), _told_privately(api, late)


async def test_a_redraw_after_the_timeout_was_shown_keeps_its_heading(bot, pg_db) -> None:
    """Before the fix two sweeps a tick apart could both find the game behind (the second
    read it before the first delivery recorded it told): the second delivery, with nothing
    left untold, redrew every private message as the round's view and took "⏰ Your time
    ran out …" away from the timed-out player (the test above failed about one run in
    three so). A redraw now keeps what the game's last change says to its players."""
    api, players, clock, runner = bot
    late = await _started(api, players)
    await runner.stop()
    clock.advance(3601)
    assert [r.kind for r in await MatchService(pg_db, clock=clock).sweep()] == ["timeout"]
    await runner.start()
    await wait_for(lambda: bool(api.find_messages(GROUP, "ran out of time")))
    await api.settle(quiet=0.3)
    bot_services = runner.app.bot_data[KEY]
    game = await bot_services.service.open_game(GROUP, 0)
    bot_services.presenter.represent([game.id])  # (what a second sweep's tick does)
    await api.settle(quiet=0.3)
    assert any(HEADING in t for t in _told_privately(api, late)), _told_privately(api, late)


REMOVAL = -100772


async def test_a_removal_committed_but_not_delivered_before_a_restart_closes_the_message(
        pg_db, pg_url) -> None:
    """Before the fix a timeout that removed the player (the group's policy: removed at
    the first), committed by a process that stopped before showing it, was told by the next
    process's sweep in the group ("… ran out of time and is removed from the game"), but
    the removed player's private message was only redrawn as a view of the round (their
    seat 💀, "Waiting for …"), never saying they were out, as a running process's delivery
    says: "⏰ Your time ran out, so you are out of game #1: …" (``Reports._represent``
    neither read the timeout from the log nor closed a removed player's message, as
    ``Reports._moved`` does with ``_close_removed``). Bob, Cat and Dan play on."""
    clock = Clock(datetime(2026, 5, 4, 9, 0, tzinfo=UTC))
    async with bot_table(pg_url, REMOVAL, "Strict group", ["Ann", "Bob", "Cat", "Dan"],
                         clock=clock, sweep_interval=0.05) as (api, players, runner):
        await runner.app.bot_data[KEY].service.set_chat_setting(
            REMOVAL, "Strict group", "timeout_policy", "remove")
        lobby = await open_lobby(api, players, REMOVAL)
        await players[0].press_and_settle(lobby, "▶️ Start")
        late = await mover(api, players)
        await runner.stop()
        clock.advance(3601)
        swept = await MatchService(pg_db, clock=clock).sweep()
        assert [(r.kind, r.removed) for r in swept] == [("timeout", True)], swept
        await runner.start()
        await wait_for(lambda: bool(api.find_messages(REMOVAL, "is removed from the game")))
        await api.settle(quiet=0.3)
        last = api.bot_messages(late.id)[-1]
        assert "⏰ Your time ran out, so you are out of game #1" in (last.text or ""), last.text
        assert not api.buttons(last)
        assert HEADING not in (last.text or "")
        assert await mover(api, [p for p in players if p is not late]) is not None
