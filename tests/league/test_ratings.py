"""Multiplayer Elo by pairs: the golden example, classic Elo at N = 2, and the properties the
ratings need (zero sum with equal K, relabelling, monotonicity, exact replay)."""

from __future__ import annotations

import dataclasses
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from league.tables.places import final_places
from league.tables.ratings import (
    K_ESTABLISHED,
    K_PROVISIONAL,
    START,
    RatingChange,
    ReplayError,
    format_rating,
    is_rated,
    k_factor,
    provisional,
    rate_game,
    recompute,
    replay,
)

GOLDEN_RATINGS = {"Cat": 1500.0, "Ann": 1620.0, "Bob": 1560.0, "Eve": 1400.0, "Dan": 1450.0}
GOLDEN_PLACES = {"Cat": 1, "Ann": 2, "Bob": 3, "Eve": 3, "Dan": 5}
GOLDEN_GAMES = {"Cat": 25, "Ann": 40, "Bob": 10, "Eve": 3, "Dan": 12}  # only Eve provisional
GOLDEN_DELTAS = {"Cat": 10.20, "Ann": 1.21, "Bob": -4.34, "Eve": 2.07, "Dan": -8.10}


def classic(r_a: float, r_b: float, s_a: float, k: int) -> float:
    return k * (s_a - 1 / (1 + 10 ** ((r_b - r_a) / 400)))


# --- strategies -------------------------------------------------------------------------------
ratings_st = st.floats(min_value=700, max_value=2700, allow_nan=False)
games_st = st.integers(min_value=0, max_value=40)


@st.composite
def tables(draw, min_n: int = 2, max_n: int = 8, equal_k: bool = False):
    """(places, ratings, games_played) for players 0..N-1."""
    n = draw(st.integers(min_n, max_n))
    players = list(range(n))
    places = {p: draw(st.integers(1, n)) for p in players}
    ratings = {p: draw(ratings_st) for p in players}
    if equal_k:
        g = draw(games_st)
        games = {p: g + draw(st.integers(0, 5)) * (g >= 10) for p in players}
    else:
        games = {p: draw(games_st) for p in players}
    return places, ratings, games


# --- golden and basics ------------------------------------------------------------------------
def test_golden_example() -> None:
    changes = rate_game(GOLDEN_PLACES, GOLDEN_RATINGS, GOLDEN_GAMES)
    assert {p: round(c.delta, 2) for p, c in changes.items()} == GOLDEN_DELTAS
    assert changes["Eve"].k == K_PROVISIONAL
    assert {c.k for p, c in changes.items() if p != "Eve"} == {K_ESTABLISHED}
    assert changes["Cat"].score == 4 and changes["Dan"].score == 0
    assert changes["Bob"].score == changes["Eve"].score == 1.5
    assert changes["Ann"].before == 1620.0
    assert changes["Ann"].after == pytest.approx(1621.21, abs=0.005)


def test_missing_ratings_start_at_1500_and_missing_games_are_provisional() -> None:
    changes = rate_game({"a": 1, "b": 2, "c": 3}, {}, {})
    assert all(c.before == START and c.k == K_PROVISIONAL for c in changes.values())
    assert changes["a"].expected == changes["c"].expected == 1.0
    assert changes["a"].delta == pytest.approx(20.0)  # 40 / 2 · (2 - 1)
    assert changes["b"].delta == 0.0


@pytest.mark.parametrize("places", [{}, {"a": 1}, {"a": 1, "b": 0}, {"a": 1, "b": 1.5},
                                    {"a": 1, "b": True}])
def test_bad_places_raise(places) -> None:
    with pytest.raises(ValueError):
        rate_game(places, {}, {})


def test_k_and_provisional_boundaries() -> None:
    assert [k_factor(g) for g in (0, 9, 10, 500)] == [40, 40, 20, 20]
    assert provisional(9) and not provisional(10)
    with pytest.raises(ValueError):
        provisional(-1)


