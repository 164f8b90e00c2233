"""The league's periods: weeks and seasons in the chat's time zone, the weekly and season posts
across zone and season-length changes, DST and downtime, and the dates shown (README.md, "The
league"). Some tests reproduced a review's findings, fixed since: a westward move posted an
older week again and lost the next, a new season length told a champion twice or never, a
week missed while the bot was down was never posted, last week's table lost its "?", the
group's /profile chart was drawn in UTC."""

from __future__ import annotations

from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta

from league.service import MatchService
from league.store.db import Database
from league.store.snapshots import UserRef
from league.tables.ratings import format_rating
from league.tables.standings import previous_week_bounds, season_bounds, week_bounds, zone
from tests.clock import Clock
from tests.e2e.harness import bot_table, play_game, wait_for
from tests.league.play import finish_coyote

CHAT = -4242
PEOPLE = [UserRef(i, name) for i, name in enumerate(["Ann", "Bob", "Cat"], 1)]


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


async def rated_game(service: MatchService, users: list[UserRef] = PEOPLE) -> int:
    """A rated Coyote game of three humans through the service, finished at the clock's time
    (the test clock stands still while it is played)."""
    lobby = await service.open_lobby(CHAT, "League", 0, users[0], "coyote")
    for user in users[1:]:
        await service.join(lobby.id, user)
    game = (await service.start(lobby.id, users[0].id)).game
    return (await finish_coyote(service, game.id)).id


async def post_all_due(service: MatchService) -> list[tuple[str, str]]:
    """What the league job does with the posts due: claim and mark each; ``[(post, the
    period's first local day)]`` (a post is keyed by the moment its period ended)."""
    done = []
    settings = await service.chat_settings(CHAT)
    for due in await service.due_posts():
        assert await service.claim_post(*due)
        await service.mark_posted(*due)
        weeks = 1 if due.post == "week" else settings["season_weeks"]
        last = due.end.astimezone(zone(settings["timezone"])).date()
        done.append((due.post, (last - timedelta(weeks=weeks)).isoformat()))
    return done


# --- verified: weeks at the boundary, in several zones -----------------------------------------
def test_sunday_2359_and_monday_0001_local_in_several_zones() -> None:
    """A game at 23:59 on Sunday (local) is in that week, one at 00:01 on Monday in the next."""
    for tz, monday_midnight_utc in (
            ("Asia/Seoul", utc(2026, 6, 7, 15)),  # +09:00
            ("America/Los_Angeles", utc(2026, 6, 8, 7)),  # PDT −07:00
            ("Europe/Madrid", utc(2026, 6, 7, 22)),  # CEST +02:00
            ("Pacific/Chatham", utc(2026, 6, 7, 11, 15))):  # +12:45 (southern winter)
        before = monday_midnight_utc - timedelta(minutes=1)
        after = monday_midnight_utc + timedelta(minutes=1)
        assert week_bounds(before, tz)[1] == monday_midnight_utc, tz
        assert week_bounds(after, tz)[0] == monday_midnight_utc, tz
        assert previous_week_bounds(after, tz) == week_bounds(before, tz), tz


def test_madrid_weeks_across_both_dst_changes() -> None:
    # 2026-10-25 (last Sunday of October): 03:00 CEST -> 02:00 CET, a 169-hour week
    start, end = week_bounds(utc(2026, 10, 25, 12), "Europe/Madrid")
    assert (start, end) == (utc(2026, 10, 18, 22), utc(2026, 10, 25, 23))
    # 2026-03-29 (last Sunday of March): 02:00 CET -> 03:00 CEST, a 167-hour week
    start, end = week_bounds(utc(2026, 3, 29, 12), "Europe/Madrid")
    assert (start, end) == (utc(2026, 3, 22, 23), utc(2026, 3, 29, 22))


