"""The league's weekly and season posts at their edges: the Elo a finished week shows, time
zones and daylight saving, a week without games, a bot removed and added back, a group that
became a supergroup. Through the real Application and the fake Bot API on PostgreSQL, on a
controlled clock, with fixed seeds.

README, "The league": weeks run Monday to Sunday in the chat's time zone, each finished
week's and season's table is posted once."""

from __future__ import annotations

import re
from datetime import timedelta

from league.service import MatchService
from league.store.snapshots import UserRef
from tests.clock import Clock
from tests.e2e.harness import (
    BotRunner,
    play_game,
    wait_for,
)
from tests.e2e.settings_edges_helpers import (
    GROUP,
    SUPERGROUP,
    WEEKLY,
    ask,
    data_of,
    group,
    panel,
    plain,
    press,
    said,
    service_of,
    until,
    utc,
)
from tests.fakebot import FakeBotAPI, FakeUser
from tests.league.play import finish_coyote

# --- the league's posts -----------------------------------------------------------------------

ROW = re.compile(r"^(\d+)\. (.+?) · ([\d.,]+) · (\d+) · (\d+) · (\d+\??) \((.+)\)$")
OTHER = -100515002


def rows_of(text: str | None) -> dict[str, tuple[str, ...]]:
    """A standings text's rows: name → (rank, points, games, wins, Elo, change)."""
    found = {}
    for line in plain(text).splitlines():
        if (match := ROW.match(line)) is not None:
            rank, name, *rest = match.groups()
            found[name] = (rank, *rest)
    return found


async def quick_coyote(api: FakeBotAPI, admin: FakeUser) -> None:
    """Coyote games of 2 lives from now on (quicker to play)."""
    settings = await panel(api, admin)
    await press(api, admin, settings, data_of(api, settings, "Coyote · ❤️ Lives: 3"))


async def elsewhere(pg_db, clock: Clock, games: int) -> None:
    """Ann, Bob and Cat play ``games`` rated Coyote games in another group (through the
    match service, at the clock's time), as they may: their Elo is one per game."""
    service = MatchService(pg_db, clock=clock, new_seed=lambda: 3)
    people = [UserRef(1, "Ann"), UserRef(2, "Bob"), UserRef(3, "Cat")]
    for _ in range(games):
        lobby = await service.open_lobby(OTHER, "Elsewhere", 0, people[0], "coyote")
        for user in people[1:]:
            await service.join(lobby.id, user)
        game = (await service.start(lobby.id, people[0].id)).game
        await finish_coyote(service, game.id)


async def test_the_weekly_post_shows_the_elo_each_player_ended_the_week_with(
        pg_db, pg_url) -> None:
    """README: "a finished week's or season's table shows the Elo each player ended it
    with"; Elo is one per game, "whichever group you play in". Ann, Bob and Cat play one
    game here on Wednesday, then nine more in another group on Thursday. On Monday the
    group's "Final standings of the week" and /standings last agree with each other (held),
    but both show the Elo of their Wednesday game here, not the one they ended the week
    with, which /rating and /top show that Monday morning (nobody played since).
    So it was before the fix; the table now shows the Elo at the week's end, in any chat."""
    async with group(pg_url) as (api, players, clock, _runner):
        ann = players[0]
        api.add_group(OTHER, "Elsewhere", admins=[1])
        await quick_coyote(api, ann)
        await play_game(api, players, GROUP)
        clock.now = utc(2026, 5, 7, 12)
        await elsewhere(pg_db, clock, 9)
        clock.now = utc(2026, 5, 11, 0, 0, 30)  # Monday
        await wait_for(lambda: bool(said(api, GROUP, WEEKLY)))
        await api.settle(quiet=0.2)
        posted = rows_of(said(api, GROUP, WEEKLY)[-1].text)
        assert set(posted) == {"Ann", "Bob", "Cat"}, said(api, GROUP, WEEKLY)[-1].text
        last = await ask(api, ann, GROUP, "/standings last")
        assert rows_of(last.text) == posted, (plain(last.text), posted)  # (held)
        top = plain((await ask(api, ann, GROUP, "/top")).text)
        board = {m.group(1): m.group(2) for m in
                 re.finditer(r"^\d+\. (\w+) · Elo (\d+\??) ·", top, re.MULTILINE)}
        assert set(board) == {"Ann", "Bob", "Cat"}, top
        shown = {name: row[4] for name, row in posted.items()}
        assert shown == board, f"the week's table shows Elo {shown}; /top shows {board}"


