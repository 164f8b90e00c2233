"""Multiplayer Elo by pairs: one rating per player per game, pure arithmetic.

A table of ``N`` players is scored as ``N - 1`` pairwise duels per player, from the ratings
*before* the game. For player ``i``::

    S_i = Σ over opponents j of 1 (i placed above j), ½ (same place), 0 (below)
    E_i = Σ over opponents j of 1 / (1 + 10 ** ((R_j - R_i) / 400))
    Δ_i = K_i / (N - 1) · (S_i - E_i)

``K_i`` is :data:`K_PROVISIONAL` (40) while the player has fewer than
:data:`PROVISIONAL_GAMES` (10) rated games, else :data:`K_ESTABLISHED` (20). Ratings start at
:data:`START` (1500.0) and are kept unrounded (floats, Elo points); only the display rounds.

Sums use :func:`math.fsum`, so the result does not depend on the order in which players are
listed: relabelling or reordering the players gives bit-identical changes, and replaying the
stored rows (:func:`replay`) reproduces the ratings exactly.

Players are any hashable ids (user ids in the bot, strings in tests). Nothing here touches the
database or Telegram.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

__all__ = [
    "FINISHED", "K_ESTABLISHED", "K_PROVISIONAL", "MIN_RATED_HUMANS", "PROVISIONAL_GAMES",
    "START", "RatingChange", "Recomputation", "ReplayError", "expected_score", "format_rating",
    "is_rated", "k_factor", "pair_score", "provisional", "rate_game", "recompute", "replay",
]

P = TypeVar("P", bound=Hashable)

START = 1500.0
"""Every player's rating before their first rated game (Elo points)."""
K_PROVISIONAL = 40
"""K while a player has fewer than :data:`PROVISIONAL_GAMES` rated games."""
K_ESTABLISHED = 20
"""K from the :data:`PROVISIONAL_GAMES`-th rated game on."""
PROVISIONAL_GAMES = 10
"""Rated games after which a rating stops being provisional (shown without "?")."""
MIN_RATED_HUMANS = 3
"""A game is rated only with at least this many human players who made a move of their own
(and no AI seat)."""
FINISHED = "finished"
"""The game status (``games.status``) of a game played to the end."""


@dataclass(frozen=True)
class RatingChange(Generic[P]):
    """One player's rating change in one game: a row of the append-only rating event table.

    ``before``/``after`` are Elo points (unrounded), ``k`` the K factor used, ``score`` is
    ``S`` (opponents outplaced, ties ½; 0 ≤ S ≤ N-1) and ``expected`` is ``E`` (same scale).
    """

    player: P
    before: float
    after: float
    k: int
    score: float
    expected: float

    @property
    def delta(self) -> float:
        """``after - before`` (Elo points)."""
        return self.after - self.before


def k_factor(games_played: int) -> int:
    """K for a player with ``games_played`` earlier rated games: 40 below 10 games, else 20."""
    return K_PROVISIONAL if provisional(games_played) else K_ESTABLISHED


def provisional(games_played: int) -> bool:
    """Whether a rating after ``games_played`` rated games is provisional (fewer than 10)."""
    if games_played < 0:
        raise ValueError(f"games_played must be >= 0, got {games_played}")
    return games_played < PROVISIONAL_GAMES


def shown_rating(rating: float) -> int:
    """The rating as every screen shows it: rounded half up (1502.5 → 1503)."""
    return math.floor(rating + 0.5)


def format_rating(rating: float, games_played: int) -> str:
    """The rating as shown to players: :func:`shown_rating`, ``"?"`` appended while
    provisional, e.g. ``"1523?"`` (fewer than 10 rated games) or ``"1523"``."""
    shown = str(shown_rating(rating))
    return shown + "?" if provisional(games_played) else shown


def shown_change(before: float, after: float) -> int:
    """An Elo change as players read it: the difference of the ratings as shown (each
    :func:`shown_rating`), so that 1500 → 1520 reads +20 wherever it is shown."""
    return shown_rating(after) - shown_rating(before)


def is_rated(humans: int, ai_seats: int, status: str) -> bool:
    """Whether a game counts for ratings and standings: at least 3 human players who made a
    move of their own (``league.tables.rated``), no AI seat, and ``status == "finished"`` (a
    cancelled or unfinished game never counts)."""
    return humans >= MIN_RATED_HUMANS and ai_seats == 0 and status == FINISHED


def pair_score(mine: int, theirs: int) -> float:
    """The pairwise result of place ``mine`` against place ``theirs`` (1 = best): 1, ½ or 0."""
    return 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0


def expected_score(rating: float, opponent: float) -> float:
    """Classic Elo expectation of ``rating`` against ``opponent``: in (0, 1)."""
    return 1.0 / (1.0 + 10.0 ** ((opponent - rating) / 400.0))


def _validate_places(places: Mapping[P, int]) -> None:
    if len(places) < 2:
        raise ValueError(f"a rated game needs at least 2 players, got {len(places)}")
    for player, place in places.items():
        if isinstance(place, bool) or not isinstance(place, int) or place < 1:
            raise ValueError(f"place of {player!r} must be an int >= 1, got {place!r}")


