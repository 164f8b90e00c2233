"""Turn clocks through the real bot: reminders, timeouts, lobby expiry, pause, a restart."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

from tests.e2e.clock_helpers import (
    GROUP,
    bot_fixture,  # noqa: F401 (a fixture)
)
from tests.e2e.harness import hold, labels, open_lobby, private_turn_message, wait_for
from tests.fakebot import FakeBotAPI


async def _settings(api: FakeBotAPI, ann, label: str) -> None:
    await ann.send(GROUP, "/settings")
    await wait_for(lambda: bool(api.find_messages(GROUP, "Defaults for new games")))
    message = api.find_messages(GROUP, "Defaults for new games")[-1]
    await ann.press_and_settle(message, label, quiet=0.05)


async def test_game_left_alone_finishes_by_itself(bot) -> None:
    api, players, clock, runner = bot
    ann, bob = players[0], players[1]
    await bob.send(GROUP, "/settings")
    await wait_for(lambda: bool(api.find_messages(GROUP, "only the group's admins")))
    await _settings(api, ann, "⏱ Pace: standard")  # standard → quick
    lobby = await open_lobby(api, players, GROUP)
    assert "quick (1 min a turn)" in api.get_message(GROUP, lobby.message_id).text
    await ann.press_and_settle(lobby, "▶️ Start")

    # the deadline is a date-time entity (shown in each reader's own time zone), UTC as text
    deadline = int(datetime(2026, 5, 4, 9, 1, tzinfo=UTC).timestamp())
    # (on the private message of the player to act: the table is not edited every turn)
    turn = next(m for u in players if (m := private_turn_message(api, u)) is not None)
    assert "Turn ends May 4 09:01 UTC." in turn.text  # (Babel's date for the language)
    assert {"unix_time": deadline, "date_time_format": "dt"}.items() <= next(
        e for e in turn.entities if e["type"] == "date_time").items()
    clock.advance(46)  # three quarters of a minute: one reminder, in the group and privately
    await wait_for(lambda: bool(api.find_messages(GROUP, "it is your turn in game")))
    reminder = api.find_messages(GROUP, "it is your turn in game")[-1]
    assert "play before 09:01 UTC," in reminder.text
    assert [(e["unix_time"], e["date_time_format"]) for e in reminder.entities
            if e["type"] == "date_time"] == [(deadline, "t")]

    def privately_reminded() -> list:
        return [u for u in players if any("it is your turn in game" in (m.text or "")
                                          for m in api.bot_messages(u.id))]

    # The private reminder goes out after the group's, so wait for it rather than race it.
    await wait_for(lambda: bool(privately_reminded()))
    assert len(privately_reminded()) == 1

    for _ in range(40):
        if api.find_messages(GROUP, "is over!"):
            break
        before = len(api.log)
        clock.advance(61)
        await wait_for(lambda before=before: len(api.log) > before)
        await api.settle(quiet=0.1)
    assert api.find_messages(GROUP, "ran out of time: the computer plays")
    assert api.find_messages(GROUP, "is removed from the game")
    assert api.find_messages(GROUP, "is over!")


async def test_overdue_turn_handled_after_restart(bot) -> None:
    api, players, clock, runner = bot
    lobby = await open_lobby(api, players, GROUP)
    await players[0].press_and_settle(lobby, "▶️ Start")
    await runner.stop()
    clock.advance(2 * 3600)  # standard pace: the turn is long overdue while the bot is down
    await runner.start()
    await wait_for(lambda: bool(api.find_messages(GROUP, "ran out of time")))


async def test_first_sweep_runs_at_start(bot) -> None:
    """The ticker's first sweep runs as the bot starts, not one SWEEP_INTERVAL later: after a
    restart with a turn already past its deadline (and a migration that takes its time), the
    timeout is told at once although the next tick would be an hour away."""
    api, players, clock, runner = bot
    lobby = await open_lobby(api, players, GROUP)
    await players[0].press_and_settle(lobby, "▶️ Start")
    await runner.stop()
    clock.advance(2 * 3600)
    runner.sweep_interval = 3600.0
    loop = asyncio.get_running_loop()
    # A start that takes its time (a long migration, a slow Telegram): getMe is answered
    # only after 1.5 s, longer than APScheduler's grace for a run that comes late (1 s).
    held, release = hold(api, "getMe", lambda p: True)
    starting = asyncio.create_task(runner.start())
    await asyncio.wait_for(held.wait(), 30)
    await asyncio.sleep(1.5)
    release.set()
    await starting
    started = loop.time()
    await wait_for(lambda: bool(api.find_messages(GROUP, "ran out of time")))
    print(f"overdue turn timed out {loop.time() - started:.3f} s after the restart")


async def test_lobby_expires(bot) -> None:
    api, players, clock, runner = bot
    lobby = await open_lobby(api, players[:2], GROUP)
    clock.advance(3601)
    await wait_for(lambda: "expired" in (api.get_message(GROUP, lobby.message_id).text or ""))
    await players[0].send(GROUP, "/newgame")
    await wait_for(lambda: len(api.find_messages(GROUP, "new game #")) == 1
                   and "#2" in api.find_messages(GROUP, "new game #")[-1].text)


async def test_pause_and_resume(bot) -> None:
    api, players, clock, runner = bot
    ann, bob = players[0], players[1]
    lobby = await open_lobby(api, players, GROUP)
    assert "⏱ Pace: standard" in labels(api, lobby)
    await ann.press_and_settle(lobby, "⏱ Pace: standard")  # → relaxed
    await ann.press_and_settle(api.get_message(GROUP, lobby.message_id), "▶️ Start")
    await bob.send(GROUP, "/pause")
    await wait_for(lambda: bool(api.find_messages(GROUP, "only the group's admins can pause")))
    await ann.send(GROUP, "/pause")
    await wait_for(lambda: bool(api.find_messages(GROUP, "is paused")))
    # (the private messages are redrawn beside the command's answer)
    await wait_for(lambda: any("The clock is paused" in (m.text or "") for u in players
                               for m in api.bot_messages(u.id)))  # (the turn's)
    # and the group's table, which showed the turn's deadline
    table = next(m for m in api.bot_messages(GROUP) if "· round 1" in (m.text or ""))
    await wait_for(lambda: "The clock is paused" in (api.get_message(
        GROUP, table.message_id).text or ""))
    assert "Turn ends" not in api.get_message(GROUP, table.message_id).text
    clock.advance(10 * 86400)
    await api.settle(quiet=0.3)
    assert not api.find_messages(GROUP, "ran out of time")
    await ann.send(GROUP, "/resume")
    await wait_for(lambda: bool(api.find_messages(GROUP, "runs again")))
    await wait_for(lambda: "Turn ends" in (api.get_message(GROUP, table.message_id).text or ""))
    clock.advance(86401)
    await wait_for(lambda: bool(api.find_messages(GROUP, "ran out of time")))


async def test_a_removal_that_ends_the_game_closes_its_messages(bot) -> None:
    api, players, clock, runner = bot
    ann = players[0]
    await _settings(api, ann, "⏰ On timeout: computer plays, removed after 2")  # → removed
    lobby = await open_lobby(api, players, GROUP, "/newgame poker-deck")
    await ann.press_and_settle(lobby, "▶️ Start")
    clock.advance(3601)  # standard pace: the first timeout removes the player, poker-deck ends
    await wait_for(lambda: bool(api.find_messages(GROUP, "is over!")))
    await api.settle(quiet=0.1)
    table = api.find_messages(GROUP, "· round 1")[-1]
    assert not api.buttons(table)  # (its text shows the round as dealt; the note tells the end)
    for user in players:
        assert not api.buttons(api.bot_messages(user.id)[-1])  # no stale move buttons
