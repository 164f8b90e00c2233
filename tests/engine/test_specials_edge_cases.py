"""Edge cases of the special actions: regressions found by a break-it review (removed
bidders and targets, safe players) and the highest bid (MAX_BID), which can only be
called.

Rules: ``shared/rules/coyote.md``, "Mask actions (optional "special game")" and "Variant coins
(optional advanced rules)"; rulings where the texts are silent: the docstring of
:mod:`engine.coyote.specials`. States come from :func:`tests.engine.specials_helpers.make`.
"""

from __future__ import annotations

import json
import random

import pytest

from engine.core import Action, RuleError
from engine.coyote import CoyoteGame
from engine.coyote.ai import choose_action
from tests.engine.specials_helpers import (
    CALL,
    GAME,
    bid,
    coin,
    guess,
    make,
    mask,
    play,
    rejects,
    showdown,
)

# --- regressions found by a break-it review ---------------------------------------------------

def test_a_removed_bidder_who_wins_the_showdown_does_not_start():
    game = CoyoteGame()
    seed = next(n for n in range(200)
                if game.new_state(4, n, {"edition": "classic", "specials": True,
                                         "lives": 2})["turn"] == 0)
    state = game.new_state(4, seed, {"edition": "classic", "specials": True, "lives": 2})
    state["lives"] = [2, 1, 2, 2]
    state, _ = play(state, (0, Action("bid", 1, special="shot", target=3)),
                    (3, Action("special", special="pass")), (0, Action("resign")))
    state, events = play(state, (1, CALL))  # the bid of 1 holds: the caller is out
    assert state["lives"][:2] == [0, 0]
    assert state["turn"] in (2, 3) and state["starter"] in (2, 3)
    with pytest.raises(RuleError) as err:
        game.apply(state, 0, Action("bid", 1))
    assert err.value.code == "not_your_turn"


def test_change_target_cannot_call_its_own_earlier_bid():
    state = make("classic", ["5", "10", "3"])
    state, _ = play(state, (0, Action("bid", 5, special="shot", target=2)),
                    (2, Action("special", special="pass")), (0, bid(6)))
    state, _ = play(state, (1, mask("change")))
    assert state["change"] == {"by": 1, "target": 0} and state["turn"] == 0
    assert not CoyoteGame().can_call(state, 0)  # the bid before 0's is 0's own
    with pytest.raises(RuleError) as err:
        CoyoteGame().apply(state, 0, CALL)
    assert err.value.code == "own_bid"


def test_a_safe_player_plays_again_when_a_removal_leaves_one_to_act():
    state = make("feathers", ["5", "7", "9"], specials=True)
    state, _ = play(state, (0, bid(3)), (1, Action("special", special="guess", guess="7")))
    assert state["safe"][1] and state["turn"] == 2
    state, _ = play(state, (0, Action("resign")))  # now only seat 2 is left to act
    state, _ = play(state, (2, bid(4)))
    assert state["turn"] == 1  # the safe player answers, so the round can end
    state, events = play(state, (1, CALL))
    assert showdown(events)["caller"] == 1


def test_a_bid_too_high_by_a_removed_player_costs_nobody_a_life():
    state = make("classic", ["5", "10", "3", "4"])
    state, _ = play(state, (0, bid(99)), (1, bid(100)), (1, Action("resign")))
    new, events = play(state, (2, CALL))
    data = showdown(events)
    assert data["loser"] is None and data["removed_loser"] == 1 and data["lives_lost"] == 0
    assert [e for e in events if e.type == "life_lost"] == []
    assert new["lives"] == [3, 0, 3, 3]


def test_change_target_removed_turn_returns_to_changer():
    """coyote.md, Mask actions, Change: "then the turn returns to the player who used Change"
    — also when the player who had to answer leaves instead (found by a review)."""
    game = CoyoteGame()
    seed = next(s for s in range(100) if game.new_state(4, s, {"specials": True})["turn"] == 0)
    state = game.new_state(4, seed, {"specials": True})
    state, _ = game.apply(state, 0, Action("bid", 1))
    state, _ = game.apply(state, 1, Action("special", special="pass"))
    state, _ = game.apply(state, 2, Action("special", special="change"))
    assert state["turn"] == 0
    left, _ = game.apply(state, 0, Action("resign"))
    assert left["turn"] == 2 and left["change"] is None
    gone, _ = game.apply(state, 2, Action("resign"))  # the one who used Change leaves
    assert gone["turn"] == 3 and gone["change"] is None


