"""Messy Telegram about who is in the chat: a player blocks the bot on his turn, the bot is
removed from the group mid-game, an anonymous admin sends admin commands mid-game.

A quiet group (a break-it review); Dan never starts the bot (he plays with 🎴 only). The table
and the helpers: :mod:`tests.e2e.messy_telegram_helpers`.
"""

from __future__ import annotations

import asyncio
import logging

import pytest

from tests.e2e.harness import wait_for
from tests.e2e.messy_telegram_helpers import (
    GROUP,
    anonymous,
    bid,
    failures,
    game_of,
    group_calls,
    mentions,
    named,
    plain,
    start,
    table,
    to_act,
    until_turn_of,
)

# ---------------------------------------------------------------- the bot removed or demoted


@pytest.mark.parametrize("status", ["kicked", "left"])
async def test_the_bot_removed_mid_game(pg_db, pg_url, caplog, status) -> None:
    """An admin removes the bot from the group mid-game, then the players with a private
    chat go on pressing: each press is answered, nothing logs an error, and the bot does not
    knock on the group's door again and again while nothing happens."""
    caplog.set_level(logging.INFO)
    async with table(pg_url, names=("Ann", "Bob", "Cat"), strangers=0) as (
            api, players, runner, clock):
        ann, bob, cat = players
        game_id = await start(api, players, GROUP)
        api.bot_membership(GROUP, status, by=ann, old="member")
        await api.settle(quiet=0.3)
        users = {u.id: u for u in players}
        for _ in range(3):
            who = await to_act(runner, game_id)
            if who is None:
                break
            await bid(api, runner, users[who], game_id)
            await api.settle(quiet=0.2)
        calls = group_calls(api, GROUP)
        await asyncio.sleep(1.5)  # (30 sweeps)
        await api.settle(quiet=0.2)
        assert group_calls(api, GROUP) - calls <= 2, [
            (r.method, r.params.get("text", "")[:40]) for r in api.requests[-10:]]
        # the clock goes on: a reminder and a timeout, both refused by the group
        calls = group_calls(api, GROUP)
        clock.advance(3601)
        await asyncio.sleep(1.0)
        await api.settle(quiet=0.3)
        clock.advance(10)
        await asyncio.sleep(1.0)
        await api.settle(quiet=0.3)
        assert group_calls(api, GROUP) - calls <= 10, [
            (r.method, r.params.get("text", "")[:40]) for r in api.requests[-10:]]
    assert not failures(caplog), failures(caplog)


# ---------------------------------------------------------------- an anonymous admin

@pytest.mark.parametrize("text", ["/pause", "/settings", "/cancel", "/resume"])
async def test_an_anonymous_admin_mid_game(pg_db, pg_url, caplog, text) -> None:
    """An anonymous admin (the "Group" bot, sender_chat the group) sends an admin command
    while a game runs: it is answered (done, or told to send it as themselves), the game
    is not harmed, and nothing fails."""
    caplog.set_level(logging.INFO)
    async with table(pg_url) as (api, players, runner, clock):
        ann, bob, dan = players
        game_id = await start(api, players, GROUP)
        if text == "/resume":
            await ann.send(GROUP, "/pause")
            await wait_for(lambda: bool(api.find_messages(GROUP, "is paused")))
        await api.settle(quiet=0.2)
        before = len(api.bot_messages(GROUP))
        version = (await game_of(runner, game_id)).version
        anonymous(api, GROUP, text)
        await api.settle(quiet=0.3)
        new = api.bot_messages(GROUP)[before:]
        assert new, f"no answer to an anonymous {text}"
        game = await game_of(runner, game_id)
        answer = "\n".join(m.text or "" for m in new)
        assert "something went wrong" not in answer.lower(), answer
        if game.version != version or game.status != "running":
            assert text in ("/cancel", "/pause", "/resume"), answer
    assert not failures(caplog), failures(caplog)


# ---------------------------------------------------------------- a player blocks the bot

async def test_a_player_who_blocks_the_bot_on_his_turn_is_named_from_then_on(
        pg_db, pg_url, caplog) -> None:
    """Bob blocks the bot while it is his turn (his turn's private message already sent):
    the reminder names him in the group (its private copy is refused), the timeout's
    computer move goes through, and when his turn comes again he is pinged in the group;
    Dan's 🎴 and the others' keyboards go on as before."""
    caplog.set_level(logging.INFO)
    async with table(pg_url, names=("Ann", "Bob", "Cat"), strangers=0) as (
            api, players, runner, clock):
        ann, bob, cat = players
        users = {u.id: u for u in players}
        game_id = await start(api, players, GROUP)
        await until_turn_of(api, runner, players, game_id, bob)
        bob.block_bot()
        clock.advance(2701)
        await wait_for(lambda: bool(api.find_messages(GROUP, "it is your turn in game")))
        await api.settle(quiet=0.3)
        assert "Bob" in plain(api.find_messages(GROUP, "it is your turn in game")[-1].text)
        clock.advance(901)
        await wait_for(lambda: bool(api.find_messages(GROUP, "ran out of time")))
        await api.settle(quiet=0.3)
        assert not api.find_messages(GROUP, "it is your turn in game") or all(
            m.deleted for m in api.find_messages(GROUP, "it is your turn in game"))
        for _ in range(10):
            who = await to_act(runner, game_id)
            if who is None or who == bob.id:
                break
            await bid(api, runner, users[who], game_id)
        if await to_act(runner, game_id) == bob.id:
            await api.settle(quiet=0.3)
            bot_messages = api.bot_messages(GROUP)
            assert named(api, GROUP, bob) or any(mentions(m, bob) for m in bot_messages[-2:]), \
                [m.text for m in bot_messages[-3:]]
    assert not failures(caplog), failures(caplog)
