"""The group report of an outcome, composed from engine-made steps (no network)."""

from __future__ import annotations

from engine import GAMES
from engine.core import Action
from league.match.outcome import Step
from league.store.snapshots import GameSnapshot, PlayerInfo
from telegram_app.games.coyote.notes import report, untold_lines
from tests.fakebot import parse_html

G = GAMES["coyote"]
OPTIONS = {"edition": "feathers", "specials": True}
PLAYERS = tuple(PlayerInfo(1001 if i == 0 else None, ["Ann", "Wile", "Road", "Runner"][i], i,
                           i != 0, 3, None, 1, 1) for i in range(4))


def snap(state: dict) -> GameSnapshot:
    return GameSnapshot(1, -100, 0, "coyote", OPTIONS, "running", 9, state, 1001, 5, 6,
                        PLAYERS)


def apply(state: dict, seat: int, action: Action, steps: list[Step]) -> dict:
    state, events = G.apply(state, seat, action)
    steps.append(Step(seat, seat != 0, [e.to_json() for e in events], state))
    return state


def plain(lines: list[str]) -> str:
    text, _ = parse_html("\n".join(lines))
    return text.replace("\u2068", "").replace("\u2069", "")


def test_a_computer_round_ended_by_a_wrong_guess_is_told() -> None:
    """Ann (a human) calls and ends round 1; a computer player starts round 2 with a wrong
    Guess (it loses a life; the round ends); round 3 starts with a computer's bid. The report
    tells Ann's showdown in full, the wrong Guess in one line, round 3's bid under its
    heading, and mentions Ann."""
    for seed in range(500):
        state, _ = G.new_game(4, seed, OPTIONS)
        while not (state["turn"] == 0 and state["bids"] and state["bids"][-1][0] != 0):
            state = apply(state, state["turn"], Action("bid", G.min_bid(state)), [])
        steps: list[Step] = []
        state = apply(state, 0, Action("call"), steps)
        guesser = state["turn"]
        if guesser == 0:
            continue
        wrong = next(c for c in ("1", "2", "3") if c != state["hands"][guesser])
        state = apply(state, guesser, Action("special", special="guess", guess=wrong), steps)
        while not state["over"] and state["turn"] != 0:
            state = apply(state, state["turn"], Action("bid", G.min_bid(state)), steps)
        if not state["over"] and state["round"] == 3 and len(steps) >= 3:
            break
    else:
        raise AssertionError("no seed gives the scenario")
    shown = report(snap(state), steps)
    text = plain(shown.lines)
    name = PLAYERS[guesser].name
    assert shown.closed == 1 and shown.new_table
    assert "Ann calls Coyote!" in text and "Total:" in text  # in full
    assert f"{name} guesses {wrong}, but it is" in text
    before, after = text.split("🔹 Round 3")
    assert " bids " not in before.split("Total:")[-1]  # no bids of the rounds in between
    assert " bids 1." in after


def test_a_change_answered_by_a_computer_keeps_the_turn() -> None:
    """Change on a computer player's bid: it answers at once and the turn comes back to the
    human who used Change, so the note waits for their next move; a Change on a human's bid,
    a Pass or a plain bid passes the turn on and is reported at once."""
    from telegram_app.games.coyote.notes import keeps_turn

    options = {"edition": "classic", "specials": True}
    state, _ = G.new_game(3, 5, options)
    state["turn"] = 0
    state = apply(state, 0, Action("bid", 2), [])
    state = apply(state, 1, Action("bid", 3), [])  # seat 1: a computer player
    steps: list[Step] = []
    changed = apply(state, 2, Action("special", special="change"), steps)
    answered = apply(changed, 1, Action("bid", 4), steps)

    def game(s: dict) -> GameSnapshot:
        return GameSnapshot(1, -100, 0, "coyote", options, "running", 9, s, 1001, 5, 6,
                            PLAYERS[:3])

    assert answered["turn"] == 2 and keeps_turn(game(answered), steps)
    assert not keeps_turn(game(changed), steps[:1])  # a human must answer: mention them
    passed: list[Step] = []
    after_pass = apply(state, 2, Action("special", special="pass"), passed)
    assert not keeps_turn(game(after_pass), passed)
    bid: list[Step] = []
    assert not keeps_turn(game(apply(state, 2, Action("bid", 9), bid)), bid)


def test_untold_lines_tell_a_round_that_ended_in_one_line() -> None:
    """Moves the group was not told: those of the round still on the table in full; a round
    that ended meanwhile in one line (its showdown), then the next round's heading."""
    bid = {"type": "bid_placed", "seat": 1, "amount": 4}
    end = [{"type": "coyote_called", "seat": 2, "bidder": 1, "bid": 4, "double": False},
           {"type": "showdown", "caller": 2, "bidder": 1, "bid": 4, "total": 10, "loser": 2,
            "lives_lost": 1, "cards": []},
           {"type": "round_ended"}, {"type": "round_dealt", "round": 2}]
    reverse = {"type": "special_used", "seat": 3, "special": "reverse"}
    change = {"type": "special_used", "seat": 0, "special": "change", "target": 3,
              "may_call": False}
    game = snap({"lives": [3, 3, 2, 3]})  # the game now: the events must tell the moves
    lines = plain(untold_lines(game, [[bid], end, [reverse], [change]]))
    assert "Wile bids 4." not in lines  # a finished round's bids are not told again
    assert lines.splitlines()[0] == ("🃏 Road called Coyote on Wile's 4: total 10, Road loses "
                                     "a life.")
    assert "Round 2" in lines.splitlines()[1]
    assert lines.splitlines()[2:] == ["🪙 Runner uses Reverse.",
                                      "🎭 Ann uses Change: Runner must raise their bid."]
    assert plain(untold_lines(game, [[bid]])) == "Wile bids 4."