def _change(player: P, before: float, k: int, score: float, expected: float,
            n: int) -> RatingChange[P]:
    """The single formula for ``after``, shared by :func:`rate_game` and :func:`replay`."""
    after = before + k * (score - expected) / (n - 1)
    return RatingChange(player, before, after, k, score, expected)


def rate_game(places: Mapping[P, int], ratings: Mapping[P, float],
              games_played: Mapping[P, int]) -> dict[P, RatingChange[P]]:
    """Rate one game. Returns ``{player: RatingChange}`` for every player in ``places``.

    ``places``: 1 = best, equal numbers are ties (any numbering works; only the order
    matters). ``ratings``: pre-game ratings; a player missing gets :data:`START`.
    ``games_played``: earlier rated games per player (missing = 0), which picks K.
    Raises :class:`ValueError` for fewer than 2 players or a place that is not an int >= 1.
    """
    _validate_places(places)
    n = len(places)
    before = {p: float(ratings.get(p, START)) for p in places}
    changes: dict[P, RatingChange[P]] = {}
    for p, place in places.items():
        others = [q for q in places if q != p]
        score = math.fsum(pair_score(place, places[q]) for q in others)
        expected = math.fsum(expected_score(before[p], before[q]) for q in others)
        changes[p] = _change(p, before[p], k_factor(games_played.get(p, 0)), score, expected, n)
    return changes


@dataclass
class Recomputation(Generic[P]):
    """The outcome of :func:`recompute`: final ``ratings`` (Elo points), ``games_played``
    (rated games per player) and ``changes``, one ``{player: RatingChange}`` per game, in
    order (these are exactly the rows to store)."""

    ratings: dict[P, float] = field(default_factory=dict)
    games_played: dict[P, int] = field(default_factory=dict)
    changes: list[dict[P, RatingChange[P]]] = field(default_factory=list)


def recompute(games: Iterable[Mapping[P, int]]) -> Recomputation[P]:
    """Rate a sequence of games from scratch, in order; each game is ``{player: place}``.

    Every player starts at :data:`START` with 0 games. Raises :class:`ValueError` like
    :func:`rate_game`.
    """
    out: Recomputation[P] = Recomputation()
    for places in games:
        changes = rate_game(places, out.ratings, out.games_played)
        for p, change in changes.items():
            out.ratings[p] = change.after
            out.games_played[p] = out.games_played.get(p, 0) + 1
        out.changes.append(changes)
    return out


class ReplayError(ValueError):
    """Stored rating rows disagree with what the formula gives from their predecessors."""


def replay(events: Iterable[tuple[Hashable, Sequence[RatingChange[P]]]], *,
           check: bool = True, tolerance: float = 1e-9) -> dict[P, float]:
    """Recompute the ratings from stored rating rows, grouped per game, in the order played.

    ``events``: ``(game_id, rows)`` pairs, one row per player of that game. The ratings are
    recomputed from :data:`START`, using each row's ``k`` and ``score`` (the stored result)
    and recomputing ``E`` and ``after`` from the running ratings. Returns ``{player: rating}``.

    With ``check`` (default), every stored ``before``, ``k``, ``expected`` and ``after`` must
    match the recomputation within ``tolerance`` Elo points (0 for an exact check; rows
    produced by :func:`rate_game` and stored as double precision match exactly), otherwise
    :class:`ReplayError` (a :class:`ValueError`) names the game and player; the scores of a
    game must also sum to ``N(N-1)/2`` (every pair is decided once). A game with fewer
    than 2 rows or a player twice in one game is always a :class:`ReplayError`.
    """
    ratings: dict[P, float] = {}
    played: dict[P, int] = {}
    for game_id, rows in events:
        players = [row.player for row in rows]
        if len(rows) < 2 or len(set(players)) != len(players):
            raise ReplayError(f"game {game_id!r}: needs 2+ distinct players, got {players!r}")
        n = len(rows)
        if check and not abs(math.fsum(row.score for row in rows) - n * (n - 1) / 2) <= 1e-9:
            raise ReplayError(f"game {game_id!r}: scores do not sum to N(N-1)/2")
        before = {p: ratings.get(p, START) for p in players}
        for row in rows:
            p = row.player
            expected = math.fsum(expected_score(before[p], before[q])
                                 for q in players if q != p)
            k = k_factor(played.get(p, 0))
            redone = _change(p, before[p], k, row.score, expected, n)
            if check:
                _compare(game_id, row, redone, tolerance)
            ratings[p] = redone.after
            played[p] = played.get(p, 0) + 1
    return ratings


def _compare(game_id: Hashable, stored: RatingChange[P], redone: RatingChange[P],
             tolerance: float) -> None:
    if stored.k != redone.k:
        raise ReplayError(f"game {game_id!r}, player {stored.player!r}: "
                          f"stored K {stored.k}, expected {redone.k}")
    for name in ("before", "expected", "after"):
        got, want = getattr(stored, name), getattr(redone, name)
        if not abs(got - want) <= tolerance:
            raise ReplayError(f"game {game_id!r}, player {stored.player!r}: "
                              f"stored {name} {got!r}, recomputed {want!r}")
