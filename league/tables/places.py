"""The places of a finished game, as the league shows and rates them: pure, no database.

Every place a player sees comes from :func:`final_places`, stored on the seats
(``GamePlayer.placement``) in the transaction that finishes the game (``league.tables.rated``):
the group's final message, ``/history``, ``/replay``, the Mini App's pages, and the rating
rows (``RatingEvent.place``, from which Elo and the standings' points follow).

The rule: the game's own order (``Game.placements``), except that a player who left the
game (a leave, or removed for timeouts) is placed below everyone who stayed, all who left
sharing that last place. Places are competition ranks: players in the same position share
its number and the next number counts them all (1, 2, 2, 4; a game of four in which three
share the win is 1, 1, 1, 4).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

__all__ = ["final_places"]


def final_places(placements: Sequence[int], departed: Collection[int]) -> list[int]:
    """Per seat, the league's place of a finished game: ``placements`` (the engine's, per
    seat; 1 = best, equal numbers tie) with every seat in ``departed`` moved below all the
    others, the departed tying with each other. Raises :class:`ValueError` for a place that
    is not an int >= 1."""
    for place in placements:
        if isinstance(place, bool) or not isinstance(place, int) or place < 1:
            raise ValueError(f"a place must be an int >= 1, got {place!r}")
    keys = [(1, 0) if seat in departed else (0, place) for seat, place in enumerate(placements)]
    return [1 + sum(other < key for other in keys) for key in keys]  # (1 + those above)