def test_format_rating() -> None:
    assert format_rating(1523.4, 3) == "1523?"
    assert format_rating(1522.5, 10) == "1523"
    assert format_rating(1499.49, 11) == "1499"
    assert format_rating(START, 0) == "1500?"


@pytest.mark.parametrize(("humans", "ai", "status", "rated"), [
    (3, 0, "finished", True), (8, 0, "finished", True), (2, 0, "finished", False),
    (3, 1, "finished", False), (5, 0, "cancelled", False), (5, 0, "running", False),
])
def test_is_rated(humans: int, ai: int, status: str, rated: bool) -> None:
    assert is_rated(humans, ai, status) is rated


def test_departed_players_count_as_last() -> None:
    # seats 0-3 in the game's order 2, 1, 3, 4
    assert final_places([2, 1, 3, 4], {1}) == [1, 4, 2, 3]
    assert final_places([2, 1, 3, 4], {0, 1}) == [3, 3, 1, 2]  # the departed tie, last
    assert final_places([1, 1, 1, 4], {3}) == [1, 1, 1, 4]  # competition ranks: 1, 1, 1, 4
    assert final_places([1, 1, 1, 4], {0}) == [4, 1, 1, 3]
    assert final_places([1, 2, 3], set()) == [1, 2, 3]
    changes = rate_game(dict(enumerate(final_places([2, 1, 3, 4], {1}))), {}, {})
    assert changes[1].score == 0
    with pytest.raises(ValueError):
        final_places([1, 0], set())


# --- properties -------------------------------------------------------------------------------
@given(ratings_st, ratings_st, st.sampled_from([0.0, 0.5, 1.0]), games_st, games_st)
def test_two_players_is_classic_elo(r_a, r_b, s_a, g_a, g_b) -> None:
    places = {"a": 1, "b": 1} if s_a == 0.5 else {"a": 1, "b": 2} if s_a else {"a": 2, "b": 1}
    changes = rate_game(places, {"a": r_a, "b": r_b}, {"a": g_a, "b": g_b})
    assert changes["a"].delta == pytest.approx(classic(r_a, r_b, s_a, k_factor(g_a)), abs=1e-9)
    assert changes["b"].delta == pytest.approx(classic(r_b, r_a, 1 - s_a, k_factor(g_b)),
                                               abs=1e-9)


@given(tables(equal_k=True))
def test_changes_sum_to_zero_when_all_k_equal(table) -> None:
    places, ratings, games = table
    changes = rate_game(places, ratings, games)
    assert len({c.k for c in changes.values()}) == 1
    assert math.fsum(c.delta for c in changes.values()) == pytest.approx(0.0, abs=1e-9)


@given(tables())
def test_scores_and_expectations_share_the_pairs(table) -> None:
    places, ratings, games = table
    changes = rate_game(places, ratings, games)
    n = len(places)
    assert math.fsum(c.score for c in changes.values()) == n * (n - 1) / 2
    assert math.fsum(c.expected for c in changes.values()) == pytest.approx(n * (n - 1) / 2)


@given(tables(), st.randoms(use_true_random=False))
def test_relabelling_players_changes_nothing(table, rnd) -> None:
    places, ratings, games = table
    players = list(places)
    labels = [f"player-{i}" for i in range(len(players))]
    rnd.shuffle(labels)
    rename = dict(zip(players, labels, strict=True))
    order = players[:]
    rnd.shuffle(order)  # also list them in another order
    changes = rate_game(places, ratings, games)
    renamed = rate_game({rename[p]: places[p] for p in order},
                        {rename[p]: ratings[p] for p in order},
                        {rename[p]: games[p] for p in order})
    for p in players:
        assert renamed[rename[p]] == dataclasses.replace(changes[p], player=rename[p])


@given(tables(), st.data())
def test_a_better_place_never_earns_less(table, data) -> None:
    places, ratings, games = table
    p = data.draw(st.sampled_from(list(places)))
    if places[p] == 1:
        return
    better = dict(places)
    better[p] = data.draw(st.integers(1, places[p] - 1))
    assert rate_game(better, ratings, games)[p].delta >= rate_game(places, ratings, games)[p].delta


