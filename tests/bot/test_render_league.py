"""League texts: /replay, dates in each language's order, the leaderboard, Elo changes."""

from __future__ import annotations

from engine.coyote import CoyoteGame
from tests.bot.render_helpers import _snapshot


def test_replay_shows_changed_bids_and_guesses() -> None:
    from telegram_app.render import league as league_text

    game = _snapshot(CoyoteGame().new_state(3, 7), {"edition": "feathers"})
    log = [[{"type": "bid_changed", "seat": 0, "amount": 4}],
           [{"type": "special_used", "seat": 1, "special": "guess", "guess": "5",
             "right": False, "card": "10"}]]
    text = league_text.replay_text(game, log)
    assert "P0\u2069: 4 (changed bid)" in text and "Guess 5 — wrong, it was 10" in text


def test_league_dates_read_in_each_languages_order() -> None:
    """A week's span in /standings and a game's day in /history: day, month and weekday in
    the order and with the units each language writes (not an English pattern's order)."""
    from datetime import UTC, datetime, timedelta

    from league.tables.queries import HistoryEntry, Standings
    from telegram_app.i18n import use_language
    from telegram_app.render import league as league_text

    start = datetime(2026, 11, 30, tzinfo=UTC)
    table = Standings("week", start, start + timedelta(days=7), [], {}, {}, "UTC")
    game = HistoryEntry(3, start, "coyote", {"edition": "classic"}, [(1, "Ann", None)])
    expected = {"ko": ("11월 30일 (월)", "12월 6일 (일)", "11월 30일"),
                "ja": ("11月30日(月)", "12月6日(日)", "11月30日")}
    for code, (first, last, day) in expected.items():
        with use_language(code):
            standings = league_text.standings_text(table)
            history = league_text.history_text([game])
        assert first in standings and last in standings, standings
        assert day in history, history


def test_the_leaderboard_counts_one_win_in_the_singular() -> None:
    from types import SimpleNamespace

    from telegram_app.i18n import use_language
    from telegram_app.render import league as league_text

    one = SimpleNamespace(rating=1540.0, games=12, wins=1)
    with use_language("en"):
        assert "12 games · 1 win" in league_text.top_text([(1, "Ann", one)])
        assert "1 wins" not in league_text.top_text([(1, "Ann", one)])
    with use_language("es"):
        assert "1 victoria" in league_text.top_text([(1, "Ann", one)])
        assert "1 victorias" not in league_text.top_text([(1, "Ann", one)])


def test_an_elo_change_reads_the_same_at_the_end_in_standings_and_history() -> None:
    """The difference of the ratings as shown, with a real minus sign, wherever a change is
    shown: 1500.6 (shown 1501) → 1507.2 (shown 1507) is +6 (not +6.7, nor +7 in one place
    and +6.6 in another); a loss reads −7."""
    from datetime import UTC, datetime, timedelta

    from league.store.snapshots import EloChange
    from league.tables.queries import HistoryEntry, Standings
    from league.tables.ratings import shown_change
    from league.tables.standings import StandingRow
    from telegram_app.i18n import use_language
    from telegram_app.render import league as league_text
    from telegram_app.render.results import elo_text

    start = datetime(2026, 11, 30, tzinfo=UTC)
    rows = [StandingRow(1, 1.0, 1, 1, 1507.2, shown_change(1500.6, 1507.2), 1),
            StandingRow(2, 0.0, 1, 0, 1493.4, shown_change(1500.4, 1493.4), 2)]
    table = Standings("week", start, start + timedelta(days=7), rows, {1: "Ann", 2: "Bob"},
                      {1: 3, 2: 3}, "UTC")
    game = HistoryEntry(3, start, "coyote", {"edition": "classic"},
                        [(1, "Ann", shown_change(1500.6, 1507.2)),
                         (2, "Bob", shown_change(1500.4, 1493.4))])
    with use_language("en"):
        standings = league_text.standings_text(table)
        history = league_text.history_text([game])
        end = elo_text(EloChange(1500.6, 1507.2, 3))
    assert "1507? (+6)" in standings and "1493? (\u22127)" in standings, standings
    assert "Ann\u2069 (+6)" in history and "Bob\u2069 (\u22127)" in history, history
    assert end.startswith("+6 (Elo 1507?)"), end
