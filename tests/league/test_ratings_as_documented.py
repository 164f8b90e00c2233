"""The league's numbers as README ("The league") and DEVELOPERS.md document them, checked as a
player who cares about their rating would: multiplayer Elo by pairs, K 40 then 20, "?" for the
first 10 rated games, and the same Elo wherever a screen shows it (the final message,
/rating, /standings, /top, the tournament's standings).

The properties (hypothesis, derandomized) and the end-to-end game series hold today; the
test marked "Before the fix" failed before its fix."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from league.service import MatchService
from league.store.db import Database
from league.store.snapshots import UserRef
from league.tables.ratings import (
    K_ESTABLISHED,
    K_PROVISIONAL,
    format_rating,
    k_factor,
    rate_game,
    shown_change,
)
from league.tournaments.records import EntryInfo, StandingRow
from telegram_app.games.registry import ui_for
from telegram_app.render import league as render
from telegram_app.render.results import signed
from telegram_app.tournaments.words import standing_line
from tests.clock import Clock
from tests.league.play import finish_coyote

CHAT = -4242
PEOPLE = [UserRef(i, n) for i, n in enumerate(["Ann", "Bob", "Cat"], 1)]
PROPS = settings(derandomize=True, max_examples=300, deadline=None)

rating_st = st.floats(min_value=800, max_value=2400, allow_nan=False)


@st.composite
def tables(draw, same_rating: bool = False):
    """(places, ratings, games) of 3–8 players; ``same_rating``: all at one rating."""
    n = draw(st.integers(3, 8))
    places = {p: draw(st.integers(1, n)) for p in range(n)}
    one = draw(rating_st)
    ratings = {p: one if same_rating else draw(rating_st) for p in range(n)}
    games = {p: draw(st.integers(0, 30)) for p in range(n)}
    return places, ratings, games


# --- the formula as documented ------------------------------------------------------------------
@PROPS
@given(tables(), st.integers(0, 30))
def test_zero_sum_when_every_k_is_the_same(table, played) -> None:
    """Pairwise Elo gives and takes the same points when every K is equal."""
    places, ratings, _games = table
    changes = rate_game(places, ratings, dict.fromkeys(places, played))
    assert math.fsum(c.delta for c in changes.values()) == pytest.approx(0, abs=1e-9)


@PROPS
@given(tables(same_rating=True))
def test_equal_ratings_equal_k_swapped_places_swap_changes(table) -> None:
    """Two players of equal rating and K: each one's change depends only on their own place,
    and a shared place changes nobody (relative to each other)."""
    places, ratings, _games = table
    games = dict.fromkeys(places, 12)
    a, b = 0, 1
    swapped = {**places, a: places[b], b: places[a]}
    one, two = rate_game(places, ratings, games), rate_game(swapped, ratings, games)
    assert one[a].delta == pytest.approx(two[b].delta, abs=1e-9)
    if places[a] == places[b]:
        assert one[a].delta == pytest.approx(one[b].delta, abs=1e-9)


@PROPS
@given(tables(), st.data())
def test_a_better_place_never_earns_less(table, data) -> None:
    places, ratings, games = table
    p = data.draw(st.sampled_from(sorted(places)))
    if places[p] > 1:
        better = {**places, p: data.draw(st.integers(1, places[p] - 1))}
        assert rate_game(better, ratings, games)[p].delta >= \
            rate_game(places, ratings, games)[p].delta - 1e-12


@PROPS
@given(tables())
def test_change_is_k_over_n_minus_1_times_score_minus_expected(table) -> None:
    """README: multiplayer Elo by pairs, K 40 for the first 10 rated games, then 20."""
    places, ratings, games = table
    n = len(places)
    for p, c in rate_game(places, ratings, games).items():
        score = sum(1.0 if places[p] < places[q] else 0.5 if places[p] == places[q] else 0.0
                    for q in places if q != p)
        expected = sum(1 / (1 + 10 ** ((ratings[q] - ratings[p]) / 400))
                       for q in places if q != p)
        assert c.k == (K_PROVISIONAL if games[p] < 10 else K_ESTABLISHED) == k_factor(games[p])
        assert c.delta == pytest.approx(c.k / (n - 1) * (score - expected), abs=1e-9)


# --- the same numbers on every screen, after the same games --------------------------------------
async def test_eleven_games_read_the_same_everywhere(pg_db: Database) -> None:
    """Eleven rated games of three players: the final message's "?" goes after the tenth,
    its K after it is 20, and /rating, /standings and /top show the same Elo, games, wins
    and change (the week's change is the sum of the changes the games showed)."""
    clock = Clock(datetime(2026, 3, 2, 10, 0, tzinfo=UTC))  # a Monday
    service = MatchService(pg_db, clock=clock, new_seed=iter(range(500, 600)).__next__)
    shown: dict[int, int] = {}
    for i in range(11):
        lobby = await service.open_lobby(CHAT, "League", 0, PEOPLE[i % 3], "coyote")
        for user in PEOPLE:
            if user != PEOPLE[i % 3]:
                await service.join(lobby.id, user)
        game = (await service.start(lobby.id, PEOPLE[i % 3].id)).game
        game = await finish_coyote(service, game.id)
        clock.now += timedelta(hours=1)
        final = ui_for(game).game_over_text(game)
        for p in game.players:
            change = p.elo_change
            assert change is not None and change.games == i + 1
            delta = shown_change(change.before, change.after)
            shown[p.user_id] = shown.get(p.user_id, 0) + delta
            assert f"{signed(delta)} (Elo {format_rating(change.after, change.games)})" in final
            assert format_rating(change.after, change.games).endswith("?") == (i < 9)
    standings = await service.standings(CHAT, "week", kind="coyote")
    top = {name: row for _rank, name, row in await service.top(kind="coyote")}
    for row in standings.rows:
        card = await service.rating_card(row.player, CHAT, kind="coyote")
        elo = format_rating(card.rating, card.games)
        assert elo == format_rating(row.rating, standings.games_played[row.player])
        assert elo == format_rating(top[card.name].rating, top[card.name].games)
        assert (row.games, row.wins) == (card.games, card.wins) == (11, top[card.name].wins)
        assert row.rating_change == shown[row.player]
        assert f"Elo {elo}" in render.rating_text(card, in_group=True)


# --- findings ----------------------------------------------------------------------------------
def test_tournament_standings_show_the_elo_that_rating_shows() -> None:
    """Before the fix, a tournament's standings rounded the Elo tie-break with Python's
    ``round`` (half to even) while /rating, /standings, /top and the final message round
    half up (``format_rating``): five established players at 1500, four sharing first place
    in a poker-deck game, end at exactly 1502.5; /rating says "Elo 1503", the tournament's
    standings line, where Elo decides the order, says "Elo 1502"."""
    played = dict.fromkeys("ABCDE", 10)
    changes = rate_game({"A": 1, "B": 1, "C": 1, "D": 1, "E": 5},
                        dict.fromkeys("ABCDE", 1500.0), played)
    assert changes["A"].after == 1502.5  # (K 20 / 4 · (2.5 − 2))
    mine = StandingRow(1, EntryInfo(1, 11, "Ann", None, True, 1, 0), 2.0, 3.0,
                       changes["A"].after, 3)
    other = StandingRow(2, EntryInfo(2, 12, "Bob", None, True, 1, 0), 2.0, 3.0, 1490.0, 3)
    line = standing_line(mine, [mine, other])
    assert f"Elo {format_rating(changes['A'].after, 11)}" in line, line
