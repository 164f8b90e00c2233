"""A player's private message drawn with the buttons of their turn is recorded so
(``private_messages.acting``), and a new message to them retires it; /pause and /resume are
no move. Normal play deletes no private message; a game running across the migration keeps
one live keyboard; a held or untold move is still told after a /pause; a /pause racing
another process's move pings no one twice. (Found by a review of those changes: the
migration's and the race's tests failed before their fixes; the others guard what held
up.)"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest

from engine import GAMES
from engine.core import Action
from league.service import MatchService
from league.store.db import Database
from telegram_app.services import KEY
from tests.clock import Clock
from tests.e2e.group_coyote_helpers import CODE_NAMES, open_table, turn_message
from tests.e2e.group_play_common import current
from tests.e2e.harness import (
    bot_table,
    move_version,
    open_lobby,
    play_turn,
    press_move,
    private_turn_message,
    wait_for,
)
from tests.e2e.unreachable import lowest_bid, move_keyboards, plain
from tests.fakebot import FakeBotAPI

COYOTE = GAMES["coyote"]
GROUP = -100555771


@pytest.fixture
async def api():
    async with FakeBotAPI() as fake:
        yield fake


def _across_0026(url: str) -> None:
    """The schema taken back to before ``private_messages.acting`` and upgraded again."""
    from alembic import command
    from alembic.config import Config

    from league.store.db import ALEMBIC_DIR, sync_url, upgrade

    config = Config()
    config.set_main_option("script_location", str(ALEMBIC_DIR))
    config.set_main_option("sqlalchemy.url", sync_url(url).replace("%", "%%"))
    command.downgrade(config, "0025_private_messages_by_user")
    upgrade(url)


def _private_deletes(api: FakeBotAPI, since: int = 0) -> list:
    return [r for r in api.requests[since:] if r.method.lower() == "deletemessage"
            and (r.params.get("chat_id") or 0) > 0]


async def test_a_game_running_across_the_migration_keeps_one_keyboard_when_the_turn_comes_back(
        api, sqlite_url) -> None:
    """A game running when 0026 is applied (the bot stopped, the schema taken back to 0025
    and upgraded again, the bot started). Ann (two computer players) bids on her turn's
    message after the upgrade; the computers' replies bring the turn back to her: she is
    pinged by a new message, and the old one, whose buttons were never redrawn (a pinged
    player's message is not edited), must go. Once, the migration took every message as
    drawn without buttons, and it stayed live."""
    t = await open_table(api, sqlite_url, "en", [True], command="/newgame classic", ai=2,
                         seed=3)
    ann = t.players[0]
    try:
        for _ in range(100):
            game = await current(t)
            assert game.status == "running", "no turn came back to Ann"
            seat = COYOTE.current_seat(game.state)
            if game.at_seat(seat).user_id != ann.id:
                continue
            message = await turn_message(t, ann, game.version)
            await t.runner.stop()
            await asyncio.to_thread(_across_0026, sqlite_url)
            await t.runner.start()
            await press_move(api, ann, message, lowest_bid(api, message))
            after = await current(t)
            if after.status != "running" or COYOTE.current_seat(after.state) != seat or \
                    after.state.get("round") != game.state.get("round"):
                continue
            await api.settle(quiet=0.2)
            live = [plain(m.text)[:60] for m in move_keyboards(api, ann)]
            assert len(live) == 1, live
            return
        pytest.fail("no turn came back to Ann")
    finally:
        await t.runner.stop()


@pytest.mark.parametrize("notes", ["quiet", "every_move"])
async def test_a_game_of_humans_deletes_no_private_message(pg_db, pg_url, notes) -> None:
    """Normal play (four humans, no clock, no /start): a turn is one ping and one edit; no
    deleteMessage in any private chat (one a turn would double the private calls)."""
    async with bot_table(pg_url, GROUP, "Economy", ["Ann", "Bob", "Cat", "Dan"],
                         notes=notes) as (api, players, runner):
        runner.app.bot_data[KEY].service.new_seed = lambda: 3
        lobby = await open_lobby(api, players, GROUP)
        await players[0].press_and_settle(lobby, "▶️ Start")
        await api.settle()
        since, moves = len(api.requests), 0
        while not api.find_messages(GROUP, "is over!"):
            assert await play_turn(api, players, GROUP)
            moves += 1
            assert moves < 400
        await api.settle()
        deletes = _private_deletes(api, since)
        print(f"\n{notes}: {moves} moves, {len(deletes)} private deletes, "
              f"{len(api.requests) - since} requests")
        assert not deletes, [(r.params.get("chat_id"), r.params.get("message_id"))
                             for r in deletes]


async def test_computer_players_cost_one_delete_a_turn_that_came_back(api, sqlite_url) -> None:
    """Ann against two computer players: a private deleteMessage only for a turn that came
    back to her through the computers' moves (her message before still carried its buttons),
    never for a turn that began otherwise."""
    t = await open_table(api, sqlite_url, "en", [True], command="/newgame classic", ai=2,
                         seed=3)
    ann = t.players[0]
    back = other = 0
    try:
        for _ in range(300):
            game = await current(t)
            if game.status != "running":
                break
            seat = COYOTE.current_seat(game.state)
            if game.at_seat(seat).user_id != ann.id:
                continue
            message = await turn_message(t, ann, game.version)
            since = len(api.requests)
            await press_move(api, ann, message, lowest_bid(api, message))
            after = await current(t)
            await api.settle(quiet=0.1)
            deletes = len(_private_deletes(api, since))
            if after.status == "running" and COYOTE.current_seat(after.state) == seat and \
                    after.state.get("round") == game.state.get("round"):
                back += 1
                assert deletes <= 1, (game.version, deletes)
            else:
                other += deletes
        print(f"\n{back} turns came back, {other} deletes at other turns, "
              f"{len(_private_deletes(api))} private deletes in all")
        assert other == 0, other
        assert len(move_keyboards(api, ann)) == 0
    finally:
        await t.runner.stop()


async def _reverse_then_clock(pg_url, notes: str) -> None:
    clock = Clock(datetime(2026, 5, 4, 9, 0, tzinfo=UTC))
    async with bot_table(pg_url, GROUP, "Clockwork", ["Ann", "Bob", "Cat"], clock=clock,
                         sweep_interval=0.05, notes=notes) as (api, players, runner):
        ann, bob, cat = players
        runner.app.bot_data[KEY].service.new_seed = lambda: 3  # (Ann first, with Reverse)
        lobby = await open_lobby(api, players, GROUP)
        data = next(d for t, d in api.buttons(api.get_message(GROUP, lobby.message_id))
                    if "🎭" in t)
        await ann.press_and_settle(lobby, data)
        await ann.press_and_settle(api.get_message(GROUP, lobby.message_id), "▶️ Start")
        await wait_for(lambda: private_turn_message(api, ann) is not None)
        await api.settle(quiet=0.2)
        message = private_turn_message(api, ann)
        reverse = next(d for _t, d in api.buttons(message) if d.startswith("x:")
                       and CODE_NAMES[int(d.split(":")[3])] == "reverse")
        first = move_version(api, message) or 0
        await ann.press_and_settle(message, reverse)
        await wait_for(lambda: private_turn_message(api, ann, first) is not None)
        await api.settle(quiet=0.3)
        for command, said in (("/pause", "is paused"), ("/resume", "runs again")):
            await ann.send(GROUP, command)
            await wait_for(lambda said=said: bool(api.find_messages(GROUP, said)))
            await asyncio.sleep(0.6)  # (a dozen sweeps)
            await api.settle(quiet=0.3)
        mark = len(api.requests)
        message = private_turn_message(api, ann)
        assert message is not None, [plain(m.text)[:40] for m in api.bot_messages(ann.id)]
        await press_move(api, ann, message, lowest_bid(api, message))
        await wait_for(lambda: any(private_turn_message(api, u) is not None
                                   for u in (bob, cat)))
        nxt = next(u for u in (bob, cat) if private_turn_message(api, u) is not None)
        await asyncio.sleep(0.3)
        await api.settle(quiet=0.3)
        told = [plain(m.text) for m in api.bot_messages(GROUP)
                if "everse" in plain(m.text)]
        assert told, [plain(m.text)[:80] for m in api.bot_messages(GROUP)]
        pings = [r for r in api.requests[mark:] if r.method == "sendMessage"
                 and r.params.get("chat_id") == nxt.id]
        assert len(pings) == 1, len(pings)


@pytest.mark.parametrize("notes", ["quiet", "every_move"])
async def test_a_pause_and_resume_while_a_reverse_note_is_held_still_tell_it(
        pg_db, pg_url, notes) -> None:
    """Ann's Reverse keeps her turn (its note waits for her next move); /pause and /resume
    come in between: her next bid's note still tells the Reverse, and the next player is
    pinged once."""
    await _reverse_then_clock(pg_url, notes)


async def test_a_pause_while_a_move_is_untold_leaves_it_to_the_sweep(pg_db, pg_url) -> None:
    """Ann's bid is not told (its group note is lost while Telegram fails); /pause comes
    before any sweep could tell it: the pause must not record the game told (the bid would
    never be told), so once Telegram is back a sweep tells it."""
    clock = Clock(datetime(2026, 5, 4, 9, 0, tzinfo=UTC))
    async with bot_table(pg_url, GROUP, "Clockwork", ["Ann", "Bob", "Cat"], clock=clock,
                         sweep_interval=0.05, notes="every_move") as (api, players, runner):
        ann, bob, _cat = players
        runner.app.bot_data[KEY].service.new_seed = lambda: 3  # (Ann, Bob, Cat in turn)
        lobby = await open_lobby(api, players, GROUP)
        await ann.press_and_settle(lobby, "▶️ Start")
        await wait_for(lambda: private_turn_message(api, ann) is not None)
        await api.settle(quiet=0.2)
        api.fail_next("sendMessage", 502, "Bad Gateway", count=100000, chat_id=GROUP,
                      when=lambda p: "bids" in str(p.get("text")))
        message = private_turn_message(api, ann)
        await press_move(api, ann, message, lowest_bid(api, message))
        await wait_for(lambda: private_turn_message(api, bob) is not None)
        await ann.send(GROUP, "/pause")
        await wait_for(lambda: bool(api.find_messages(GROUP, "is paused")))
        await asyncio.sleep(0.3)
        assert not api.find_messages(GROUP, "bids")
        api._failures.clear()  # Telegram is back
        await wait_for(lambda: bool(api.find_messages(GROUP, "bids")), timeout=10)
        await api.settle(quiet=0.3)
        assert len(move_keyboards(api, bob)) == 1


async def test_a_pause_racing_a_move_of_another_process_pings_no_one_again(pg_db,
                                                                          pg_url) -> None:
    """Two bot processes: one commits Ann's bid, and before its delivery tells it the other
    handles /pause (the game's delivery lock is free: the first process's delivery has not
    begun). The pause's redraw finds the bid untold, so it records nothing; the first
    process then tells the bid (up to its version) and pings Bob. The pause's version is
    left untold: once the bid is out of its grace, a sweep finds it behind, with no move
    logged since. Once, it took the clock's change for an untold move and pinged Bob again
    (a second notification, the first ping deleted)."""
    async with bot_table(pg_url, GROUP, "Clockwork", ["Ann", "Bob", "Cat"],
                         sweep_interval=0.05) as (api, players, runner):
        ann, bob, _cat = players
        bot = runner.app.bot_data[KEY]
        bot.service.new_seed = lambda: 3  # (Ann, Bob, Cat in turn)
        lobby = await open_lobby(api, players, GROUP)
        await ann.press_and_settle(lobby, "▶️ Start")
        await wait_for(lambda: private_turn_message(api, ann) is not None)
        await asyncio.sleep(2.5)  # (the start out of its grace: nothing fresh for a sweep)
        await api.settle(quiet=0.3)
        game = await bot.service.open_game(GROUP, 0)
        other = MatchService(Database(pg_url))  # the other process: its service, same database
        try:
            outcome = await other.act(game.id, ann.id, game.version, Action("bid", 1))
            mark = len(api.requests)
            await ann.send(GROUP, "/pause")  # (this process: the bid's delivery not begun)
            await wait_for(lambda: bool(api.find_messages(GROUP, "is paused")))
            bot.presenter.committed(outcome)  # the other process's delivery of the bid
            await wait_for(lambda: private_turn_message(api, bob) is not None)
            await asyncio.sleep(3)  # (the bid out of its grace: sixty sweeps)
            await api.settle(quiet=0.3)
        finally:
            await other.db.dispose()
        pings = [r for r in api.requests[mark:] if r.method == "sendMessage"
                 and r.params.get("chat_id") == bob.id]
        deleted = [r for r in api.requests[mark:] if r.method == "deleteMessage"
                   and r.params.get("chat_id") == bob.id]
        # (a delete of Bob's message the pause drew with his buttons is fair; a second ping
        # is not)
        assert len(pings) == 1 and len(deleted) <= 1, [
            (r.method, r.params.get("message_id"), str(r.params.get("text"))[:30])
            for r in api.requests[mark:] if r.params.get("chat_id") == bob.id]
