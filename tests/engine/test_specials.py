"""Unit tests of the special actions: the classic masks and the feathers variant coins.

Rules: ``shared/rules/coyote.md``, "Mask actions (optional "special game")" and "Variant coins
(optional advanced rules)"; rulings where the texts are silent: the docstring of
:mod:`engine.coyote.specials`. States are built by editing the plain JSON state directly, always
keeping every card of the deck in exactly one place.
"""

from __future__ import annotations

import copy
import json
import random
from collections import Counter

import pytest

from engine.core import Action, RuleError
from engine.coyote import CoyoteGame, get_edition
from engine.coyote.ai import choose_action

GAME = CoyoteGame()
CALL = Action("call")
CARD_PLACES = ("extra", "face_up", "void")


# --- helpers ----------------------------------------------------------------------------------

def make(edition: str, hands: list[str | None], *, top: tuple[str, ...] = (), turn: int = 0,
         lives: list[int] | None = None, seed: int = 7, specials: bool = True) -> dict:
    """A state of ``edition`` with specials on, the given hands and ``top`` as the top of the
    draw pile (the rest of the deck below it, sorted). ``lives``: a 0 means eliminated (give
    that seat a ``None`` hand)."""
    seats = len(hands)
    state = GAME.new_state(seats, seed, {"edition": edition, "specials": specials})
    deck = Counter(get_edition(edition).deck)
    deck.subtract(Counter(c for c in hands if c is not None))
    deck.subtract(Counter(top))
    assert all(v >= 0 for v in deck.values()), "hands/top use more cards than the deck has"
    state["hands"] = list(hands)
    state["draw"] = list(top) + sorted(deck.elements())
    state["discard"] = []
    if lives is not None:
        assert all((h is None) == (life == 0) for h, life in zip(hands, lives, strict=True))
        state["lives"] = list(lives)
        state["out"] = [s for s in range(seats) if lives[s] == 0]
        if state["masks"]:
            state["masks"] = [specials and edition == "classic" and life > 0 for life in lives]
    state["turn"] = turn
    state["starter"] = turn
    state["bids"] = []
    assert_conserved(state)
    return state


def all_cards(state: dict) -> Counter:
    cards = [c for c in state["hands"] if c is not None]
    for key in CARD_PLACES:
        for pile in state[key]:
            cards += pile
    return Counter(cards + state["draw"] + state["discard"])


def assert_conserved(state: dict) -> None:
    assert all_cards(state) == Counter(get_edition(state["edition"]).deck)
    assert json.loads(json.dumps(state)) == state


def play(state: dict, *moves: tuple[int, Action]) -> tuple[dict, list]:
    events: list = []
    for seat, action in moves:
        before = copy.deepcopy(state)
        new, evs = GAME.apply(state, seat, action)
        assert state == before, "apply mutated its input"
        state = new
        assert_conserved(state)
        events.extend(evs)
    return state, events


def bid(n: int, special: str | None = None, target: int | None = None) -> Action:
    return Action("bid", n, special=special, target=target)


def mask(name: str) -> Action:
    return Action("special", special=name)


coin = mask


def guess(card: str | None) -> Action:
    return Action("special", special="guess", guess=card)


def rejects(state: dict, seat: int, action: Action, code: str) -> RuleError:
    """Assert ``action`` raises ``RuleError(code)`` and leaves ``state`` unchanged."""
    before = copy.deepcopy(state)
    with pytest.raises(RuleError) as exc:
        GAME.apply(state, seat, action)
    assert exc.value.code == code, exc.value
    assert state == before
    assert action not in GAME.legal_actions(state, seat)
    return exc.value


def types(events) -> list[str]:
    return [e.type for e in events]


def showdown(events) -> dict:
    [ev] = [e for e in events if e.type == "showdown"]
    return ev.data


def lost(events) -> list[dict]:
    return [e.data for e in events if e.type == "life_lost"]


def specials_in(actions: list[Action]) -> set[str]:
    return {a.special for a in actions if a.special is not None}


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


# --- Pass -------------------------------------------------------------------------------------

def test_pass_moves_turn_on_without_a_bid():
    state, _ = play(make("classic", ["5", "10", "3", "4"]), (0, bid(4)))
    new, events = play(state, (1, mask("pass")))
    assert new["turn"] == 2
    assert new["bids"] == [[0, 4]]
    assert new["masks"] == [True, False, True, True]
    assert new["pass_blocked"] is True
    assert types(events) == ["special_used"]
    assert events[0].data == {"seat": 1, "special": "pass"}
    # the next player may call the bid before the pass
    after, events = play(new, (2, CALL))
    assert showdown(events)["bidder"] == 0 and showdown(events)["caller"] == 2


