"""Ranks follow the figures players read: the standings' tie-break and the leaderboard's
shared ranks compare the Elo as every screen shows it (``shown_rating``), not its hidden
decimals. Pure: the league's own table and leaderboard functions, no database."""

from __future__ import annotations

from datetime import UTC, datetime

from league.tables.ratings import format_rating, rate_game
from league.tables.standings import GameResult, champions, leaderboard, table


def test_a_standings_tie_on_points_wins_and_shown_elo_is_shared() -> None:
    """Ann and Bob share a game's win over Cat (1.5 points and a win each) and end it on
    1490.6 and 1491.1, both shown 1491. Before the fix Bob ranked 1st and Ann 2nd, and
    Bob alone was the season's champion: the tie-break read the unrounded Elo."""
    places = {"ann": 1, "bob": 1, "cat": 3}
    game = GameResult(1, datetime(2026, 3, 18, tzinfo=UTC), rate_game(places, {}, {}), places)
    ratings = {"ann": 1490.59, "bob": 1491.12, "cat": 1479.0}
    assert format_rating(ratings["ann"], 1) == format_rating(ratings["bob"], 1) == "1491?"
    rows = table([game], ratings)
    assert [(r.player, r.rank) for r in rows][2] == ("cat", 3)
    assert {r.player: r.rank for r in rows[:2]} == {"ann": 1, "bob": 1}, rows
    assert sorted(champions(rows)) == ["ann", "bob"]


def test_the_leaderboard_shares_a_rank_on_the_same_shown_elo() -> None:
    """/top: 1507.13 and 1506.67 both read 1507. Before the fix they were 1st and 2nd
    (and /rating's ranks, counted the same way, differed too)."""
    board = leaderboard({"ann": 1507.13, "dan": 1506.67, "cat": 1555.85, "bob": 1506.49},
                        {"ann": 11, "dan": 11, "cat": 11, "bob": 11})
    assert [(r.rank, r.player) for r in board] == [(1, "cat"), (2, "ann"), (2, "dan"),
                                                   (4, "bob")], board
