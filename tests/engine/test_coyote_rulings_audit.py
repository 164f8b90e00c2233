"""Coyote audit against ``shared/rules/coyote.md``: the cases the older rulings tests leave open.

A player removed (a leave, or too many timeouts: ``Action("resign")``) at each point of a
round, special cards arriving or leaving through Draw 1, Swap, Extra feather, Guess and ``?``,
``x2`` with ``max0``, who opens the round after a knock-out under each option, and the end of
the game. Everything is replayed through ``CoyoteGame.apply``; :func:`play` checks after every
move that each card of the deck is in exactly one place. Removal is not in the rules texts:
those tests pin the engine's own rulings (``engine/coyote/flow.py`` ``resign`` and
``showdown``, ``engine/coyote/specials.py``), named in each docstring.
"""

from __future__ import annotations

from collections import Counter

import pytest

from engine.core import Action
from engine.coyote import get_edition
from tests.engine.specials_helpers import (
    CALL,
    GAME,
    bid,
    coin,
    guess,
    lost,
    make,
    mask,
    play,
    rejects,
    showdown,
    types,
)

RESIGN = Action("resign")


def _total_and_loser(events) -> tuple[int, int | None]:
    data = showdown(events)
    return data["total"], data["loser"]


# --- decks (Edition classic / feathers / poker-deck: "Deck") ----------------------------------

def test_decks_are_the_compositions_the_rules_list():
    """coyote.md "Deck (36)", "Deck (30)" (our default), "Deck (23)", written out again here
    rather than read from the edition data."""
    classic = {"20": 1, "15": 2, "10": 3, "0": 3, "-5": 2, "-10": 1,
               "x2": 1, "max0": 1, "?": 1, "night": 1, **{str(v): 4 for v in range(1, 6)}}
    feathers = {**{str(v): 2 for v in range(1, 11)}, "15": 1, "20": 1, "-5": 2, "-10": 1,
                "?": 1, "max0": 1, "max-": 1, "x2": 1, "0b": 1}
    poker = {**{c: 4 for c in ("A", "2", "3", "4", "5")}, "J": 1, "Q": 1, "K": 1}
    for name, deck, size in (("classic", classic, 36), ("feathers", feathers, 30),
                             ("poker-deck", poker, 23)):
        assert Counter(get_edition(name).deck) == Counter(deck)
        assert len(get_edition(name).deck) == size


# --- a player removed at each point of a round ------------------------------------------------

def test_removed_mid_bidding_their_card_leaves_the_table_and_the_turn_stays():
    """Ruling (flow.resign): the removed player's card goes to the discard pile, so it no
    longer counts; a removal off-turn does not move the turn. 5 + 10 + 3 = 18 without the 4."""
    state = make("classic", ["5", "10", "3", "4"], specials=False)
    state, _ = play(state, (0, bid(5)), (3, RESIGN))
    assert state["turn"] == 1 and state["hands"][3] is None and state["discard"] == ["4"]
    state, events = play(state, (1, bid(18)), (2, CALL))
    assert _total_and_loser(events) == (18, 2)
    assert state["starter"] == 2 and state["hands"][3] is None
    assert all(h is not None for h in state["hands"][:3])


@pytest.mark.parametrize("edition", ["classic", "feathers"])
def test_removed_bidder_whose_bid_holds_the_caller_loses_and_starts(edition):
    """Ruling (flow.showdown): "the bid stands; if it held, the caller loses"; coyote.md next
    round: classic "the loser ... starts"; feathers "the winner" is gone, so the next living
    seat after them (flow._next_starter): the caller too."""
    state = make(edition, ["5", "10", "3", "4"], specials=False)
    state, _ = play(state, (0, bid(5)), (1, bid(6)), (1, RESIGN))
    assert state["turn"] == 2 and GAME.can_call(state, 2)
    state, events = play(state, (2, CALL))
    data = showdown(events)
    assert (data["bidder"], data["total"], data["loser"]) == (1, 12, 2)
    assert lost(events) == [{"seat": 2, "lives": 2, "amount": 1}]
    assert state["starter"] == state["turn"] == 2