def test_next_player_may_not_pass():
    state, _ = play(make("classic", ["5", "10", "3", "4"]), (0, bid(4)), (1, mask("pass")))
    rejects(state, 2, mask("pass"), "pass_blocked")
    assert "pass" not in specials_in(GAME.legal_actions(state, 2))
    assert GAME.view(state, 2)["pass_blocked"] is True


def test_bid_clears_pass_block():
    state, _ = play(make("classic", ["5", "10", "3", "4"]), (0, bid(4)), (1, mask("pass")),
                    (2, bid(5)))
    assert state["pass_blocked"] is False
    assert "pass" in specials_in(GAME.legal_actions(state, 3))
    state, _ = play(state, (3, mask("pass")))
    assert state["turn"] == 0


def test_pass_before_any_bid_leaves_next_player_to_open():
    state, _ = play(make("classic", ["5", "10", "3"]), (0, mask("pass")))
    assert state["turn"] == 1 and state["bids"] == []
    rejects(state, 1, CALL, "no_bid_to_call")
    rejects(state, 1, mask("pass"), "pass_blocked")
    state, _ = play(state, (1, bid(1)))
    assert state["bids"] == [[1, 1]] and state["turn"] == 2


def test_pass_skips_dead_seats():
    state = make("classic", ["5", None, "10", "3"], lives=[3, 0, 3, 3])
    assert state["masks"] == [True, False, True, True]
    state, _ = play(state, (0, bid(2)), (2, mask("pass")))
    assert state["turn"] == 3


# --- Double -----------------------------------------------------------------------------------

def test_double_next_player_calls_bidder_loses_two_lives():
    state = make("classic", ["5", "10", "3"])  # total 18
    state, _ = play(state, (0, bid(19, "double")))
    assert state["double"] == 0 and state["masks"][0] is False
    new, events = play(state, (1, CALL))
    [called] = [e.data for e in events if e.type == "coyote_called"]
    assert called["double"] is True
    sd = showdown(events)
    assert sd["total"] == 18 and sd["loser"] == 0 and sd["lives_lost"] == 2
    assert lost(events) == [{"seat": 0, "lives": 1, "amount": 2}]
    assert new["lives"] == [1, 3, 3]


def test_double_next_player_calls_caller_loses_two_lives():
    state = make("classic", ["5", "10", "3"])  # total 18
    new, events = play(state, (0, bid(18, "double")), (1, CALL))
    sd = showdown(events)
    assert sd["loser"] == 1 and sd["lives_lost"] == 2
    assert new["lives"] == [3, 1, 3]


def test_double_can_eliminate_from_two_lives():
    state = make("classic", ["5", "10", "3"], lives=[3, 2, 3])
    new, events = play(state, (0, bid(18, "double")), (1, CALL))
    assert new["lives"] == [3, 0, 3]
    assert new["out"] == [1]
    assert "player_eliminated" in types(events)


def test_double_void_when_next_player_bids():
    state = make("classic", ["5", "10", "3"])  # total 18
    state, _ = play(state, (0, bid(17, "double")), (1, bid(19)))
    assert state["double"] is None
    new, events = play(state, (2, CALL))
    assert showdown(events)["loser"] == 1 and showdown(events)["lives_lost"] == 1
    assert new["lives"] == [3, 2, 3]


def test_double_void_when_call_comes_later():
    # the next player bids; a later call (on a later bid) costs one life
    state = make("classic", ["5", "10", "3", "1"])  # total 19
    state, _ = play(state, (0, bid(17, "double")), (1, bid(18)), (2, bid(25)))
    new, events = play(state, (3, CALL))
    assert showdown(events)["loser"] == 2 and showdown(events)["lives_lost"] == 1
    assert new["lives"] == [3, 3, 2, 3]


def test_double_void_after_a_pass():
    # specials.py ruling: Double counts only when the next player calls on that bid.
    state = make("classic", ["5", "10", "3"])
    state, _ = play(state, (0, bid(30, "double")), (1, mask("pass")))
    assert state["double"] is None
    caller = state["turn"]
    new, events = play(state, (caller, CALL))
    assert showdown(events)["loser"] == 0 and showdown(events)["lives_lost"] == 1
    assert new["lives"][0] == 2


