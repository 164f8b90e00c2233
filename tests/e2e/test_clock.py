"""Turn clocks through the real bot: reminders, timeouts, removal, lobby expiry, pause and
resume, settings, and a restart with an overdue game. Time is a controlled clock; the JobQueue
ticks every 50 ms of real time, so nothing waits for a real minute."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest

from tests.clock import Clock
from tests.e2e.harness import (
    bot_table,
    confirm_call,
    hold,
    labels,
    mover,
    open_lobby,
    opens_with_an_impossible_bid,
    press,
    private_turn_message,
    wait_for,
)
from tests.fakebot import FakeBotAPI

GROUP = -100999




@pytest.fixture
async def bot(pg_db, pg_url):
    clock = Clock(datetime(2026, 5, 4, 9, 0, tzinfo=UTC))
    async with bot_table(pg_url, GROUP, "Slow group", ["Ann", "Bob", "Cat"], clock=clock,
                         sweep_interval=0.05) as (api, players, runner):
        yield api, players, clock, runner


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


async def _times_out_into_round_2(api, clock, before: int, reminder) -> str:
    """The reminded turn times out and its computer move leads to round 2: the turn leaves
    one new group message, round 2's table headed by the report (returned); the reminder
    went with its turn (deleted)."""
    clock.advance(900)
    await wait_for(lambda: bool(api.find_messages(GROUP, "round 2")))
    await api.settle()
    new = api.bot_messages(GROUP)[before:]
    assert len(new) == 1 and "round 2" in new[0].text, [m.text for m in new]
    assert api.get_message(GROUP, reminder.message_id).deleted
    return new[0].text


async def test_a_timed_out_turn_that_ends_the_round_leaves_only_the_new_table(bot) -> None:
    """Reminder, then a timeout whose computer move ends the round: the report heads the new
    round's table, and the reminder goes with its turn: one new group message."""
    api, players, clock, runner = bot
    await opens_with_an_impossible_bid(api, players, GROUP)
    before = len(api.bot_messages(GROUP))
    reminder = await _remind(api, clock)
    report = await _times_out_into_round_2(api, clock, before, reminder)
    assert "ran out of time" in report and "calls Coyote!" in report


async def test_the_report_replaces_the_reminder_after_computer_players_moved(bot) -> None:
    """As above, but the computer plays the timed-out turn with a bid and a computer player
    then calls, ending the round: still only the new table (seed 4: Bob opens, Cat
    follows, then the computer player)."""
    from telegram_app.services import KEY

    api, players, clock, runner = bot
    runner.app.bot_data[KEY].service.new_seed = lambda: 4
    lobby = await open_lobby(api, players, GROUP)
    await players[0].press_and_settle(lobby, "🤖 Add AI")
    await players[0].press_and_settle(lobby, "▶️ Start")
    assert (await mover(api, players)) is players[1]
    await players[1].send(players[1].id, "1")
    await wait_for(lambda: bool(api.find_messages(GROUP, "bids 1")))
    await api.settle()
    assert (await mover(api, players)) is players[2]
    before = len(api.bot_messages(GROUP))
    reminder = await _remind(api, clock)
    assert "ran out of time" in await _times_out_into_round_2(api, clock, before, reminder)


async def test_a_reminder_is_never_edited_in_another_chat(pg_db, pg_url) -> None:
    """The reminder was sent in a basic group that then became a supergroup, whose message
    ids start again: the timeout's report is sent, not written over the supergroup's
    message that has the old reminder's id."""
    clock = Clock(datetime(2026, 5, 4, 9, 0, tzinfo=UTC))
    old, new_id = -5001, -100777
    async with bot_table(pg_url, old, "Basic group", ["Ann", "Bob", "Cat"], clock=clock,
                         sweep_interval=0.05) as (api, players, runner):
        await opens_with_an_impossible_bid(api, players, old)
        clock.advance(2701)
        await wait_for(lambda: bool(api.find_messages(old, "it is your turn in game")))
        reminder = api.find_messages(old, "it is your turn in game")[-1]
        api.migrate_group(old, new_id)
        await wait_for(lambda: bool(api.bot_messages(new_id)))  # the table is posted again
        await api.settle()
        while api.chats[new_id].next_message_id < reminder.message_id - 1:
            await players[1].send(new_id, "gg")
        await players[1].send(new_id, "/rules")
        await wait_for(lambda: any(m.message_id == reminder.message_id
                                   for m in api.bot_messages(new_id)))
        await api.settle()
        rules = api.get_message(new_id, reminder.message_id).text
        clock.advance(900)
        await wait_for(lambda: bool(api.find_messages(new_id, "ran out of time")))
        await api.settle()
        assert api.get_message(new_id, reminder.message_id).text == rules


