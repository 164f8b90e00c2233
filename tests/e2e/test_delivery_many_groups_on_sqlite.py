"""Many groups at once on SQLite: games, mass timeouts, a lobby's flood wait stalls no one."""

from __future__ import annotations

import asyncio

from tests.e2e.harness import mover, start_game, wait_for


async def test_many_games_at_once_on_sqlite(sqlite_url, caplog) -> None:
    """Eight games in eight groups played at once on the embedded SQLite default (one
    update at a time, deliveries beside it, the sweep every 0.2 s): no 'database is
    locked', no outage note, every press answered without an alert, every game goes on."""
    import logging

    from tests.e2e.harness import BotRunner, choose, confirms, private_turn_message
    from tests.fakebot import FakeBotAPI

    caplog.set_level(logging.WARNING)
    groups = [-100900 - i for i in range(8)]
    async with FakeBotAPI() as api:
        tables = {}
        for n, group in enumerate(groups):
            api.add_group(group, f"G{n}", admins=[100 + 3 * n])
            tables[group] = [api.add_user(100 + 3 * n + k, f"P{n}x{k}") for k in range(3)]
            for user in tables[group]:
                await user.start_bot()
        runner = BotRunner(api, sqlite_url, sweep_interval=0.2)
        await runner.start()
        try:
            for group, players in tables.items():
                await start_game(api, players, group)
            alerts: list[str] = []

            async def play(group: int, players, turns: int) -> int:
                done = 0
                for _ in range(turns):
                    offers = [(m, u) for u in players
                              if (m := private_turn_message(api, u)) is not None]
                    if not offers:
                        await asyncio.sleep(0.05)
                        continue
                    from tests.e2e.harness import move_version
                    message, user = max(offers, key=lambda o: move_version(api, o[0]) or 0)
                    version = move_version(api, message) or 0
                    data = choose(api, message)
                    answer = await api.wait_answer(await user.press(message, data), timeout=30)
                    if confirms(data) and not answer.get("show_alert"):
                        # 🐺 Coyote! asked first: "Yes" on the same message (choose picks it)
                        await wait_for(lambda m=message: any(
                            d and d.startswith("c:") for _, d in api.buttons(m)), timeout=30)
                        answer = await api.wait_answer(
                            await user.press(message, choose(api, message)), timeout=30)
                    if answer.get("show_alert"):
                        alerts.append(str(answer.get("text")))
                    await wait_for(lambda v=version: any(private_turn_message(api, u, v)
                                                         for u in players)
                                   or api.find_messages(group, "is over!"), timeout=30)
                    done += 1
                    if api.find_messages(group, "is over!"):
                        break
                return done

            played = await asyncio.wait_for(asyncio.gather(
                *(play(g, p, 25) for g, p in tables.items())), 240)
            await api.settle(timeout=60)
        finally:
            await runner.stop()
    bad = [r.getMessage() for r in caplog.records
           if "locked" in r.getMessage() or "cannot be reached" in r.getMessage()
           or r.levelno >= logging.ERROR]
    assert not bad, bad[:5]
    assert not alerts, alerts[:5]
    assert all(p >= 10 for p in played), played


