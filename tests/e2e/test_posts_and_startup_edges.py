"""Edges of the league's posts and of start-up: a chat moved west after the new zone's Monday is
not told the same week again, a second game's table of a period is not lost when the first was
sent before its claim, an SQLite file in a folder that is not there is one line naming
DATABASE_URL (each a review's finding, fixed)."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from league.service import MatchService
from league.store.db import Database
from telegram_app import startup
from tests.clock import Clock
from tests.e2e.test_league_periods import CHAT, PEOPLE, post_all_due, rated_game, utc
from tests.league.play import play_koira


async def test_a_westward_move_after_the_new_zones_monday_posts_the_told_week_again(
        pg_db: Database) -> None:
    """README: "a new time zone or season length never posts a period twice". A chat in UTC
    is told the week of 1 June on Monday 8 June at 00:00. On Tuesday the admins move it to
    New York, whose Monday midnight has passed too: New York's last week (1-7 June, ending
    Monday 04:00 UTC) ends after the UTC post, so it is due, and the same week, with the
    same game, is posted a second time."""
    clock = Clock(utc(2026, 6, 3, 12))  # Wednesday
    service = MatchService(pg_db, clock=clock, new_seed=lambda: 5)
    await rated_game(service)
    clock.now = utc(2026, 6, 8, 0, 0, 30)  # Monday 00:00:30 UTC
    assert await post_all_due(service) == [("week", "2026-06-01")]
    clock.now = utc(2026, 6, 9, 10)  # Tuesday: Monday 00:00 in New York is over too
    await service.set_chat_setting(CHAT, "League", "timezone", "America/New_York")
    again = await post_all_due(service)
    assert again == [], f"the week told already is posted again: {again}"


async def test_a_second_games_post_is_lost_when_the_first_was_sent_before_its_claim(
        pg_db: Database) -> None:
    """A week with a rated Coyote and a rated Koira game: two posts, sent one after the other
    by ``league_job`` (claim, send, mark). The bot stops (a deploy; or the Koira claim's
    transaction fails) after Coyote's is sent and before Koira's is claimed. From then on,
    98b3ff1's ``_unposted`` sees the latest week claimed and sent (no unsent row there:
    Koira has no row at all) and walks no further: Koira's table of that week is never
    posted. (085ada4 without 98b3ff1 posted it.)"""
    clock = Clock(utc(2026, 6, 3, 12))  # Wednesday
    service = MatchService(pg_db, clock=clock, new_seed=lambda: 5)
    await rated_game(service)
    await play_koira(service, CHAT, PEOPLE, seed=5)
    clock.now = utc(2026, 6, 8, 0, 0, 30)  # Monday: last week is final
    due = await service.due_posts()
    assert [(d.game_kind, d.post) for d in due] == [("coyote", "week"), ("koira", "week")]
    assert await service.claim_post(*due[0])
    await service.mark_posted(*due[0])  # ... and the process stops here
    clock.now += timedelta(minutes=30)  # started again; past POST_RETRY too
    assert due[1] in await service.due_posts(), "Koira's weekly table is never posted"


def test_a_sqlite_file_in_a_missing_directory_is_one_line_naming_database_url(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """``prepare_database``'s docstring: "a database that cannot be used, logs one line
    naming DATABASE_URL and exits with status 1". A SQLite path whose directory does not
    exist (or is not writable: a read-only WorkingDirectory) fails in ``_hold``'s
    ``open(path, "ab")``, outside the ``try``: a FileNotFoundError (PermissionError)
    traceback ("unhandled error"), not the one line."""
    url = f"sqlite:///{tmp_path / 'no-such-dir' / 'bot.sqlite3'}"
    with pytest.raises(SystemExit) as exit_:
        startup.prepare_database(url)
    assert exit_.value.code == startup.UNREACHABLE_STATUS
    assert "DATABASE_URL" in caplog.records[-1].getMessage()