@pytest.mark.parametrize("edition", ["classic", "feathers"])
def test_removed_bidder_whose_bid_was_too_high_the_caller_starts(edition):
    """Ruling (flow.showdown): nobody loses a life; the removed bidder is the loser on paper,
    so the winner, the caller, starts (classic: the loser is out; feathers: the winner)."""
    state = make(edition, ["5", "10", "3", "4"], specials=False)
    state, _ = play(state, (0, bid(30)), (0, RESIGN))
    state, events = play(state, (1, CALL))
    assert showdown(events)["removed_loser"] == 0 and lost(events) == []
    assert state["starter"] == state["turn"] == 1


@pytest.mark.parametrize(("direction", "expected"), [(1, 2), (-1, 3)])
def test_removed_next_player_to_act_the_turn_moves_on_in_the_current_direction(
        direction, expected):
    """coyote.md Turn structure 3 "Play passes in the current direction"; Reverse mask."""
    state = make("classic", ["5", "10", "3", "4", "1"])
    if direction == -1:
        state, _ = play(state, (0, mask("reverse")))
    state, _ = play(state, (0, bid(5)))
    state, _ = play(state, (state["turn"], RESIGN))
    assert state["turn"] == expected


def test_removed_starter_before_any_bid_the_next_player_opens_and_may_not_call():
    """coyote.md Turn structure 2: the opener "must bid"; Coyote before any bid is refused."""
    state = make("classic", ["5", "10", "3"], specials=False)
    state, _ = play(state, (0, RESIGN))
    assert state["turn"] == 1 and not GAME.can_call(state, 1)
    rejects(state, 1, CALL, "no_bid_to_call")


def test_removal_leaving_two_players_the_round_goes_on_without_coins():
    """coyote.md Variant coins: "none may be used once only two players remain" — also from
    the middle of a round; the removed player's Extra feather leaves with them and their
    "then bid" does not pass to the next player."""
    state = make("feathers", ["5", "10", "3"], top=("7",))
    state, _ = play(state, (0, bid(2)), (1, coin("extra")))
    assert state["face_up"][1] == ["7"] and state["must_bid"]
    state, _ = play(state, (1, RESIGN))
    assert state["turn"] == 2 and GAME.can_call(state, 2)
    rejects(state, 2, coin("skip"), "coins_two_players")
    state, events = play(state, (2, CALL))
    assert _total_and_loser(events) == (8, 2)  # 5 + 3: neither the 10 nor the 7 counts


def test_removal_leaving_one_player_ends_the_game_the_last_one_wins():
    """coyote.md: "The last player with lives wins"; a removed player is placed below those
    still playing, the later-removed above the earlier (flow.resign, flow.placements)."""
    state = make("classic", ["5", "10", "3"], specials=False)
    state, _ = play(state, (0, bid(5)), (0, RESIGN))
    assert not state["over"]
    state, events = play(state, (2, RESIGN))
    assert state["over"] and GAME.current_seat(state) is None
    assert types(events)[-1] == "game_over" and GAME.placements(state) == [3, 1, 2]


def test_double_next_player_removed_the_one_who_now_follows_calls_for_two_lives():
    """coyote.md Double: "if the next player calls Coyote on this bid, the loser ... loses two
    lives"; ruling (specials): if that next player is removed, the one who now follows is
    the next player."""
    state = make("classic", ["5", "10", "3", "4"])
    state, _ = play(state, (0, bid(30, "double")), (1, RESIGN))
    state, events = play(state, (2, CALL))
    assert showdown(events)["lives_lost"] == 2
    assert lost(events) == [{"seat": 0, "lives": 1, "amount": 2}]


def test_double_bidder_removed_the_bid_stands_at_single_stakes():
    """Unwritten ruling of flow.resign (``double`` cleared): the removed doubler's bid stands
    but a caller who is wrong loses one life, not two. coyote.md says nothing of leaves."""
    state = make("classic", ["5", "10", "3", "4"])
    state, _ = play(state, (0, bid(2, "double")), (0, RESIGN))
    state, events = play(state, (1, CALL))
    assert lost(events) == [{"seat": 1, "lives": 2, "amount": 1}]


