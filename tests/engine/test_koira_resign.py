"""A Koira player resigning or removed: their place, the trick, the turn and the phase."""

from __future__ import annotations

import pytest

from engine.core import Action, RuleError
from tests.engine.koira_helpers import GAME, deal, phase1_end, play, plays


def test_resign_places_the_leaver_last() -> None:
    """A removed player's cards leave the game, turns skip them, they take the last place."""
    state = deal([["9C", "2S", "2H"], ["KD", "3C", "2D"], ["4S", "3S", "3H"],
                  ["KH", "7D", "3D"]])
    state, _ = play(state, 0, "9C")
    state, events = GAME.apply(state, 1, Action("resign"))
    assert events[0].type == "player_removed" and GAME.current_seat(state) == 2
    assert GAME.still_playing(state) == [0, 2, 3]
    state, _ = GAME.apply(state, 3, Action("resign"))
    state, events = GAME.apply(state, 2, Action("resign"))
    assert GAME.is_over(state) and GAME.placements(state) == [1, 4, 2, 3]
    with pytest.raises(RuleError):
        GAME.apply(state, 0, Action("resign"))


def _resign(state: dict, seat: int) -> tuple[dict, list[dict]]:
    new, events = GAME.apply(state, seat, Action("resign"))
    return new, [e.to_json() for e in events]


def _acts(state: dict) -> None:
    """The seat to act has a legal action, unless the game is over."""
    seat = GAME.current_seat(state)
    assert state["over"] or (seat is not None and GAME.legal_actions(state, seat))


def test_resign_of_the_only_player_with_cards_begins_phase_2() -> None:
    """Regression (property test, 3 seats, seed 127, a leaver): the stock is empty and only
    seat 1 still holds a card, so it alone plays the phase-1 trick (R8); it leaves before
    leading. The turn stayed with the removed seat, which had no legal action. Now phase 1
    is over (no hand in the game holds cards) and the winner of the last trick won leads
    phase 2 (R4)."""
    state = phase1_end([[], ["10H"], []], leader=2)
    assert state["round_seats"] == [1] and GAME.current_seat(state) == 1
    state, events = _resign(state, 1)
    assert [e["type"] for e in events] == ["player_removed", "phase_changed", "trick_started"]
    assert state["phase"] == 2 and GAME.current_seat(state) == 2
    assert "10H" in state["discarded"] and state["hands"][1] == []
    _acts(state)


def test_resign_of_both_tied_players_gives_the_trick_to_the_best_card_left() -> None:
    """Both players of a tie leave during the replay (R1): the trick is settled on the
    latest round with a card of a player still in the game, by those cards (the text is
    silent). Before, it went onto the won pile of a removed player."""
    state = phase1_end([["KD", "3C"], ["9C"], ["KH", "7D"], ["5S"]])
    for seat, card in enumerate(["KD", "9C", "KH", "5S"]):
        state, events = play(state, seat, card)
    assert events[-1]["type"] == "tie"
    state, _ = play(state, 0, "3C")
    state, _ = _resign(state, 0)
    assert GAME.current_seat(state) == 2
    state, events = _resign(state, 2)
    won = next(e for e in events if e["type"] == "trick_over")
    assert won["seat"] == 1 and sorted(won["cards"]) == sorted(
        ["KD", "9C", "KH", "5S", "3C"])
    assert state["phase"] == 2 and GAME.current_seat(state) == 1
    assert {"KD", "KH", "3C"} <= set(state["hands"][1])
    assert state["hands"][0] == state["hands"][2] == []
    _acts(state)


def test_resign_mid_replay_leaves_a_tie_below_to_replay() -> None:
    """Both kings leave before replaying; the 9s below them tie among the players left, who
    replay (R1), as if the leavers' cards had never counted."""
    state = phase1_end([["KD", "3C"], ["9C", "4H"], ["KH", "7D"], ["9S", "5D"]])
    for seat, card in enumerate(["KD", "9C", "KH", "9S"]):
        state, _ = play(state, seat, card)
    state, _ = _resign(state, 0)
    state, events = _resign(state, 2)
    assert events[-1] == {"type": "tie", "seats": [1, 3], "rank": 9}
    assert GAME.current_seat(state) == 1 and plays(state, 1) == {("4H",)}
    state, _ = play(state, 1, "4H")
    state, events = play(state, 3, "5D")
    won = next(e for e in events if e["type"] == "trick_over")
    assert won["seat"] == 3 and len(won["cards"]) == 6
    _acts(state)


def test_resign_of_every_player_of_a_trick_discards_it() -> None:
    """The only players of a trick leave while the others sit it out with empty hands (R8):
    nobody can win it, so its cards leave the game (the text is silent); phase 2 follows,
    led by the winner of the last trick won."""
    state = phase1_end([["KD"], ["9C"], [], []], leader=3)
    assert state["round_seats"] == [0, 1]
    state, _ = play(state, 0, "KD")
    state, _ = _resign(state, 0)
    assert GAME.current_seat(state) == 1
    state, events = _resign(state, 1)
    assert {"type": "trick_over", "phase": 1, "trick": 21, "seat": None,
            "cards": ["KD"]} in events
    assert "KD" in state["discarded"] and not any(state["piles"])
    assert state["phase"] == 2 and GAME.current_seat(state) == 3
    _acts(state)


def test_r5_tie_split_lowest_to_the_last_player_still_in_the_game() -> None:
    """R5 gives the lowest other card to the player who played last; if they left (the text
    is silent), to the last player still in the game to have played, never onto a removed
    player's pile."""
    state = phase1_end([["KD"], ["KH"], ["9C"], ["5S"]], tie_split=True)
    for seat, card in enumerate(["KD", "KH", "9C"]):
        state, _ = play(state, seat, card)
    state, _ = _resign(state, 2)
    state, events = _resign(state, 3)
    shared = next(e for e in events if e["type"] == "trick_shared")
    assert shared["shares"] == {"0": ["KD"], "1": ["KH", "9C"]}
    assert "9C" in state["hands"][1] and state["hands"][2] == []
    _acts(state)