async def test_a_reminded_player_whose_call_ends_the_round_leaves_only_the_new_table(
        bot) -> None:
    """The reminded player calls Coyote themself: the showdown heads the new round's table,
    and the reminder goes with its turn."""
    api, players, clock, runner = bot
    await opens_with_an_impossible_bid(api, players, GROUP)
    second = await mover(api, players)
    turn = api.bot_messages(second.id)[-1]
    before = len(api.bot_messages(GROUP))
    reminder = await _remind(api, clock)
    await api.settle()
    # Privately the reminder is the turn's message again (a new one notifies), its moves
    # under it; the turn's first message is retired (one live keyboard).
    keyboard = api.bot_messages(second.id)[-1]
    assert keyboard.text.split("\n")[:2][-1].startswith("⏳") and api.buttons(keyboard)
    assert keyboard.text.startswith("👥")  # (the group's name first, as on every one)
    assert api.get_message(second.id, turn.message_id).deleted
    await second.press_and_settle(keyboard, "🐺 Coyote!")
    await confirm_call(api, second, keyboard)  # (it asks first: "Yes" on the same message)
    await wait_for(lambda: bool(api.find_messages(GROUP, "round 2")))
    await api.settle()
    new = api.bot_messages(GROUP)[before:]
    assert len(new) == 1 and api.get_message(GROUP, reminder.message_id).deleted
    assert "calls Coyote!" in new[0].text and "round 2" in new[0].text
    assert "⏳" not in api.get_message(second.id, keyboard.message_id).text


async def test_another_players_leave_that_ends_the_round(bot) -> None:
    """Bob must answer Cat's Change and is reminded; Cat leaves (off-turn): the Change ends
    and the computer player calls, ending the round. Bob's reminder is not overwritten by
    Cat's report (it was not Bob's move), and Bob, who lost the showdown and starts round 2,
    gets a whole new turn's clock (the reminded turn's deadline is not carried over)."""
    api, players, clock, runner = bot
    bob, cat = players[1], players[2]
    await _masks_and_a_computer(api, players, runner)
    await _bob_bids(api, players, "500")
    await press(api, cat, "🎭 Change", GROUP)
    await api.settle()
    assert (await mover(api, players)) is bob  # Bob must answer the Change
    reminder = await _remind(api, clock)
    assert "Bob" in reminder.text
    await cat.send(GROUP, "/leave")  # off-turn: the Change ends, the turn goes on to the AI
    await wait_for(lambda: bool(api.find_messages(GROUP, "round 2")))
    await api.settle()
    assert "it is your turn in game" in api.get_message(GROUP, reminder.message_id).text
    assert (await mover(api, players)) is bob  # Bob lost the showdown and starts round 2
    clock.advance(901)  # a quarter hour into a fresh one-hour turn
    await api.settle(quiet=0.3)
    assert not api.find_messages(GROUP, "ran out of time")


# --- a reminded turn goes on: specials that keep it, leaves -----------------------------------

async def _masks_and_a_computer(api, players, runner) -> None:
    """Seed 4, masks on, Ann, Bob, Cat and a computer player: Bob opens, then Cat."""
    from telegram_app.services import KEY

    runner.app.bot_data[KEY].service.new_seed = lambda: 4
    lobby = await open_lobby(api, players, GROUP)
    await players[0].press_and_settle(lobby, "🎭 Masks: off")
    await players[0].press_and_settle(api.get_message(GROUP, lobby.message_id), "🤖 Add AI")
    await players[0].press_and_settle(api.get_message(GROUP, lobby.message_id), "▶️ Start")


async def _remind(api, clock):
    """Three quarters of the standard hour: the turn's group reminder, returned."""
    clock.advance(2701)
    await wait_for(lambda: bool(api.find_messages(GROUP, "it is your turn in game")))
    await api.settle()
    return api.find_messages(GROUP, "it is your turn in game")[-1]