async def test_weekly_post_due_at_madrid_midnight_after_the_autumn_change(
        pg_db: Database) -> None:
    clock = Clock(utc(2026, 10, 22, 18))  # a Thursday in Madrid
    service = MatchService(pg_db, clock=clock, new_seed=lambda: 5)
    await service.set_chat_setting(CHAT, "League", "timezone", "Europe/Madrid")
    await rated_game(service)
    clock.now = utc(2026, 10, 25, 22, 59)  # Sunday 23:59 CET: not yet
    assert await post_all_due(service) == []
    clock.now = utc(2026, 10, 25, 23, 0, 30)  # Monday 00:00:30 CET
    assert await post_all_due(service) == [("week", "2026-10-19")]
    clock.now += timedelta(hours=3)
    assert await post_all_due(service) == []


async def test_bot_down_at_the_boundary_posts_late_once(pg_db: Database) -> None:
    clock = Clock(utc(2026, 6, 3, 12))  # Wednesday
    service = MatchService(pg_db, clock=clock, new_seed=lambda: 5)
    await service.set_chat_setting(CHAT, "League", "timezone", "Asia/Seoul")
    await rated_game(service)
    clock.now = utc(2026, 6, 9, 3)  # Tuesday noon in Seoul: a day and a half late
    assert await post_all_due(service) == [("week", "2026-06-01")]
    assert await post_all_due(service) == []


# --- problems ----------------------------------------------------------------------------------
async def test_zone_change_westward_posts_an_older_week_again(pg_db: Database) -> None:
    """A chat in Seoul plays its first game on Monday morning; next Monday that week's table
    is posted with it. An hour later the admins move the league to Los Angeles (where it is
    still Sunday). The league must not now post the week *before* (Los Angeles' week, which
    holds that same game) as another "final standings of the week": the game was posted."""
    clock = Clock(utc(2026, 5, 31, 20))  # Monday 2026-06-01 05:00 in Seoul
    service = MatchService(pg_db, clock=clock, new_seed=lambda: 5)
    await service.set_chat_setting(CHAT, "League", "timezone", "Asia/Seoul")
    await rated_game(service)
    clock.now = utc(2026, 6, 7, 15, 0, 30)  # Monday 2026-06-08 00:00:30 in Seoul
    assert ("week", "2026-06-01") in await post_all_due(service)
    clock.now = utc(2026, 6, 7, 16)  # Monday 01:00 in Seoul, Sunday 09:00 in Los Angeles
    await service.set_chat_setting(CHAT, "League", "timezone", "America/Los_Angeles")
    weekly = [key for post, key in await post_all_due(service) if post == "week"]
    assert weekly == [], f"the week of {weekly} is posted again, with the game posted already"


async def test_zone_change_westward_loses_the_next_weeks_post(pg_db: Database) -> None:
    """After the Seoul post and the move to Los Angeles, the group plays on Sunday afternoon
    (Los Angeles' week, still running). When that week ends, its table, with that game, is
    never posted: its key (the local Monday) is the Seoul week's, claimed already."""
    clock = Clock(utc(2026, 6, 3, 3))  # Wednesday in both zones
    service = MatchService(pg_db, clock=clock, new_seed=lambda: 5)
    await service.set_chat_setting(CHAT, "League", "timezone", "Asia/Seoul")
    await rated_game(service)
    clock.now = utc(2026, 6, 7, 15, 0, 30)  # Monday 00:00:30 in Seoul
    assert ("week", "2026-06-01") in await post_all_due(service)
    clock.now = utc(2026, 6, 7, 16)  # Sunday 09:00 in Los Angeles
    await service.set_chat_setting(CHAT, "League", "timezone", "America/Los_Angeles")
    await post_all_due(service)
    clock.now = utc(2026, 6, 7, 20)  # Sunday 13:00 in Los Angeles
    game = await rated_game(service)
    clock.now = utc(2026, 6, 8, 7, 0, 30)  # Monday 00:00:30 in Los Angeles
    table = await service.standings(CHAT, "last", kind="coyote")
    assert sum(r.games for r in table.rows) == 6  # /standings last has both games ...
    posted = await post_all_due(service)
    assert ("week", "2026-06-01") in posted, (  # ... but no weekly post ever shows game 2
        f"game #{game}'s week is never posted (due now: {posted})")


