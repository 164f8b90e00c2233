"""Coyote's group report of a committed change: what the steps of one outcome did, as
lines (a :class:`~telegram_app.games.base.Report`; ``closed`` is a round number)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from league.outcome import Step
from league.snapshots import GameSnapshot
from telegram_app.games.base import Report
from telegram_app.games.coyote import events as events_text
from telegram_app.render.language import in_chat_language


def _first(events: list[dict[str, Any]], kind: str) -> dict[str, Any] | None:
    return next((e for e in events if e["type"] == kind), None)


def _wrong_guesses(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for e in events if e["type"] == "special_used" and e["special"] == "guess"
            and not e.get("right")]


KEEPS_TURN = frozenset({"reverse", "extra", "swap", "change"})
"""Specials after which the same player acts again within the same turn (Change: once the
last bidder has answered)."""


def keeps_turn(game: GameSnapshot, steps: list[Step]) -> bool:
    """Whether ``steps`` are a special of :data:`KEEPS_TURN` (and, after a Change, a computer
    player's answer) that leave the same player to act in the same round (``game``: as
    committed after them). Its report then waits for that player's next move."""
    if not steps:
        return False
    used = _first(steps[0].events, "special_used")
    state = game.state or {}
    return (used is not None and used["special"] in KEEPS_TURN
            and not state.get("over") and state.get("turn") == used["seat"]
            and not any(_first(step.events, kind) for step in steps
                        for kind in ("showdown", "round_ended", "turn_timed_out",
                                     "player_removed")))


ROUND_BOUNDARY = ("showdown", "round_ended", "round_dealt", "game_over")


def still_acting(game: GameSnapshot, logged: list[list[dict[str, Any]]]) -> bool:
    """Whether the logged moves not told yet end with a special of :data:`KEEPS_TURN` by the
    player who is still to act in the same round (``game``: as it is now): their report
    waits for that player's next move, as :func:`keeps_turn` decides for a fresh change."""
    state = game.state or {}
    if not logged or state.get("over"):
        return False
    used = _first(logged[-1], "special_used")
    return (used is not None and used["special"] in KEEPS_TURN
            and state.get("turn") == used["seat"]
            and not any(e["type"] in (*ROUND_BOUNDARY, "turn_timed_out", "player_removed")
                        for events in logged for e in events))


@in_chat_language
def untold_lines(game: GameSnapshot, logged: list[list[dict[str, Any]]]) -> list[str]:
    """The lines of logged moves the group was not told (``logged``: each move's events, in
    order; ``game``: as it is now): a special after which the same player acted again, a
    report that could not be sent, or one that never ran (a crash after its commit). The
    moves of the round still on the table in full; of rounds that ended meanwhile, as for
    rounds the computer players play out among themselves, one line each (its showdown, or
    the wrong Guess that ended it) with who left, ran out of time or is out, then the
    heading of the round that followed."""
    start = next((i + 1 for i in range(len(logged) - 1, -1, -1)
                  if any(e["type"] in ROUND_BOUNDARY for e in logged[i])), 0)
    lines = []
    for events in logged[:start]:
        wrong = _wrong_guesses(events)
        told = [e for e in events if e["type"] in ("turn_timed_out", "player_removed")
                or e in wrong]
        lines += events_text.step_lines(game, told)
        showdown = _first(events, "showdown")
        if showdown:
            lines.append(events_text.showdown_summary(_lives_after(game, events), showdown))
        if (note := events_text.eliminated_text(game, events)) is not None:
            lines.append(note)
    dealt = _first(logged[start - 1], "round_dealt") if start else None
    if lines and dealt:
        lines.append(events_text.round_heading(dealt["round"]))
    return lines + [line for events in logged[start:]
                    for line in events_text.step_lines(game, events)]


def _lives_after(game: GameSnapshot, events: list[dict[str, Any]]) -> GameSnapshot:
    """``game`` with the lives its move's ``life_lost`` event left (a summary written later
    must not call a player out who lost their last life only afterwards)."""
    lost = _first(events, "life_lost")
    if lost is None or not game.state:
        return game
    lives = list(game.state.get("lives", []))
    if lost["seat"] < len(lives):
        lives[lost["seat"]] = lost["lives"]
    return replace(game, state={**game.state, "lives": lives})


@in_chat_language
def report(game: GameSnapshot, steps: list[Step], held: list[str] | None = None, *,
           mention: bool = True) -> Report:
    """Compose the report of ``steps`` (``game``: as committed after them; ``held``: lines of
    earlier moves of this round the group was not told (:func:`untold_lines`), told first;
    ``mention``: end with the player to act, unless the game has moved on since).

    The moves of the round on screen; its showdown and the last one in full; a round the
    computer players played out in between in one line (its showdown summary, or the wrong
    Guess that ended it), without its bids; then, under a round heading, the new round's
    moves; eliminations; the end of the game; and the mention of the next player."""
    lines = list(held or [])
    ends = [i for i, step in enumerate(steps)
            if any(_first(step.events, kind) for kind in ("showdown", "round_ended",
                                                          "game_over"))]
    closed = None
    new_round = False
    for i, step in enumerate(steps):
        snap = replace(game, state=step.state)
        if ends and i == ends[-1] + 1 and lines:
            lines += ["", events_text.round_heading(step.state["round"])]
        between = bool(ends) and ends[0] < i <= ends[-1]  # a computer-only round
        shown = _wrong_guesses(step.events) if between else step.events
        lines += events_text.step_lines(snap, shown)
        showdown = _first(step.events, "showdown")
        dealt = _first(step.events, "round_dealt")
        if ends and i == ends[0]:
            closed = dealt["round"] - 1 if dealt else step.state["round"]
        if showdown and i in (ends[0], ends[-1]):
            lines += ["", events_text.showdown_text(snap, showdown)]
        elif showdown:
            lines.append(events_text.showdown_summary(snap, showdown))
        if (note := events_text.eliminated_text(snap, step.events)) is not None:
            lines.append(note)
        if step.state.get("over"):
            lines += ["", events_text.game_over_text(snap)]
        new_round = (new_round or bool(dealt)) and not step.state.get("over")
    if lines and not new_round and mention and (turn := events_text.turn_line(game)):
        lines.append(turn)
    while lines and not lines[0]:
        lines.pop(0)
    return Report(lines, closed, new_round)
