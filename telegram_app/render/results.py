"""The results of a finished game as every message shows them: the final message, /history,
/replay (and so the Mini App's pages, which reuse these texts and ``league.tables.queries``).

The places themselves are the league's (``league.tables.places``, stored on the seats when the game
ends: ``PlayerInfo.placement``); nothing here ranks anyone. Tied players share a place
number and its medal (🥇 Bob, 🥈 Ann, 🥈 Dan; /history's "1. Bob, 2. Ann, 2. Dan"). A rated
seat's Elo change (``PlayerInfo.elo_change``, the league's rating event) follows its name in
the final message (``🥇 Bob · +20 (Elo 1520?)``) and ends each player's last private message
(``own_result``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from league.store.snapshots import EloChange, GameSnapshot, PlayerInfo
from league.tables.ratings import MIN_RATED_HUMANS, format_rating, provisional, shown_change
from telegram_app.i18n import _, join_list, n_
from telegram_app.render.common import name_html

MEDALS = {1: "🥇", 2: "🥈", 3: "🥉"}
MINUS = "\u2212"
"""The minus sign of a negative Elo change (``−8``, not a hyphen)."""


def place_mark(place: int) -> str:
    """A place as the final message marks it: 🥇 🥈 🥉, then ``4.`` and so on."""
    return MEDALS.get(place, f"{place}.")


def ranked(game: GameSnapshot) -> list[tuple[int, PlayerInfo]]:
    """The seated players with their places, best first (tied players in seat order)."""
    seated = game.seated
    return sorted(((p.placement or len(seated), p) for p in seated),
                  key=lambda pair: (pair[0], pair[1].seat or 0))


def elo_delta(change: EloChange) -> int:
    """An Elo change as players read it (:func:`shown_change`): 1500 → 1520 reads +20."""
    return shown_change(change.before, change.after)


def signed(value: int) -> str:
    """``+12``, ``−8`` (a real minus sign), ``±0``."""
    return f"+{value}" if value > 0 else f"{MINUS}{-value}" if value < 0 else "±0"


def elo_text(change: EloChange) -> str:
    """``+20 (Elo 1520?)``: the change and the rating after it, "?" while provisional."""
    return f"{signed(elo_delta(change))} (Elo {format_rating(change.after, change.games)})"


def final_lines(game: GameSnapshot, after: Mapping[int, str] | None = None) -> list[str]:
    """One line per player of a finished game, best first: ``🥇 Bob``, and a rated player's
    Elo change, ``🥇 Bob · +20 (Elo 1520?)`` (a computer has none); ``after``: a game's
    own mark to follow a seat's name (Koira's 🐕)."""
    marks = after or {}
    return [f"{place_mark(place)} {name_html(player)}"
            + (f" {marks[player.seat]}" if player.seat is not None and player.seat in marks
               else "")
            + (f" · {elo_text(player.elo_change)}" if player.elo_change is not None else "")
            for place, player in ranked(game)]


def ordinal(place: int) -> str:
    """A place as the sentence "you came … of 4" names it: ``2nd`` (``2위``, ``2位``, and a
    bare ``2`` in Spanish, whose sentence says "el puesto 2")."""
    if place % 100 in (11, 12, 13):
        return _("{n}th").format(n=place)
    if place % 10 == 1:
        return _("{n}st").format(n=place)
    if place % 10 == 2:
        return _("{n}nd").format(n=place)
    if place % 10 == 3:
        return _("{n}rd").format(n=place)
    return _("{n}th").format(n=place)


def own_result(game: GameSnapshot, reader: PlayerInfo | None
               ) -> tuple[str, int, str | None] | None:
    """What ``reader``'s last private message of the finished ``game`` says of them: their
    place as an ordinal (:func:`ordinal`, in the current language), the number of players,
    and their Elo change (``+8``; ``None`` when they were not rated). ``None`` if the game
    is not finished or ``reader`` did not sit in it."""
    if game.status != "finished" or reader is None or reader.user_id is None:
        return None
    seat = next(((place, p) for place, p in ranked(game) if p.user_id == reader.user_id),
                None)
    if seat is None:
        return None
    place, player = seat
    change = player.elo_change
    return (ordinal(place), len(game.seated),
            signed(elo_delta(change)) if change is not None else None)


def timed_out_text(name: str, *, removed: bool) -> str:
    """A turn that ran out of time as every game tells it, in its notes and its /replay:
    ``name`` (already escaped: a mention, a name or a plain name) was removed from the game
    and placed last (the group's timeout policy), or the computer played the turn."""
    if removed:
        return _("⏰ {name} ran out of time and is removed from the game (placed "
                 "last).").format(name=name)
    return _("⏰ {name} ran out of time: the computer plays this turn for them.").format(
        name=name)


def places_text(places: Iterable[tuple[int, str]]) -> str:
    """``1. Bob, 2. Ann, 2. Dan``: ``(place, name)`` pairs, names already escaped, in order
    (/history adds each rated player's Elo change to their name)."""
    return join_list(f"{place}. {name}" for place, name in places)


def rating_lines(game: GameSnapshot) -> list[str]:
    """What the final message says of the rating when play decided it (``league.tables.rated``):
    a game of 3 or more humans and no computer player that is not rated, because fewer
    than 3 of them made a move of their own; or the humans of a rated game who are not
    rated, having made none; and what "?" means when a rating in the final lines
    (:func:`final_lines`) is provisional. Empty otherwise (a game with a computer player, or
    fewer humans, is never rated: the help and /standings say so)."""
    humans = [p for p in game.seated if p.user_id is not None and not p.is_ai]
    if any(p.is_ai for p in game.seated) or len(humans) < MIN_RATED_HUMANS or \
            any(p.rated is None for p in humans):
        return []
    legend = [_("(? = provisional: fewer than 10 rated games)")] if any(
        p.elo_change is not None and provisional(p.elo_change.games) for p in humans) else []
    unrated = [p for p in humans if not p.rated]
    if len(unrated) == len(humans):
        return [_("⚖️ This game is not rated: fewer than {n} players made a move of their "
                  "own (a turn the computer played for someone after a timeout does not "
                  "count).").format(n=MIN_RATED_HUMANS)]
    if unrated:
        return [n_("⚖️ Not rated: {names}, who made no move of their own.",
                   "⚖️ Not rated: {names}, who made no move of their own.",
                   len(unrated)).format(names=join_list(name_html(p) for p in unrated)),
                *legend]
    return legend
