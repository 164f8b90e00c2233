"""Coyote events as group messages: bids, special actions, the end of a round and of the
game, with each showdown told by :mod:`telegram_app.games.coyote.showdown`. Events hold only
public facts; a card appears here only once it is face up.

The group report of a committed change: what the steps of one outcome did, as lines (a
:class:`~telegram_app.games.base.Report`; ``closed`` is a round number)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from engine import GAMES
from league.match.outcome import Step
from league.store.snapshots import GameSnapshot
from telegram_app.games.base import Report
from telegram_app.games.coyote.showdown import eliminated_text, showdown_summary, showdown_text
from telegram_app.games.coyote.words import card_label, legend_line, special_name
from telegram_app.i18n import _, join_list, n_
from telegram_app.render import results
from telegram_app.render.common import mention_html, name_html
from telegram_app.render.language import in_chat_language
from telegram_app.render.tournament_table import heading_lines


def _bid_line(game: GameSnapshot, event: dict[str, Any]) -> str:
    name = name_html(game.at_seat(event["seat"]))
    special = event.get("special")
    if special == "double":
        return _("{name} bids <b>{amount}</b> with 🎭 Double: if the next player calls "
                 "Coyote on it, the loser loses two lives.").format(name=name,
                                                                   amount=event["amount"])
    if special == "draw1":
        return _("{name} bids <b>{amount}</b> with 🎭 Draw 1: {target} takes an extra card.") \
            .format(name=name, amount=event["amount"],
                    target=name_html(game.at_seat(event["target"])))
    if special == "shot":
        return _("{name} bids <b>{amount}</b> with 🎭 Shot: {target} plays next.").format(
            name=name, amount=event["amount"], target=name_html(game.at_seat(event["target"])))
    return _("{name} bids <b>{amount}</b>.").format(name=name, amount=event["amount"])


def _special_line(game: GameSnapshot, event: dict[str, Any]) -> str:
    name = name_html(game.at_seat(event["seat"]))
    special = event["special"]
    if special == "extra":
        legend = legend_line([event["card"]], game.options.get("edition", "classic"))
        return _("🪙 {name} turns the Extra feather coin: <b>{card}</b> lies face up in front "
                 "of them.").format(name=name, card=card_label(event["card"])) + (
            "\n" + legend if legend else "")
    if special == "guess" and event.get("right"):
        return _("🪙 {name} guesses their card is <b>{card}</b>: right! They are safe this "
                 "round.").format(name=name, card=card_label(event["guess"]))
    if special == "guess":
        return _("🪙 {name} guesses <b>{guess}</b>, but it is <b>{card}</b>: they lose a life "
                 "and the round ends.").format(name=name, guess=card_label(event["guess"]),
                                               card=card_label(event["card"]))
    voided = (" " + _("The Double on the last bid no longer counts.")
              if event.get("double_voided") else "")
    if special == "change":
        state = game.state or {}
        if "target" in event:
            target, may_call = name_html(game.at_seat(event["target"])), event["may_call"]
        else:  # logged before the event said it: the state right after the Change does
            bids = state.get("bids") or []
            target = name_html(game.at_seat(bids[-1][0])) if bids else "?"
            may_call = bool(state) and GAMES[game.kind].view(state, None)["change_may_call"]
        if may_call:
            return _("🎭 {name} uses Change: {target} must raise their bid or call Coyote on "
                     "the bid before it.").format(name=name, target=target) + voided
        return _("🎭 {name} uses Change: {target} must raise their bid.").format(
            name=name, target=target) + voided
    icon = "🪙" if special in ("skip", "swap", "extra", "guess") or (
        special == "reverse" and game.options.get("edition") == "feathers") else "🎭"
    return _("{icon} {name} uses {special}.").format(icon=icon, name=name,
                                                    special=special_name(special)) + voided


def step_lines(game: GameSnapshot, events: list[dict[str, Any]]) -> list[str]:
    """One line per public event of a move that is not a showdown."""
    lines = []
    for event in events:
        kind = event["type"]
        if kind == "bid_placed":
            lines.append(_bid_line(game, event))
        elif kind == "bid_changed":
            lines.append(_("{name} changes their bid to <b>{amount}</b>.").format(
                name=name_html(game.at_seat(event["seat"])), amount=event["amount"]))
        elif kind == "special_used":
            lines.append(_special_line(game, event))
        elif kind == "turn_timed_out":
            lines.append(results.timed_out_text(name_html(game.at_seat(event["seat"])),
                                                removed=bool(event["removed"])))
        elif kind == "player_removed" and not any(
                e["type"] == "turn_timed_out" for e in events):
            lines.append(_("🚪 {name} leaves the game (placed last).").format(
                name=name_html(game.at_seat(event["seat"]))))
    return lines


def round_heading(round_no: int) -> str:
    """The line that starts a new round's moves inside a longer report."""
    return _("🔹 Round {round}").format(round=round_no)