async def test_many_games_and_timeouts_at_once_on_sqlite(sqlite_url, caplog) -> None:
    """The same, while the clock jumps past every game's deadline again and again: the sweep
    times all eight games out in one transaction beside the presses and deliveries."""
    import logging
    from datetime import UTC, datetime

    from tests.clock import Clock
    from tests.e2e.harness import BotRunner, choose, move_version, private_turn_message
    from tests.fakebot import FakeBotAPI

    caplog.set_level(logging.WARNING)
    clock = Clock(datetime(2026, 5, 4, 9, 0, tzinfo=UTC))
    groups = [-100920 - i for i in range(8)]
    async with FakeBotAPI() as api:
        tables = {}
        for n, group in enumerate(groups):
            api.add_group(group, f"T{n}", admins=[200 + 3 * n])
            tables[group] = [api.add_user(200 + 3 * n + k, f"Q{n}x{k}") for k in range(3)]
            for user in tables[group]:
                await user.start_bot()
        runner = BotRunner(api, sqlite_url, clock=clock, sweep_interval=0.1)
        await runner.start()
        try:
            for group, players in tables.items():
                await start_game(api, players, group)
            stop = asyncio.Event()

            async def ticker() -> None:
                while not stop.is_set():
                    await asyncio.sleep(0.7)
                    clock.advance(3601)

            async def play(group: int, players) -> None:
                for _ in range(40):
                    if api.find_messages(group, "is over!") or stop.is_set():
                        return
                    offers = [(m, u) for u in players
                              if (m := private_turn_message(api, u)) is not None]
                    if not offers:
                        await asyncio.sleep(0.05)
                        continue
                    message, user = max(offers, key=lambda o: move_version(api, o[0]) or 0)
                    await api.wait_answer(await user.press(message, choose(api, message)),
                                          timeout=30)
                    await asyncio.sleep(0.02)

            tick = asyncio.create_task(ticker())
            await asyncio.wait_for(asyncio.gather(*(play(g, p) for g, p in tables.items())),
                                   240)
            stop.set()
            await tick
            await api.settle(timeout=60)
        finally:
            await runner.stop()
    bad = [r.getMessage() for r in caplog.records
           if "locked" in r.getMessage() or "cannot be reached" in r.getMessage()
           or r.levelno >= logging.ERROR]
    assert not bad, bad[:5]


async def test_a_lobby_redraw_waiting_for_its_group_does_not_stall_other_groups(
        sqlite_url, monkeypatch) -> None:
    """On SQLite one update is handled at a time (UPDATE_CONCURRENCY 1). ✋ Join answers the
    press in a task, but the handler then awaits Presenter.show_lobby, which waits for the
    group's rate-limit budget (here 5 calls a minute, Telegram's is 20) while the handler
    holds the only slot: a move pressed meanwhile in another group is not even answered
    (its spinner turns) until the lobby's group has budget again, up to a minute later."""
    import time

    from telegram_app.transport import scheduler
    from tests.e2e.harness import BotRunner
    from tests.fakebot import FakeBotAPI

    # At the stop, the lobby's last redraws still wait for the group's budget (5 a minute):
    # post_stop's drain would wait its whole FINISH_TIMEOUT (30 s) for them, then stop anyway.
    # That wait checks nothing here (tests/bot/test_scheduler.py tests the drain itself).
    monkeypatch.setattr(scheduler, "FINISH_TIMEOUT", 2.0)

    class Tight(BotRunner):
        def settings(self):
            return super().settings().model_copy(update={"telegram_group_rate": 5})

    lobby_group, game_group = -100931, -100932
    async with FakeBotAPI() as api:
        api.add_group(lobby_group, "Busy lobby", admins=[301])
        api.add_group(game_group, "Quiet game", admins=[401])
        crowd = [api.add_user(301 + i, f"L{i}") for i in range(7)]
        players = [api.add_user(401 + i, f"G{i}") for i in range(3)]
        for user in crowd + players:
            await user.start_bot()
        runner = Tight(api, sqlite_url)
        await runner.start()
        try:
            await start_game(api, players, game_group)
            first = await mover(api, players)
            await api.settle()
            await crowd[0].send(lobby_group, "/newgame")
            await wait_for(lambda: bool(api.find_messages(lobby_group, "new game #")))
            lobby = api.find_messages(lobby_group, "new game #")[-1]
            for user in crowd[1:]:                  # six joins: six lobby edits
                await user.press(lobby, "✋ Join")
            await asyncio.sleep(1.0)
            message = api.bot_messages(first.id)[-1]
            data = next(d for t, d in api.buttons(message) if t.strip("\u2068\u2069") == "1")
            began = time.monotonic()
            await api.wait_answer(await first.press(message, data), timeout=90)
            waited = time.monotonic() - began
            assert waited < 5, f"a press in another group waited {waited:.1f} s for its answer"
        finally:
            await runner.stop()
