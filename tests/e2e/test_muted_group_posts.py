"""The league's weekly post to a group that muted the bot: an admin restricted it (it may
send no messages there), so Telegram refuses the post with 400 "not enough rights to send
text messages to the chat". Through the real Application and the fake Bot API on
PostgreSQL, on a controlled clock, with fixed seeds (the set-up of
``test_league_posts_edges.py``).

A group where the bot cannot post is not knocked on: the refused week's post is given up
(its period is over by the time the group could read it), and the next week's post is tried
as usual, so a group that unmuted the bot gets it."""

from __future__ import annotations

from datetime import timedelta

from tests.e2e.harness import play_game, wait_for
from tests.e2e.messy_telegram_helpers import plain
from tests.e2e.settings_edges_helpers import (
    GROUP,
    WEEKLY,
    group,
    said,
    utc,
)
from tests.e2e.test_league_posts_edges import monday_and_two_hours, quick_coyote, week_sends


async def test_a_muted_bot_gives_up_the_week_and_posts_the_next_one_once_unmuted(
        pg_db, pg_url) -> None:
    """Before the fix the refused post was claimed again every 10 minutes (``POST_RETRY``)
    and refused again, for as long as the chat counted as active (a year after its last rated
    game): six refused sends an hour to a group that muted the bot, each logged. Now the
    Monday post is tried once and given up for its week; the group unmutes the bot, plays on
    Tuesday, and the next Monday gets that week's table, once (not the given-up one)."""
    async with group(pg_url) as (api, players, clock, runner):
        ann = players[0]
        await quick_coyote(api, ann)
        await play_game(api, players, GROUP)
        clock.now = utc(2026, 5, 10, 12)
        api.bot_membership(GROUP, "restricted", by=ann, old="member")  # (muted)
        await api.settle(quiet=0.2)
        await monday_and_two_hours(api, runner, clock)
        assert week_sends(api) == 1, f"{week_sends(api)} refused sends in two hours"
        assert not said(api, GROUP, WEEKLY)
        clock.now = utc(2026, 5, 12, 10)
        api.bot_membership(GROUP, "member", by=ann, old="restricted")  # (unmuted)
        await api.settle(quiet=0.2)
        await play_game(api, players, GROUP)
        clock.now += timedelta(minutes=11)
        await api.settle(quiet=0.3)
        assert not said(api, GROUP, WEEKLY), "the given-up week was posted after all"
        clock.now = utc(2026, 5, 18, 0, 0, 30)
        await wait_for(lambda: bool(said(api, GROUP, WEEKLY)))
        await api.settle(quiet=0.3)
        clock.now += timedelta(minutes=11)
        await api.settle(quiet=0.3)
        posts = said(api, GROUP, WEEKLY)
        assert len(posts) == 1, [plain(p.text) for p in posts]
        assert "May 11" in plain(posts[0].text) and "May 17" in plain(posts[0].text), \
            plain(posts[0].text)