def turn_line(game: GameSnapshot) -> str | None:
    """``➡️ @next, your turn.`` (a mention), or ``None`` when nobody is to act."""
    state = game.state or {}
    if state.get("over") or state.get("turn") is None:
        return None
    return _("➡️ {name}, your turn.").format(name=mention_html(game.at_seat(state["turn"])))


def game_over_text(game: GameSnapshot) -> str:
    """The final places (the league's: ties share a place and its medal), the winner(s), and
    what play decided of the rating."""
    ranked = results.ranked(game)
    lines = [_("🏁 Game #{id} is over!").format(id=game.id), "", *results.final_lines(game)]
    winners = [mention_html(p) for place, p in ranked if place == 1]
    lines += ["", n_("🏆 Winner: {names}", "🏆 Winners: {names}", len(winners)).format(
        names=join_list(winners))]
    rating = results.rating_lines(game)
    return "\n".join(lines + ["", *rating] if rating else lines)


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
def round_opening(game: GameSnapshot, logged: list[list[dict[str, Any]]]) -> list[str]:
    """How the round before ended (``logged``: the latest logged moves' events): its last
    moves (a timeout, a special, the computer players' bids that came with the call), its
    showdown with every card, or the wrong Guess, and who is out. A quiet group's table of a
    round shows it under its heading, as the report that posted the table did, so the
    table's edits keep it."""
    end = _round_start(logged) - 1
    if end < 0 or not _first(logged[end], "round_dealt"):
        return []
    before = next((i for i in range(end - 1, -1, -1)
                   if any(e["type"] in ROUND_BOUNDARY for e in logged[i])), -1)
    lines = [line for events in logged[max(before + 1, end - LAST_MOVES):end + 1]
             for line in step_lines(game, events)]
    showdown = _first(logged[end], "showdown")
    if showdown:
        lines += showdown_text(game, showdown).split("\n")
    if (note := eliminated_text(game, logged[end])) is not None:
        lines.append(note)
    return lines


@in_chat_language
def closed_table_text(game: GameSnapshot, logged: list[list[dict[str, Any]]],
                      unseen: int | None = None) -> str:
    """The table of the round on screen (``logged``: the latest logged moves' events, of
    which the last ``unseen`` came after the table was last drawn, ``None``: not known, the
    round that ended last; ``game``: as it is now), for its group message once the next
    round's table, the game's end or its cancellation is posted below it: how the round
    before ended (as the table opened with), its moves and how it ended, if it did; no
    turn, no clock, no 🎴. (When several rounds ended at once, the first is the table's.)"""
    ends = [i for i, events in enumerate(logged)
            if any(e["type"] in ROUND_BOUNDARY for e in events)]
    if unseen is None:
        end = ends[-1] if ends else None
    else:
        end = next((i for i in ends if i >= len(logged) - unseen), None)
    last = end if end is not None else len(logged) - 1
    before = max((i for i in ends if i < last + (end is None)), default=-1)
    dealt = _first(logged[before], "round_dealt") if before >= 0 else None
    state = game.state or {}
    round_no = dealt["round"] if dealt else GAMES[game.kind].view(state, None)["round"] - (
        0 if end is None or state.get("over") else 1)
    lines = [line for events in logged[before + 1:last + 1] for line in step_lines(game, events)]
    ended = logged[end] if end is not None else []
    if showdown := _first(ended, "showdown"):
        lines.append(showdown_summary(_lives_after(game, ended), showdown))
    elif (note := eliminated_text(game, ended)) is not None:
        lines.append(note)
    if len(lines) > CLOSED_MOVES:
        lines = ["…", *lines[-CLOSED_MOVES:]]
    opening = round_opening(_lives_after(game, logged[before]), logged[:before + 1]) \
        if before >= 0 else []
    return "\n".join([*heading_lines(game), _("🐺 Game #{id} · round {round}").format(
        id=game.id, round=round_no), "", *([*opening, ""] if opening else []), *lines, "",
        _("⏹ Round {round} is over: see below.").format(round=round_no)])


