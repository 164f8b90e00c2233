"""Races and double application, from a review that tried to break the bot under concurrency.

Each test scripts one interleaving deterministically: a Bot API call is held at the fake
server (``hold``) or a service call is made to wait, while another change lands."""

from __future__ import annotations

import asyncio

from telegram_app.services import KEY
from tests.e2e.harness import (
    TABLE_HEADING,
    hold_timeout_note,
    move_version,
    mover,
    notes,
    open_lobby,
    start_game,
    wait_for,
)

GROUP = -100777


def _plain(text: str | None) -> str:
    return (text or "").replace("\u2068", "").replace("\u2069", "")


def _table(text: str | None) -> bool:
    """Whether ``text`` is a round's table (live or closed), which lists the round's moves,
    timeouts among them: the notes are counted, not the tables."""
    return bool(TABLE_HEADING.match(_plain(text)))


async def _timeout_note_held(slow_table) -> asyncio.Event:
    """Start a game and let its first turn time out; the sweep's group note is held at the
    fake server once it arrives there (returns the event releasing it)."""
    api, players, clock, _runner = slow_table
    lobby = await open_lobby(api, players, GROUP)
    await players[0].press_and_settle(lobby, "▶️ Start")
    await mover(api, players)
    await api.settle()
    return await hold_timeout_note(api, clock, GROUP)


async def _a_leave_lands_while_a_timeout_is_reported(slow_table):
    """The sweep times a turn out and, after its commit, is sending its group note (held at
    the fake server) when the player whose turn it now is sends /leave (handled at once:
    the JobQueue's sweep and the update handlers run side by side). Then the note goes out.
    Returns the api, the players, the one who left and the game as it is now."""
    api, players, clock, runner = slow_table
    release = await _timeout_note_held(slow_table)
    service = runner.app.bot_data[KEY].service
    game = await service.open_game(GROUP, 0)
    leaver = next(u for u in players if u.id == game.at_seat(game.state["turn"]).user_id)
    seat = game.state["turn"]
    await leaver.send(GROUP, "/leave")
    for _ in range(300):  # the leave is committed (its report waits for the sweep's)
        if (await service.get(game.id)).state["lives"][seat] == 0:
            break
        await asyncio.sleep(0.05)
    else:
        raise AssertionError("the leave was not applied")
    release.set()
    await api.settle()
    return api, players, leaver, await service.get(game.id)


async def test_a_timeout_note_is_not_told_twice_when_a_leave_lands_while_it_is_sent(
        slow_table) -> None:
    """The leave's presenter read ``told_version`` before the sweep's presenter recorded
    it, so it told the timed-out move again (as an 'untold' move from the log) ahead of the
    leave; the sweep's note then told it too. It is told once, before the leave."""
    api, *_ = await _a_leave_lands_while_a_timeout_is_reported(slow_table)
    texts = [_plain(m.text) for m in api.bot_messages(GROUP)]
    told = [i for i, text in enumerate(texts) if "ran out of time" in text and not _table(text)]
    left = [i for i, text in enumerate(texts) if "leaves the game" in text and not _table(text)]
    assert len(told) == 1 and len(left) == 1 and told[0] < left[0], texts


async def test_a_slow_timeout_report_does_not_draw_an_older_game_over_a_newer_one(
        slow_table) -> None:
    """The same race: the sweep's presenter, finishing last, edits the table and the
    private messages back to the game as it was before the leave, and its note's last line
    hands the turn to the player who has just left. The player actually to act is left
    with a private message saying "Waiting for <the leaver>" and no buttons, and the group's
    last word names the wrong player."""
    api, players, leaver, game = await _a_leave_lands_while_a_timeout_is_reported(slow_table)
    to_act = next(u for u in players if u.id == game.at_seat(game.state["turn"]).user_id)
    assert to_act is not leaver
    # (a quiet group: the notes name nobody to act, the live table does)
    texts = [_plain(m.text) for m in api.bot_messages(GROUP)]
    assert not any(f"{leaver.first_name}, your turn" in text for text in texts), texts
    table = next(text for text in reversed(texts) if "Waiting for" in text)
    assert f"Waiting for {to_act.first_name}" in table, table
    current = api.bot_messages(to_act.id)[-1]
    assert move_version(api, current) == game.version, _plain(current.text)