def test_pass_blocked_next_player_removed_the_one_who_follows_may_not_pass():
    """coyote.md Pass: "The next player may not Pass"; read like Double's next player: if
    the next player is removed, the one who now follows is blocked."""
    state = make("classic", ["5", "10", "3", "4"])
    state, _ = play(state, (0, bid(2)), (1, mask("pass")), (2, RESIGN))
    assert state["turn"] == 3
    rejects(state, 3, mask("pass"), "pass_blocked")


def test_draw1_target_removed_the_extra_card_no_longer_counts():
    """coyote.md Draw 1: the card "counts in the total"; ruling (flow.resign): a removed
    player's cards of the round, the Draw 1 card too, go to the discard pile."""
    state = make("classic", ["5", "10", "3", "4"], top=("20",))
    state, _ = play(state, (0, bid(2, "draw1", 3)), (3, RESIGN))
    assert state["extra"][3] == [] and Counter(state["discard"]) == Counter(["4", "20"])
    state, events = play(state, (1, CALL))
    assert _total_and_loser(events) == (18, 1)


def test_feathers_0b_of_a_removed_player_still_reshuffles_all_30():
    """Before the fix a removed player's 0b went to the discard pile at once and the round's
    end no longer reshuffled the 30 feathers. Spanish text (seeds/004): "Si se jugó una
    pluma azul con el número cero en la ronda, las 30 plumas se vuelven a barajar"; coyote.md
    Swap: a 0b no longer on the table "still triggers the reshuffle". A 0b dealt this round
    to a player who then left was played in the round too."""
    state = make("feathers", ["5", "0b", "3", "4"], specials=False)
    state, events = play(state, (0, bid(2)), (1, RESIGN), (2, CALL))
    assert "night" in [e.data["reason"] for e in events if e.type == "reshuffled"]
    assert state["discard"] == []


@pytest.mark.parametrize(("after", "expected"), [("winner", 1), ("next", 4)])
def test_removed_winner_caller_knocked_out_the_next_round_opener(after, expected):
    """coyote.md classic: "If the loser was eliminated, the winner of the showdown starts
    *(option: the next surviving player after the loser)*". Seat 0 bids with Shot on seat 3
    and leaves; the bid holds and knocks seat 3 out. Ruling (flow._next_starter): the winner
    is gone, so the next living seat after the winner opens; under "next", the one after the
    loser."""
    state = make("classic", ["5", "10", "3", "4", "1"], lives=[3, 3, 3, 1, 3])
    state["options"]["after_elimination"] = after
    state, _ = play(state, (0, bid(1, "shot", 3)), (0, RESIGN))
    state, events = play(state, (3, CALL))
    assert showdown(events)["loser"] == 3 and state["lives"][3] == 0
    assert state["starter"] == state["turn"] == expected


def test_poker_deck_removal_ends_the_game_with_the_removed_player_its_only_loser():
    """coyote.md poker-deck: "The player who takes the 4th penalty card ends the game as its
    only loser"; ruling (flow.resign): a removal counts as that penalty."""
    state = make("poker-deck", ["A", "2", "3", "4"], specials=False)
    state, events = play(state, (0, bid(3)), (2, RESIGN))
    assert state["over"] and types(events)[-1] == "game_over"
    assert GAME.placements(state) == [1, 1, 4, 1]


# --- special cards arriving or leaving through specials --------------------------------------

@pytest.mark.parametrize(("hands", "top", "bid_", "total", "loser"), [
    # classic scoring 1: a drawn night "takes effect": counts 0 (then a full reshuffle)
    (["?", "5", "4"], ("night",), 10, 9, 0),
    # a drawn max0 zeroes the single highest positive card: 15 -> 0
    (["?", "15", "3"], ("max0",), 4, 3, 0),
    # scoring 2 before 4: max0 zeroes the 20, then x2 doubles the rest, negatives included
    (["max0", "x2", "20", "-10"], (), 1, -20, 0),
    (["max0", "x2", "10", "10", "-5"], (), 10, 10, 1),
])
def test_classic_question_mark_max0_and_x2_through_the_game(hands, top, bid_, total, loser):
    """coyote.md classic scoring 1-5 in order: a `?` turning up a special, max0 with x2."""
    state = make("classic", hands, top=top, specials=False)
    state, events = play(state, (0, bid(bid_)), (1, CALL))
    assert _total_and_loser(events) == (total, loser)
    if "night" in top:
        assert "night" in [e.data["reason"] for e in events if e.type == "reshuffled"]
        assert state["discard"] == []