def test_double_holds_when_the_next_player_reverses_then_calls():
    # coyote.md: Reverse — "reverse the direction of play, then bid or call as usual"; the
    # next player still calls Coyote on the doubled bid.
    state = make("classic", ["5", "10", "3"])
    state, _ = play(state, (0, bid(30, "double")), (1, mask("reverse")))
    assert state["double"] == 0
    new, events = play(state, (1, CALL))
    assert showdown(events)["loser"] == 0 and showdown(events)["lives_lost"] == 2
    assert new["lives"][0] == 1


def test_double_is_per_bid_latest_wins():
    state = make("classic", ["5", "10", "3"])  # total 18
    state, _ = play(state, (0, bid(17, "double")), (1, bid(20, "double")))
    assert state["double"] == 1
    new, events = play(state, (2, CALL))
    assert showdown(events)["loser"] == 1 and new["lives"] == [3, 1, 3]


# --- Reverse ----------------------------------------------------------------------------------

def test_reverse_keeps_turn_and_reverses_direction():
    state, _ = play(make("classic", ["5", "10", "3", "4"]), (0, bid(4)))
    new, events = play(state, (1, mask("reverse")))
    assert new["turn"] == 1 and new["direction"] == -1
    assert new["masks"][1] is False and new["bids"] == [[0, 4]]
    assert events[0].data == {"seat": 1, "special": "reverse"}
    assert GAME.view(new, None)["direction"] == -1
    # then bid or call as usual; play goes the other way
    after, _ = play(new, (1, bid(5)))
    assert after["turn"] == 0
    after, _ = play(after, (0, bid(6)))
    assert after["turn"] == 3
    after, _ = play(after, (3, bid(7)))
    assert after["turn"] == 2


def test_reverse_then_call():
    state, _ = play(make("classic", ["5", "10", "3"]), (0, bid(30)), (1, mask("reverse")))
    assert CALL in GAME.legal_actions(state, 1)
    new, events = play(state, (1, CALL))
    assert showdown(events)["loser"] == 0


def test_reverse_twice_restores_direction():
    state, _ = play(make("classic", ["5", "10", "3", "4"]), (0, mask("reverse")), (0, bid(2)),
                    (3, mask("reverse")), (3, bid(3)))
    assert state["direction"] == 1 and state["turn"] == 0


def test_direction_resets_next_round():
    state, _ = play(make("classic", ["5", "10", "3", "4"]), (0, mask("reverse")), (0, bid(30)))
    assert state["direction"] == -1 and state["turn"] == 3
    new, _ = play(state, (3, CALL))
    assert new["round"] == 2 and new["direction"] == 1
    assert new["turn"] == 0  # the loser (bidder) starts
    new, _ = play(new, (0, bid(1)))
    assert new["turn"] == 1


# --- Draw 1 -----------------------------------------------------------------------------------

def test_draw1_gives_target_the_top_card():
    state = make("classic", ["5", "10", "3", "1"], top=("4", "2"))
    new, events = play(state, (0, bid(3, "draw1", 2)))
    assert new["extra"] == [[], [], ["4"], []]
    assert new["draw"][0] == "2"
    assert new["draw1_used"] is True and new["masks"][0] is False
    assert new["turn"] == 1 and new["bids"] == [[0, 3]]
    assert types(events) == ["bid_placed", "card_drawn"]
    assert events[0].data == {"seat": 0, "amount": 3, "special": "draw1", "target": 2}
    assert events[1].data == {"seat": 2, "by": 0}  # no card in the event


def test_draw1_card_counts_in_showdown():
    state = make("classic", ["5", "10", "3"], top=("4",))  # 18 + 4
    state, _ = play(state, (0, bid(22, "draw1", 1)))
    new, events = play(state, (1, CALL))
    sd = showdown(events)
    assert [c["card"] for c in sd["cards"]] == ["5", "10", "4", "3"]
    assert sd["owners"] == [0, 1, 1, 2]
    assert sd["total"] == 22 and sd["loser"] == 1
    assert "4" in new["discard"] and new["extra"] == [[], [], []]


def test_draw1_special_card_takes_effect():
    state = make("classic", ["5", "10", "3"], top=("x2",))
    state, _ = play(state, (0, bid(36, "draw1", 2)))
    new, events = play(state, (1, CALL))
    assert showdown(events)["total"] == 36 and showdown(events)["loser"] == 1


