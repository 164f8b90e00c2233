"""The results of a finished game as every message shows them: the final message, /history,
/replay (and so the Mini App's pages, which reuse these texts and ``league.tables.queries``).

The places themselves are the league's (``league.tables.places``, stored on the seats when the game
ends: ``PlayerInfo.placement``); nothing here ranks anyone. Tied players share a place
number and its medal (🥇 Bob, 🥈 Ann, 🥈 Dan; /history's "1. Bob, 2. Ann, 2. Dan").
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from league.store.snapshots import GameSnapshot, PlayerInfo
from league.tables.ratings import MIN_RATED_HUMANS
from telegram_app.i18n import _, n_
from telegram_app.render.common import name_html

MEDALS = {1: "🥇", 2: "🥈", 3: "🥉"}


def place_mark(place: int) -> str:
    """A place as the final message marks it: 🥇 🥈 🥉, then ``4.`` and so on."""
    return MEDALS.get(place, f"{place}.")


def ranked(game: GameSnapshot) -> list[tuple[int, PlayerInfo]]:
    """The seated players with their places, best first (tied players in seat order)."""
    seated = game.seated
    return sorted(((p.placement or len(seated), p) for p in seated),
                  key=lambda pair: (pair[0], pair[1].seat or 0))


def final_lines(game: GameSnapshot, after: Mapping[int, str] | None = None) -> list[str]:
    """One line per player of a finished game, best first: ``🥇 Bob``; ``after``: a game's
    own mark to follow a seat's name (Koira's 🐕)."""
    marks = after or {}
    return [f"{place_mark(place)} {name_html(player)}"
            + (f" {marks[player.seat]}" if player.seat is not None and player.seat in marks
               else "")
            for place, player in ranked(game)]


def places_text(places: Iterable[tuple[int, str]]) -> str:
    """``1. Bob, 2. Ann, 2. Dan``: ``(place, name)`` pairs, names already escaped, in order
    (/history adds each rated player's Elo change to their name)."""
    return ", ".join(f"{place}. {name}" for place, name in places)


def rating_lines(game: GameSnapshot) -> list[str]:
    """What the final message says of the rating when play decided it (``league.tables.rated``):
    a game of 3 or more humans and no computer player that is not rated, because fewer
    than 3 of them made a move of their own; or the humans of a rated game who are not
    rated, having made none. Empty otherwise (a game with a computer player, or fewer
    humans, is never rated: the help and /standings say so)."""
    humans = [p for p in game.seated if p.user_id is not None and not p.is_ai]
    if any(p.is_ai for p in game.seated) or len(humans) < MIN_RATED_HUMANS or \
            any(p.rated is None for p in humans):
        return []
    unrated = [p for p in humans if not p.rated]
    if len(unrated) == len(humans):
        return [_("⚖️ This game is not rated: fewer than {n} players made a move of their "
                  "own (a turn the computer played for someone after a timeout does not "
                  "count).").format(n=MIN_RATED_HUMANS)]
    if unrated:
        return [n_("⚖️ Not rated: {names}, who made no move of their own.",
                   "⚖️ Not rated: {names}, who made no move of their own.",
                   len(unrated)).format(names=", ".join(name_html(p) for p in unrated))]
    return []
