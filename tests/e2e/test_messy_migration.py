"""Messy Telegram: the group becomes a supergroup mid-game, while a group-only player is to act,
announced or learnt from a refused call, with the game paused, after a reminder; presses on the
old group's table afterwards.

A quiet group (a break-it review); Dan never starts the bot (he plays with 🎴 only). The table
and the helpers: :mod:`tests.e2e.messy_telegram_helpers`.
"""

from __future__ import annotations

import logging

from tests.e2e.harness import move_version, wait_for
from tests.e2e.messy_telegram_helpers import (
    CARDS,
    GROUP,
    bid,
    dan_moves_from_the_table,
    failures,
    game_of,
    live_ephemeral,
    lowest_bid,
    named,
    plain,
    start,
    table,
    to_act,
    until_turn_of,
)

# ---------------------------------------------------------------- supergroup migration

NEW = -100777003


async def test_a_migration_while_a_group_only_player_is_to_act(pg_db, pg_url, caplog) -> None:
    """Dan (no private chat) is to act, pinged, with his 🎴 view open, when the group
    becomes a supergroup: the table comes once in the supergroup and names him there, his 🎴
    works there, his move goes through, the next turns' pings come in the supergroup, and
    nothing the bot posted in the supergroup is deleted or edited by an old group's id."""
    caplog.set_level(logging.INFO)
    async with table(pg_url) as (api, players, runner, clock):
        ann, bob, dan = players
        game_id = await start(api, players, GROUP)
        await until_turn_of(api, runner, players, game_id, dan)
        tbl = api.get_message(GROUP, (await game_of(runner, game_id)).table_message_id)
        await dan.press_and_settle(tbl, CARDS, quiet=0.05)
        assert live_ephemeral(api, GROUP, dan) is not None
        # the supergroup has messages of its own whose ids the old group's had
        api.migrate_group(GROUP, NEW)
        await wait_for(lambda: bool(api.find_messages(NEW, "· round")))
        await api.settle(quiet=0.3)
        for _ in range(8):
            await bob.send(NEW, "chatter")
        await api.settle(quiet=0.1)
        tables = [m for m in api.bot_messages(NEW) if CARDS in [t for t, _ in api.buttons(m)]]
        assert len(tables) == 1, [m.text for m in tables]
        # (his ping stays in the old group's history; the clock's reminder comes here)
        clock.advance(2701)
        await wait_for(lambda: bool(api.find_messages(NEW, "it is your turn in game")))
        await api.settle(quiet=0.2)
        reminder = api.find_messages(NEW, "it is your turn in game")[-1]
        assert "Dan" in plain(reminder.text)
        await dan_moves_from_the_table(api, runner, dan, NEW, game_id)
        await api.settle(quiet=0.2)
        assert api.get_message(NEW, reminder.message_id).deleted  # (its turn is over)
        await until_turn_of(api, runner, players, game_id, dan)
        game = await game_of(runner, game_id)
        assert game.chat_id == NEW
        pings = named(api, NEW, dan)
        assert len(pings) == 1, [m.text for m in pings]
        await dan_moves_from_the_table(api, runner, dan, NEW, game_id)
        await api.settle(quiet=0.2)
        assert not named(api, NEW, dan), [m.text for m in named(api, NEW, dan)]
        # nothing of the supergroup's people was touched by an id of the old group
        users = [m for m in api.messages(NEW, include_deleted=True) if not m.from_bot]
        assert not [m for m in users if m.deleted or m.edits]
        assert len([m for m in api.bot_messages(NEW)
                    if CARDS in [t for t, _ in api.buttons(m)]]) == 1
    assert not failures(caplog)


async def test_a_press_on_the_old_groups_table_after_the_migration(pg_db, pg_url,
                                                                   caplog) -> None:
    """The old group's history still shows the table with 🎴 (and Dan's old view with his
    buttons): Dan presses them after the group became a supergroup. Each press is
    answered, nothing fails, and what he is shown is in the supergroup."""
    caplog.set_level(logging.INFO)
    async with table(pg_url) as (api, players, runner, clock):
        ann, bob, dan = players
        game_id = await start(api, players, GROUP)
        await until_turn_of(api, runner, players, game_id, dan)
        old_table = api.get_message(GROUP, (await game_of(runner, game_id)).table_message_id)
        await dan.press_and_settle(old_table, CARDS, quiet=0.05)
        old_view = live_ephemeral(api, GROUP, dan)
        assert old_view is not None and move_version(api, old_view)
        api.migrate_group(GROUP, NEW)
        await wait_for(lambda: bool(api.find_messages(NEW, "· round")))
        await api.settle(quiet=0.3)
        answer = await dan.press_and_settle(old_table, CARDS, quiet=0.1)
        shown = api.ephemeral_messages(NEW, dan.id)
        assert shown or answer.get("text"), answer  # a view in the supergroup, or a word why
        before = (await game_of(runner, game_id)).version
        answer = await dan.press_and_settle(old_view, lowest_bid(api, old_view), quiet=0.1)
        assert answer is not None
        after = await game_of(runner, game_id)
        if after.version == before:  # refused: he is told why
            assert answer.get("text"), answer
        assert len([m for m in api.bot_messages(NEW)
                    if CARDS in [t for t, _ in api.buttons(m)]]) == 1
    assert not failures(caplog)