def test_draw1_card_hidden_from_its_holder_only():
    state = make("classic", ["5", "10", "3", "1"], top=("4",))
    state, _ = play(state, (0, bid(3, "draw1", 2)))
    for seat in (0, 1, 3):
        assert GAME.view(state, seat)["extra"] == [[], [], ["4"], []]
    assert GAME.view(state, 2)["extra"] == [[], [], [None], []]
    assert GAME.view(state, None)["extra"] == [[], [], [None], []]
    assert GAME.view(state, 2)["cards"][2] is None


def test_only_one_draw1_per_round():
    state = make("classic", ["5", "10", "3", "1"])
    state, _ = play(state, (0, bid(3, "draw1", 2)))
    rejects(state, 1, bid(4, "draw1", 0), "draw1_used")
    legal = GAME.legal_actions(state, 1)
    assert "draw1" not in specials_in(legal)
    assert {"double", "shot", "pass", "reverse", "change"} <= specials_in(legal)
    assert GAME.view(state, 3)["draw1_used"] is True


def test_draw1_returns_next_round():
    state = make("classic", ["5", "10", "3"])
    state, _ = play(state, (0, bid(3, "draw1", 2)), (1, CALL))
    assert state["round"] == 2 and state["draw1_used"] is False
    seat = state["turn"]
    target = (seat + 1) % 3
    state, _ = play(state, (seat, bid(3, "draw1", target)))
    assert len(state["extra"][target]) == 1


@pytest.mark.parametrize("special", ["draw1", "shot"])
@pytest.mark.parametrize("target", [0, 1, -1, 4, 99, None, True])
def test_bad_targets(special, target):
    state = make("classic", ["5", None, "10", "3"], lives=[3, 0, 3, 3])
    err = rejects(state, 0, Action("bid", 3, special=special, target=target), "bad_target")
    assert err.code == "bad_target"


def test_draw1_reshuffles_discard_when_draw_is_empty():
    state = make("classic", ["5", "10", "3"])
    state["discard"], state["draw"] = state["draw"], []
    new, events = play(state, (0, bid(3, "draw1", 1)))
    assert len(new["extra"][1]) == 1
    assert "reshuffled" in types(events)
    assert new["discard"] == []


def test_draw1_with_no_card_anywhere():
    # artificial: park the rest of the deck in face_up (unused by classic) so both piles are empty
    state = make("classic", ["5", "10", "3"])
    state["face_up"][2], state["draw"] = state["draw"], []
    rejects(state, 0, bid(3, "draw1", 1), "no_card_to_draw")


# --- Change -----------------------------------------------------------------------------------

def test_change_needs_a_bid():
    state = make("classic", ["5", "10", "3"])
    rejects(state, 0, mask("change"), "nothing_to_change")
    assert "change" not in specials_in(GAME.legal_actions(state, 0))


def test_change_not_on_own_bid():
    # two players left: seat 1 passes, so seat 0 is the last bidder on their own turn
    state = make("classic", ["5", "10", None], lives=[3, 3, 0])
    state, _ = play(state, (0, bid(4)), (1, mask("pass")))
    assert state["turn"] == 0
    rejects(state, 0, mask("change"), "nothing_to_change")
    assert "change" not in specials_in(GAME.legal_actions(state, 0))


def test_change_makes_last_bidder_rebid_then_turn_returns():
    state, _ = play(make("classic", ["5", "10", "3", "4"]), (0, bid(4)), (1, bid(6)))
    new, events = play(state, (2, mask("change")))
    assert new["change"] == {"by": 2, "target": 1}
    assert new["turn"] == 1 and new["masks"][2] is False
    # the event tells whom it targets and whether they may call on the bid before theirs
    assert events[0].data == {"seat": 2, "special": "change", "target": 1, "may_call": True}
    rejects(new, 1, bid(6), "bid_too_low")
    after, events = play(new, (1, bid(9)))
    assert after["bids"] == [[0, 4], [1, 9]]  # replaced, not appended
    assert after["change"] is None and after["turn"] == 2
    assert types(events) == ["bid_changed"]
    assert events[0].data == {"seat": 1, "amount": 9}
    # the changer then bids or calls as usual (their mask is gone)
    assert CALL in GAME.legal_actions(after, 2)
    rejects(after, 2, mask("pass"), "mask_used")
    final, _ = play(after, (2, bid(10)))
    assert final["turn"] == 3