# --- the highest bid (MAX_BID) ----------------------------------------------------------------

def test_the_highest_bid_can_only_be_called():
    """A bid of MAX_BID closes the bidding: no higher bid, no special action after it (each
    would demand a higher bid, be followed by one, or pass the turn on, maybe back to its
    bidder, who may not call their own bid)."""
    from engine.coyote.editions import MAX_BID

    state = make("classic", ["5", "10", "3"])
    rejects(state, 0, bid(MAX_BID + 1), "bid_too_high")
    state, _ = play(state, (0, bid(4)), (1, bid(MAX_BID)))
    for name in ("change", "pass", "reverse"):
        rejects(state, 2, mask(name), "bid_too_high")
    assert GAME.legal_actions(state, 2) == [CALL]
    assert choose_action(GAME.view(state, 2), random.Random(0)) == CALL

    state, _ = play(make("feathers", ["5", "10", "3", "4"]), (0, bid(MAX_BID)))
    for name in ("extra", "reverse", "swap", "skip"):
        rejects(state, 1, coin(name), "bid_too_high")
    rejects(state, 1, guess("10"), "bid_too_high")
    assert GAME.legal_actions(state, 1) == [CALL]


def test_the_highest_bidder_never_gets_the_turn_back():
    """Shot on the player before the bidder, or players leaving, pass over the bidder of a bid
    at MAX_BID; a safe player (right Guess) answers it if nobody else can."""
    from engine.coyote.editions import MAX_BID

    state, _ = play(make("classic", ["5", "10", "3", "4"]), (0, bid(MAX_BID, "shot", 3)))
    assert state["turn"] == 3 and GAME.legal_actions(state, 3) == [CALL]
    state, _ = play(state, (3, Action("resign")))
    assert state["turn"] == 1  # not 0, the bidder
    state, _ = play(state, (1, Action("resign")))
    assert state["turn"] == 2
    state = make("feathers", ["5", "10", "3", "4"])
    state, _ = play(state, (0, bid(2)), (1, guess("10")))  # right: seat 1 is safe
    state, _ = play(state, (2, bid(MAX_BID)), (3, Action("resign")))
    assert state["turn"] == 0
    state, _ = play(state, (0, Action("resign")))  # left: the safe player and the bidder
    assert state["turn"] == 1 and GAME.legal_actions(state, 1) == [CALL]


@pytest.mark.parametrize("edition", ["classic", "feathers"])
def test_no_dead_end_after_the_highest_bid(edition):
    """Every reachable state of a round with a bid at MAX_BID somewhere (depth-first over
    bids, the highest bid with each bid mask, every special and every leave) leaves the seat
    to act a legal action."""
    from engine.coyote.editions import MAX_BID

    def moves(state, seat):
        out = [a for a in GAME.legal_actions(state, seat)
               if a.kind != "bid" or a.amount == GAME.min_bid(state)]
        nxt = (seat + 1) % state["seats"]
        out += [bid(MAX_BID), bid(MAX_BID, "double"), bid(MAX_BID, "shot", nxt),
                bid(MAX_BID, "draw1", nxt)]
        return out + [guess(state["hands"][seat])] if state["hands"][seat] else out

    seen: set[str] = set()

    def search(state, depth):
        if state["over"] or state["round"] > 1 or depth == 0:
            return
        key = json.dumps({k: v for k, v in state.items() if k != "step"}, sort_keys=True)
        if key in seen:
            return
        seen.add(key)
        seat = state["turn"]
        assert GAME.legal_actions(state, seat), (seat, state["bids"])
        for action in moves(state, seat):
            try:
                new, _ = GAME.apply(state, seat, action)
            except RuleError:
                continue
            search(new, depth - 1)
        for who in GAME.alive(state):
            search(GAME.apply(state, who, Action("resign"))[0], depth - 1)

    for seats in (3, 4):
        search(make(edition, ["5", "10", "3", "4"][:seats]), 5)
    assert len(seen) > 500
