"""Weeks and seasons with fixed clocks (UTC, Asia/Kolkata, DST in Europe/Berlin), and the
standings tables built from rating rows."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given
from hypothesis import strategies as st

from league.tables.ratings import START, rate_game, recompute, shown_change
from league.tables.standings import (
    EPOCH,
    GameResult,
    champions,
    leaderboard,
    previous_season_bounds,
    previous_week_bounds,
    rank_of,
    season_bounds,
    season_index,
    table,
    week_bounds,
    week_start,
    zone,
)

BERLIN = ZoneInfo("Europe/Berlin")
KOLKATA = ZoneInfo("Asia/Kolkata")
H = timedelta(hours=1)


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


# --- weeks ------------------------------------------------------------------------------------
def test_week_in_utc() -> None:
    wednesday = utc(2024, 5, 15, 13, 30)
    assert week_start(wednesday) == utc(2024, 5, 13)
    assert week_bounds(wednesday, "UTC") == (utc(2024, 5, 13), utc(2024, 5, 20))
    # Sunday 23:59:59.999999 is still this week; Monday 00:00 starts the next one
    assert week_start(utc(2024, 5, 19, 23, 59, 59, 999999)) == utc(2024, 5, 13)
    assert week_start(utc(2024, 5, 20)) == utc(2024, 5, 20)
    assert previous_week_bounds(wednesday) == (utc(2024, 5, 6), utc(2024, 5, 13))


def test_week_in_kolkata_starts_at_local_midnight() -> None:
    # Monday 2024-05-20 00:00 IST (+05:30) is Sunday 18:30 UTC
    assert week_start(utc(2024, 5, 19, 18, 29), "Asia/Kolkata") == utc(2024, 5, 12, 18, 30)
    assert week_start(utc(2024, 5, 19, 18, 30), "Asia/Kolkata") == utc(2024, 5, 19, 18, 30)
    start, end = week_bounds(utc(2024, 5, 19, 20), "Asia/Kolkata")
    assert (start, end) == (utc(2024, 5, 19, 18, 30), utc(2024, 5, 26, 18, 30))
    assert start.astimezone(KOLKATA).replace(tzinfo=None) == datetime(2024, 5, 20)
    # the same instant is still the old week in UTC
    assert week_start(utc(2024, 5, 19, 20)) == utc(2024, 5, 13)


def test_week_holding_spring_dst_change_in_berlin() -> None:
    # clocks go 02:00 CET -> 03:00 CEST on Sunday 2024-03-31: a 167-hour week
    start, end = week_bounds(utc(2024, 3, 31, 12), "Europe/Berlin")
    assert start == utc(2024, 3, 24, 23)  # Monday 2024-03-25 00:00 CET
    assert end == utc(2024, 3, 31, 22)  # Monday 2024-04-01 00:00 CEST
    assert end - start == 167 * H
    assert week_start(utc(2024, 3, 31, 21, 59), "Europe/Berlin") == start
    assert week_start(utc(2024, 3, 31, 22), "Europe/Berlin") == end


def test_week_holding_autumn_dst_change_in_berlin() -> None:
    # clocks go 03:00 CEST -> 02:00 CET on Sunday 2024-10-27: a 169-hour week
    start, end = week_bounds(utc(2024, 10, 27, 1, 30), "Europe/Berlin")  # inside the fold
    assert start == utc(2024, 10, 20, 22)  # Monday 2024-10-21 00:00 CEST
    assert end == utc(2024, 10, 27, 23)  # Monday 2024-10-28 00:00 CET
    assert end - start == 169 * H
    assert week_start(end - timedelta(microseconds=1), "Europe/Berlin") == start


def test_week_in_which_samoa_skipped_a_day() -> None:
    # Pacific/Apia jumped from Thursday 2011-12-29 to Saturday 2011-12-31 (-10 h -> +14 h)
    start, end = week_bounds(utc(2011, 12, 30, 12), "Pacific/Apia")
    assert start.astimezone(ZoneInfo("Pacific/Apia")).replace(tzinfo=None) == \
        datetime(2011, 12, 26)
    assert end.astimezone(ZoneInfo("Pacific/Apia")).replace(tzinfo=None) == datetime(2012, 1, 2)
    assert end - start == 144 * H


def test_aware_non_utc_input_is_accepted() -> None:
    moment = datetime(2024, 5, 20, 0, 30, tzinfo=BERLIN)  # Monday 00:30 in Berlin
    assert week_start(moment, "Europe/Berlin") == utc(2024, 5, 19, 22)
    assert week_start(moment, "UTC") == utc(2024, 5, 13)  # still Sunday in UTC


@pytest.mark.parametrize("tz", ["Nowhere/City", "", "../etc/passwd", "Europe"])
def test_unknown_time_zones_raise(tz: str) -> None:
    with pytest.raises(ValueError):
        week_start(utc(2024, 1, 1), tz)
    with pytest.raises(ValueError):
        zone(tz)


def test_naive_datetimes_raise() -> None:
    with pytest.raises(ValueError):
        week_bounds(datetime(2024, 1, 1), "UTC")
    with pytest.raises(ValueError):
        season_bounds(datetime(2024, 1, 1))


ZONES = ["UTC", "Europe/Berlin", "Asia/Kolkata", "America/New_York", "Australia/Lord_Howe",
         "America/Santiago", "Pacific/Apia"]
moments = st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2040, 1, 1),
                       timezones=st.just(UTC))


@given(moments, st.sampled_from(ZONES))
def test_every_moment_lies_in_a_week_starting_monday_midnight_local(moment, tz) -> None:
    start, end = week_bounds(moment, tz)
    assert start <= moment < end
    assert start.tzinfo is UTC and end.tzinfo is UTC
    local = start.astimezone(ZoneInfo(tz))
    assert local.weekday() == 0
    assert local.time() < datetime.min.time().replace(hour=1, minute=1)  # midnight (or skipped)
    # a week is 7 local days: 168 h minus whatever the clocks moved forward in between
    shift = end.astimezone(ZoneInfo(tz)).utcoffset() - local.utcoffset()
    assert end - start == 168 * H - shift
    assert week_bounds(start, tz) == (start, end)
    assert week_bounds(end, tz)[0] == end
    assert previous_week_bounds(moment, tz)[1] == start


# --- seasons ----------------------------------------------------------------------------------
def test_seasons_are_four_week_blocks_from_the_epoch() -> None:
    assert EPOCH == date(2024, 1, 1) and EPOCH.weekday() == 0
    assert season_bounds(utc(2024, 1, 1)) == (utc(2024, 1, 1), utc(2024, 1, 29))
    assert season_bounds(utc(2024, 1, 28, 23, 59)) == (utc(2024, 1, 1), utc(2024, 1, 29))
    assert season_bounds(utc(2024, 1, 29)) == (utc(2024, 1, 29), utc(2024, 2, 26))
    assert season_index(utc(2024, 1, 29)) == 1
    assert season_index(utc(2023, 12, 31, 23, 59)) == -1
    assert season_bounds(utc(2023, 12, 31)) == (utc(2023, 12, 4), utc(2024, 1, 1))
    assert previous_season_bounds(utc(2024, 2, 1)) == (utc(2024, 1, 1), utc(2024, 1, 29))


def test_season_length_and_epoch_settings() -> None:
    assert season_bounds(utc(2024, 5, 15), weeks=1) == week_bounds(utc(2024, 5, 15))
    assert season_bounds(utc(2024, 1, 20), weeks=2) == (utc(2024, 1, 15), utc(2024, 1, 29))
    assert season_bounds(utc(2024, 3, 5), epoch=date(2024, 3, 4)) == (utc(2024, 3, 4),
                                                                      utc(2024, 4, 1))
    for weeks in (0, -1, True):
        with pytest.raises(ValueError):
            season_bounds(utc(2024, 1, 1), weeks=weeks)
    with pytest.raises(ValueError):
        season_bounds(utc(2024, 1, 1), epoch=date(2024, 1, 2))  # a Tuesday


def test_season_across_dst_in_berlin_starts_and_ends_at_local_midnight() -> None:
    # season 3 = Mon 2024-03-25 .. Mon 2024-04-22 (local), spanning the spring change
    start, end = season_bounds(utc(2024, 4, 10), "Europe/Berlin")
    assert start == utc(2024, 3, 24, 23) and end == utc(2024, 4, 21, 22)
    assert end - start == 4 * 168 * H - H
    assert season_index(utc(2024, 3, 24, 22, 59), "Europe/Berlin") == 2
    assert season_index(utc(2024, 3, 24, 23), "Europe/Berlin") == 3


def test_season_in_kolkata() -> None:
    start, end = season_bounds(utc(2024, 1, 28, 19), "Asia/Kolkata")  # Mon 00:30 IST
    assert (start, end) == (utc(2024, 1, 28, 18, 30), utc(2024, 2, 25, 18, 30))


@given(moments, st.sampled_from(ZONES), st.integers(1, 6))
def test_seasons_tile_time_into_whole_weeks(moment, tz, weeks) -> None:
    start, end = season_bounds(moment, tz, weeks)
    assert start <= moment < end
    assert week_start(start, tz) == start and week_start(end, tz) == end
    assert season_bounds(end, tz, weeks)[0] == end
    assert previous_season_bounds(end, tz, weeks) == (start, end)
    assert season_index(end, tz, weeks) == season_index(moment, tz, weeks) + 1


# --- tables -----------------------------------------------------------------------------------
def results(games, finished):
    done = recompute(games)
    return done, [GameResult(i, when, changes, places) for i, (when, changes, places)
                  in enumerate(zip(finished, done.changes, games, strict=True), start=1)]


def test_weekly_table_points_wins_and_ranks() -> None:
    games = [{"ann": 1, "bob": 2, "cat": 3},
             {"ann": 2, "bob": 1, "cat": 2, "dan": 4},
             {"ann": 1, "bob": 1, "cat": 3},
             {"ann": 3, "bob": 2, "cat": 1}]  # finished the next week
    when = [utc(2024, 5, 13, 10), utc(2024, 5, 15), utc(2024, 5, 19, 23), utc(2024, 5, 20, 1)]
    done, rows_in = results(games, when)
    start, end = week_bounds(utc(2024, 5, 16))
    rows = table(rows_in, done.ratings, start=start, end=end)
    by = {r.player: r for r in rows}
    assert by["ann"].points == 2 + 1.5 + 1.5 and by["bob"].points == 1 + 3 + 1.5
    assert by["cat"].points == 0 + 1.5 + 0 and by["dan"].points == 0
    assert (by["ann"].games, by["bob"].games, by["dan"].games) == (3, 3, 1)
    assert (by["ann"].wins, by["bob"].wins, by["cat"].wins) == (2, 2, 0)
    assert by["ann"].rating == done.ratings["ann"]  # current rating, incl. next week's game
    first_three = done.changes[:3]
    assert by["ann"].rating_change == sum(shown_change(c["ann"].before, c["ann"].after)
                                          for c in first_three if "ann" in c)
    assert [r.player for r in rows] == ["bob", "ann", "cat", "dan"]
    assert [r.rank for r in rows] == [1, 2, 3, 4]
    assert champions(rows) == ["bob"]
    assert rank_of("cat", rows) == 3 and rank_of("eve", rows) is None
    # next week holds only the last game; without ratings the last `after` is shown
    later = table(rows_in, start=end)
    assert {r.player: r.points for r in later} == {"cat": 2, "bob": 1, "ann": 0}
    assert later[0].rating == done.changes[3]["cat"].after


def test_full_ties_share_a_rank() -> None:
    rows_in = [GameResult(1, utc(2024, 1, 2), rate_game(places, {}, {}), places)
               for places in ({"a": 1, "b": 2, "c": 3}, {"a": 2, "b": 1, "c": 3})]
    ratings = {"a": 1510.0, "b": 1510.0, "c": START}
    rows = table(rows_in, ratings)
    assert [(r.player, r.rank) for r in rows] == [("a", 1), ("b", 1), ("c", 3)]
    assert champions(rows) == ["a", "b"]
    # rating breaks a tie on points and wins
    rows = table(rows_in, {"a": 1510.0, "b": 1511.0, "c": START})
    assert [(r.player, r.rank) for r in rows] == [("b", 1), ("a", 2), ("c", 3)]


def test_table_of_nothing_and_mismatched_rows() -> None:
    assert table([]) == [] and champions([]) == []
    changes = rate_game({"a": 1, "b": 2, "c": 3}, {}, {})
    with pytest.raises(ValueError):
        table([GameResult(1, utc(2024, 1, 1), changes, {"a": 1, "b": 2})])


def test_leaderboard_needs_ten_games_and_can_be_restricted() -> None:
    ratings = {"a": 1600.0, "b": 1550.0, "c": 1700.0, "d": 1550.0, "e": 1400.0}
    games = {"a": 12, "b": 10, "c": 9, "d": 30, "e": 10}
    board = leaderboard(ratings, games)
    assert [(r.rank, r.player) for r in board] == [(1, "a"), (2, "b"), (2, "d"), (4, "e")]
    assert rank_of("c", board) is None
    everyone = leaderboard(ratings, games, min_games=0)
    assert rank_of("c", everyone) == 1
    chat = leaderboard(ratings, games, min_games=0, among=["e", "b", "zed"])
    assert [(r.rank, r.player, r.games) for r in chat] == [(1, "b", 10), (2, "e", 10)]