def test_change_target_may_call_the_bid_before_theirs():
    state = make("classic", ["5", "10", "3", "4"])  # total 22
    state, _ = play(state, (0, bid(23)), (1, bid(24)), (2, mask("change")))
    assert CALL in GAME.legal_actions(state, 1)
    new, events = play(state, (1, CALL))
    [called] = [e.data for e in events if e.type == "coyote_called"]
    assert called == {"seat": 1, "bidder": 0, "bid": 23, "double": False}
    sd = showdown(events)
    assert (sd["caller"], sd["bidder"], sd["bid"], sd["loser"]) == (1, 0, 23, 0)
    assert new["lives"] == [2, 3, 3, 3]


def test_change_target_with_single_bid_must_rebid():
    state, _ = play(make("classic", ["5", "10", "3"]), (0, bid(4)))
    state, events = play(state, (1, mask("change")))
    assert events[0].data == {"seat": 1, "special": "change", "target": 0, "may_call": False}
    assert state["turn"] == 0
    rejects(state, 0, CALL, "no_bid_to_call")
    legal = GAME.legal_actions(state, 0)
    assert legal and all(a.kind == "bid" and a.special is None for a in legal)
    assert legal[0] == bid(5)
    state, _ = play(state, (0, bid(5)))
    assert state["bids"] == [[0, 5]] and state["turn"] == 1


@pytest.mark.parametrize("action", [mask("pass"), mask("reverse"), mask("change"),
                                    bid(9, "double"), bid(9, "shot", 2), bid(9, "draw1", 2)])
def test_change_target_must_answer(action):
    state, _ = play(make("classic", ["5", "10", "3"]), (0, bid(4)), (1, bid(6)),
                    (2, mask("change")))
    rejects(state, 1, action, "must_answer_change")
    legal = GAME.legal_actions(state, 1)
    assert specials_in(legal) == set()
    assert {a.kind for a in legal} == {"bid", "call"}


def test_change_after_a_pass_clears_pass_block():
    state, _ = play(make("classic", ["5", "10", "3", "4"]), (0, bid(4)), (1, mask("pass")),
                    (2, mask("change")))
    assert state["pass_blocked"] is False and state["turn"] == 0
    state, _ = play(state, (0, bid(5)))
    assert state["turn"] == 2


def test_change_voids_double_and_answer_call_costs_one_life():
    state = make("classic", ["5", "10", "3", "4"])  # total 22
    state, _ = play(state, (0, bid(30)), (1, bid(31, "double")), (2, mask("change")))
    assert state["double"] is None
    new, events = play(state, (1, CALL))
    assert showdown(events)["loser"] == 0 and showdown(events)["lives_lost"] == 1


# --- Shot -------------------------------------------------------------------------------------

def test_shot_chooses_next_player_then_play_continues_from_them():
    state = make("classic", ["5", "10", "3", "4", "1"])
    state, events = play(state, (0, bid(3, "shot", 3)))
    assert state["turn"] == 3 and state["masks"][0] is False
    assert events[0].data == {"seat": 0, "amount": 3, "special": "shot", "target": 3}
    state, _ = play(state, (3, bid(4)))
    assert state["turn"] == 4
    state, _ = play(state, (4, bid(5)))
    assert state["turn"] == 0


def test_shot_in_reversed_direction():
    state = make("classic", ["5", "10", "3", "4", "1"])
    state, _ = play(state, (0, mask("reverse")), (0, bid(3)), (4, bid(4, "shot", 2)))
    assert state["turn"] == 2
    state, _ = play(state, (2, bid(5)))
    assert state["turn"] == 1


def test_shot_target_may_call():
    state = make("classic", ["5", "10", "3", "4"])
    state, _ = play(state, (0, bid(40, "shot", 2)), (2, CALL))
    assert state["lives"] == [2, 3, 3, 3]


# --- one mask per round -----------------------------------------------------------------------

@pytest.mark.parametrize("second", [mask("pass"), mask("reverse"), mask("change"),
                                    bid(9, "double"), bid(9, "draw1", 2), bid(9, "shot", 2)])
def test_one_mask_per_player_per_round(second):
    state = make("classic", ["5", "10", "3"])
    state, _ = play(state, (0, mask("reverse")), (0, bid(2)), (2, bid(4)), (1, bid(6)))
    assert state["turn"] == 0
    rejects(state, 0, second, "mask_used")
    assert specials_in(GAME.legal_actions(state, 0)) == set()
    assert GAME.view(state, 1)["masks"] == [False, True, True]