async def _a_move_lands_right_after_a_commit(slow_table) -> tuple[list[str], str]:
    """A player bids 1; right after that commit, before the bot shows it, the next player
    turns the Extra feather coin (their press handled and shown by another bot process: the
    turn stays theirs, so nothing is told yet). Then the next player bids 2. Returns the
    group's texts and the first player's name."""
    from contextlib import asynccontextmanager

    from engine import Action
    from tests.e2e.harness import press

    api, players, clock, runner = slow_table
    await start_game(api, players, GROUP, "/newgame feathers", "🪙 Coins: off")
    first = await mover(api, players)
    await api.settle()
    service = runner.app.bot_data[KEY].service
    plain_get, plain_act, plain_delivering = service.get, service.act, service.delivering
    state = {"armed": False, "done": False, "second": None}

    async def act(game_id: int, user_id: int, version: int, action: Action, **kwargs):
        outcome = await plain_act(game_id, user_id, version, action, **kwargs)
        state["armed"] = user_id == first.id and not state["done"]  # committed
        return outcome

    @asynccontextmanager
    async def delivering(game_id: int):
        if state["armed"]:  # the bid is committed and not shown yet: the other press lands
            state["armed"], state["done"] = False, True
            now = await plain_get(game_id)
            state["second"] = now.at_seat(now.state["turn"]).user_id
            listeners = service.listeners.listeners  # another process's commit: unheard
            service.listeners.listeners = []
            try:
                await plain_act(game_id, state["second"], now.version,
                                Action("special", special="extra"))
            finally:
                service.listeners.listeners = listeners
        async with plain_delivering(game_id) as delivery:
            yield delivery

    service.act, service.delivering = act, delivering
    await press(api, first, "1", GROUP)
    await api.settle()
    assert state["done"]
    service.act, service.delivering = plain_act, plain_delivering
    second = next(u for u in players if u.id == state["second"])
    await press(api, second, "2", GROUP)
    await api.settle()
    return [_plain(m.text) for m in api.bot_messages(GROUP)], first.first_name


async def test_a_move_right_after_a_commit_does_not_tell_the_bid_twice(slow_table) -> None:
    """``act`` returned the game as it was after the next player's move, so the presenter
    computed the version before the bid one too high and read the bid itself back from the
    log as 'untold': the bid was told twice in one note."""
    notes, name = await _a_move_lands_right_after_a_commit(slow_table)
    assert sum(n.count(f"{name} bids 1.") for n in notes) == 1, notes


async def test_a_move_right_after_a_commit_is_not_swallowed(slow_table) -> None:
    """The same race: the bid's presenter recorded ``told_version`` = the snapshot's version,
    which was the Extra feather's; the Extra feather was never told in the group."""
    notes, _ = await _a_move_lands_right_after_a_commit(slow_table)
    assert any("Extra feather" in n for n in notes), notes


async def test_stopping_while_a_sweep_sends_its_note_loses_nothing(slow_table) -> None:
    """Held up: the bot is stopped while the sweep's committed timeout is being reported;
    the report and the next player's keyboard still go out before the stop completes."""
    api, players, clock, runner = slow_table
    release = await _timeout_note_held(slow_table)
    game = await runner.app.bot_data[KEY].service.open_game(GROUP, 0)
    stopping = asyncio.create_task(runner.stop())
    await asyncio.sleep(0.3)
    assert not stopping.done()
    release.set()
    await asyncio.wait_for(stopping, 40)
    assert len(notes(api, GROUP, "ran out of time")) == 1
    nxt = next(u for u in players if u.id == game.at_seat(game.state["turn"]).user_id)
    assert move_version(api, api.bot_messages(nxt.id)[-1]) == game.version
    await runner.start()


