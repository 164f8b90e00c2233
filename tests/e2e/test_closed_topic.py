"""A forum topic an admin closes (closeForumTopic) while the bot still has something to say in
it, through the real Application and the fake Bot API: Telegram refuses a message sent into
a closed topic with 400 TOPIC_CLOSED unless the bot is an administrator that may manage
topics (its edits there still work). What the group is owed then goes to its General topic,
once per message: a game's new tables, its 🎴 views and its result; a tournament's
announcement and tables. A league post, which goes to General already, is given up when
General is closed, as for a group that muted the bot."""

from __future__ import annotations

import logging

import pytest

from tests.clock import Clock
from tests.e2e.harness import (
    BotRunner,
    choose,
    move_version,
    play_game,
    press_move,
    wait_for,
)
from tests.e2e.messy_telegram_helpers import (
    CARDS,
    FORUM,
    failures,
    game_of,
    game_turn_message,
    live_ephemeral,
    start,
    table,
    to_act,
)
from tests.e2e.settings_edges_helpers import GROUP as LEAGUE_GROUP
from tests.e2e.settings_edges_helpers import WEEKLY, group, said, utc
from tests.e2e.test_league_posts_edges import monday_and_two_hours, quick_coyote, week_sends
from tests.e2e.test_muted_tournament_announcements import announcement_sends
from tests.e2e.test_tournament_tables import GROUP, NAMES, TITLE, all_shown, start_cup
from tests.fakebot import FakeBotAPI, FakeUser, StoredMessage


def refusals(caplog: pytest.LogCaptureFixture) -> list[str]:
    """What the bot logged of a send a closed topic refused (Telegram's "TOPIC_CLOSED")."""
    return [r.getMessage() for r in caplog.records if "topic_closed" in r.getMessage().lower()]


async def view_of(api: FakeBotAPI, runner, dan: FakeUser, game_id: int) -> StoredMessage:
    """Dan (no private chat) presses 🎴 on the game's table: his view with this turn's
    buttons."""
    game = await game_of(runner, game_id)
    mine = live_ephemeral(api, FORUM, dan)
    if mine is None or move_version(api, mine) != game.version:
        tbl = api.get_message(FORUM, game.table_message_id) \
            if game.table_message_id is not None else None
        assert tbl is not None and not tbl.deleted, "no table in the group: Dan cannot play"
        answer = await dan.press_and_settle(tbl, CARDS, quiet=0.05)
        assert not answer.get("show_alert"), answer
        await wait_for(lambda: (m := live_ephemeral(api, FORUM, dan)) is not None
                       and move_version(api, m) == game.version)
        mine = live_ephemeral(api, FORUM, dan)
    assert mine is not None
    return mine


def offered(api: FakeBotAPI, user: FakeUser, game_id: int) -> int | None:
    """The game version the move buttons of ``user``'s private message carry, if any."""
    message = game_turn_message(api, user, game_id)
    return None if message is None else move_version(api, message)


async def play_to_the_end(api: FakeBotAPI, runner, players: list[FakeUser],
                          game_id: int) -> None:
    """Whoever is to act moves (:func:`choose`): Ann and Bob on their private messages, Dan
    on his 🎴 view in the group."""
    users = {u.id: u for u in players}
    for _ in range(300):
        who = await to_act(runner, game_id)
        if who is None:
            return
        user, game = users[who], await game_of(runner, game_id)
        if user is players[-1]:
            message = await view_of(api, runner, user, game_id)
        else:
            await wait_for(lambda u=user, v=game.version: offered(api, u, game_id) == v)
            message = game_turn_message(api, user, game_id)
        assert message is not None
        answer = await press_move(api, user, message, choose(api, message))
        assert not answer.get("show_alert"), answer
        for _ in range(500):
            if (await game_of(runner, game_id)).version != game.version:
                break
            await api.settle(quiet=0.01)
    raise AssertionError("the game did not end")