CLOSED_MOVES = 24
"""The round's latest moves its closed table keeps (a message holds 4096 characters)."""

LAST_MOVES = 3
"""The moves before a round's end its next table repeats (those the call came with)."""


def _round_start(logged: list[list[dict[str, Any]]]) -> int:
    """The index in ``logged`` of the current round's first move (after the last boundary)."""
    return next((i + 1 for i in range(len(logged) - 1, -1, -1)
                 if any(e["type"] in ROUND_BOUNDARY for e in logged[i])), 0)


@in_chat_language
def round_lines(game: GameSnapshot, logged: list[list[dict[str, Any]]]) -> list[str]:
    """The current round's moves as lines for the table (``logged``: the latest logged moves'
    events, in order: those after the last round boundary are this round's)."""
    return [line for events in logged[_round_start(logged):]
            for line in step_lines(game, events)]


@in_chat_language
def untold_lines(game: GameSnapshot, logged: list[list[dict[str, Any]]]) -> list[str]:
    """The lines of logged moves the group was not told (``logged``: each move's events, in
    order; ``game``: as it is now): a special after which the same player acted again, a
    report that could not be sent, or one that never ran (a crash after its commit). The
    moves of the round still on the table in full; of rounds that ended meanwhile, as for
    rounds the computer players play out among themselves, one line each (its showdown, or
    the wrong Guess that ended it) with who left, ran out of time or is out, then the
    heading of the round that followed."""
    start = _round_start(logged)
    lines = []
    for events in logged[:start]:
        wrong = _wrong_guesses(events)
        told = [e for e in events if e["type"] in ("turn_timed_out", "player_removed")
                or e in wrong]
        lines += step_lines(game, told)
        showdown = _first(events, "showdown")
        if showdown:
            lines.append(showdown_summary(_lives_after(game, events), showdown))
        if (note := eliminated_text(game, events)) is not None:
            lines.append(note)
    dealt = _first(logged[start - 1], "round_dealt") if start else None
    if lines and dealt:
        lines.append(round_heading(dealt["round"]))
    return lines + [line for events in logged[start:]
                    for line in step_lines(game, events)]


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
            lines += ["", round_heading(step.state["round"])]
        between = bool(ends) and ends[0] < i <= ends[-1]  # a computer-only round
        shown = _wrong_guesses(step.events) if between else step.events
        lines += step_lines(snap, shown)
        showdown = _first(step.events, "showdown")
        dealt = _first(step.events, "round_dealt")
        if ends and i == ends[0]:
            closed = dealt["round"] - 1 if dealt else step.state["round"]
        if showdown and i in (ends[0], ends[-1]):
            lines += ["", showdown_text(snap, showdown)]
        elif showdown:
            lines.append(showdown_summary(snap, showdown))
        if (note := eliminated_text(snap, step.events)) is not None:
            lines.append(note)
        if step.state.get("over"):
            lines += ["", game_over_text(snap)]
        new_round = (new_round or bool(dealt)) and not step.state.get("over")
    if lines and not new_round and mention and (turn := turn_line(game)):
        lines.append(turn)
    while lines and not lines[0]:
        lines.pop(0)
    return Report(lines, closed, new_round)