def test_masks_return_next_round():
    state = make("classic", ["5", "10", "3"])
    state, _ = play(state, (0, bid(2, "double")), (1, mask("reverse")), (1, bid(3)),
                    (0, CALL))
    assert state["round"] == 2
    assert state["masks"] == [True, True, True]


def test_eliminated_player_has_no_mask_next_round():
    state = make("classic", ["5", "10", "3"], lives=[3, 1, 3])
    state, _ = play(state, (0, bid(30)), (1, bid(40)), (2, CALL))
    assert state["lives"] == [3, 0, 3]
    assert state["masks"] == [True, False, True]


# --- feathers: Extra feather ------------------------------------------------------------------

def test_extra_feather_face_up_counts_and_must_bid():
    state = make("feathers", ["5", "10", "3"], top=("7", "2"))  # 18 + 7
    new, events = play(state, (0, coin("extra")))
    assert new["face_up"] == [["7"], [], []]
    assert new["coins"] == ["reverse", "skip", "swap", "guess"]
    assert new["turn"] == 0 and new["must_bid"] is True and new["coin_turn"] == 0
    assert events[0].data == {"seat": 0, "special": "extra", "card": "7"}
    for seat in (None, 0, 1, 2):
        assert GAME.view(new, seat)["face_up"] == [["7"], [], []]
    assert GAME.view(new, 0)["must_bid"] is True
    new, _ = play(new, (0, bid(3)))
    assert new["must_bid"] is False and new["turn"] == 1
    new, events = play(new, (1, bid(25)), (2, CALL))
    sd = showdown(events)
    assert sd["total"] == 25 and sd["loser"] == 2
    assert sd["owners"] == [0, 0, 1, 2]


def test_extra_feather_then_call_is_refused():
    state, _ = play(make("feathers", ["5", "10", "3"]), (0, bid(4)), (1, coin("extra")))
    rejects(state, 1, CALL, "must_bid")
    legal = GAME.legal_actions(state, 1)
    assert legal and all(a.kind == "bid" and a.special is None for a in legal)
    assert GAME.view(state, 1)["can_call"] is False


# --- feathers: Reverse, Skip ------------------------------------------------------------------

def test_reverse_coin_then_must_bid_and_play_goes_back():
    state, _ = play(make("feathers", ["5", "10", "3", "4"]), (0, bid(4)))
    new, _ = play(state, (1, coin("reverse")))
    assert new["direction"] == -1 and new["turn"] == 1 and new["must_bid"] is True
    rejects(new, 1, CALL, "must_bid")
    new, _ = play(new, (1, bid(5)))
    assert new["turn"] == 0
    new, _ = play(new, (0, bid(6)))
    assert new["turn"] == 3
    new, _ = play(new, (3, CALL))
    assert new["round"] == 2 and new["direction"] == 1
    assert new["coins"] == ["extra", "reverse", "skip", "swap", "guess"]


def test_skip_coin_moves_turn_on_without_bid():
    state, _ = play(make("feathers", ["5", "10", "3", "4"]), (0, bid(4)))
    new, events = play(state, (1, coin("skip")))
    assert new["turn"] == 2 and new["bids"] == [[0, 4]]
    assert new["must_bid"] is False and new["coin_turn"] is None
    assert events[0].data == {"seat": 1, "special": "skip"}
    assert CALL in GAME.legal_actions(new, 2)


def test_skip_before_any_bid():
    state, _ = play(make("feathers", ["5", "10", "3"]), (0, coin("skip")))
    assert state["turn"] == 1 and state["bids"] == []
    rejects(state, 1, CALL, "no_bid_to_call")


# --- feathers: Swap ---------------------------------------------------------------------------

def test_swap_replaces_own_card_and_old_one_no_longer_counts():
    state = make("feathers", ["20", "10", "3"], top=("1", "2"))
    new, events = play(state, (0, coin("swap")))
    assert new["hands"] == ["1", "10", "3"]
    assert new["void"] == [["20"], [], []]
    assert new["must_bid"] is True and new["turn"] == 0
    assert events[0].data == {"seat": 0, "special": "swap"}  # no card in the event
    rejects(new, 0, CALL, "no_bid_to_call")
    new, _ = play(new, (0, bid(14)))
    new, events = play(new, (1, CALL))  # total 1 + 10 + 3 = 14
    sd = showdown(events)
    assert sd["total"] == 14 and sd["loser"] == 1
    assert [c["card"] for c in sd["cards"]] == ["1", "10", "3"]
    assert sd["void"] == [["20"], [], []]
    assert "20" in new["discard"]