@pytest.mark.parametrize(("hands", "top", "total"), [
    (["5", "3", "4"], ("?", "10"), 22),      # a Draw 1 `?` turns up the next card: + 10
    (["5", "-5", "3", "5"], ("x2",), 16),    # a Draw 1 x2 doubles, the -5 too: 8 x 2
    (["10", "10", "5"], ("max0",), 15),      # a Draw 1 max0 zeroes one of the tied 10s
])
def test_classic_special_card_given_by_draw1_takes_effect(hands, top, total):
    """coyote.md Draw 1: the card "counts in the total"; classic scoring 1-4."""
    state = make("classic", hands, top=top)
    state, _ = play(state, (0, bid(1, "draw1", 1)))
    assert state["extra"][1] == [top[0]]
    state, events = play(state, (1, CALL))
    assert showdown(events)["total"] == total


@pytest.mark.parametrize(("hands", "top", "total"), [
    (["x2", "5", "3"], ("4",), 12),     # the x2 swapped away no longer doubles
    (["4", "5", "3"], ("x2",), 16),     # an x2 swapped in does: (5 + 3) x 2
    (["max0", "10", "3"], ("7",), 20),  # the max0 swapped away zeroes nothing
])
def test_feathers_swap_changes_a_blue_feather_on_the_table(hands, top, total):
    """coyote.md Swap: "the old one no longer counts"; the new feather is the player's."""
    state = make("feathers", hands, top=top)
    state, events = play(state, (0, coin("swap")), (0, bid(1)), (1, CALL))
    assert showdown(events)["total"] == total


def test_feathers_extra_feather_question_mark_turns_up_the_next_feather():
    """coyote.md Extra feather "it counts"; feathers scoring 1 "`?` — turn up the top
    feather and add it": 5 + 3 + 4 + 10."""
    state = make("feathers", ["5", "3", "4"], top=("?", "10"))
    state, events = play(state, (0, coin("extra")), (0, bid(22)), (1, CALL))
    data = showdown(events)
    assert data["drawn"] == ["10"] and (data["total"], data["loser"]) == (22, 1)


@pytest.mark.parametrize(("card", "total"), [("x2", 18), ("?", 19)])
def test_feathers_right_guess_of_a_blue_feather_it_still_takes_effect(card, total):
    """coyote.md Guess: "your feather still counts": a guessed x2 still doubles the greens
    ((5 + 3 + 1) x 2); a guessed `?` still turns up the top feather (10)."""
    state = make("feathers", [card, "5", "3", "1"], top=("10",))
    state, _ = play(state, (0, guess(card)))
    assert state["safe"][0] and state["turn"] == 1
    state, events = play(state, (1, bid(1)), (2, CALL))
    assert showdown(events)["total"] == total


@pytest.mark.parametrize(("hands", "top", "total"), [
    (["?", "10", "7"], ("max-",), -3),          # a drawn max- negates the 10
    (["?", "-5", "6"], ("x2",), 7),             # a drawn x2 doubles greens only: 12 - 5
    (["max0", "max-", "x2", "10", "7", "3", "-5"], (), -6),  # 0 - 7 + 3 x 2 - 5
])
def test_feathers_blue_feathers_in_combination_through_the_game(hands, top, total):
    """coyote.md feathers scoring 1-4, in that order."""
    state = make("feathers", hands, top=top, specials=False)
    state, events = play(state, (0, bid(1)), (1, CALL))
    assert showdown(events)["total"] == total