async def test_a_game_whose_topic_is_closed_goes_on_in_general(pg_db, pg_url, caplog) -> None:
    """Before the fix every message the game owed its closed topic was refused and given up
    (one warning each): no new table after round 1, and Dan, who plays from the group only,
    could not move (his 🎴 view was refused too: an alert showed the others' cards, no
    buttons); the group never saw the rounds nor who won, while Ann and Bob played
    privately. Now the new tables, Dan's views and the result go to General, each sent once
    more there; nothing new lands in the closed topic, nothing is logged as refused, and the
    game ends."""
    caplog.set_level(logging.INFO)
    async with table(pg_url, forum=True) as (api, players, runner, clock):
        ann, _bob, dan = players
        api.chats[FORUM].bot_admin = False  # (a plain member: no right to manage topics)
        topic = api.create_topic(FORUM, "Coyote", ann)
        game_id = await start(api, players, FORUM, topic)
        first = api.get_message(FORUM, (await game_of(runner, game_id)).table_message_id or 0)
        assert first is not None and first.thread_id == topic
        edits = first.edits
        closed = api.close_topic(FORUM, topic, ann)
        assert closed is not None
        await api.settle(quiet=0.1)
        await play_to_the_end(api, runner, players, game_id)
        await api.settle(quiet=0.3)
        game = await game_of(runner, game_id)
        assert game.status == "finished"
        after = [m for m in api.bot_messages(FORUM) if m.message_id > closed.message_id]
        assert after and all(m.thread_id is None for m in after), \
            [(m.thread_id, (m.text or "")[:30]) for m in after]
        tables = [m for m in after if f"Game #{game_id} · round" in (m.text or "")]
        assert len(tables) >= 2, [(m.text or "")[:40] for m in after]
        over = api.find_messages(FORUM, "is over!")
        assert len(over) == 1 and over[0].thread_id is None, [m.thread_id for m in over]
        assert first.edits > edits  # (round 1's table, in the topic, is still edited there)
        views = api.ephemeral_messages(FORUM, dan.id, True)
        assert views and all(m.thread_id is None for m in views), \
            [m.thread_id for m in views]
        assert not refusals(caplog), refusals(caplog)
    assert not failures(caplog), failures(caplog)


async def test_an_announcement_for_a_closed_topic_is_posted_in_general(pg_db, pg_url) -> None:
    """Before the fix a tournament started in a topic an admin had closed lost its round-1
    announcement (refused, given up as for a muted bot) and every table of the round (the
    bot may not open topics, so they sat in the closed topic): nobody in the group saw the
    tournament start. Now the announcement and the tables are posted in General, the
    announcement once (two calls: the refused one and General's), not again later."""
    clock = Clock()
    async with FakeBotAPI() as api:
        api.add_group(GROUP, TITLE, type="supergroup", is_forum=True, admins=[1])
        players = [api.add_user(i, name) for i, name in enumerate(NAMES, start=1)]
        for user in players:
            await user.start_bot()
        runner = BotRunner(api, pg_url, clock=clock, sweep_interval=0.05)
        await runner.start()
        try:
            home = api.create_topic(GROUP, "Cup final", by=players[0])
            api.close_topic(GROUP, home, players[0])
            await api.settle()
            cup = await start_cup(runner, players, home, kind="coyote", forum=True)
            await wait_for(lambda: announcement_sends(api, cup.id) > 0)
            await api.settle()
            for _ in range(3):  # three times past the announcement's retry (two minutes)
                clock.advance(150)
                await api.settle()
            marker = f"tournament #{cup.id}: round 1 of"
            posted = api.find_messages(GROUP, marker)
            assert [m.thread_id for m in posted] == [None], [m.thread_id for m in posted]
            assert announcement_sends(api, cup.id) == 2
            tables = all_shown(api, cup)
            assert len(tables) == 2 and all(m.thread_id is None for m in tables), \
                [m.thread_id for m in tables]
            assert not api.topic_messages(GROUP, home)
        finally:
            await runner.stop()


async def test_a_league_post_to_a_closed_general_is_given_up_once(pg_db, pg_url) -> None:
    """A forum whose admin closed General: the weekly table (posted in General) is refused
    with TOPIC_CLOSED. There is no other place the whole group reads, so it is given up for
    its week like a muted group's, tried once, not every ten minutes (passes before and after
    the fix: only a send to a topic goes on to General)."""
    async with group(pg_url) as (api, players, clock, runner):
        ann = players[0]
        chat = api.chats[LEAGUE_GROUP]
        chat.type, chat.is_forum = "supergroup", True
        await quick_coyote(api, ann)
        await play_game(api, players, LEAGUE_GROUP)
        clock.now = utc(2026, 5, 10, 12)
        api.close_topic(LEAGUE_GROUP, None, ann)
        await monday_and_two_hours(api, runner, clock)
        assert week_sends(api) == 1, f"{week_sends(api)} refused sends in two hours"
        assert not said(api, LEAGUE_GROUP, WEEKLY)
