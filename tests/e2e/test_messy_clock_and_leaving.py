"""Messy Telegram around the end of a group-only player's turn: /pause and /resume while he is to
act, reminders and timeouts (one, or two in a row that remove the player), and a player leaving
on his turn; no ping, reminder or live keyboard stays behind.

A quiet group (a break-it review); Dan never starts the bot (he plays with 🎴 only). The table
and the helpers: :mod:`tests.e2e.messy_telegram_helpers`.
"""

from __future__ import annotations

import asyncio
import logging

import pytest

from tests.e2e.harness import move_version, wait_for
from tests.e2e.messy_telegram_helpers import (
    CARDS,
    GROUP,
    bid,
    dan_moves_from_the_table,
    dans_view,
    failures,
    game_of,
    game_turn_message,
    live_ephemeral,
    lowest_bid,
    named,
    plain,
    start,
    table,
    to_act,
    until_turn_of,
)
from tests.fakebot import FakeUser

# ---------------------------------------------------------------- /pause and /resume

async def test_pause_and_resume_while_a_group_only_player_is_to_act(pg_db, pg_url,
                                                                   caplog) -> None:
    """Dan (no private chat) is to act with his 🎴 view open, half an hour into his turn;
    Ann pauses for ten days, then resumes. His view and the table show the paused clock,
    then the new deadline (half an hour after the resume); no reminder while paused; the
    reminder comes a quarter of an hour after the resume, with the new deadline, once;
    then the timeout."""
    caplog.set_level(logging.INFO)
    async with table(pg_url) as (api, players, runner, clock):
        ann, bob, dan = players
        game_id, game, tbl = await dans_view(api, runner, players)
        view = live_ephemeral(api, GROUP, dan)
        assert view is not None and "Turn ends" in view.text, view.text
        clock.advance(1800)
        await api.settle(quiet=0.2)
        await ann.send(GROUP, "/pause")
        await wait_for(lambda: bool(api.find_messages(GROUP, "is paused")))
        await api.settle(quiet=0.2)
        assert "The clock is paused" in api.get_message(GROUP, tbl.message_id).text
        view = live_ephemeral(api, GROUP, dan)
        assert view is not None and "Turn ends" not in view.text, view.text  # no stale clock
        clock.advance(10 * 86400)
        await api.settle(quiet=0.3)
        assert not api.find_messages(GROUP, "it is your turn in game")
        assert not api.find_messages(GROUP, "ran out of time")
        await ann.send(GROUP, "/resume")
        await wait_for(lambda: bool(api.find_messages(GROUP, "runs again")))
        await api.settle(quiet=0.3)
        resumed = clock.now
        deadline = int((resumed.timestamp()) + 1800)
        text = api.get_message(GROUP, tbl.message_id).text
        assert "Turn ends" in text, text
        stamps = [e["unix_time"] for e in api.get_message(GROUP, tbl.message_id).entities
                  if e["type"] == "date_time"]
        assert stamps and abs(stamps[0] - deadline) <= 60, (stamps, deadline)
        view = live_ephemeral(api, GROUP, dan)
        assert view is not None and "Turn ends" in view.text, view.text
        stamps = [e["unix_time"] for e in view.entities if e["type"] == "date_time"]
        assert stamps and abs(stamps[0] - deadline) <= 60, (stamps, deadline)
        assert not api.find_messages(GROUP, "it is your turn in game")  # (not yet)
        clock.advance(14 * 60)
        await api.settle(quiet=0.3)
        assert not api.find_messages(GROUP, "it is your turn in game"), "reminder too early"
        clock.advance(2 * 60)
        await wait_for(lambda: bool(api.find_messages(GROUP, "it is your turn in game")))
        await api.settle(quiet=0.3)
        [reminder] = api.find_messages(GROUP, "it is your turn in game")
        stamps = [e["unix_time"] for e in reminder.entities if e["type"] == "date_time"]
        assert stamps and abs(stamps[0] - deadline) <= 60, (stamps, deadline, reminder.text)
        clock.advance(15 * 60)
        await wait_for(lambda: bool(api.find_messages(GROUP, "ran out of time")))
        await api.settle(quiet=0.3)
        # (Dan's ping after the timeout: test_a_reminded_group_only_player_keeps_no_ping…)
    assert not failures(caplog)