async def test_two_bot_processes_sweeping_tell_each_timeout_once(slow_table) -> None:
    """Held up: a second Application (no polling, its JobQueue sweeping every 50 ms)
    against the same database and Bot API. Both sweep the first two turns (each due game is
    claimed by one, each delivery holds the game's lock), then the first is stopped and the
    second sweeps the next two; each reminder and timeout is told once."""
    from telegram_app.app import build_application

    api, players, clock, runner = slow_table

    def edited_over() -> int:  # timeout reports written over their turn's reminder (not
        # the table, which lists its round's moves, timeouts among them)
        return sum(1 for e in api.log if e.kind == "edit" and e.chat_id == GROUP
                   and "ran out of time" in (e.text or "") and not _table(e.text))

    def sent(text: str) -> int:  # group messages sent with ``text`` (a reminder may later be
        # written over by its turn's report, so the messages now are not the count; a table
        # is sent once, when a timeout's report heads the next round's)
        return sum(1 for e in api.log if e.kind == "send" and e.chat_id == GROUP
                   and text in (e.text or ""))

    second = build_application(runner.settings(), clock=clock)
    await second.initialize()
    await second.post_init(second)
    await second.start()
    try:
        lobby = await open_lobby(api, players, GROUP)
        await players[0].press_and_settle(lobby, "▶️ Start")
        await mover(api, players)
        game_id = (await runner.app.bot_data[KEY].service.open_game(GROUP, 0)).id
        for k in range(1, 5):
            if k == 3:
                await runner.stop()
            clock.advance(2701)  # the reminder
            await wait_for(lambda k=k: sent("it is your turn in game") >= k)
            clock.advance(900)  # the timeout
            await wait_for(lambda k=k: sent("ran out of time") + edited_over() >= k)
            await api.settle(quiet=0.3)
    finally:
        await second.stop()
        await second.post_stop(second)
        await second.shutdown()
        await second.post_shutdown(second)
        if runner.app is None or not runner.app.running:
            await runner.start()
    reminders, timeouts = sent("it is your turn in game"), sent("ran out of time") + edited_over()
    assert reminders == 4 and timeouts == 4, (reminders, timeouts)
    log = await runner.app.bot_data[KEY].service.log(game_id)  # the game may be over by now
    assert len([e for e in log if any(x["type"] == "turn_timed_out" for x in e.events)]) == 4


async def test_a_double_tap_is_applied_once_and_answered_politely(slow_table) -> None:
    """Held up: the same bid button pressed twice before the bot answered the first."""
    from tests.e2e.harness import private_turn_message

    api, players, clock, runner = slow_table
    lobby = await open_lobby(api, players, GROUP)
    await players[0].press_and_settle(lobby, "▶️ Start")
    first = await mover(api, players)
    message = private_turn_message(api, first)
    one = await first.press(message, "1")
    two = await first.press(message, "1")
    answers = [await api.wait_answer(one), await api.wait_answer(two)]
    await api.settle()
    assert not answers[0].get("show_alert") and not answers[1].get("show_alert")
    assert answers[1].get("text") == "You already moved this turn."  # (a toast, no alert)
    log = await runner.app.bot_data[KEY].service.log(
        (await runner.app.bot_data[KEY].service.open_game(GROUP, 0)).id)
    assert len([e for e in log if e.user_id == first.id and e.seat is not None]) == 1
    assert len(api.find_messages(GROUP, "bids 1.")) == 1


async def test_a_press_on_a_turn_the_sweep_just_timed_out_is_refused_politely(
        slow_table) -> None:
    """Held up: the player presses while the sweep's timeout of their turn is being
    reported: the press is refused (stale), nothing is applied twice. (In a quiet group the
    report takes the timed-out player's buttons away beside its group note: their client
    still showed them when they pressed.)"""
    from tests.e2e.harness import private_turn_message

    api, players, clock, runner = slow_table
    lobby = await open_lobby(api, players, GROUP)
    await players[0].press_and_settle(lobby, "▶️ Start")
    first = await mover(api, players)
    await api.settle()
    message = private_turn_message(api, first)
    bid = next(d for t, d in api.buttons(message) if t.strip("\u2068\u2069") == "2")
    release = await hold_timeout_note(api, clock, GROUP)
    answer = await api.wait_answer(await first.press_raw_on(message, bid))
    release.set()
    await api.settle()
    assert answer.get("show_alert") and "wrong" not in answer.get("text", "")
    service = runner.app.bot_data[KEY].service
    log = await service.log((await service.open_game(GROUP, 0)).id)
    assert [e.user_id for e in log if e.seat is not None] == [None]  # only the computer's move