def test_swap_must_bid_after_a_bid_exists():
    state, _ = play(make("feathers", ["20", "10", "3"]), (0, bid(4)), (1, coin("swap")))
    rejects(state, 1, CALL, "must_bid")


def test_swap_views():
    state = make("feathers", ["20", "10", "3"], top=("1",))
    state, _ = play(state, (0, coin("swap")))
    own = GAME.view(state, 0)
    assert own["void"] == [[None], [], []]
    assert own["cards"][0] is None
    for seat in (1, 2):
        view = GAME.view(state, seat)
        assert view["void"] == [["20"], [], []]
        assert view["cards"][0] == "1"
    public = GAME.view(state, None)
    assert public["void"] == [[None], [], []]
    assert public["cards"] == [None, None, None]


def test_swapped_away_0b_still_reshuffles_everything():
    state = make("feathers", ["0b", "10", "3"], top=("1",))
    state, _ = play(state, (0, coin("swap")), (0, bid(20)))
    new, events = play(state, (1, CALL))
    sd = showdown(events)
    assert sd["total"] == 14 and sd["reshuffle_all"] is False and sd["loser"] == 0
    assert any(e.type == "reshuffled" for e in events)
    assert new["discard"] == []
    assert len(new["draw"]) == 30 - 3


def test_swap_then_0b_in_hand_counts_zero():
    state = make("feathers", ["5", "10", "3"], top=("0b",))
    state, _ = play(state, (0, coin("swap")), (0, bid(13)))
    new, events = play(state, (1, CALL))
    assert showdown(events)["total"] == 13
    assert new["discard"] == []


# --- feathers: Guess --------------------------------------------------------------------------

def test_right_guess_reveals_card_and_skips_player():
    state = make("feathers", ["5", "10", "3", "4"])  # total 22
    state, _ = play(state, (0, bid(4)))
    new, events = play(state, (1, guess("10")))
    assert events[0].data == {"seat": 1, "special": "guess", "guess": "10", "right": True,
                              "card": "10"}
    assert new["revealed"] == [False, True, False, False]
    assert new["safe"] == [False, True, False, False]
    assert new["turn"] == 2 and new["lives"] == [3, 3, 3, 3]
    for seat in (None, 0, 1, 2, 3):
        assert GAME.view(new, seat)["cards"][1] == "10"
    assert GAME.view(new, None)["cards"] == [None, "10", None, None]
    assert GAME.view(new, 0)["safe"] == [False, True, False, False]
    # skipped for the rest of the round
    new, _ = play(new, (2, bid(5)), (3, bid(6)), (0, bid(7)))
    assert new["turn"] == 2
    new, _ = play(new, (2, bid(22)))
    assert new["turn"] == 3
    new, events = play(new, (3, CALL))
    sd = showdown(events)
    assert sd["total"] == 22 and sd["loser"] == 3  # the guessed card still counts
    assert new["revealed"] == [False] * 4 and new["safe"] == [False] * 4


def test_right_guess_with_reversed_direction_is_skipped():
    state = make("feathers", ["5", "10", "3", "4"])
    state, _ = play(state, (0, guess("5")), (1, coin("reverse")), (1, bid(3)))
    assert state["turn"] == 3  # seat 0 is safe
    state, _ = play(state, (3, bid(4)), (2, bid(5)))
    assert state["turn"] == 1


def test_wrong_guess_loses_life_ends_round_and_guesser_starts():
    state = make("feathers", ["5", "10", "3", "4"])
    state, _ = play(state, (0, bid(4)))
    new, events = play(state, (1, guess("9")))
    assert types(events)[:3] == ["special_used", "round_ended", "life_lost"]
    assert "showdown" not in types(events)
    assert events[0].data["right"] is False
    assert events[1].data == {"reason": "wrong_guess", "seat": 1,
                              "cards": ["5", "10", "3", "4"]}
    assert lost(events) == [{"seat": 1, "lives": 2, "amount": 1}]
    assert new["lives"] == [3, 2, 3, 3]
    assert new["round"] == 2 and new["turn"] == 1 and new["starter"] == 1
    assert new["bids"] == [] and new["coins"] == ["extra", "reverse", "skip", "swap", "guess"]
    for card in ("5", "10", "3", "4"):
        assert card in new["discard"]