async def test_a_migration_the_bot_learns_from_a_refused_edit(pg_db, pg_url, caplog) -> None:
    """The group becomes a supergroup and the migrate messages never reach the bot; it
    learns from a refused call when Ann bids. The table comes once in the supergroup, with
    🎴, and Dan can play from it."""
    caplog.set_level(logging.INFO)
    async with table(pg_url) as (api, players, runner, clock):
        ann, bob, dan = players
        users = {u.id: u for u in players}
        game_id = await start(api, players, GROUP)
        who = await to_act(runner, game_id)
        if who == dan.id:
            await dan_moves_from_the_table(api, runner, dan, GROUP, game_id)
            who = await to_act(runner, game_id)
        api.migrate_group(GROUP, NEW, announce=False)
        await bid(api, runner, users[who], game_id)
        await api.settle(quiet=0.5)
        tables = [m for m in api.bot_messages(NEW) if CARDS in [t for t, _ in api.buttons(m)]]
        assert len(tables) == 1, [m.text for m in api.bot_messages(NEW)]
        await until_turn_of(api, runner, players, game_id, dan)
        await dan_moves_from_the_table(api, runner, dan, NEW, game_id)
        await api.settle(quiet=0.3)
        tables = [m for m in api.bot_messages(NEW) if CARDS in [t for t, _ in api.buttons(m)]]
        assert len(tables) == 1, [m.text for m in api.bot_messages(NEW)]
    assert not failures(caplog), failures(caplog)


async def test_a_migration_of_a_paused_game_keeps_the_clock_paused(pg_db, pg_url,
                                                                  caplog) -> None:
    """The game is paused when the group becomes a supergroup: the table posted there says
    the clock is paused (no deadline), no reminder or timeout comes while paused, and
    /resume in the supergroup starts it again."""
    caplog.set_level(logging.INFO)
    async with table(pg_url) as (api, players, runner, clock):
        ann, bob, dan = players
        game_id = await start(api, players, GROUP)
        await until_turn_of(api, runner, players, game_id, dan)
        await ann.send(GROUP, "/pause")
        await wait_for(lambda: bool(api.find_messages(GROUP, "⏸ The clock of game")))
        await api.settle(quiet=0.2)
        api.migrate_group(GROUP, NEW)
        await wait_for(lambda: bool(api.find_messages(NEW, "· round")))
        await api.settle(quiet=0.3)
        [tbl] = api.find_messages(NEW, "· round")
        assert "The clock is paused" in tbl.text and "Turn ends" not in tbl.text, tbl.text
        clock.advance(5 * 86400)
        await api.settle(quiet=0.3)
        assert not api.find_messages(NEW, "it is your turn in game")
        assert not api.find_messages(NEW, "ran out of time")
        await ann.send(NEW, "/resume")
        await wait_for(lambda: bool(api.find_messages(NEW, "runs again")))
        await api.settle(quiet=0.3)
        assert "Turn ends" in api.get_message(NEW, tbl.message_id).text
    assert not failures(caplog), failures(caplog)


async def test_a_reminder_sent_before_the_migration_is_not_sent_again(pg_db, pg_url,
                                                                      caplog) -> None:
    """Dan's turn was reminded in the group (and he was pinged there); then it becomes a
    supergroup: the table comes there once; the reminder is not posted a second time."""
    caplog.set_level(logging.INFO)
    async with table(pg_url) as (api, players, runner, clock):
        ann, bob, dan = players
        game_id = await start(api, players, GROUP)
        await until_turn_of(api, runner, players, game_id, dan)
        clock.advance(2701)
        await wait_for(lambda: bool(api.find_messages(GROUP, "it is your turn in game")))
        await api.settle(quiet=0.2)
        api.migrate_group(GROUP, NEW)
        await wait_for(lambda: bool(api.find_messages(NEW, "· round")))
        await api.settle(quiet=0.5)
        texts = [m.text for m in api.bot_messages(NEW)]
        assert len(texts) == 1, texts
    assert not failures(caplog), failures(caplog)
