"""The one-line summaries :func:`untold_lines` gives for rounds that ended before a report
could tell them (a lost note, a crash after a commit, a report that gave up waiting)."""

from __future__ import annotations

from dataclasses import replace

from engine.core import Action, RuleError
from league.match.outcome import Step
from telegram_app.games.coyote.notes import report, untold_lines
from tests.bot.test_report import OPTIONS, PLAYERS, G, apply, plain, snap


def _logged(steps: list[Step]) -> list[list[dict]]:
    return [step.events for step in steps]


def test_a_wrong_guess_that_knocks_a_player_out_says_so() -> None:
    """Round 1: a player on their last life makes a wrong Guess (they are out of the game,
    round 2 is dealt); the next player bids. The report of the Guess was lost, so the next
    report tells it from the log. ``report`` of the same moves says "💀 … is out of the
    game" (``eliminated_text``); ``untold_lines`` tells the wrong Guess ("they lose a life and
    the round ends") but never that the player is out, although its docstring promises the
    line "of the wrong Guess that ended it" as for computer rounds (where it is said)."""
    for seed in range(300):
        state, _ = G.new_game(4, seed, OPTIONS)
        state = apply(state, state["turn"], Action("bid", G.min_bid(state)), [])
        guesser = state["turn"]
        state["lives"][guesser] = 1  # their last life
        wrong = next(c for c in ("1", "2", "3") if c != state["hands"][guesser])
        steps: list[Step] = []
        try:
            state = apply(state, guesser, Action("special", special="guess", guess=wrong),
                          steps)
        except RuleError:
            continue
        if state["over"]:
            continue
        state = apply(state, state["turn"], Action("bid", G.min_bid(state)), steps)
        break
    else:
        raise AssertionError("no seed gives the scenario")
    name = PLAYERS[guesser].name
    assert any(e["type"] == "player_eliminated" for e in steps[0].events)
    assert f"{name} is out of the game" in plain(report(snap(state), steps).lines)  # told live
    told_later = plain(untold_lines(snap(state), _logged(steps)))
    assert "but it is" in told_later  # the wrong Guess is told …
    assert f"{name} is out of the game" in told_later, told_later  # … but not the knock-out


def test_a_removed_player_in_a_round_that_ended_is_told() -> None:
    """Round 1: a human leaves (/leave: removed from the game) on their turn; the computer
    players answer and one calls Coyote (a showdown; round 2 is dealt): all in one outcome,
    whose note was lost. The next report tells that outcome from the log: the showdown in
    one line, then round 2's heading. That the player left the game (placed last) is never
    told in the group; the live report says "🚪 … leaves the game"."""
    for seed in range(300):
        state, _ = G.new_game(4, seed, {"edition": "classic"})
        leaver = state["turn"]
        steps: list[Step] = []
        state = apply(state, leaver, Action("resign"), steps)
        while not state["over"] and state["round"] == 1:
            seat = state["turn"]
            bids = state["bids"]
            action = Action("call") if len(bids) >= 2 else Action("bid", G.min_bid(state))
            state = apply(state, seat, action, steps)
        if not state["over"]:
            break
    else:
        raise AssertionError("no seed gives the scenario")
    name = PLAYERS[leaver].name
    assert f"{name} leaves the game" in plain(report(snap(state), steps).lines)  # told live
    told_later = plain(untold_lines(snap(state), _logged(steps)))
    assert "called Coyote" in told_later  # the round's showdown is summarised …
    assert f"{name} leaves the game" in told_later, told_later  # … but the leave is lost


def _showdown(caller: int, bidder: int, loser: int, lives_after: int, round_no: int) -> list:
    return [{"type": "coyote_called", "seat": caller, "bidder": bidder, "bid": 9,
             "double": False},
            {"type": "showdown", "caller": caller, "bidder": bidder, "bid": 9, "total": 3,
             "loser": loser, "lives_lost": 1, "cards": [], "owners": [], "sources": []},
            {"type": "life_lost", "seat": loser, "lives": lives_after, "amount": 1},
            *([{"type": "player_eliminated", "seat": loser}] if lives_after == 0 else []),
            {"type": "round_dealt", "round": round_no + 1, "starter": loser,
             "seats": [0, 1, 2, 3]}]


def test_a_summary_says_out_only_for_the_showdown_that_knocked_the_player_out() -> None:
    """Two notes in a row were lost: in round 1 Wile (2 lives) loses a life, in round 2 the
    last one. ``showdown_summary`` decides "and is out of the game" from the game as it is
    now (its docstring: "as it was right after that showdown"), so both rounds' lines say Wile
    is out, the first one wrongly (the ``life_lost`` events carry the lives left)."""
    lives_now = [3, 0, 3, 3]
    game = snap({"lives": lives_now, "round": 3, "turn": 2, "over": False})
    logged = [_showdown(0, 1, 1, 1, 1), _showdown(2, 1, 1, 0, 2)]
    lines = plain(untold_lines(game, logged)).splitlines()
    assert lines[0].startswith("🃏 Ann called Coyote on Wile's 9")
    assert lines[1].startswith("🃏 Road called Coyote on Wile's 9")
    assert "out of the game" not in lines[0], lines  # Wile still had a life after round 1
    assert "out of the game" in lines[1], lines


def test_a_summary_in_japanese_has_no_space_before_its_bracket() -> None:
    """In Japanese "and is out of the game" is "（脱落）", a full-width bracket, which takes no
    space before it; the code joined it with an ASCII space ("…受け取る （脱落）")."""
    game = replace(snap({"lives": [3, 0, 3, 3], "round": 3, "turn": 2, "over": False}),
                   language="ja")  # (the group's: its notes are in it)
    [line] = plain(untold_lines(game, [_showdown(2, 1, 1, 0, 2)])).splitlines()[:1]
    assert "（脱落）" in line and " （" not in line, line