async def test_madrid_week_of_the_spring_change_is_posted_at_local_midnight(
        pg_db, pg_url) -> None:
    """A Madrid group plays at 23:40 on Sunday 29 March 2026, the day clocks went forward
    (CEST, UTC+2). The week's table is not posted at 23:59 local (21:59 UTC), but just after
    local midnight (22:00 UTC), with that game and the dates Mon 23 – Sun 29 March; a game at
    00:10 local on Monday is this week's, and /standings last agrees with the post."""
    async with group(pg_url, start=utc(2026, 3, 29, 21, 30)) as (api, players, clock, _r):
        ann = players[0]
        await ask(api, ann, GROUP, "/settings timezone Europe/Madrid")
        await quick_coyote(api, ann)
        clock.now = utc(2026, 3, 29, 21, 40)
        await play_game(api, players, GROUP)
        clock.now = utc(2026, 3, 29, 21, 59, 30)
        await api.settle(quiet=0.5)
        assert not said(api, GROUP, WEEKLY), "posted before local midnight"
        clock.now = utc(2026, 3, 29, 22, 0, 30)
        await wait_for(lambda: bool(said(api, GROUP, WEEKLY)))
        post = said(api, GROUP, WEEKLY)[-1]
        assert "Mar 23" in plain(post.text) and "Mar 29" in plain(post.text), post.text
        assert {row[2] for row in rows_of(post.text).values()} == {"1"}, post.text
        clock.now = utc(2026, 3, 29, 22, 10)
        await play_game(api, players, GROUP)
        this_week = rows_of((await ask(api, ann, GROUP, "/standings")).text)
        assert {row[2] for row in this_week.values()} == {"1"}, this_week
        last = await ask(api, ann, GROUP, "/standings last")
        assert rows_of(last.text) == rows_of(post.text), (plain(last.text), plain(post.text))
        await api.settle(quiet=0.3)
        assert len(said(api, GROUP, WEEKLY)) == 1


async def test_a_week_without_games_posts_nothing_and_the_season_is_still_told(
        pg_db, pg_url) -> None:
    """One game in the season's second week (the season of 20 April – 17 May 2026); then two
    weeks without a game. The week with the game is posted; the empty weeks are not; the
    season's champion is told when the season ends, though its last two weeks were empty;
    /standings last then says no game was rated."""
    async with group(pg_url, start=utc(2026, 4, 29, 9)) as (api, players, clock, _r):
        ann = players[0]
        await quick_coyote(api, ann)
        await play_game(api, players, GROUP)
        clock.now = utc(2026, 5, 4, 0, 0, 30)
        await wait_for(lambda: bool(said(api, GROUP, WEEKLY)))
        clock.now = utc(2026, 5, 11, 0, 0, 30)
        await api.settle(quiet=0.5)
        assert len(said(api, GROUP, WEEKLY)) == 1
        clock.now = utc(2026, 5, 18, 0, 0, 30)
        await wait_for(lambda: bool(said(api, GROUP, "Season champion")))
        await api.settle(quiet=0.3)
        assert len(said(api, GROUP, WEEKLY)) == 1
        season = said(api, GROUP, "Season champion")[-1]
        assert "Apr 20" in plain(season.text) and "May 17" in plain(season.text), season.text
        assert "No rated game yet" in plain((await ask(api, ann, GROUP, "/standings last")).text)


async def test_an_eastward_zone_change_after_the_new_zones_monday_posts_the_week_at_once(
        pg_db, pg_url) -> None:
    """The group (UTC) plays on Wednesday; on Sunday at 20:00 UTC (Monday 05:00 in Seoul)
    an admin moves the league to Asia/Seoul: the week that just ended there is posted at
    once, and nothing more at midnight UTC."""
    async with group(pg_url) as (api, players, clock, _runner):
        ann = players[0]
        await quick_coyote(api, ann)
        await play_game(api, players, GROUP)
        clock.now = utc(2026, 5, 10, 20)
        await ask(api, ann, GROUP, "/settings timezone Asia/Seoul")
        await wait_for(lambda: bool(said(api, GROUP, WEEKLY)))
        post = said(api, GROUP, WEEKLY)[-1]
        assert "May 4" in plain(post.text) and "May 10" in plain(post.text), post.text
        clock.now = utc(2026, 5, 11, 0, 0, 30)
        await api.settle(quiet=0.5)
        assert len(said(api, GROUP, WEEKLY)) == 1


def week_sends(api: FakeBotAPI) -> int:
    """sendMessage calls (answered or refused) of the week's table to GROUP."""
    return sum(1 for r in api.calls("sendMessage") if r.params.get("chat_id") == GROUP
               and WEEKLY in str(r.params.get("text")))


async def monday_and_two_hours(api: FakeBotAPI, runner: BotRunner, clock: Clock) -> None:
    """Monday 11 May 00:00:30 (the week's post is due and tried), then two hours of
    league ticks, ten minutes at a time (a claim not sent is retried after ten)."""
    clock.now = utc(2026, 5, 11, 0, 0, 30)
    await wait_for(lambda: week_sends(api) > 0)
    for _ in range(12):
        clock.now += timedelta(minutes=10, seconds=1)
        await until(service_of(runner).due_posts, [])  # (the job took what was due)
        await api.settle(quiet=0.1)


