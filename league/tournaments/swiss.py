"""Swiss rounds of multiplayer tables: who sits where, and what a finished table scores. Pure:
no I/O, no database, no clock, no randomness (the same input always seats the same way, so a
round can be worked out again and checked).

Seating (:func:`seat`)
    Each round the entrants are ranked by tournament points, then Elo (in the first round all
    have 0 points, so Elo orders them), then id (:func:`rank`), and cut in that order into
    tables: the leaders sit together at table 1, as in Board Game Arena's multiplayer Swiss.
    The sizes come from :func:`table_sizes`: within the game's limits ``[low, high]``, differing
    by at most one, with as few byes as the numbers allow, then as near the admin's ``size`` as
    possible. Byes go to the lowest-ranked of those who sat out least so far, so nobody sits
    out twice before everyone has sat out once. After the cut, swaps between neighbouring
    tables (nearest in rank first) lower the number of pairs who already met, keeping the
    sizes; the passes are bounded so a 500-player round stays well under a second. Where
    pairs still meet again, a search for a seating of the same sizes in which nobody does
    (players taken in rank order, so it stays as near the cut as it can) replaces it when it
    finds one within :data:`SEARCH_STEPS` steps: the same opponents again only where that
    cannot be helped (or, past that bound, found).

Scoring (:func:`table_points`)
    At a table of n players a player scores (opponents placed below them + ½ × opponents
    sharing their place) / (n − 1): the winner 1, the last 0, shared places split, and a
    table's points sum to n/2 (average ½) whatever its size, so tables of 3 and of 5 weigh the
    same in a round. A bye scores :data:`BYE` (½, a table's average). A no-show (a player who
    made no move of their own) scores 0; the others keep their points from the places. That is
    the one case in which a table's points sum to less than n/2.

Standings (:func:`standings`)
    Points, then Buchholz (the sum of the final points of the opponents one sat with, an
    opponent counted once per game played together; a bye adds none), then Elo, then id.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

__all__ = [
    "BYE", "SWAP_PASSES", "Entrant", "Seating", "Standing", "rank", "repeated_pairs", "seat",
    "standings", "table_points", "table_sizes",
]

BYE = Fraction(1, 2)
"""The points of a round sat out: a table's average, so a bye neither helps nor hurts."""
SWAP_PASSES = 4
SEARCH_STEPS = 20_000
"""The bound of the search for a seating without repeated pairs (about 20 ms here)."""
"""At most this many passes of swaps over the neighbouring tables after the cut; each pass
stops early when it swaps nobody. Bounds the time a large round takes."""

Met = dict[int, dict[int, int]]
"""Per entry, the others it already met and how often."""
Cost = tuple[int, int]
"""Of a table or a swap: (pairs who already met, the sum of their earlier meetings)."""


@dataclass(frozen=True)
class Entrant:
    """One entry of a tournament as seating sees it."""

    id: int
    """The tournament entry's id (not a user id); the stable last key of every order."""
    points: Fraction
    """Tournament points so far."""
    elo: float
    byes: int = 0
    """Rounds this entrant sat out so far: byes of the seating, and the rounds seated before
    a late join or while withdrawn."""


@dataclass(frozen=True)
class Seating:
    """One round's seating."""

    tables: list[list[int]]
    """Entry ids per table, table 1 (the leaders) first; within a table, in rank order."""
    byes: list[int]
    """Entry ids sitting out this round, in rank order."""


@dataclass(frozen=True)
class Standing:
    """One row of the tournament's standings."""

    id: int
    points: Fraction
    buchholz: Fraction
    place: int
    """1 = first; shared only by rows equal in points, Buchholz and Elo (1, 1, 3 ...)."""


