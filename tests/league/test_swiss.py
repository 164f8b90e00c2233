"""Swiss rounds of multiplayer tables (league/tournaments/swiss.py): table sizes, seating with
fair byes and fewer repeated tables, points from places, and the standings' tie-breaks;
examples first, then hypothesis properties."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from league.tournaments.swiss import (
    BYE,
    Entrant,
    Seating,
    Standing,
    rank,
    repeated_pairs,
    seat,
    standings,
    table_points,
    table_sizes,
)

F = Fraction


def entrants(count: int, elo_step: float = 10.0) -> list[Entrant]:
    """``count`` entrants with no points, ids 1..count, id 1 the highest Elo."""
    return [Entrant(id=i, points=F(0), elo=2000 - elo_step * i) for i in range(1, count + 1)]


# --- table sizes ------------------------------------------------------------------------------
@pytest.mark.parametrize(("players", "size", "low", "high", "expected"), [
    (9, 4, 3, 10, ([3, 3, 3], 0)),
    (7, 4, 3, 8, ([4, 3], 0)),
    (10, 4, 3, 10, ([4, 3, 3], 0)),
    (8, 4, 3, 10, ([4, 4], 0)),
    (13, 4, 3, 10, ([4, 3, 3, 3], 0)),
    (4, 3, 3, 3, ([3], 1)),          # low == high: one sits out
    (6, 3, 3, 3, ([3, 3], 0)),
    (5, 3, 3, 4, ([4], 1)),          # 5 players cannot be cut into tables of 3 to 4
    (9, 8, 3, 10, ([9], 0)),         # one table of 9 is nearer 8 than 5 + 4
    (0, 4, 3, 10, ([], 0)),
    (2, 4, 3, 10, ([], 2)),          # fewer than low: everyone sits out
    (3, 4, 3, 10, ([3], 0)),
])
def test_table_sizes(players: int, size: int, low: int, high: int,
                     expected: tuple[list[int], int]) -> None:
    assert table_sizes(players, size, low, high) == expected


def test_size_outside_the_limits_is_clamped() -> None:
    assert table_sizes(12, 2, 3, 10) == table_sizes(12, 3, 3, 10) == ([3, 3, 3, 3], 0)
    assert table_sizes(12, 20, 3, 6) == table_sizes(12, 6, 3, 6) == ([6, 6], 0)


@pytest.mark.parametrize(("players", "low", "high"), [(-1, 3, 5), (4, 1, 5), (4, 5, 3)])
def test_table_sizes_refuses_bad_limits(players: int, low: int, high: int) -> None:
    with pytest.raises(ValueError):
        table_sizes(players, 4, low, high)


# --- seating ----------------------------------------------------------------------------------
def test_rank_orders_by_points_then_elo_then_id() -> None:
    field = [Entrant(1, F(1), 1500), Entrant(2, F(2), 1400), Entrant(3, F(1), 1600),
             Entrant(4, F(1), 1500)]
    assert [e.id for e in rank(field)] == [2, 3, 1, 4]


def test_first_round_seats_by_elo_leaders_together() -> None:
    field = entrants(10)
    random.Random(3).shuffle(field)
    assert seat(field, 4, 3, 10) == Seating(tables=[[1, 2, 3, 4], [5, 6, 7], [8, 9, 10]],
                                            byes=[])


def test_points_come_before_elo() -> None:
    field = [Entrant(i, F(1) if i > 3 else F(0), 2000 - i) for i in range(1, 7)]
    assert seat(field, 3, 3, 3).tables == [[4, 5, 6], [1, 2, 3]]


def test_bye_goes_to_the_lowest_ranked_with_fewest_byes() -> None:
    # 4 players in a game for exactly 3: one sits out
    assert seat(entrants(4), 3, 3, 3) == Seating(tables=[[1, 2, 3]], byes=[4])
    # the lowest-ranked already sat out once: the next lowest sits out now
    field = entrants(3) + [Entrant(4, F(0), 1000, byes=1)]
    assert seat(field, 3, 3, 3) == Seating(tables=[[1, 2, 4]], byes=[3])


def test_fewer_than_low_all_sit_out_and_nobody_sits_nowhere() -> None:
    assert seat(entrants(2), 4, 3, 10) == Seating(tables=[], byes=[1, 2])
    assert seat([], 4, 3, 10) == Seating(tables=[], byes=[])


def test_repeated_ids_are_refused() -> None:
    with pytest.raises(ValueError):
        seat(entrants(3) + entrants(1), 3, 3, 5)


def test_a_swap_with_the_next_table_avoids_a_repeat() -> None:
    met = {frozenset({3, 4}): 1}
    # 4 and 5 are nearest in rank across the cut; the swap parts 3 and 4
    assert seat(entrants(8), 4, 4, 4, met).tables == [[1, 2, 3, 5], [4, 6, 7, 8]]
    # without history: the plain cut
    assert seat(entrants(8), 4, 4, 4).tables == [[1, 2, 3, 4], [5, 6, 7, 8]]


def test_a_third_meeting_is_avoided_before_a_second() -> None:
    # every swap keeps one repeated pair at table 1; the lighter one is kept
    met = {frozenset({1, 2}): 3, frozenset({1, 3}): 1, frozenset({2, 3}): 1}
    tables = seat(entrants(6), 3, 3, 3, met).tables
    assert repeated_pairs(tables, met) == 1
    assert not ({1, 2} <= set(tables[0]) or {1, 2} <= set(tables[1]))


def test_repeats_that_cannot_be_avoided_stay() -> None:
    # a single table: nothing to swap with
    met = {frozenset({1, 2}): 2}
    assert seat(entrants(4), 4, 3, 10, met).tables == [[1, 2, 3, 4]]


# --- points -----------------------------------------------------------------------------------
def test_winner_scores_one_last_zero() -> None:
    assert table_points({10: 1, 11: 2, 12: 3, 13: 4}) == {
        10: F(1), 11: F(2, 3), 12: F(1, 3), 13: F(0)}
    assert table_points({1: 2, 2: 1, 3: 3}) == {1: F(1, 2), 2: F(1), 3: F(0)}


def test_shared_places_split_their_points() -> None:
    assert table_points({1: 1, 2: 2, 3: 2, 4: 4}) == {1: F(1), 2: F(1, 2), 3: F(1, 2), 4: F(0)}
    assert table_points({1: 1, 2: 1, 3: 3}) == {1: F(3, 4), 2: F(3, 4), 3: F(0)}
    assert table_points({1: 1, 2: 1, 3: 1}) == {1: BYE, 2: BYE, 3: BYE}


def test_a_no_show_scores_zero_and_the_others_keep_theirs() -> None:
    points = table_points({1: 1, 2: 2, 3: 3, 4: 3}, no_shows=[2])
    assert points == {1: F(1), 2: F(0), 3: F(1, 6), 4: F(1, 6)}
    assert sum(points.values()) < F(4, 2)  # the one case a table sums to less than n/2


def test_bye_is_a_tables_average() -> None:
    assert BYE == F(1, 2)
    assert table_points({7: 1}) == {7: BYE}
    assert table_points({}) == {}


@pytest.mark.parametrize(("places", "no_shows"), [({1: 0}, ()), ({1: True}, ()),
                                                  ({1: 1, 2: 2}, (3,))])
def test_table_points_refuses_bad_input(places: dict[int, int], no_shows: tuple[int, ...]) -> None:
    with pytest.raises(ValueError):
        table_points(places, no_shows)


# --- standings --------------------------------------------------------------------------------
def test_buchholz_breaks_a_tie_in_points() -> None:
    points = {1: F(2), 2: F(2), 3: F(3), 4: F(1)}
    opponents = {1: [4, 4], 2: [3, 4], 3: [2], 4: [1, 1, 2]}
    elo = {1: 1900.0, 2: 1500.0, 3: 1500.0, 4: 1500.0}
    assert standings(points, opponents, elo) == [
        Standing(3, F(3), F(2), 1), Standing(2, F(2), F(4), 2), Standing(1, F(2), F(2), 3),
        Standing(4, F(1), F(6), 4)]


def test_elo_breaks_an_equal_buchholz_and_only_all_three_share_a_place() -> None:
    points = {1: F(1), 2: F(1), 3: F(1), 4: F(1, 2)}
    opponents = {1: [2, 3], 2: [1, 3], 3: [1, 2]}  # 4 sat out: a bye adds no opponents
    elo = {1: 1500.0, 2: 1600.0, 3: 1500.0, 4: 1700.0}
    assert standings(points, opponents, elo) == [
        Standing(2, F(1), F(2), 1), Standing(1, F(1), F(2), 2), Standing(3, F(1), F(2), 2),
        Standing(4, F(1, 2), F(0), 4)]


def test_standings_refuse_unknown_opponents_and_missing_elo() -> None:
    with pytest.raises(ValueError):
        standings({1: F(1)}, {1: [2]}, {1: 1500.0})
    with pytest.raises(ValueError):
        standings({1: F(1)}, {}, {})


# --- properties -------------------------------------------------------------------------------
@st.composite
def fields(draw: st.DrawFn, max_players: int = 40) -> list[Entrant]:
    ids = draw(st.lists(st.integers(1, 10_000), max_size=max_players, unique=True))
    return [Entrant(id=i, points=F(draw(st.integers(0, 12)), 4),
                    elo=float(draw(st.integers(1400, 1410))), byes=draw(st.integers(0, 2)))
            for i in ids]


@st.composite
def limits(draw: st.DrawFn) -> tuple[int, int, int]:
    """(size, low, high); size sometimes outside the limits."""
    low = draw(st.integers(2, 6))
    high = draw(st.integers(low, 10))
    return draw(st.integers(1, 12)), low, high


def fewest_byes(players: int, low: int, high: int) -> int:
    """By brute force: the fewest players left out of some cut into tables within [low, high]
    differing by at most one."""
    for byes in range(players + 1):
        seated = players - byes
        if seated == 0:
            return byes
        for tables in range(1, seated + 1):
            if low <= seated // tables and -(-seated // tables) <= high:
                return byes
    raise AssertionError("unreachable")


@st.composite
def histories(draw: st.DrawFn, field: list[Entrant]) -> dict[frozenset[int], int]:
    ids = [e.id for e in field]
    if len(ids) < 2:
        return {}
    pairs = draw(st.lists(st.tuples(st.sampled_from(ids), st.sampled_from(ids)),
                          max_size=3 * len(ids)))
    met: dict[frozenset[int], int] = {}
    for a, b in pairs:
        if a != b:
            met[frozenset((a, b))] = draw(st.integers(0, 3))
    return met


@settings(max_examples=200, deadline=None)
@given(field=fields(), sizes=limits(), data=st.data())
def test_every_entrant_is_seated_once_at_tables_within_the_limits(
        field: list[Entrant], sizes: tuple[int, int, int], data: st.DataObject) -> None:
    size, low, high = sizes
    met = data.draw(histories(field))
    seating = seat(field, size, low, high, met)
    seated = [i for table in seating.tables for i in table] + seating.byes
    assert sorted(seated) == sorted(e.id for e in field)
    lengths = [len(table) for table in seating.tables]
    assert (lengths, len(seating.byes)) == table_sizes(len(field), size, low, high)
    assert all(low <= n <= high for n in lengths)
    assert not lengths or max(lengths) - min(lengths) <= 1
    assert lengths == sorted(lengths, reverse=True)
    # byes only when unavoidable
    assert len(seating.byes) == fewest_byes(len(field), low, high)
    # fair byes: nobody sits out who sat out more than someone seated
    if seating.byes and seating.tables:
        byes_of = {e.id: e.byes for e in field}
        assert max(byes_of[i] for i in seating.byes) <= min(
            byes_of[i] for table in seating.tables for i in table)
    # within a table, rank order
    order = {e.id: n for n, e in enumerate(rank(field))}
    assert all(table == sorted(table, key=order.__getitem__) for table in seating.tables)


@settings(max_examples=200, deadline=None)
@given(players=st.integers(0, 60), sizes=limits())
def test_sizes_are_as_near_the_chosen_size_as_any_cut(players: int,
                                                      sizes: tuple[int, int, int]) -> None:
    size, low, high = sizes
    lengths, byes = table_sizes(players, size, low, high)
    assert sum(lengths) + byes == players
    wanted = min(max(size, low), high)
    seated = players - byes
    distance = max((abs(n - wanted) for n in lengths), default=0)
    for tables in range(1, seated + 1):
        small, large = seated // tables, -(-seated // tables)
        if low <= small and large <= high:
            assert distance <= max(abs(small - wanted), abs(large - wanted))


def play_round(field: list[Entrant], seating: Seating, rng: random.Random,
               met: dict[frozenset[int], int]) -> list[Entrant]:
    """Random places at every table; the entrants after the round."""
    gained: dict[int, Fraction] = dict.fromkeys(seating.byes, BYE)
    for table in seating.tables:
        gained |= table_points({i: rng.randint(1, len(table)) for i in table})
        for n, a in enumerate(table):
            for b in table[n + 1:]:
                met[frozenset((a, b))] = met.get(frozenset((a, b)), 0) + 1
    return [Entrant(e.id, e.points + gained[e.id], e.elo, e.byes + (e.id in seating.byes))
            for e in field]


@settings(max_examples=100, deadline=None)
@given(players=st.integers(2, 40), sizes=limits(), seed=st.integers(0, 2**32))
def test_nobody_sits_out_twice(players: int, sizes: tuple[int, int, int], seed: int) -> None:
    size, low, high = sizes
    rng = random.Random(seed)
    field = [Entrant(i, F(0), float(rng.randint(1200, 1800))) for i in range(1, players + 1)]
    _, byes = table_sizes(players, size, low, high)
    if players < low:
        return
    rounds = min(6, players // byes) if byes else 6  # as many rounds as byes to go round
    met: dict[frozenset[int], int] = {}
    for _ in range(rounds):
        field = play_round(field, seat(field, size, low, high, met), rng, met)
    assert max(e.byes for e in field) <= 1
    assert sum(e.byes for e in field) == rounds * byes


@settings(max_examples=200, deadline=None)
@given(places=st.lists(st.integers(1, 6), min_size=2, max_size=10))
def test_a_tables_points_sum_to_half_its_size(places: list[int]) -> None:
    points = table_points(dict(enumerate(places)))
    assert sum(points.values()) == F(len(places), 2)
    assert all(F(0) <= p <= F(1) for p in points.values())
    best, worst = min(places), max(places)
    if places.count(best) == 1:
        assert points[places.index(best)] == 1
    if places.count(worst) == 1:
        assert points[places.index(worst)] == 0


@settings(max_examples=200, deadline=None)
@given(places=st.lists(st.integers(1, 6), min_size=2, max_size=10), data=st.data())
def test_no_shows_only_take_points_away(places: list[int], data: st.DataObject) -> None:
    ids = list(range(len(places)))
    absent = data.draw(st.sets(st.sampled_from(ids)))
    full = table_points(dict(enumerate(places)))
    points = table_points(dict(enumerate(places)), absent)
    assert all(points[i] == (0 if i in absent else full[i]) for i in ids)
    assert sum(points.values()) <= F(len(places), 2)


@settings(max_examples=200, deadline=None)
@given(players=st.integers(0, 30), seed=st.integers(0, 2**32))
def test_standings_are_sorted_and_places_follow(players: int, seed: int) -> None:
    rng = random.Random(seed)
    field = [Entrant(i, F(0), float(rng.choice([1500, 1600]))) for i in range(1, players + 1)]
    opponents: dict[int, list[int]] = {e.id: [] for e in field}
    met: dict[frozenset[int], int] = {}
    for _ in range(3):
        seating = seat(field, 3, 3, 5, met)
        for table in seating.tables:
            for i in table:
                opponents[i] += [j for j in table if j != i]
        field = play_round(field, seating, rng, met)
    points = {e.id: e.points for e in field}
    elo = {e.id: e.elo for e in field}
    rows = standings(points, opponents, elo)
    assert sorted(r.id for r in rows) == sorted(points)
    keys = [(r.points, r.buchholz, elo[r.id]) for r in rows]
    assert keys == sorted(keys, reverse=True)
    assert all(r.buchholz == sum((points[o] for o in opponents[r.id]), F(0)) for r in rows)
    for n, row in enumerate(rows):
        if n == 0:
            assert row.place == 1
        elif keys[n] == keys[n - 1]:
            assert row.place == rows[n - 1].place and row.id > rows[n - 1].id
        else:
            assert row.place == n + 1


@settings(max_examples=200, deadline=None)
@given(field=fields(), sizes=limits(), data=st.data())
def test_avoiding_repeats_never_makes_them_worse_and_is_deterministic(
        field: list[Entrant], sizes: tuple[int, int, int], data: st.DataObject) -> None:
    size, low, high = sizes
    met = data.draw(histories(field))
    plain = seat(field, size, low, high)
    better = seat(field, size, low, high, met)
    assert repeated_pairs(better.tables, met) <= repeated_pairs(plain.tables, met)
    assert better.byes == plain.byes
    assert [len(t) for t in better.tables] == [len(t) for t in plain.tables]
    shuffled = list(field)
    random.Random(data.draw(st.integers(0, 99))).shuffle(shuffled)
    assert seat(shuffled, size, low, high, dict(reversed(list(met.items())))) == better


def test_a_simulated_tournament_keeps_repeats_low() -> None:
    """60 players, 5 rounds at tables of 4: the swaps leave fewer repeated pairs than the plain
    cut would have had each round."""
    rng = random.Random(7)
    field = [Entrant(i, F(0), float(rng.randint(1200, 1800))) for i in range(1, 61)]
    met: dict[frozenset[int], int] = {}
    plain_total = avoided_total = 0
    for _ in range(5):
        seating = seat(field, 4, 3, 10, met)
        plain_total += repeated_pairs(seat(field, 4, 3, 10).tables, met)
        avoided_total += repeated_pairs(seating.tables, met)
        field = play_round(field, seating, rng, met)
    assert avoided_total < plain_total