# ---------------------------------------------------------------- timeouts

@pytest.mark.parametrize("ends", ["timeout", "move", "cancel"])
async def test_a_reminded_group_only_player_keeps_no_ping_after_the_turn(
        pg_db, pg_url, caplog, ends) -> None:
    """Dan (no private chat) is passed the turn by a bid: pinged ("Dan, your turn: 🎴 …").
    At three quarters of his clock the reminder names him too. His turn then ends (it times
    out, he moves from 🎴, or Ann cancels the game): the ping and the reminder both go
    (README: the ping is "deleted (as a clock's reminder is) once its turn is over")."""
    caplog.set_level(logging.INFO)
    async with table(pg_url) as (api, players, runner, clock):
        ann, bob, dan = players
        # (seed 1, table(): Ann opens, Dan's turn comes by a bid)
        game_id = await start(api, players, GROUP)
        await until_turn_of(api, runner, players, game_id, dan)
        [ping] = named(api, GROUP, dan)
        clock.advance(2701)
        await wait_for(lambda: bool(api.find_messages(GROUP, "it is your turn in game")))
        await api.settle(quiet=0.3)
        if ends == "timeout":
            clock.advance(901)
            await wait_for(lambda: bool(api.find_messages(GROUP, "ran out of time")))
        elif ends == "move":
            await dan_moves_from_the_table(api, runner, dan, GROUP, game_id)
        else:
            await ann.send(GROUP, "/cancel")
            await wait_for(lambda: bool(api.find_messages(GROUP, "was cancelled")))
        await api.settle(quiet=0.3)
        if (await to_act(runner, game_id)) != dan.id:
            assert api.get_message(GROUP, ping.message_id).deleted, \
                f"Dan's ping stays after his turn: {ping.text!r}"
            assert not named(api, GROUP, dan), [m.text for m in named(api, GROUP, dan)]
    assert not failures(caplog), failures(caplog)


async def play_until(api, runner, players, game_id: int, *, away: FakeUser, clock,
                     stop, limit: int = 40) -> None:
    """Everybody but ``away`` bids (Dan from the group); ``away``'s turns time out; until
    ``stop()``."""
    users = {u.id: u for u in players}
    for _ in range(limit):
        if stop():
            return
        who = await to_act(runner, game_id)
        if who is None:
            return
        user = users[who]
        version = (await game_of(runner, game_id)).version
        if user is away:
            clock.advance(3601)
            for _ in range(300):
                if (await game_of(runner, game_id)).version != version:
                    break
                await asyncio.sleep(0.02)
            await api.settle(quiet=0.2)
            continue
        if user.started:
            await bid(api, runner, user, game_id)
        else:
            await dan_moves_from_the_table(api, runner, user, GROUP, game_id)
        await api.settle(quiet=0.1)
    raise AssertionError("did not get there")


@pytest.mark.parametrize("who", ["Dan", "Bob"])
async def test_two_timeouts_in_a_row_remove_the_player_and_leave_nothing_live(
        pg_db, pg_url, caplog, who) -> None:
    """Dan (group only) or Bob (private chat) lets two turns in a row time out: removed,
    the others play on. No ping or reminder naming him stays in the group, he keeps no live
    keyboard (private, or 🎴 view), and his 🎴 press is told he is out."""
    caplog.set_level(logging.INFO)
    async with table(pg_url, names=("Ann", "Bob", "Cat", "Dan")) as (
            api, players, runner, clock):
        ann, bob, cat, dan = players
        away = dan if who == "Dan" else bob
        game_id = await start(api, players, GROUP)
        await play_until(api, runner, players, game_id, away=away, clock=clock,
                         stop=lambda: bool(api.find_messages(GROUP, "is removed from")))
        await api.settle(quiet=0.3)
        game = await game_of(runner, game_id)
        assert game.status == "running"
        assert not named(api, GROUP, away), [m.text for m in named(api, GROUP, away)]
        assert not [m for m in api.find_messages(GROUP, "it is your turn in game")
                    if away.first_name in plain(m.text)]
        for message in api.ephemeral_messages(GROUP, away.id):
            assert move_version(api, message) is None, message.text
        for message in api.bot_messages(away.id):
            assert move_version(api, message) is None, message.text
        tbl = api.get_message(GROUP, game.table_message_id)
        answer = await away.press_and_settle(tbl, CARDS, quiet=0.1)
        assert "out" in (answer.get("text") or "").lower(), answer
        # the game goes on: someone else holds the turn, with a keyboard
        nxt = await to_act(runner, game_id)
        assert nxt is not None and nxt != away.id
    assert not failures(caplog)