# --- table sizes --------------------------------------------------------------------------------
def table_sizes(players: int, size: int, low: int, high: int) -> tuple[list[int], int]:
    """(the sizes of the tables, largest first, the number of byes) for ``players`` players.

    The rules, in order: every size within ``[low, high]`` and the sizes differing by at most
    one; as few byes as possible (none whenever some such cut exists); the largest distance of
    a table's size from ``size`` as small as possible; on a tie, more and smaller tables (the
    chosen size is read as a ceiling first: a longer table makes the whole round wait). So 9
    players at size 4 sit 3, 3, 3 rather than 5, 4, and 10 sit 4, 3, 3 rather than 5, 5.

    ``size`` outside ``[low, high]`` is clamped into it. No players: no tables, no byes. Fewer
    than ``low`` players: no tables and everyone sits out (the caller decides whether such a
    round is played at all). Limits too narrow to seat everyone (4 players in a game for
    exactly 3; 5 in a game for 3 to 4) give the fewest byes that make a cut.
    Raises :class:`ValueError` for ``players < 0``, ``low < 2`` or ``high < low``.
    """
    if players < 0:
        raise ValueError(f"players must be >= 0, got {players}")
    if low < 2 or high < low:
        raise ValueError(f"table limits must satisfy 2 <= low <= high, got [{low}, {high}]")
    size = min(max(size, low), high)
    for byes in range(players - low + 1):
        seated = players - byes
        best: tuple[int, int] | None = None  # (distance from size, -tables)
        # t tables of floor(seated/t) or ceil(seated/t) fit iff seated/high <= t <= seated/low
        for tables in range(-(-seated // high), seated // low + 1):
            small, large = seated // tables, -(-seated // tables)
            key = (max(abs(large - size), abs(small - size)), -tables)
            if best is None or key < best:
                best = key
        if best is not None:
            count = -best[1]
            extra = seated % count
            base = seated // count
            return [base + 1] * extra + [base] * (count - extra), byes
    return [], players


# --- seating ------------------------------------------------------------------------------------
def rank(entrants: Sequence[Entrant]) -> list[Entrant]:
    """Seating order: points desc, Elo desc, id asc."""
    return sorted(entrants, key=lambda e: (-e.points, -e.elo, e.id))


def _neighbours(ids: Collection[int], met: Mapping[frozenset[int], int]) -> Met:
    """For each of ``ids``, the others of ``ids`` it met and how often (``met`` may hold
    pairs of entries not seated this round, and pairs that met 0 times)."""
    present = set(ids)
    out: dict[int, dict[int, int]] = {i: {} for i in present}
    for pair, count in met.items():
        if count <= 0 or len(pair) != 2:
            continue
        a, b = pair
        if a in present and b in present:
            out[a][b] = count
            out[b][a] = count
    return out


def _cost_with(player: int, others: Iterable[int], skip: int,
               adj: Met) -> Cost:
    """The repeated pairs ``player`` would make with ``others`` (but ``skip``)."""
    seen = adj[player]
    pairs = total = 0
    for other in others:
        if other != skip:
            count = seen.get(other, 0)
            if count:
                pairs += 1
                total += count
    return pairs, total


def _improve(tables: list[list[int]], order: Mapping[int, int],
             adj: Met) -> None:
    """Swap players between neighbouring tables (in place) while a swap lowers the repeated
    pairs of the two tables: the number of pairs who already met first, then the sum of their
    earlier meetings (so a pair's third meeting is avoided before a second). Candidates are
    tried nearest in rank first (then the higher-ranked pair), so the tables stay as close to
    the plain cut as the history allows; the first that helps is taken."""
    for _ in range(SWAP_PASSES):
        swapped = False
        for upper, lower in zip(tables, tables[1:], strict=False):
            while True:
                # only a player with a repeat at their own table can make a swap help
                up = [a for a in upper if _cost_with(a, upper, a, adj)[0]]
                down = [c for c in lower if _cost_with(c, lower, c, adj)[0]]
                if not up and not down:
                    break
                candidates = sorted(
                    {(a, c) for a in up for c in lower} | {(a, c) for a in upper for c in down},
                    key=lambda p: (abs(order[p[0]] - order[p[1]]), order[p[0]], order[p[1]]))
                for a, c in candidates:
                    lose_a = _cost_with(a, upper, a, adj)
                    lose_c = _cost_with(c, lower, c, adj)
                    gain_c = _cost_with(c, upper, a, adj)
                    gain_a = _cost_with(a, lower, c, adj)
                    delta = (gain_a[0] + gain_c[0] - lose_a[0] - lose_c[0],
                             gain_a[1] + gain_c[1] - lose_a[1] - lose_c[1])
                    if delta < (0, 0):
                        upper[upper.index(a)] = c
                        lower[lower.index(c)] = a
                        swapped = True
                        break
                else:
                    break
        if not swapped:
            return


def _fresh(playing: list[int], sizes: list[int], adj: Met) -> list[list[int]] | None:
    """Tables of ``sizes`` in which nobody sits with anyone they met (``adj``), found by a
    depth-first search over ``playing`` (ranked best first) that gives each table, in order,
    the best-ranked player left, then fills it in rank order: the first found is the one
    nearest the plain cut. ``None`` if there is none, or none within :data:`SEARCH_STEPS`."""
    tables: list[list[int]] = [[] for _ in sizes]
    left = list(playing)
    steps = 0

    def fill(t: int, start: int) -> bool:
        nonlocal steps
        if t == len(sizes):
            return True
        if len(tables[t]) == sizes[t]:
            return fill(t + 1, 0)
        # (the best-ranked player left opens the table: no mirror images)
        candidates = range(min(1, len(left))) if not tables[t] else range(start, len(left))
        for i in candidates:
            steps += 1
            if steps > SEARCH_STEPS:
                return False
            player = left[i]
            if any(other in adj.get(player, {}) for other in tables[t]):
                continue
            tables[t].append(player)
            left.pop(i)
            if fill(t, i):
                return True
            left.insert(i, player)
            tables[t].pop()
        return False

    return tables if fill(0, 0) else None


def repeated_pairs(tables: Iterable[Sequence[int]], met: Mapping[frozenset[int], int]) -> int:
    """How many pairs seated together in ``tables`` had already met (``met`` > 0)."""
    return sum(1 for table in tables for i, a in enumerate(table) for b in table[i + 1:]
               if met.get(frozenset((a, b)), 0) > 0)


def seat(entrants: Sequence[Entrant], size: int, low: int, high: int,
         met: Mapping[frozenset[int], int] | None = None) -> Seating:
    """One round's seating of ``entrants`` at tables for ``size`` players (limits ``[low,
    high]``; see :func:`table_sizes`), avoiding the pairs in ``met`` (``frozenset({a, b})`` →
    times a and b sat together) where swaps between neighbouring tables allow.

    Byes: as many as :func:`table_sizes` gives, to the lowest-ranked of those with the
    fewest byes so far (then the next fewest, if they are too few). Deterministic.
    Raises :class:`ValueError` for a repeated entry id (and as :func:`table_sizes`).
    """
    ranked = rank(entrants)
    if len({e.id for e in ranked}) != len(ranked):
        raise ValueError("an entry id appears twice")
    sizes, bye_count = table_sizes(len(ranked), size, low, high)
    order = {e.id: i for i, e in enumerate(ranked)}
    # fewest byes first, lowest-ranked first among equals
    out = {e.id for e in sorted(ranked, key=lambda e: (e.byes, -order[e.id]))[:bye_count]}
    playing = [e.id for e in ranked if e.id not in out]
    tables: list[list[int]] = []
    start = 0
    for n in sizes:
        tables.append(playing[start:start + n])
        start += n
    if met and len(tables) > 1:
        adj = _neighbours(playing, met)
        _improve(tables, order, adj)
        if repeated_pairs(tables, met):
            tables = _fresh(playing, sizes, adj) or tables
        tables = [sorted(table, key=order.__getitem__) for table in tables]
    return Seating(tables=tables, byes=[e.id for e in ranked if e.id in out])


# --- scoring ------------------------------------------------------------------------------------
def table_points(places: Mapping[int, int], no_shows: Collection[int] = ()) -> dict[int, Fraction]:
    """places: entry id -> place (1 = best; shared places share the number).

    Each player's points: (opponents placed below + ½ × opponents sharing the place) / (n − 1)
    for a table of n, so 1 for a sole winner, 0 for a sole last, and the table sums to n/2.
    Every id in ``no_shows`` scores 0 instead (the others keep what their places give, so the
    table sums to less than n/2: the one case). A table of one (never seated by :func:`seat`)
    scores :data:`BYE`. Raises :class:`ValueError` for a place that is not an int >= 1 or a
    no-show who has no place.
    """
    for place in places.values():
        if isinstance(place, bool) or not isinstance(place, int) or place < 1:
            raise ValueError(f"a place must be an int >= 1, got {place!r}")
    strangers = set(no_shows) - set(places)
    if strangers:
        raise ValueError(f"no-shows without a place: {sorted(strangers)}")
    n = len(places)
    if n == 1:
        return {i: (Fraction(0) if i in no_shows else BYE) for i in places}
    values = list(places.values())
    points = {}
    for entry, place in places.items():
        below = sum(1 for other in values if other > place)
        shared = sum(1 for other in values if other == place) - 1
        points[entry] = Fraction(0) if entry in no_shows else Fraction(2 * below + shared,
                                                                        2 * (n - 1))
    return points


# --- standings ----------------------------------------------------------------------------------
def standings(points: Mapping[int, Fraction], opponents: Mapping[int, Sequence[int]],
              elo: Mapping[int, float]) -> list[Standing]:
    """The tournament's table: every id of ``points`` (final points), ranked by points, then
    Buchholz, then Elo (all descending), then id; rows equal in all three share a place
    (1, 1, 3 ...), listed by id.

    ``opponents``: id → the opponents of each game played, one entry per opponent per game (so
    one met twice is listed twice); an id missing from it has none (only byes). Buchholz is
    the sum of those opponents' final ``points``. Raises :class:`ValueError` for an opponent
    without points (one who left keeps their points and stays in ``points``) or an id without
    an Elo.
    """
    rows: list[tuple[int, Fraction, Fraction, float]] = []
    for entry, own in points.items():
        if entry not in elo:
            raise ValueError(f"entry {entry} has no Elo")
        faced = opponents.get(entry, ())
        missing = [o for o in faced if o not in points]
        if missing:
            raise ValueError(f"entry {entry}'s opponents {missing} have no points")
        rows.append((entry, own, sum((points[o] for o in faced), Fraction(0)), elo[entry]))
    rows.sort(key=lambda r: (-r[1], -r[2], -r[3], r[0]))
    table: list[Standing] = []
    for i, (entry, own, buchholz, rating) in enumerate(rows):
        prev = rows[i - 1] if i else None
        tied = prev is not None and (prev[1], prev[2], prev[3]) == (own, buchholz, rating)
        table.append(Standing(entry, own, buchholz, table[-1].place if tied else i + 1))
    return table
