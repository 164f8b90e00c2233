"""Which special actions a Coyote game offers: specials off by default, the `specials`
option, masks only in classic and coins only in feathers, malformed special actions;
the full ``legal_actions`` lists with specials on, and ``apply`` never mutating its
input with specials.

Rules: ``shared/rules/coyote.md``, "Mask actions (optional "special game")" and "Variant coins
(optional advanced rules)"; rulings where the texts are silent: the docstring of
:mod:`engine.coyote.specials`. States come from :func:`tests.engine.specials_helpers.make`.
"""

from __future__ import annotations

import copy

import pytest

from engine.core import Action, RuleError
from engine.coyote import get_edition
from tests.engine.specials_helpers import (
    CALL,
    GAME,
    assert_conserved,
    bid,
    coin,
    guess,
    make,
    mask,
    play,
    rejects,
    specials_in,
)

# --- availability -----------------------------------------------------------------------------

@pytest.mark.parametrize(("edition", "action"), [
    ("classic", mask("pass")), ("classic", mask("reverse")), ("classic", mask("change")),
    ("classic", bid(3, "double")), ("classic", bid(3, "draw1", 1)), ("classic", bid(3, "shot", 1)),
    ("feathers", coin("extra")), ("feathers", coin("reverse")), ("feathers", coin("skip")),
    ("feathers", coin("swap")), ("feathers", guess("5")),
])
def test_specials_off_by_default(edition, action):
    state = GAME.new_state(4, 3, {"edition": edition})
    assert state["options"]["specials"] is False
    assert state["masks"] == [False] * 4 and state["coins"] == []
    seat = state["turn"]
    if action.special == "change":  # give change something to change
        state, _ = play(state, (seat, bid(2)))
        seat = state["turn"]
    rejects(state, seat, action, "special_not_available")
    assert specials_in(GAME.legal_actions(state, seat)) == set()
    assert GAME.view(state, None)["specials"] is None


@pytest.mark.parametrize("value", [True, "yes", 1])
def test_poker_deck_cannot_enable_specials(value):
    with pytest.raises(RuleError) as exc:
        GAME.new_state(4, 1, {"edition": "poker-deck", "specials": value})
    assert exc.value.code == "bad_option"


@pytest.mark.parametrize("edition", ["classic", "feathers"])
def test_specials_option_must_be_bool(edition):
    with pytest.raises(RuleError) as exc:
        GAME.new_state(4, 1, {"edition": edition, "specials": "true"})
    assert exc.value.code == "bad_option"


def test_new_game_with_specials_hands_out_masks_and_coins():
    classic = GAME.new_state(5, 1, {"edition": "classic", "specials": True})
    assert classic["masks"] == [True] * 5 and classic["coins"] == []
    assert GAME.view(classic, 0)["specials"] == "masks"
    feathers = GAME.new_state(5, 1, {"edition": "feathers", "specials": True})
    assert feathers["masks"] == [False] * 5
    assert feathers["coins"] == ["extra", "reverse", "skip", "swap", "guess"]
    assert GAME.view(feathers, None)["specials"] == "coins"


@pytest.mark.parametrize("action", [mask("extra"), mask("skip"), mask("swap"), guess("5"),
                                    mask("double"), mask("draw1"), mask("shot"), mask("nope")])
def test_classic_rejects_coins_and_bid_masks_used_alone(action):
    state = make("classic", ["5", "10", "3"])
    rejects(state, 0, action, "special_not_available")


@pytest.mark.parametrize("action", [mask("pass"), mask("change"), bid(3, "double"),
                                    bid(3, "shot", 1), bid(3, "draw1", 1), bid(3, "skip"),
                                    bid(3, "extra"), mask("nope")])
def test_feathers_rejects_masks(action):
    state = make("feathers", ["5", "10", "3"])
    rejects(state, 0, action, "special_not_available")


@pytest.mark.parametrize("action", [bid(3, "pass"), bid(3, "reverse"), bid(3, "change"),
                                    bid(3, "nope")])
def test_standalone_masks_cannot_ride_on_a_bid(action):
    state = make("classic", ["5", "10", "3"])
    rejects(state, 0, action, "special_not_available")