async def test_the_weekly_post_of_a_group_that_removed_the_bot_and_added_it_back(
        pg_db, pg_url) -> None:
    """The group plays on Wednesday; on Sunday Ann removes the bot; the Monday post is
    refused. On Tuesday she adds the bot back: the group is welcomed, gets last week's table
    once, and /standings last agrees with it."""
    async with group(pg_url) as (api, players, clock, _runner):
        ann = players[0]
        await ask(api, ann, GROUP, "/settings season 2")
        await quick_coyote(api, ann)
        await play_game(api, players, GROUP)
        clock.now = utc(2026, 5, 10, 12)
        api.bot_membership(GROUP, "kicked", by=ann, old="member")
        await api.settle(quiet=0.2)
        clock.now = utc(2026, 5, 11, 0, 0, 30)
        await wait_for(lambda: week_sends(api) > 0)
        await api.settle(quiet=0.2)
        assert not said(api, GROUP, WEEKLY)
        clock.now = utc(2026, 5, 12, 10)
        welcomed = len(api.bot_messages(GROUP))
        api.bot_membership(GROUP, "member", by=ann, old="kicked")
        await wait_for(lambda: bool(said(api, GROUP, WEEKLY)))
        await api.settle(quiet=0.3)
        clock.now += timedelta(minutes=11)
        await api.settle(quiet=0.3)
        assert len(said(api, GROUP, WEEKLY)) == 1
        assert len(api.bot_messages(GROUP)) > welcomed + 1  # (a welcome too)
        post = said(api, GROUP, WEEKLY)[-1]
        last = await ask(api, ann, GROUP, "/standings last")
        assert rows_of(last.text) == rows_of(post.text), (plain(last.text), plain(post.text))
        assert "seasons of 2 weeks" in plain((await panel(api, ann)).text)  # (kept)


async def test_a_removed_bot_does_not_knock_on_the_group_with_its_weekly_post(
        pg_db, pg_url) -> None:
    """Ann removes the bot from the group (it is told: a ``my_chat_member`` update) before
    Monday. Telegram refuses the Monday post (403). The claim is not marked sent, so the
    post is tried again every 10 minutes (``POST_RETRY``) for as long as the chat counts as
    active (a year after its last rated game): six calls an hour, each refused, to a group
    that removed the bot — the kind of knocking the mid-game removal tests rule out.
    So it was before the fix; the 403 now records the bot out, and its posts wait for its return."""
    async with group(pg_url) as (api, players, clock, runner):
        ann = players[0]
        await quick_coyote(api, ann)
        await play_game(api, players, GROUP)
        clock.now = utc(2026, 5, 10, 12)
        api.bot_membership(GROUP, "kicked", by=ann, old="member")
        await api.settle(quiet=0.2)
        await monday_and_two_hours(api, runner, clock)
        assert week_sends(api) <= 2, f"{week_sends(api)} refused sends in two hours"



async def test_a_madrid_group_that_became_a_supergroup_gets_its_week_at_madrid_midnight(
        pg_db, pg_url) -> None:
    """A Madrid group plays on Wednesday and becomes a supergroup (announced) on Friday:
    /settings there shows Europe/Madrid, the week's table comes to the supergroup at Monday
    00:00 Madrid (22:00 UTC on Sunday), not before and only once, and /standings last there
    agrees with it."""
    async with group(pg_url) as (api, players, clock, runner):
        ann = players[0]
        await ask(api, ann, GROUP, "/settings timezone Europe/Madrid")
        await quick_coyote(api, ann)
        await play_game(api, players, GROUP)
        clock.now = utc(2026, 5, 8, 12)
        api.migrate_group(GROUP, SUPERGROUP)
        await until(lambda: service_of(runner).migrated_from(SUPERGROUP), GROUP)
        await api.settle(quiet=0.2)
        assert "Europe/Madrid" in plain((await panel(api, ann, SUPERGROUP)).text)
        clock.now = utc(2026, 5, 10, 21, 59, 30)
        await api.settle(quiet=0.3)
        assert await service_of(runner).due_posts() == []
        assert not said(api, SUPERGROUP, WEEKLY)
        clock.now = utc(2026, 5, 10, 22, 0, 30)
        await wait_for(lambda: bool(said(api, SUPERGROUP, WEEKLY)))
        clock.now += timedelta(minutes=11)
        await api.settle(quiet=0.3)
        assert len(said(api, SUPERGROUP, WEEKLY)) == 1
        post = said(api, SUPERGROUP, WEEKLY)[-1]
        last = await ask(api, ann, SUPERGROUP, "/standings last")
        assert rows_of(last.text) == rows_of(post.text) != {}, (plain(last.text),
                                                               plain(post.text))
