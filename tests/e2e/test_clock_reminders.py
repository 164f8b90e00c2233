"""A turn's reminder goes with its turn: timeouts, calls, specials and leaves that end it."""

from __future__ import annotations

from datetime import UTC, datetime

from tests.clock import Clock
from tests.e2e.clock_helpers import (
    GROUP,
    bot_fixture,  # noqa: F401 (a fixture)
)
from tests.e2e.harness import (
    bot_table,
    confirm_call,
    mover,
    open_lobby,
    opens_with_an_impossible_bid,
    press,
    wait_for,
)


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
