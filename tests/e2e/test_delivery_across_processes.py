"""Delivery across restarts and overlapping processes: each update handled, each note once."""

from __future__ import annotations

import asyncio

import pytest

from telegram_app.services import KEY
from tests.e2e.harness import bot_table, mover, press, start_game, wait_for

GROUP = -100991
NOTES = "every_move"  # (slow_table) these tests are about the notes of each move


def _private_edits(api, players) -> int:
    ids = {u.id for u in players}
    return sum(1 for c in api.calls("editMessageText") if c.params.get("chat_id") in ids)


async def test_keeps_turn_game_is_not_redrawn_every_sweep_after_a_restart(pg_db, pg_url) -> None:
    """After Extra feather (the same player acts again) the move's note waits for that
    player's next move (told_version < version). The sweep used to show such a game again at
    every tick (Presenter.represent -> _represent -> _refresh of every seat): after a restart,
    or in another webhook worker, whose messenger never drew those messages, that was an
    editMessageText for every seat each tick for as long as the player thought. The delivery
    now records the version it drew (game_messages.drawn_version), and the sweep leaves the
    game alone until it changes."""
    async with bot_table(pg_url, GROUP, "Keeps", ["Ann", "Bob", "Cat"],
                         sweep_interval=0.2, notes="every_move") as (api, players, runner):
        await start_game(api, players, GROUP, "/newgame feathers", "🪙 Coins: off")
        first = await mover(api, players)
        await press(api, first, "🪙 Extra feather", GROUP)
        await api.settle()
        await runner.stop()
        await runner.start()       # a restart (or: another worker's sweep)
        await asyncio.sleep(3.0)   # past delivery.GRACE: the game is 'behind' from now on
        before = _private_edits(api, players)
        await asyncio.sleep(3.0)   # ~15 sweep ticks, nothing happens in the game
        during = _private_edits(api, players) - before
        assert during == 0, f"{during} editMessageText calls to private chats in 3 s of nothing"


class _NotPolling:
    """A second bot process on the same database whose updater does not poll (Telegram
    gives updates to one getUpdates at a time): a deploy's overlap, or a webhook worker
    that (re)starts while another worker handles an update. Its JobQueue runs: the sweep
    and the inbox replay."""

    def __init__(self, runner) -> None:
        from telegram_app.app import build_application

        self.app = build_application(runner.settings(), clock=runner.clock)

    async def __aenter__(self):
        app = self.app
        await app.initialize()
        if app.post_init:
            await app.post_init(app)
        await app.start()
        return self

    async def __aexit__(self, *exc) -> None:
        app = self.app
        await app.stop()
        if app.post_stop:
            await app.post_stop(app)
        await app.shutdown()
        if app.post_shutdown:
            await app.post_shutdown(app)


async def test_a_starting_process_does_not_handle_an_update_another_live_process_handles(
        pg_db, pg_url) -> None:
    """Replay.run's first run has no grace (replay_job: ``grace=0 if runs == 0``) and skips
    only its own pending ids, so a process that starts takes every undone inbox item, also
    the ones another live process received a moment ago and is handling right now (its
    handler has not committed yet: here /pause waits for getChatMember). Both handle it:
    the group is told "⏸ paused" by the new process and "already paused" by the first.
    The same happens in steady state whenever a handler takes longer than INBOX_GRACE
    (a reply waiting for the group's rate-limit budget)."""
    from tests.e2e.harness import hold

    async with bot_table(pg_url, GROUP, "Overlap", ["Ann", "Bob", "Cat"], notes="every_move") as (
            api, players, runner):
        await start_game(api, players, GROUP)
        await mover(api, players)
        await api.settle()
        held, release = hold(api, "getChatMember", lambda p: True)
        await players[0].send(GROUP, "/pause")       # process A: stored, handler waiting
        await asyncio.wait_for(held.wait(), 30)
        async with _NotPolling(runner):               # process B starts (deploy overlap)
            await asyncio.sleep(3.0)
            release.set()
            await api.settle()
            await asyncio.sleep(1.0)
        paused = api.find_messages(GROUP, "is paused.")  # (the answer; the table: "(/resume)")
        again = api.find_messages(GROUP, "already paused")
        assert len(paused) == 1 and not again, [m.text for m in paused + again]