async def test_shorter_seasons_announce_an_announced_season_again(pg_db: Database) -> None:
    """Four-week seasons (the default): the season that ended on Monday 2026-05-18 is
    announced with its champion. On Tuesday an admin sets ``/settings season 2``. No season
    has ended since, so nothing should be posted; instead the last two weeks of the
    announced season are announced again as a season of their own, with a champion."""
    assert season_bounds(utc(2026, 5, 13), "UTC", 4) == (utc(2026, 4, 20), utc(2026, 5, 18))
    clock = Clock(utc(2026, 5, 13, 12))  # Wednesday of the season's last week
    service = MatchService(pg_db, clock=clock, new_seed=lambda: 5)
    await rated_game(service)
    clock.now = utc(2026, 5, 18, 0, 0, 30)
    assert await post_all_due(service) == [("week", "2026-05-11"), ("season", "2026-04-20")]
    clock.now = utc(2026, 5, 19, 10)
    await service.set_chat_setting(CHAT, "League", "season_weeks", 2)
    assert await post_all_due(service) == []


async def test_longer_seasons_never_announce_the_season_that_ends(pg_db: Database) -> None:
    """Four-week seasons: the one from 2026-04-20 is announced on 2026-05-18. An admin then
    sets ``/settings season 8``: the current season now runs 2026-04-20 – 2026-06-15. The
    group plays in it, yet when it ends no season table is posted: its key (its first day)
    is the four-week season's, claimed already."""
    clock = Clock(utc(2026, 5, 13, 12))
    service = MatchService(pg_db, clock=clock, new_seed=lambda: 5)
    await rated_game(service)
    clock.now = utc(2026, 5, 18, 0, 0, 30)
    assert ("season", "2026-04-20") in await post_all_due(service)
    clock.now = utc(2026, 5, 19, 10)
    await service.set_chat_setting(CHAT, "League", "season_weeks", 8)
    assert season_bounds(clock.now, "UTC", 8) == (utc(2026, 4, 20), utc(2026, 6, 15))
    await rated_game(service)
    clock.now = utc(2026, 6, 15, 0, 0, 30)  # the eight-week season is over
    posted = await post_all_due(service)
    assert [p for p, _ in posted if p == "season"] == ["season"], (
        f"the season that ended 2026-06-15 is not announced (posted now: {posted})")


async def test_a_week_missed_while_the_bot_was_down_is_never_posted(pg_db: Database) -> None:
    """README: "each finished week's table ... is posted once". The bot is stopped on Sunday
    evening and started again nine days later: the week the group played is never posted
    (only the latest finished week is looked at, and it had no game)."""
    clock = Clock(utc(2026, 6, 3, 12))
    service = MatchService(pg_db, clock=clock, new_seed=lambda: 5)
    await rated_game(service)
    clock.now = utc(2026, 6, 16, 9)  # back on the Tuesday a week after the boundary
    assert ("week", "2026-06-01") in await post_all_due(service)


async def test_last_weeks_table_marks_elo_that_was_provisional_then(pg_db: Database) -> None:
    """README: K 40 for the first 10 rated games, marked "?"; a finished week's table shows
    the Elo each player ended it with. A player who ended last week with 9 rated games ended
    it with a provisional rating, but /standings last shows it without "?" once they have
    played their 10th game this week."""
    clock = Clock(utc(2026, 6, 1, 9))
    service = MatchService(pg_db, clock=clock, new_seed=lambda: 5)
    for _ in range(9):
        await rated_game(service)
        clock.now += timedelta(hours=1)
    clock.now = utc(2026, 6, 8, 9)
    await rated_game(service)  # the 10th, this week
    table = await service.standings(CHAT, "last", kind="coyote")
    assert all(r.games == 9 for r in table.rows)
    shown = [format_rating(r.rating, table.games_played[r.player]) for r in table.rows]
    assert all(s.endswith("?") for s in shown), f"last week's Elo shown as {shown}"


# --- through the real Application, against the fake Bot API -----------------------------------
GROUP = -100424242


async def _ask(api, user, command: str, expect: str) -> str:
    seen = len(api.find_messages(GROUP, expect))
    await user.send(GROUP, command)
    await wait_for(lambda: len(api.find_messages(GROUP, expect)) > seen)
    return api.find_messages(GROUP, expect)[-1].text