def test_poker_q_turns_up_k_while_j_is_on_the_table():
    """coyote.md poker-deck: a K drawn by Q "takes effect"; "Order: Q, then K, then J":
    the K removes the 5, the J doubles 4: 8 equals the bid, nobody is penalised."""
    state = make("poker-deck", ["J", "Q", "5", "4"], top=("K",), specials=False)
    state, events = play(state, (0, bid(8)), (1, CALL))
    assert _total_and_loser(events) == (8, None) and lost(events) == []
    assert state["starter"] == 1  # "on a draw, the caller"


# --- who opens after a knock-out, lives, the end of the game ----------------------------------

@pytest.mark.parametrize(("after", "bid_", "loser", "expected"), [
    ("winner", 1, 2, 1), ("next", 1, 2, 3),    # the caller is knocked out
    ("winner", 99, 1, 2), ("next", 99, 1, 2),  # the bidder is knocked out
])
def test_classic_knock_out_opener_under_each_option(after, bid_, loser, expected):
    """coyote.md classic "Next round": the loser starts; if eliminated, the winner *(option:
    the next surviving player after the loser)*."""
    state = make("classic", ["5", "10", "3", "4"], lives=[3, 1, 1, 3], turn=1,
                 specials=False)
    state["options"]["after_elimination"] = after
    state, events = play(state, (1, bid(bid_)), (2, CALL))
    assert showdown(events)["loser"] == loser and state["lives"][loser] == 0
    assert state["starter"] == state["turn"] == expected


@pytest.mark.parametrize(("bid_", "loser", "expected"), [(1, 2, 1), (99, 1, 2)])
def test_feathers_knock_out_the_winner_opens(bid_, loser, expected):
    """coyote.md feathers: "the winner of the showdown ... starts", knocked-out loser or not."""
    state = make("feathers", ["5", "10", "3", "4"], lives=[3, 1, 1, 3], turn=1,
                 specials=False)
    state, _ = play(state, (1, bid(bid_)), (2, CALL))
    assert state["lives"][loser] == 0
    assert state["starter"] == state["turn"] == expected


def test_classic_double_on_the_last_life_ends_a_two_player_game():
    """coyote.md Turn structure 5 "two under DOUBLE ... A player at 0 lives is eliminated";
    "The last player with lives wins": lives never go below 0."""
    state = make("classic", ["5", "10", None], lives=[2, 1, 0])
    state, events = play(state, (0, bid(15, "double")), (1, CALL))
    assert lost(events) == [{"seat": 1, "lives": 0, "amount": 2}]
    assert state["over"] and state["lives"] == [2, 0, 0]
    assert GAME.placements(state) == [1, 2, 3]


@pytest.mark.parametrize(("edition", "lives"), [("classic", 2), ("classic", 5),
                                                ("feathers", 5), ("poker-deck", 4)])
def test_a_player_is_out_after_exactly_their_lives(edition, lives):
    """coyote.md lives (classic 2-5), coins (feathers: 5 with 3-4 players), the 4th penalty
    card: seat 1, bidding past any total each round, is out on its ``lives``-th loss and not
    before; the poker-deck game ends then, the others go on."""
    state, _ = GAME.new_game(3, 5, {"edition": edition, "lives": lives})
    for n in range(lives):
        assert state["lives"][1] == lives - n and not state["out"]
        while state["turn"] != 1:
            state, _ = play(state, (state["turn"], bid(GAME.min_bid(state))))
        state, _ = play(state, (1, bid(1000)))
        state, events = play(state, (state["turn"], CALL))
        assert showdown(events)["loser"] == 1
    assert state["lives"][1] == 0 and state["out"] == [1]
    assert state["over"] == (edition == "poker-deck")


def test_a_removal_that_ends_the_game_leaves_no_reshuffle_due():
    """Before the fix a removal that ended the game (of three players one leaves, then the
    second, holding night) left ``reshuffle_due`` in the finished game's stored state for
    ever, for a round's end that never comes."""
    state = make("classic", ["5", "3", "night"], specials=False)
    state, _ = play(state, (0, bid(3)), (1, RESIGN), (2, RESIGN))
    assert state["over"]
    assert "reshuffle_due" not in state