def test_wrong_guess_eliminating_guesser_next_seat_starts():
    state = make("feathers", ["5", "10", "3", "4"], lives=[3, 1, 3, 3])
    state, _ = play(state, (0, bid(4)))
    new, events = play(state, (1, guess("9")))
    assert new["lives"] == [3, 0, 3, 3] and new["out"] == [1]
    assert new["hands"][1] is None
    assert new["turn"] == 2


def test_wrong_guess_with_0b_in_play_reshuffles():
    state = make("feathers", ["5", "0b", "3", "4"])
    new, events = play(state, (0, guess("6")))
    assert new["discard"] == []
    assert "reshuffled" in types(events)


@pytest.mark.parametrize("card", ["0", "night", "11", "-1", "", None, "A"])
def test_guess_of_a_card_not_in_the_edition(card):
    state = make("feathers", ["5", "10", "3", "4"])
    rejects(state, 0, guess(card), "bad_action")


def test_guess_not_allowed_when_fewer_than_two_others_remain_active():
    # four players, one out, one already safe: the pool here holds a second Guess coin
    # (the pool is data; the box has 8 coins)
    state = make("feathers", ["5", "10", "3", None], lives=[3, 3, 3, 0])
    state["coins"].append("guess")
    state, _ = play(state, (0, guess("5")))
    assert state["safe"] == [True, False, False, False]
    assert state["coins"] == ["extra", "reverse", "skip", "swap", "guess"]
    rejects(state, 1, guess("10"), "guess_not_allowed")
    assert "guess" not in specials_in(GAME.legal_actions(state, 1))


def test_guess_allowed_with_exactly_two_others_active():
    state = make("feathers", ["5", "10", "3"])
    new, _ = play(state, (0, guess("5")))
    assert new["safe"] == [True, False, False]
    new, _ = play(new, (1, bid(3)))
    assert new["turn"] == 2
    new, _ = play(new, (2, bid(4)))
    assert new["turn"] == 1


# --- feathers: coin restrictions --------------------------------------------------------------

@pytest.mark.parametrize("name", ["extra", "reverse", "skip", "swap"])
def test_each_coin_once_per_round(name):
    state = make("feathers", ["5", "10", "3", "4"])
    state, _ = play(state, (0, coin(name)))
    if state["turn"] == 0:
        state, _ = play(state, (0, bid(2)))
    seat = state["turn"]
    rejects(state, seat, coin(name), "coin_used")
    assert name not in specials_in(GAME.legal_actions(state, seat))
    assert name not in GAME.view(state, None)["coins"]


def test_guess_coin_once_per_round():
    state = make("feathers", ["5", "10", "3", "4", "1"])
    state, _ = play(state, (0, guess("5")))
    rejects(state, 1, guess("10"), "coin_used")


@pytest.mark.parametrize("first", ["extra", "reverse", "swap"])
@pytest.mark.parametrize("second", ["extra", "reverse", "skip", "swap"])
def test_one_coin_per_turn(first, second):
    state = make("feathers", ["5", "10", "3", "4"])
    state, _ = play(state, (0, coin(first)))
    code = "coin_used" if first == second else "one_coin_per_turn"
    rejects(state, 0, coin(second), code)
    rejects(state, 0, guess("5"), "one_coin_per_turn")
    assert specials_in(GAME.legal_actions(state, 0)) == set()


def test_no_coins_with_two_players():
    state = make("feathers", ["5", "10", None], lives=[3, 3, 0])
    for action in (coin("extra"), coin("reverse"), coin("skip"), coin("swap"), guess("5")):
        rejects(state, 0, action, "coins_two_players")
    assert specials_in(GAME.legal_actions(state, 0)) == set()


def test_coins_pool_comes_back_next_round():
    state = make("feathers", ["5", "10", "3", "4"])
    state, _ = play(state, (0, coin("skip")), (1, coin("extra")), (1, bid(2)),
                    (2, coin("reverse")), (2, bid(3)), (1, CALL))
    assert state["round"] == 2
    assert state["coins"] == ["extra", "reverse", "skip", "swap", "guess"]
    assert state["face_up"] == [[], [], [], []]


def test_extra_and_swap_need_a_card():
    state = make("feathers", ["5", "10", "3"])
    state["void"][2], state["draw"] = state["draw"], []  # artificial: both piles empty
    rejects(state, 0, coin("extra"), "no_card_to_draw")
    rejects(state, 0, coin("swap"), "no_card_to_draw")


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