async def test_leaving_on_ones_turn_takes_the_ping_along(pg_db, pg_url, caplog) -> None:
    """Dan (group only), pinged, with his 🎴 view, sends /leave on his turn (Cat leaves the
    group on hers in a second game): the ping goes, his view keeps no buttons, the turn
    passes to a player who is told."""
    caplog.set_level(logging.INFO)
    async with table(pg_url, names=("Ann", "Bob", "Cat", "Dan")) as (
            api, players, runner, clock):
        ann, bob, cat, dan = players
        game_id = await start(api, players, GROUP)
        await until_turn_of(api, runner, players, game_id, dan)
        tbl = api.get_message(GROUP, (await game_of(runner, game_id)).table_message_id)
        await dan.press_and_settle(tbl, CARDS, quiet=0.05)
        await dan.send(GROUP, "/leave")
        await wait_for(lambda: bool(api.find_messages(GROUP, "leaves the game")))
        await api.settle(quiet=0.3)
        assert not named(api, GROUP, dan), [m.text for m in named(api, GROUP, dan)]
        for message in api.ephemeral_messages(GROUP, dan.id):
            assert move_version(api, message) is None, message.text
        nxt = {u.id: u for u in players}[await to_act(runner, game_id)]
        version = (await game_of(runner, game_id)).version
        await wait_for(lambda: (m := game_turn_message(api, nxt, game_id)) is not None
                       and move_version(api, m) == version)
        # Cat leaves the group on her turn
        await until_turn_of(api, runner, [ann, bob, cat], game_id, cat)
        api.user_leaves(cat, GROUP)
        await wait_for(lambda: len(api.find_messages(GROUP, "leaves the game")) >= 2
                       or bool(api.find_messages(GROUP, "is over!")))
        await api.settle(quiet=0.3)
        for message in api.bot_messages(cat.id):
            assert move_version(api, message) is None, message.text
    assert not failures(caplog), failures(caplog)


async def test_a_timeout_takes_the_buttons_off_the_group_only_players_view(
        pg_db, pg_url, caplog) -> None:
    """Dan's 🎴 view shows his turn's buttons when his clock runs out: the computer moves
    for him, his view loses the turn's buttons, his ping goes, and a tap on the old bid is
    answered without moving."""
    caplog.set_level(logging.INFO)
    async with table(pg_url) as (api, players, runner, clock):
        ann, bob, dan = players
        game_id = await start(api, players, GROUP)
        await until_turn_of(api, runner, players, game_id, dan)
        tbl = api.get_message(GROUP, (await game_of(runner, game_id)).table_message_id)
        await dan.press_and_settle(tbl, CARDS, quiet=0.05)
        view = live_ephemeral(api, GROUP, dan)
        data = lowest_bid(api, view)
        clock.advance(3601)
        await wait_for(lambda: bool(api.find_messages(GROUP, "ran out of time")))
        await api.settle(quiet=0.3)
        game = await game_of(runner, game_id)
        if (await to_act(runner, game_id)) != dan.id:
            for message in api.ephemeral_messages(GROUP, dan.id):
                assert move_version(api, message) is None, message.text
            assert not named(api, GROUP, dan), [m.text for m in named(api, GROUP, dan)]
        if view in api.ephemeral_messages(GROUP, dan.id):
            answer = await api.wait_answer(await dan.press_raw_on(view, data))
            await api.settle(quiet=0.2)
            assert answer.get("text"), answer
            assert (await game_of(runner, game_id)).version == game.version
    assert not failures(caplog), failures(caplog)
