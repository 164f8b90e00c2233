"""Does a game count in the week it was played? /standings (this week, last), /history and
the weekly posts are read against each game's final "is over!" message across week
boundaries in the group's time zone, a game over at midnight, and a group that became a
supergroup mid-week.

The games are played through the bot's own match service (the moves the buttons would make;
the presenter tells the group and the players as it does for a press); what is read is what
the bot sends to the chat in answer to the commands. The clock is the test's; seeds are
fixed. Where a test once failed, its docstring says what the bot did before the fix.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from tests.clock import Clock
from tests.e2e.harness import wait_for
from tests.e2e.league_screens_helpers import (
    GROUP,
    SUPER,
    TITLE,
    ask,
    final_of,
    league,
    open_game,
    places_of,
    play_out,
    service,
    table_rows,
    unmarked,
)


# ============================================ findings =========================================
async def test_a_game_over_at_midnight_is_dated_and_counted_in_one_week(
        pg_db, pg_url, monkeypatch) -> None:
    """A game's end is read from the clock twice: once for the game (its date in /history,
    ``store_state``) and once for its rating (the week it counts in, ``rate_if_finished``).
    Here the clock moves by a millisecond between the two, across Sunday midnight: /history
    dates the game Sunday, Mar 8, but it is in the table of the week of Mar 9 and missing
    from the posted table of the week it was played in. Before the fix ``Moves.record``
    and ``Moves.act`` each read the clock (``store_state``'s time, then the rating's), so
    this test's millisecond between them put the two on either side of midnight."""
    from league.match import moves

    clock_ref: list[Clock] = []
    real = moves.store_state

    def store_state(row, state, game, now):
        real(row, state, game, now)
        if row.status == "finished":  # the time the few statements up to the rating take
            clock_ref[0].advance(0.001)

    monkeypatch.setattr(moves, "store_state", store_state)
    start = datetime(2026, 3, 8, 23, 59, 59, 999500, tzinfo=UTC)  # Sunday, UTC
    async with league(pg_url, start=start) as (api, players, clock, runner):
        clock_ref.append(clock)
        ann = players[0]
        game = await open_game(runner, players[:3], options={"lives": 2})
        await play_out(runner, game.id)
        await final_of(api, game.id)
        history = await ask(api, ann, "/history", "Last games in this chat")
        assert f"#{game.id} · Mar 8 · " in history, history
        clock.now = datetime(2026, 3, 9, 0, 1, tzinfo=UTC)
        week = await ask(api, ann, "/standings", "Standings this week")
        last = await ask(api, ann, "/standings last", "Standings last week")
        assert "Sun, Mar 8" in last and "Ann" in last and "Ann" not in week, (
            f"/history: game #{game.id} on Mar 8; the week of Mar 2 – Mar 8:\n{last}\n"
            f"this week:\n{week}")


# ============================================ what held ========================================
async def test_a_group_that_became_a_supergroup_mid_week_keeps_one_league(pg_db, pg_url) -> None:
    """A rated game in the group on Wednesday; on Thursday it becomes a supergroup and
    plays again there. In the supergroup: the week's table has both games, /history both,
    /replay of the first works; next Monday the week's table is
    posted once, in the supergroup, with two games a player."""
    async with league(pg_url) as (api, players, clock, runner):
        ann = players[0]
        first = await open_game(runner, players[:3], options={"lives": 2})
        await play_out(runner, first.id)
        await final_of(api, first.id)
        clock.now = datetime(2026, 3, 5, 9, 0, tzinfo=UTC)
        api.migrate_group(GROUP, SUPER)
        svc = service(runner)
        for _ in range(500):  # the bot moves the group's league on the service messages
            if await svc.history(SUPER, kind=None):
                break
            await api.settle(quiet=0.02)
        assert await svc.history(SUPER, kind=None), "the league did not move"
        second = await open_game(runner, players[:3], options={"lives": 2}, chat=SUPER)
        await play_out(runner, second.id)
        shown = places_of(await final_of(api, second.id, SUPER))
        rows = table_rows(await ask(api, ann, "/standings", "Standings this week", SUPER))
        assert set(rows) == {"Ann", "Bob", "Cat"} and all(r[2] == 2 for r in rows.values()), \
            rows
        for name, row in rows.items():
            assert row[4] == f"{shown[name][2]}?", (name, rows)
        history = await ask(api, ann, "/history", "Last games in this chat", SUPER)
        assert f"#{first.id} " in history and f"#{second.id} " in history, history
        replay = await ask(api, ann, f"/replay {first.id}", f"Replay of game #{first.id}",
                           SUPER)
        assert "game over" in replay, replay
        clock.now = datetime(2026, 3, 9, 0, 0, 30, tzinfo=UTC)
        await wait_for(lambda: bool(api.find_messages(SUPER, "Final standings of the week")))
        for _ in range(2):
            clock.now += timedelta(minutes=11)
            await api.settle(quiet=0.3)
        posts = api.find_messages(SUPER, "Final standings of the week")
        assert len(posts) == 1, [p.text for p in posts]
        assert not api.find_messages(GROUP, "Final standings of the week")
        posted = table_rows(unmarked(posts[0].text))
        assert {n: r[2] for n, r in posted.items()} == {"Ann": 2, "Bob": 2, "Cat": 2}, posted
        assert posted == rows, (posted, rows)  # nobody played since: the same table


async def test_sunday_night_in_seoul_is_that_weeks_game_everywhere(pg_db, pg_url) -> None:
    """The league runs in Asia/Seoul. A game ends on Sunday 23:00 there (14:00 UTC):
    /history dates it Sunday, this week's table has it; at Monday 00:30 in Seoul the week's
    final table is posted with it, /standings is empty and /standings last has it."""
    start = datetime(2026, 3, 8, 14, 0, tzinfo=UTC)
    async with league(pg_url, start=start) as (api, players, clock, runner):
        ann = players[0]
        await service(runner).set_chat_setting(GROUP, TITLE, "timezone", "Asia/Seoul")
        game = await open_game(runner, players[:3], options={"lives": 2})
        await play_out(runner, game.id)
        shown = places_of(await final_of(api, game.id))
        history = await ask(api, ann, "/history", "Last games in this chat")
        assert f"#{game.id} · Mar 8 · " in history, history
        week = await ask(api, ann, "/standings", "Standings this week")
        assert "Mon, Mar 2 – Sun, Mar 8" in week and set(table_rows(week)) == set(shown), week
        clock.now = datetime(2026, 3, 8, 15, 30, tzinfo=UTC)  # Monday 00:30 in Seoul
        await wait_for(lambda: bool(api.find_messages(GROUP, "Final standings of the week")))
        posted = unmarked(api.find_messages(GROUP, "Final standings of the week")[-1].text)
        assert "Mon, Mar 2 – Sun, Mar 8" in posted and set(table_rows(posted)) == set(shown)
        week = await ask(api, ann, "/standings", "Standings this week")
        assert "Mon, Mar 9 – Sun, Mar 15" in week and "No rated game yet" in week, week
        last = await ask(api, ann, "/standings last", "Standings last week")
        assert table_rows(last) == table_rows(posted), (last, posted)