def test_moving_up_past_a_player_strictly_gains() -> None:
    ratings = {"a": 1500.0, "b": 1500.0, "c": 1500.0}
    low = rate_game({"a": 3, "b": 1, "c": 2}, ratings, {})["a"].delta
    mid = rate_game({"a": 2, "b": 1, "c": 2}, ratings, {})["a"].delta
    high = rate_game({"a": 1, "b": 2, "c": 3}, ratings, {})["a"].delta
    assert low < mid < high


# --- replay -----------------------------------------------------------------------------------
@st.composite
def seasons(draw):
    """A sequence of games among a pool of up to 8 players (ids 0..7)."""
    pool = list(range(draw(st.integers(3, 8))))
    games = []
    for _ in range(draw(st.integers(0, 30))):
        seated = draw(st.lists(st.sampled_from(pool), min_size=2, max_size=len(pool),
                               unique=True))
        games.append({p: draw(st.integers(1, len(seated))) for p in seated})
    return games


def as_events(changes_per_game):
    return [(game_id, list(changes.values()))
            for game_id, changes in enumerate(changes_per_game, start=1)]


@settings(max_examples=60)
@given(seasons())
def test_replaying_rating_events_reproduces_the_ratings(games) -> None:
    done = recompute(games)
    assert replay(as_events(done.changes)) == done.ratings  # exact, not approximate
    assert replay(as_events(done.changes), tolerance=0.0) == done.ratings
    # stored rows chain: each game's `after` is the next game's `before`
    seen: dict[int, float] = {}
    for changes in done.changes:
        for p, c in changes.items():
            assert c.before == seen.get(p, START)
            seen[p] = c.after
    assert seen == done.ratings
    assert sum(done.games_played.values()) == sum(len(g) for g in games)


def test_recompute_matches_game_by_game_rating() -> None:
    games = [{"a": 1, "b": 2, "c": 3}, {"a": 3, "b": 1, "c": 2, "d": 4}, {"d": 1, "a": 2}]
    ratings: dict[str, float] = {}
    played: dict[str, int] = {}
    for places in games:
        for p, c in rate_game(places, ratings, played).items():
            ratings[p] = c.after
            played[p] = played.get(p, 0) + 1
    done = recompute(games)
    assert done.ratings == ratings and done.games_played == played
    assert len(done.changes) == 3


def test_replay_reaches_established_k_after_ten_games() -> None:
    games = [{"a": 1, "b": 2, "c": 3}] * 12
    done = recompute(games)
    assert [done.changes[i]["a"].k for i in (0, 9, 10, 11)] == [40, 40, 20, 20]
    assert replay(as_events(done.changes)) == done.ratings


def test_replay_rejects_tampered_rows() -> None:
    done = recompute([{"a": 1, "b": 2, "c": 3}, {"a": 2, "b": 1, "c": 3}])
    events = as_events(done.changes)
    rows = events[1][1]
    for field, value in [("after", rows[0].after + 0.5), ("before", 1500.0),
                         ("k", 20), ("expected", rows[0].expected + 0.01)]:
        bad = [(1, events[0][1]), (2, [dataclasses.replace(rows[0], **{field: value}),
                                       *rows[1:]])]
        with pytest.raises(ReplayError, match="game 2"):
            replay(bad)
        replay(bad, check=False)  # the formula still gives ratings
    wrong_scores = [(1, [dataclasses.replace(events[0][1][0], score=1.0), *events[0][1][1:]])]
    with pytest.raises(ReplayError, match="sum"):
        replay(wrong_scores)
    with pytest.raises(ValueError):
        replay([(1, [RatingChange("a", START, START, 40, 0.0, 0.0)])])
    with pytest.raises(ValueError):
        replay([(1, [events[0][1][0], events[0][1][0]])])


def test_replay_of_nothing_is_empty() -> None:
    assert replay([]) == {}
    assert recompute([]).ratings == {}
