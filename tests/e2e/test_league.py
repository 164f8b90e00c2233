"""The league from the chat: several games over two simulated weeks, then standings, ratings,
the Elo chart, history and replays; the weekly table posted once, even across a restart."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from tests.clock import Clock
from tests.e2e.harness import bot_table, play_game, wait_for
from tests.fakebot import FakeBotAPI

GROUP = -100333




@pytest.fixture
async def league(pg_db, pg_url):
    clock = Clock(datetime(2026, 3, 2, 9, 0, tzinfo=UTC))
    async with bot_table(pg_url, GROUP, "League night", ["Ann", "Bob", "Cat"], clock=clock,
                         sweep_interval=0.05, league_interval=0.05) as (api, players, runner):
        yield api, players, clock, runner


async def _ask(api: FakeBotAPI, user, command: str, expect: str) -> str:
    await user.send(GROUP, command)
    await wait_for(lambda: bool(api.find_messages(GROUP, expect)))
    return api.find_messages(GROUP, expect)[-1].text


async def test_two_weeks_of_league(league) -> None:
    api, players, clock, runner = league
    ann = players[0]
    await ann.send(GROUP, "/settings")
    await wait_for(lambda: bool(api.find_messages(GROUP, "Defaults for new games")))
    settings = api.find_messages(GROUP, "Defaults for new games")[-1]
    await ann.press_and_settle(settings, "Coyote · ❤️ Lives: 3")  # → 2 lives: quicker

    await play_game(api, players, GROUP)
    clock.now += timedelta(days=2)
    await play_game(api, players, GROUP)
    clock.now = datetime(2026, 3, 9, 8, 0, tzinfo=UTC)  # the next Monday
    await wait_for(lambda: bool(api.find_messages(GROUP, "Final standings of the week")))
    weekly = api.find_messages(GROUP, "Final standings of the week")[-1].text
    assert all(name in weekly for name in ("Ann", "Bob", "Cat"))
    await play_game(api, players, GROUP)

    this_week = await _ask(api, ann, "/standings", "Standings this week")
    assert "1." in this_week and ("(+" in this_week or "(-" in this_week)
    last_week = await _ask(api, ann, "/standings last", "Standings last week")
    assert sum(line.count(" · ") > 0 for line in last_week.splitlines()) >= 3
    season = await _ask(api, ann, "/standings season", "Season standings")
    assert "Ann" in season
    card = await _ask(api, players[1], "/rating", "Rated games")
    assert "?" in card and "Rated games: 3" in card
    await players[2].send(GROUP, "/profile")
    await wait_for(lambda: any(m.kind == "photo" for m in api.messages(GROUP)))
    history = await _ask(api, ann, "/history", "Last games in this chat")
    assert "#1" in history and "#3" in history
    replay = await _ask(api, ann, "/replay 1", "Replay of game #1")
    assert "Coyote!" in replay and "total" in replay
    await ann.send(GROUP, "/replay 999")  # (no such game: not "no longer exists")
    await wait_for(lambda: bool(api.find_messages(GROUP, "Game #999 was not played in this "
                                                         "group.")))
    await _ask(api, ann, "/settings timezone Mars/Base", "Unknown time zone")
    await _ask(api, ann, "/settings timezone Europe/Berlin", "League weeks in Europe/Berlin")
    top = await _ask(api, ann, "/top", "Leaderboard")
    assert "Nobody has 10 rated games yet" in top
    # A word that names no game is not read as the default game's board
    hint = await _ask(api, ann, "/top chess", "Use /top or /top followed by a game")
    assert "coyote" in hint and "koira" in hint and "Leaderboard" not in hint
    hint = await _ask(api, ann, "/standings chess", "Use /standings")
    assert "coyote" in hint and "koira" in hint

    await runner.stop()  # a restart must not post last week's table again
    await runner.start()
    await api.settle(quiet=0.3)
    assert len(api.find_messages(GROUP, "Final standings of the week")) == 1


async def test_weekly_post_to_a_group_that_became_a_supergroup(league) -> None:
    api, players, clock, _runner = league
    await play_game(api, players, GROUP)
    supergroup = -1009990001
    api.migrate_group(GROUP, supergroup, announce=False)  # the bot learns it from the send
    clock.now = datetime(2026, 3, 9, 0, 0, 5, tzinfo=UTC)
    await wait_for(lambda: bool(api.find_messages(supergroup, "Final standings of the week")))
    for _ in range(2):  # past the retry delay of a post that was not marked sent
        clock.now += timedelta(minutes=11)
        await api.settle(quiet=0.3)
    assert len(api.find_messages(supergroup, "Final standings of the week")) == 1