@asynccontextmanager
async def _league(pg_url: str, start: datetime):
    clock = Clock(start)
    async with bot_table(pg_url, GROUP, "Periods", ["Ann", "Bob", "Cat"], clock=clock,
                         sweep_interval=0.05, league_interval=0.05) as (api, players, runner):
        yield api, players, clock, runner


async def test_group_is_posted_an_older_week_after_moving_west(pg_db, pg_url) -> None:
    """The group (Seoul) plays on Monday morning; next Monday it gets that week's final
    table. An hour later an admin moves the league to Los Angeles: the group then gets a
    second "Final standings of the week", of the week before, with the same game."""
    async with _league(pg_url, utc(2026, 5, 31, 20)) as (api, players, clock, _runner):
        ann = players[0]
        await _ask(api, ann, "/settings timezone Asia/Seoul", "League weeks in Asia/Seoul")
        await play_game(api, players, GROUP)
        history = await _ask(api, ann, "/history", "Last games in this chat")
        assert "Jun 1" in history  # verified: the chat's date (UTC's is May 31)
        clock.now = utc(2026, 6, 7, 15, 0, 30)  # Monday 00:00:30 in Seoul
        await wait_for(lambda: bool(api.find_messages(GROUP, "Final standings of the week")))
        weekly = api.find_messages(GROUP, "Final standings of the week")[-1].text
        assert "Jun 1" in weekly and "Jun 7" in weekly
        clock.now = utc(2026, 6, 7, 16)  # Sunday 09:00 in Los Angeles
        await _ask(api, ann, "/settings timezone America/Los_Angeles",
                   "League weeks in America/Los_Angeles")
        await api.settle(quiet=0.5)
        posts = [m.text for m in api.find_messages(GROUP, "Final standings of the week")]
        assert len(posts) == 1, [p.splitlines()[1] for p in posts]  # the weeks posted


async def test_group_is_told_a_season_champion_again_after_shorter_seasons(
        pg_db, pg_url) -> None:
    """The four-week season that ended on Monday 2026-05-18 is announced with its champion;
    on Tuesday an admin sets /settings season 2, and the group is told a season champion
    again: of the last two weeks of the season already announced."""
    async with _league(pg_url, utc(2026, 5, 13, 12)) as (api, players, clock, _runner):
        ann = players[0]
        await play_game(api, players, GROUP)
        clock.now = utc(2026, 5, 18, 0, 0, 30)
        await wait_for(lambda: bool(api.find_messages(GROUP, "Season champion")))
        clock.now = utc(2026, 5, 19, 10)
        await _ask(api, ann, "/settings season 2", "seasons of 2 weeks")
        await api.settle(quiet=0.5)
        champions = [m.text for m in api.find_messages(GROUP, "Season champion")]
        assert len(champions) == 1, [c.splitlines()[1] for c in champions]  # the seasons


async def test_profile_chart_in_a_group_uses_the_groups_time_zone(pg_db, pg_url,
                                                                  monkeypatch) -> None:
    """/profile in a group whose league runs in Asia/Seoul: the chart's time axis is drawn
    in UTC (``rating_chart_png`` has a ``tz`` the handler never passes), so a game played
    on Monday morning in Seoul is plotted on Sunday, unlike /history and the standings."""
    from telegram_app.handlers import league as handlers

    seen: list[object] = []
    real = handlers.rating_chart_png

    def spy(*args, **kwargs):
        seen.append(kwargs.get("tz"))
        return real(*args, **kwargs)

    monkeypatch.setattr(handlers, "rating_chart_png", spy)
    async with _league(pg_url, utc(2026, 5, 31, 20)) as (api, players, _clock, _runner):
        ann = players[0]
        await _ask(api, ann, "/settings timezone Asia/Seoul", "League weeks in Asia/Seoul")
        await play_game(api, players, GROUP)
        await ann.send(GROUP, "/profile")
        await wait_for(lambda: any(m.kind == "photo" for m in api.messages(GROUP)))
        assert seen == ["Asia/Seoul"]