async def _tap(api, user, label: str) -> None:
    """Press ``label`` on the user's latest message with move buttons (a private reminder
    may have come after it); 🐺 Coyote! is confirmed ("Yes" on the same message)."""
    from tests.e2e.harness import move_version

    message = next(m for m in reversed(api.bot_messages(user.id))
                   if move_version(api, m) is not None)
    await user.press_and_settle(message, label, quiet=0.1)
    if label == "🐺 Coyote!":
        await confirm_call(api, user, message, quiet=0.1)
    await api.settle(quiet=0.1)


async def _bob_bids(api, players, amount: str) -> None:
    bob, cat = players[1], players[2]
    assert (await mover(api, players)) is bob
    await bob.send(bob.id, amount)
    await wait_for(lambda: bool(api.find_messages(GROUP, f"bids {amount}")))
    await api.settle()
    assert (await mover(api, players)) is cat


async def test_reverse_keeps_the_turns_clock_and_its_one_reminder(bot) -> None:
    api, players, clock, runner = bot
    await _masks_and_a_computer(api, players, runner)
    await _bob_bids(api, players, "1")
    await _remind(api, clock)
    clock.advance(800)  # 58 minutes into Cat's turn
    await _tap(api, players[2], "🎭 Reverse")
    clock.advance(300)  # 63 minutes: past the turn's one hour
    await wait_for(lambda: bool(api.find_messages(GROUP, "ran out of time")))
    await api.settle()
    # One reminder was sent; it goes once the turn passed on (the timeout's note says why).
    sent = [r for r in api.calls("sendMessage") if int(r.params.get("chat_id", 0)) == GROUP
            and "it is your turn in game" in str(r.params.get("text"))]
    assert len(sent) == 1 and not api.find_messages(GROUP, "it is your turn in game")


async def test_reverse_then_a_call_after_the_reminder_leaves_only_the_new_table(bot) -> None:
    api, players, clock, runner = bot
    await _masks_and_a_computer(api, players, runner)
    await _bob_bids(api, players, "500")
    before = len(api.bot_messages(GROUP))
    reminder = await _remind(api, clock)
    await _tap(api, players[2], "🎭 Reverse")
    await _tap(api, players[2], "🐺 Coyote!")
    await wait_for(lambda: bool(api.find_messages(GROUP, "round 2")))
    await api.settle()
    new = api.bot_messages(GROUP)[before:]
    assert len(new) == 1 and api.get_message(GROUP, reminder.message_id).deleted
    assert "uses Reverse" in new[0].text and "calls Coyote!" in new[0].text  # round 2's table


async def test_the_reminded_players_own_leave_takes_the_reminder_away(bot) -> None:
    api, players, clock, runner = bot
    await _masks_and_a_computer(api, players, runner)
    await _bob_bids(api, players, "500")
    before = len(api.bot_messages(GROUP))
    reminder = await _remind(api, clock)
    await players[2].send(GROUP, "/leave")  # the computer player then calls: round 2
    await wait_for(lambda: bool(api.find_messages(GROUP, "round 2")))
    await api.settle()
    assert len(api.bot_messages(GROUP)[before:]) == 1
    assert api.get_message(GROUP, reminder.message_id).deleted


async def test_after_another_players_leave_the_reminded_call_replaces_the_reminder(
        bot) -> None:
    api, players, clock, runner = bot
    await _masks_and_a_computer(api, players, runner)
    await _bob_bids(api, players, "500")
    reminder = await _remind(api, clock)
    await players[0].send(GROUP, "/leave")  # off-turn: Cat's turn and clock go on
    await wait_for(lambda: bool(api.find_messages(GROUP, "leaves the game")))
    await api.settle()
    before = len(api.bot_messages(GROUP))
    await _tap(api, players[2], "🐺 Coyote!")
    await wait_for(lambda: bool(api.find_messages(GROUP, "round 2")))
    await api.settle()
    new = api.bot_messages(GROUP)[before:]
    assert len(new) == 1 and "calls Coyote!" in new[0].text  # only the new table, with it
    assert "it is your turn in game" in api.get_message(GROUP, reminder.message_id).text