@pytest.mark.process
async def test_a_kill_between_a_note_and_its_record_tells_it_again_once(
        pg_db, pg_url, tmp_path) -> None:
    """SIGKILL while a bid's group note is on its way (it reaches Telegram, the delivery's
    record does not reach the database): after the restart the note is told again, once,
    and the game goes on. (Held: at least once, never lost, not repeated.)"""
    from tests.e2e.harness import hold, play_turn
    from tests.e2e.processes import kill, spawn, spawn_with_game
    from tests.fakebot import FakeBotAPI

    async with FakeBotAPI() as api:
        bot, players = await spawn_with_game(api, pg_url, tmp_path / "bot.log", GROUP, "Kill",
                                             notes="every_move")
        try:
            first = await mover(api, players)
            await api.settle()
            # the note goes out beside the next player's private message, a new one that
            # pings them (asyncio.gather): that send is held, so the note has reached
            # Telegram when the process dies
            held, release = hold(api, "sendMessage", lambda p: p.get("chat_id", 0) > 0
                                 and "Your turn" in str(p.get("text")))
            message = api.bot_messages(first.id)[-1]
            data = next(d for t, d in api.buttons(message) if t.strip("\u2068\u2069") == "1")
            await first.press(message, data)
            try:
                await asyncio.wait_for(held.wait(), 30)
            except TimeoutError:
                raise AssertionError([(c.params.get("chat_id"), c.params.get("text"))
                                      for c in api.calls("sendMessage")][-5:]) from None
            await wait_for(lambda: len(api.find_messages(GROUP, "bids 1.")) == 1)
            await kill(bot)                    # Telegram got the note; nobody recorded it
            release.set()
            await asyncio.sleep(0.2)
            assert len(api.find_messages(GROUP, "bids 1.")) == 1
            bot = await spawn(api, pg_url, tmp_path / "bot.log")
            await wait_for(lambda: len(api.find_messages(GROUP, "bids 1.")) >= 2, timeout=60)
            await asyncio.sleep(3.0)           # more sweeps: not told a third time
            assert len(api.find_messages(GROUP, "bids 1.")) == 2
            for _ in range(3):
                assert await play_turn(api, players, GROUP)
            texts = [m.text or "" for m in api.bot_messages(GROUP)]
            round1 = texts[:next((i for i, t in enumerate(texts) if "round 2" in t),
                                 len(texts))]
            assert sum("bids 1." in t for t in round1) == 2, round1
        finally:
            await kill(bot)


async def test_two_processes_sweeping_tell_each_thing_once(slow_table) -> None:
    """Two bot processes on one PostgreSQL database (the second one does not poll: a
    deploy's overlap, or another webhook worker), both sweeping every 50 ms, while the
    clock jumps through reminders and timeouts and players bid: every reminder, timeout
    note and bid note is told once."""
    from tests.e2e.harness import choose, move_version, private_turn_message

    api, players, clock, runner = slow_table
    await start_game(api, players, GROUP)
    await mover(api, players)
    await api.settle()
    async with _NotPolling(runner):
        for step in range(40):
            if api.find_messages(GROUP, "is over!"):
                break
            if step % 5 == 4:
                offers = [(m, u) for u in players
                          if (m := private_turn_message(api, u)) is not None]
                if offers:
                    message, user = max(offers, key=lambda o: move_version(api, o[0]) or 0)
                    await api.wait_answer(await user.press(message, choose(api, message)))
            else:
                clock.advance(1250)  # a reminder, then a timeout, by turns
            await asyncio.sleep(0.6)
        await api.settle()
        await asyncio.sleep(1.0)
    texts = [(m.text or "").replace("\u2068", "").replace("\u2069", "")
             for m in api.bot_messages(GROUP)]
    rounds: list[list[str]] = [[]]
    for t in texts:
        if "· round" in t:
            rounds.append([])
        rounds[-1].append(t)
    doubles = [t for r in rounds for i, t in enumerate(r) if t in r[:i]]
    assert sum("ran out of time" in t for t in texts) >= 2  # (the clock did its part)
    assert not doubles, doubles


async def test_a_slow_delivery_elsewhere_is_no_error_here(slow_table, caplog) -> None:
    """Process A's delivery of a bid waits 25 s for its group note (in production: the
    group's 20-a-minute budget in the rate limiter, or a 429 pause). Process B's sweep finds
    the game behind after delivery.GRACE and waits for the game's advisory lock, which
    gives up after LOCK_WAIT (20 s) with LockNotAvailable (55P03): not an outage
    (outage.ANSWERED), so Presenter.deliver logs it with log.exception — an ERROR with a
    traceback for an ordinary wait. In a handler (show_lobby after ✋ Join, /start's
    resend) the same error reaches on_error: "Sorry, something went wrong", and /start's
    cards are not sent."""
    import logging

    api, players, clock, runner = slow_table
    caplog.set_level(logging.WARNING)
    await start_game(api, players, GROUP)
    first = await mover(api, players)
    await api.settle()
    messenger = runner.app.bot_data[KEY].presenter.messenger
    plain = messenger.send_result
    waiting = asyncio.Event()

    async def send_result(chat_id, text, **kwargs):
        if chat_id == GROUP and "bids <b>1</b>" in text and not waiting.is_set():
            waiting.set()
            await asyncio.sleep(25)          # the group's budget is spent: wait our turn
        return await plain(chat_id, text, **kwargs)

    messenger.send_result = send_result
    message = api.bot_messages(first.id)[-1]
    data = next(d for t, d in api.buttons(message) if t.strip("\u2068\u2069") == "1")
    await first.press(message, data)
    await asyncio.wait_for(waiting.wait(), 30)
    async with _NotPolling(runner):
        await asyncio.sleep(27)
        await api.settle()
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert not errors, [(r.getMessage(), repr(r.exc_info and r.exc_info[1])[:160])
                        for r in errors]
