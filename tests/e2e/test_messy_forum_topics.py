"""Messy Telegram around running games in forum topics: two games in two topics keep their pings,
🎴 views, reminders and timeouts in their own topic; /pause and /cancel in one topic touch only
its game; the game's topic deleted mid-game.

A quiet group (a break-it review); Dan never starts the bot (he plays with 🎴 only). The table
and the helpers: :mod:`tests.e2e.messy_telegram_helpers`.
"""

from __future__ import annotations

import asyncio
import logging

from tests.e2e.harness import move_version, wait_for
from tests.e2e.messy_telegram_helpers import (
    CARDS,
    FORUM,
    bid,
    failures,
    game_of,
    group_calls,
    mentions,
    named,
    start,
    table,
    to_act,
    until_turn_of,
)

# ---------------------------------------------------------------- forum topics

async def test_two_games_in_two_topics_keep_pings_reminders_and_timeouts_in_their_topic(
        pg_db, pg_url, caplog) -> None:
    """Two games at once in two topics of one forum; Dan (no private chat) is to act in
    both: his pings, the 🎴 ephemeral views, the reminders and the timeouts' tables stay in
    each game's topic; nothing lands in General or the other topic."""
    caplog.set_level(logging.INFO)
    async with table(pg_url, forum=True) as (api, players, runner, clock):
        ann, bob, dan = players
        one = api.create_topic(FORUM, "One", ann)
        two = api.create_topic(FORUM, "Two", ann)
        g1 = await start(api, players, FORUM, one)
        g2 = await start(api, [bob, ann, dan], FORUM, two)
        assert (await game_of(runner, g1)).thread_id == one
        assert (await game_of(runner, g2)).thread_id == two
        await until_turn_of(api, runner, players, g1, dan)
        await until_turn_of(api, runner, players, g2, dan)
        # (a ping, or the new table that names him: a mention either way)
        for thread in (one, two):
            assert [m for m in api.topic_messages(FORUM, thread) if mentions(m, dan)], thread
        assert all(m.thread_id in (one, two) for m in named(api, FORUM, dan))
        # 🎴 on each table: the ephemeral view in the table's topic
        for game_id, thread in ((g1, one), (g2, two)):
            game = await game_of(runner, game_id)
            tbl = api.get_message(FORUM, game.table_message_id)
            assert tbl.thread_id == thread
            answer = await dan.press_and_settle(tbl, CARDS, quiet=0.05)
            assert not answer.get("show_alert"), answer
            mine = [m for m in api.ephemeral_messages(FORUM, dan.id) if m.thread_id == thread]
            assert mine, [(m.thread_id, m.text) for m in api.ephemeral_messages(FORUM, dan.id)]
        # the clock: reminders at three quarters, then the timeouts
        clock.advance(2701)
        await wait_for(lambda: len(api.find_messages(FORUM, "it is your turn in game")) >= 2)
        await api.settle(quiet=0.2)
        clock.advance(901)
        await wait_for(lambda: len(api.find_messages(FORUM, "ran out of time")) >= 2)
        await api.settle(quiet=0.3)
        for message in api.messages(FORUM, include_deleted=True):
            if message.from_bot and message.kind != "service":
                assert message.thread_id in (one, two), (message.thread_id, message.text)
        for message in api.ephemeral_messages(FORUM, None, True):
            assert message.thread_id in (one, two), (message.thread_id, message.text)
        for game_id, thread in ((g1, one), (g2, two)):
            in_topic = "\n".join(m.text or "" for m in api.topic_messages(FORUM, thread))
            assert f"#{game_id}" in in_topic
            other = g2 if game_id == g1 else g1
            assert f"Game #{other}" not in in_topic
    assert not failures(caplog)


# ---------------------------------------------------------------- a forum topic deleted

async def test_a_game_whose_forum_topic_is_deleted(pg_db, pg_url, caplog) -> None:
    """An admin deletes the game's forum topic mid-game (its messages go; a send to it is
    refused: "message thread not found"). The players with a private chat go on: presses
    are answered, nothing logs an error, nothing lands in General (unlike a closed topic's
    posts: the admin removed the game's place, and /cancel could not reach it from General),
    and the bot does not retry the topic on every sweep."""
    caplog.set_level(logging.INFO)
    async with table(pg_url, forum=True, names=("Ann", "Bob", "Cat"), strangers=0) as (
            api, players, runner, clock):
        ann, bob, cat = players
        users = {u.id: u for u in players}
        topic = api.create_topic(FORUM, "Coyote", ann)
        game_id = await start(api, players, FORUM, topic)
        api.delete_topic(FORUM, topic, ann)  # (refused since: "message thread not found")
        for _ in range(3):
            who = await to_act(runner, game_id)
            if who is None:
                break
            await bid(api, runner, users[who], game_id)
            await api.settle(quiet=0.2)
        calls = group_calls(api, FORUM)
        await asyncio.sleep(1.5)
        await api.settle(quiet=0.2)
        assert group_calls(api, FORUM) - calls <= 2, [
            (r.method, str(r.params.get("text", ""))[:40]) for r in api.requests[-10:]]
        general = [m for m in api.bot_messages(FORUM) if m.thread_id is None]
        assert not general, [m.text for m in general]
    assert not failures(caplog), failures(caplog)


async def test_pause_and_cancel_in_one_topic_touch_only_its_game(pg_db, pg_url,
                                                               caplog) -> None:
    """Two games in two topics, Dan (group only) to act in both, his 🎴 view open in both:
    /pause in topic One pauses game one only (answered in topic One); /cancel in topic Two
    cancels game two only: its ping and Dan's view there go, game one's stay."""
    caplog.set_level(logging.INFO)
    async with table(pg_url, forum=True) as (api, players, runner, clock):
        ann, bob, dan = players
        one = api.create_topic(FORUM, "One", ann)
        two = api.create_topic(FORUM, "Two", ann)
        g1 = await start(api, players, FORUM, one)
        g2 = await start(api, [bob, ann, dan], FORUM, two)
        await until_turn_of(api, runner, players, g1, dan)
        await until_turn_of(api, runner, players, g2, dan)
        for game_id in (g1, g2):
            tbl = api.get_message(FORUM, (await game_of(runner, game_id)).table_message_id)
            await dan.press_and_settle(tbl, CARDS, quiet=0.05)
        views = {m.thread_id for m in api.ephemeral_messages(FORUM, dan.id)}
        assert views == {one, two}, views  # (one view a game)
        await ann.send(FORUM, "/pause", thread_id=one)
        await wait_for(lambda: bool(api.find_messages(FORUM, "⏸ The clock of game")))
        await api.settle(quiet=0.3)
        assert [m.thread_id for m in api.find_messages(FORUM, "⏸ The clock of game")] == [one]
        assert (await game_of(runner, g1)).paused and not (await game_of(runner, g2)).paused
        await ann.send(FORUM, "/cancel", thread_id=two)
        await wait_for(lambda: bool(api.find_messages(FORUM, "was cancelled")))
        await api.settle(quiet=0.3)
        assert [m.thread_id for m in api.find_messages(FORUM, "was cancelled")] == [two]
        assert (await game_of(runner, g1)).status == "running"
        assert (await game_of(runner, g2)).status != "running"
        views = [m for m in api.ephemeral_messages(FORUM, dan.id) if move_version(api, m)]
        assert {m.thread_id for m in views} == {one}, [(m.thread_id, m.text) for m in views]
        pings = [m for m in named(api, FORUM, dan)]
        assert all(m.thread_id == one for m in pings), [(m.thread_id, m.text) for m in pings]
    assert not failures(caplog), failures(caplog)
