"""A database outage (PostgreSQL cut off behind a TCP proxy): a press or a command gets the
outage answer and changes nothing, the outage is logged as one warning (no traceback per
update), and the bot recovers by itself once the database is back."""

from __future__ import annotations

import logging

import pytest
from sqlalchemy.engine import make_url

from tests.e2e.harness import (
    bot_table,
    hold,
    mover,
    notes,
    private_turn_message,
    start_game,
    wait_for,
)
from tests.e2e.processes import kill, spawn
from tests.e2e.tcp_proxy import TcpProxy
from tests.fakebot import FakeBotAPI

GROUP = -100901
OUTAGE = "I can't reach my records right now; nothing was changed"



def assert_one_outage_warning(caplog) -> None:  # type: ignore[no-untyped-def]
    """The log holds exactly one "cannot be reached" warning and nothing at ERROR."""
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING
                and "cannot be reached" in r.getMessage()]
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(warnings) == 1, [r.getMessage() for r in warnings]
    assert not errors, [r.getMessage() for r in errors]

async def test_a_press_during_an_outage_gets_the_outage_answer(pg_db, pg_url, caplog) -> None:
    real = make_url(pg_url)
    proxy = await TcpProxy(real.host or "127.0.0.1", real.port or 5432).start()
    url = real.set(port=proxy.port).render_as_string(hide_password=False)
    caplog.set_level(logging.INFO)
    try:
        async with bot_table(url, GROUP, "Outage", ["Ann", "Bob", "Cat"],
                             notes="every_move") as (api, players, _):
            await start_game(api, players, GROUP)
            user = await mover(api, players)
            message = private_turn_message(api, user)
            bid = next(d for _, d in api.buttons(message) if d and d.startswith("b:"))
            proxy.cut()
            answer = await user.press_and_settle(message, bid, quiet=0.05)
            assert answer.get("show_alert") and OUTAGE in answer.get("text", ""), answer
            await players[0].send(GROUP, "/newgame")
            await wait_for(lambda: bool(api.find_messages(GROUP, OUTAGE)))
            answer = await user.press_and_settle(message, bid, quiet=0.05)  # still down
            assert OUTAGE in answer.get("text", ""), answer
            assert not api.find_messages(GROUP, "bids")  # nothing was changed
            proxy.restore()
            answer = await user.press_and_settle(message, bid, quiet=0.05)
            assert not answer.get("show_alert"), answer  # back by itself, at once
            await wait_for(lambda: bool(api.find_messages(GROUP, "bids")))
            await api.settle()
    finally:
        await proxy.stop()
    assert_one_outage_warning(caplog)
    assert not any(r.exc_info for r in caplog.records if r.levelno >= logging.WARNING)


async def test_an_outage_during_a_delivery_is_one_warning(pg_db, pg_url, caplog) -> None:
    """The database goes away while a move's messages are being sent (the delivery holds its
    transaction across the sends, and its raise of ``told_version`` fails): no traceback,
    only the one warning of the outage."""
    real = make_url(pg_url)
    proxy = await TcpProxy(real.host or "127.0.0.1", real.port or 5432).start()
    url = real.set(port=proxy.port).render_as_string(hide_password=False)
    caplog.set_level(logging.INFO)
    try:
        async with bot_table(url, GROUP, "Outage", ["Ann", "Bob", "Cat"],
                             sweep_interval=0.2, notes="every_move") as (api, players, _):
            await start_game(api, players, GROUP)
            user = await mover(api, players)
            held, release = hold(api, "sendMessage", lambda p: p.get("chat_id") == GROUP
                                 and "bids" in str(p.get("text")))
            message = private_turn_message(api, user)
            bid = next(d for _, d in api.buttons(message) if d and d.startswith("b:"))
            await user.press(message, bid)
            await wait_for(held.is_set)
            proxy.cut()
            release.set()  # the note arrives; recording it fails
            await wait_for(lambda: any("cannot be reached" in r.getMessage()
                                       for r in caplog.records))
            proxy.restore()
            await wait_for(lambda: bool(api.find_messages(GROUP, "bids")))
            await api.settle()
    finally:
        await proxy.stop()
    assert_one_outage_warning(caplog)


async def test_a_departure_during_an_outage_is_handled_once_it_is_over(
        pg_db, pg_url, caplog) -> None:
    """A player leaves the group while the database is down: nobody can be told "nothing
    was changed", so Telegram is not told the update arrived; it comes again, and is stored
    and handled once the database is back (they leave the game)."""
    real = make_url(pg_url)
    proxy = await TcpProxy(real.host or "127.0.0.1", real.port or 5432).start()
    url = real.set(port=proxy.port).render_as_string(hide_password=False)
    caplog.set_level(logging.INFO)
    try:
        async with bot_table(url, GROUP, "Outage", ["Ann", "Bob", "Cat", "Dan"]
                             , notes="every_move") as (api, players, _):
            await start_game(api, players, GROUP)
            proxy.cut()
            api.user_leaves(players[2], GROUP)
            await wait_for(lambda: any("cannot be reached" in r.getMessage()
                                       for r in caplog.records))
            await api.settle()
            proxy.restore()
            await wait_for(lambda: bool(api.find_messages(GROUP, "Cat\u2069 leaves the game")),
                           timeout=30)
            await api.settle()
    finally:
        await proxy.stop()


@pytest.mark.process
@pytest.mark.timeout(240)
async def test_a_departure_during_an_outage_survives_a_kill(pg_db, pg_url, tmp_path) -> None:
    """A player leaves the group while the database is down, and the process is killed
    before it is back: the departure was never confirmed to Telegram (no ``getUpdates``
    offset moved past it), so the new process fetches it again, stores it and handles it
    (they leave the game)."""
    real = make_url(pg_url)
    proxy = await TcpProxy(real.host or "127.0.0.1", real.port or 5432).start()
    url = real.set(port=proxy.port).render_as_string(hide_password=False)
    log = tmp_path / "bot.log"
    async with FakeBotAPI() as api:
        api.add_group(GROUP, "Outage", admins=[1])
        players = [api.add_user(i, n) for i, n in enumerate(["Ann", "Bob", "Cat", "Dan"], 1)]
        for user in players:
            await user.start_bot()
        bot = await spawn(api, url, log)
        try:
            await wait_for(lambda: bool(api.calls("getUpdates")), timeout=60)
            await start_game(api, players, GROUP)
            proxy.cut()
            api.user_leaves(players[2], GROUP)
            departure = max(api.unconfirmed())  # (just queued: nothing was awaited)
            polls = len(api.calls("getUpdates"))
            # fetched again and again, never confirmed
            await wait_for(lambda: len(api.calls("getUpdates")) >= polls + 3, timeout=30)
            assert departure in api.unconfirmed()
            await kill(bot)
            proxy.restore()
            bot = await spawn(api, url, log)
            await wait_for(lambda: bool(api.find_messages(GROUP, "Cat\u2069 leaves the game")),
                           timeout=60)
            await api.settle()
            assert len(notes(api, GROUP, "Cat\u2069 leaves the game")) == 1
        finally:
            await kill(bot)
            await proxy.stop()
    assert "Traceback" not in log.read_text()