@pytest.mark.parametrize("action", [Action("special"), Action("special", 3, special="pass"),
                                    bid(3, "double", 1), Action("bid", 3, target=1)])
def test_malformed_special_actions(action):
    state = make("classic", ["5", "10", "3"])
    rejects(state, 0, action, "bad_action")


# --- legal_actions ----------------------------------------------------------------------------

def assert_all_legal(state: dict, seat: int) -> list[Action]:
    legal = GAME.legal_actions(state, seat)
    assert legal
    assert len(set(legal)) == len(legal)
    for action in legal:
        new, _ = GAME.apply(state, seat, action)
        assert_conserved(new)
    for other in range(state["seats"]):
        if other != seat:
            assert GAME.legal_actions(state, other) == []
    return legal


def test_legal_actions_classic_opening():
    state = make("classic", ["5", None, "10", "3"], lives=[3, 0, 3, 3])
    legal = assert_all_legal(state, 0)
    assert CALL not in legal
    assert mask("pass") in legal and mask("reverse") in legal
    assert mask("change") not in legal
    for n in (1, 2, 3):
        assert bid(n, "double") in legal
        for target in (2, 3):
            assert bid(n, "draw1", target) in legal and bid(n, "shot", target) in legal
        for target in (0, 1):
            assert bid(n, "draw1", target) not in legal
            assert bid(n, "shot", target) not in legal


def test_legal_actions_classic_after_pass_and_bid():
    state = make("classic", ["5", "10", "3", "4"])
    state, _ = play(state, (0, bid(4)), (1, mask("pass")))
    legal = assert_all_legal(state, 2)
    assert specials_in(legal) == {"reverse", "change", "double", "draw1", "shot"}
    state, _ = play(state, (2, bid(5, "draw1", 0)))
    legal = assert_all_legal(state, 3)
    assert specials_in(legal) == {"pass", "reverse", "change", "double", "shot"}


def test_legal_actions_feathers():
    state = make("feathers", ["5", "10", "3"])
    legal = assert_all_legal(state, 0)
    assert specials_in(legal) == {"extra", "reverse", "skip", "swap", "guess"}
    guesses = {a.guess for a in legal if a.special == "guess"}
    assert guesses == set(get_edition("feathers").deck)
    state, _ = play(state, (0, coin("skip")))
    legal = assert_all_legal(state, 1)
    assert specials_in(legal) == {"extra", "reverse", "swap", "guess"}
    state, _ = play(state, (1, coin("swap")))
    legal = assert_all_legal(state, 1)
    assert specials_in(legal) == set() and CALL not in legal


def test_legal_actions_feathers_two_players():
    state = make("feathers", ["5", None, "3"], lives=[3, 0, 3])
    legal = assert_all_legal(state, 0)
    assert specials_in(legal) == set()


def test_legal_actions_change_answer():
    state, _ = play(make("classic", ["5", "10", "3"]), (0, bid(4)), (1, bid(6)),
                    (2, mask("change")))
    legal = assert_all_legal(state, 1)
    assert legal[0] == CALL and legal[1] == bid(7)
    assert specials_in(legal) == set()


# --- purity with specials ---------------------------------------------------------------------

@pytest.mark.parametrize(("edition", "moves"), [
    ("classic", [(0, mask("pass")), (1, bid(3, "draw1", 2)), (2, mask("change")), (1, bid(5)),
                 (2, bid(6)), (0, CALL)]),
    ("feathers", [(0, coin("extra")), (0, bid(3)), (1, coin("swap")), (1, bid(4)),
                  (2, guess("3")), (0, coin("reverse")), (0, bid(5)), (1, CALL)]),
])
def test_apply_never_mutates_input_with_specials(edition, moves):
    state = make(edition, ["5", "10", "3"])
    for seat, action in moves:
        before = copy.deepcopy(state)
        new, _ = GAME.apply(state, seat, action)
        assert state == before
        for value in new.values():  # the result shares no mutable part with the input
            if isinstance(value, list):
                for item in value:
                    if isinstance(item, list):
                        item.append("junk")
                value.append("junk")
        assert state == before
        state, _ = GAME.apply(state, seat, action)
