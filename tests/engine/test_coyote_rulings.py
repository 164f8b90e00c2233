"""The Coyote engine against ``shared/rules/coyote.md``, to the letter (a rules lawyer's review).

Every worked scenario of the rules file is played through ``CoyoteGame.apply`` (not only
through ``score``): the cards are dealt in seat order, seat 0 makes the last bid, seat 1 calls
Coyote, and the showdown's total, loser and lives are checked against the table. The other
tests check the numbered turn structure, each edition's next-starter, elimination and end of
game rules, lives options, each mask's and coin's limits, and that ``view`` never shows a
player their own card. A failing test marks a departure from the rules text.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from engine.core import Action, RuleError
from engine.coyote import CoyoteGame, get_edition
from tests.engine.test_coyote_game import play

GAME = CoyoteGame()
CALL = Action("call")


# --- helpers ----------------------------------------------------------------------------------

def make(edition: str, hands: list[str | None], *, top: tuple[str, ...] = (), turn: int = 0,
         lives: list[int] | None = None, options: dict | None = None,
         specials: bool = False, seed: int = 11) -> dict:
    """A state with the given hands (seat order) and ``top`` on top of the draw pile; the rest
    of the deck lies below it, sorted. A ``0`` in ``lives`` is an eliminated seat (hand None)."""
    seats = len(hands)
    opts = {"edition": edition, **(options or {})}
    if specials:
        opts["specials"] = True
    state = GAME.new_state(seats, seed, opts)
    deck = Counter(get_edition(edition).deck)
    deck.subtract(Counter(c for c in hands if c is not None))
    deck.subtract(Counter(top))
    assert all(v >= 0 for v in deck.values()), "hands/top use more cards than the deck has"
    state["hands"] = list(hands)
    state["draw"] = list(top) + sorted(deck.elements())
    state["discard"] = []
    if lives is not None:
        state["lives"] = list(lives)
        state["out"] = [s for s in range(seats) if lives[s] == 0]
        state["masks"] = [bool(m) and lives[s] > 0 for s, m in enumerate(state["masks"])]
    state["turn"] = turn
    state["starter"] = turn
    state["bids"] = []
    return state


def bid(n, special: str | None = None, target: int | None = None) -> Action:
    return Action("bid", n, special=special, target=target)


def special(name: str, guess: str | None = None) -> Action:
    return Action("special", special=name, guess=guess)


def showdown(events) -> dict:
    [ev] = [e for e in events if e.type == "showdown"]
    return ev.data


def lives_lost(events) -> dict[int, int]:
    return {e.data["seat"]: e.data["amount"] for e in events if e.type == "life_lost"}


def rule_error(state: dict, seat: int, action: Action) -> str:
    with pytest.raises(RuleError) as exc:
        GAME.apply(state, seat, action)
    return exc.value.code


def all_cards(state: dict) -> Counter:
    cards = [c for c in state["hands"] if c is not None]
    for key in ("extra", "face_up", "void"):
        for pile in state[key]:
            cards += pile
    return Counter(cards + state["draw"] + state["discard"])


# --- worked scenarios, played through apply ---------------------------------------------------

CLASSIC_SCENARIOS = [
    # cards, top, last bid, total, loser ("caller" / "bidder")
    (["5", "10", "3"], (), 18, 18, "caller"),
    (["5", "10", "3"], (), 19, 18, "bidder"),
    (["x2", "-5", "2"], (), 1, -6, "bidder"),
    (["max0", "10", "10", "5"], (), 15, 15, "caller"),
    (["max0", "-5", "-10"], (), 1, -15, "bidder"),
    (["?", "4", "5"], ("10",), 19, 19, "caller"),
    (["?", "max0", "15", "3"], ("20",), 18, 18, "caller"),
    (["?", "5", "5"], ("x2",), 20, 20, "caller"),
    (["night", "5", "4"], (), 10, 9, "bidder"),
    (["10", "5", "max0", "x2", "?"], ("4",), 18, 18, "caller"),
]
FEATHER_SCENARIOS = [
    (["x2", "5", "3", "-5"], (), 12, 11, "bidder"),
    (["max-", "10", "7"], (), 1, -3, "bidder"),
    (["?", "x2", "4", "-10"], ("6",), 10, 10, "caller"),
]
POKER_SCENARIOS = [
    (["A", "5", "3"], 9, 9, None),
    (["K", "5", "5", "3"], 7, 8, "caller"),
    (["J", "K", "5", "4", "2"], 12, 12, None),
]


def _scenario_id(s) -> str:
    return ",".join(s[0]) + (f"|top={s[1][0]}" if len(s) == 5 and s[1] else "") + \
        f"|bid={s[-3]}"


def _play_scenario(edition: str, cards: list[str], top: tuple[str, ...], last_bid: int):
    state = make(edition, cards, top=top, turn=0)
    before = list(state["lives"])
    new, events = play(state, (0, bid(last_bid)), (1, CALL))
    return state, before, new, events


@pytest.mark.parametrize(("cards", "top", "last_bid", "total", "loser"), CLASSIC_SCENARIOS,
                         ids=[_scenario_id(s) for s in CLASSIC_SCENARIOS])
def test_classic_worked_scenario(cards, top, last_bid, total, loser):
    _, before, new, events = _play_scenario("classic", cards, top, last_bid)
    data = showdown(events)
    assert data["total"] == total
    seat = {"caller": 1, "bidder": 0}[loser]
    assert data["loser"] == seat
    assert lives_lost(events) == {seat: 1}
    assert new["lives"][seat] == before[seat] - 1
    # "Next round: the loser of the showdown starts."
    assert new["starter"] == seat and new["turn"] == seat
    assert sum(all_cards(new).values()) == 36


def test_classic_worked_scenario_night_reshuffles_everything_before_next_deal():
    """``night, 5, 4 | bid 10 | total 9 | bidder; full reshuffle before the next deal``."""
    state = make("classic", ["night", "5", "4"], turn=0)
    new, events = play(state, (0, bid(10)), (1, CALL))
    assert showdown(events)["total"] == 9
    assert showdown(events)["loser"] == 0
    reasons = [e.data["reason"] for e in events if e.type == "reshuffled"]
    assert "night" in reasons
    # every card (table and old discards) went back before the deal: nothing left discarded
    assert new["discard"] == []
    assert all_cards(new) == Counter(get_edition("classic").deck)


def test_classic_without_night_used_cards_go_to_discard():
    """Turn structure 6: "Used cards go to the discard pile"."""
    state = make("classic", ["5", "10", "3"], turn=0)
    new, _ = play(state, (0, bid(18)), (1, CALL))
    assert Counter(new["discard"]) == Counter(["5", "10", "3"])


@pytest.mark.parametrize(("cards", "top", "last_bid", "total", "loser"), FEATHER_SCENARIOS,
                         ids=[_scenario_id(s) for s in FEATHER_SCENARIOS])
def test_feathers_worked_scenario(cards, top, last_bid, total, loser):
    _, before, new, events = _play_scenario("feathers", cards, top, last_bid)
    data = showdown(events)
    assert data["total"] == total
    seat = {"caller": 1, "bidder": 0}[loser]
    assert data["loser"] == seat
    assert lives_lost(events) == {seat: 1}
    # feathers: "the winner of the showdown ... starts"
    winner = 1 - seat
    assert new["starter"] == winner and new["turn"] == winner


@pytest.mark.parametrize(("cards", "last_bid", "total", "result"), POKER_SCENARIOS,
                         ids=[",".join(s[0]) + f"|bid={s[1]}" for s in POKER_SCENARIOS])
def test_poker_deck_worked_scenario(cards, last_bid, total, result):
    _, before, new, events = _play_scenario("poker-deck", cards, (), last_bid)
    data = showdown(events)
    assert data["total"] == total
    if result is None:
        # "total equal to the bid: nobody is penalised and a new round is dealt"
        assert data["loser"] is None
        assert lives_lost(events) == {}
        assert new["lives"] == before
        assert not new["over"] and new["round"] == 2
        assert new["starter"] == 1  # "on a draw, the caller"
    else:
        seat = {"caller": 1, "bidder": 0}[result]
        assert data["loser"] == seat
        assert lives_lost(events) == {seat: 1}
        assert new["starter"] == seat  # "the penalised player starts"


def test_poker_q_draw_becomes_k_and_takes_effect():
    """"a J or K drawn this way takes effect"; order Q, then K, then J."""
    state = make("poker-deck", ["Q", "5", "3"], top=("K",), turn=0)
    _, events = play(state, (0, bid(3)), (1, CALL))
    assert showdown(events)["total"] == 3  # K removes the 5


def test_poker_q_draws_j_doubles_after_k():
    state = make("poker-deck", ["Q", "K", "5", "4"], top=("J",), turn=0)
    _, events = play(state, (0, bid(8)), (1, CALL))
    assert showdown(events)["total"] == 8  # K removes 5, J doubles 4


def test_poker_total_above_bid_caller_penalised_below_bidder():
    state = make("poker-deck", ["A", "2", "3"], turn=0)
    _, events = play(state, (0, bid(5)), (1, CALL))
    assert showdown(events)["loser"] == 1
    _, events = play(state, (0, bid(7)), (1, CALL))
    assert showdown(events)["loser"] == 0


def test_poker_all_23_cards_reshuffled_every_round():
    state = make("poker-deck", ["A", "2", "3"], turn=0)
    new, events = play(state, (0, bid(5)), (1, CALL))
    assert new["discard"] == []
    assert len(new["draw"]) == 23 - 3


# --- turn structure ---------------------------------------------------------------------------

@pytest.mark.parametrize("action", [Action("bid", 0), Action("bid", -3), Action("bid", 1.5),
                                    Action("bid", True), CALL])
def test_opening_must_be_a_whole_bid_of_at_least_one(action):
    state = make("classic", ["5", "10", "3"], turn=0)
    with pytest.raises(RuleError):
        GAME.apply(state, 0, action)


def test_bids_strictly_increase_and_own_bid_cannot_be_called():
    state = make("classic", ["5", "10", "3"], turn=0)
    state, _ = play(state, (0, bid(5)))
    assert rule_error(state, 1, bid(5)) == "bid_too_low"
    state, _ = play(state, (1, bid(6)))
    assert state["turn"] == 2  # clockwise = seat order


def test_the_only_maximum_bid_is_the_house_limit():
    """Turn structure 2: "There is no maximum bid." The house limit (``MAX_BID``, 11 digits:
    a chat button's data carries at most 12) is far past any bid a table makes, and the
    README says so; at it, the next player may only call."""
    from engine.coyote.editions import MAX_BID

    state = make("classic", ["5", "10", "3"], turn=0)
    new, _ = GAME.apply(state, 0, bid(MAX_BID))
    assert new["bids"][-1] == [0, MAX_BID]
    with pytest.raises(RuleError, match="bid_too_high"):
        GAME.apply(state, 0, bid(MAX_BID + 1))


def test_showdown_deals_only_survivors_and_eliminates_at_zero():
    state = make("classic", ["5", "10", "3"], turn=0, lives=[3, 1, 3])
    new, events = play(state, (0, bid(18)), (1, CALL))  # caller 1 loses, at 0 lives
    assert new["lives"] == [3, 0, 3]
    assert new["out"] == [1]
    assert new["hands"][1] is None
    assert any(e.type == "player_eliminated" and e.data["seat"] == 1 for e in events)


def test_deal_reshuffles_discard_when_draw_pile_short():
    state = make("classic", ["5", "10", "3"], turn=0)
    rest = state["draw"]
    state["draw"], state["discard"] = rest[:2], rest[2:]
    new, events = play(state, (0, bid(18)), (1, CALL))
    assert any(e.type == "reshuffled" for e in events)
    assert all(h is not None for h in new["hands"])
    assert all_cards(new) == Counter(get_edition("classic").deck)


def test_question_mark_with_empty_draw_pile_shuffles_discard_first():
    """Classic scoring 1: "If the draw pile is empty, shuffle the discard pile into it first"."""
    state = make("classic", ["?", "4", "5"], turn=0)
    state["draw"], state["discard"] = [], ["10"]  # one discarded card: the draw is known
    _, events = play(state, (0, bid(19)), (1, CALL))
    assert showdown(events)["total"] == 19
    assert showdown(events)["loser"] == 1


def test_question_mark_with_both_piles_empty_counts_zero():
    state = make("classic", ["?", "4", "5"], turn=0)
    state["draw"], state["discard"] = [], []
    _, events = play(state, (0, bid(9)), (1, CALL))
    assert showdown(events)["total"] == 9
    assert showdown(events)["loser"] == 1


# --- next starter, elimination, end of game ---------------------------------------------------

def test_classic_eliminated_loser_winner_starts():
    state = make("classic", ["5", "10", "3", "1"], turn=2, lives=[3, 3, 1, 3])
    # seat 2 bids 100, seat 3 calls: bidder 2 loses its last life; winner 3 starts
    new, _ = play(state, (2, bid(100)), (3, CALL))
    assert new["lives"][2] == 0
    assert new["starter"] == 3 and new["turn"] == 3


def test_classic_eliminated_loser_option_next_surviving_player_after_loser():
    """"If the loser was eliminated, the winner of the showdown starts *(option: the next
    surviving player after the loser)*"."""
    state = make("classic", ["5", "10", "3", "1"], turn=2, lives=[3, 3, 3, 1],
                 options={"after_elimination": "next"})
    new, _ = play(state, (2, bid(1)), (3, CALL))  # the bid holds: caller 3 loses its last life
    assert new["lives"][3] == 0
    assert new["starter"] == 0  # after seat 3 comes seat 0, not the winner (seat 2)


def test_classic_double_eliminates_caller_winner_starts():
    state = make("classic", ["5", "10", "3", "1"], turn=0, lives=[3, 2, 3, 3], specials=True)
    new, events = play(state, (0, bid(2, "double")), (1, CALL))
    assert lives_lost(events) == {1: 2}
    assert new["lives"][1] == 0 and new["out"] == [1]
    assert new["starter"] == 0


def test_feathers_more_lives_limits_players():
    assert GAME.player_limits({"edition": "feathers", "lives": 4}) == (3, 4)
    assert GAME.player_limits({"edition": "classic", "lives": 5}) == (3, 10)


def test_feathers_winner_starts_even_if_caller_lost():
    state = make("feathers", ["5", "10", "3"], turn=0)
    new, _ = play(state, (0, bid(18)), (1, CALL))  # 18 == 18: caller 1 loses
    assert new["starter"] == 0


def test_classic_last_player_with_lives_wins_and_placements():
    state = make("classic", ["5", "10", "3"], turn=0, lives=[1, 1, 1])
    state, _ = play(state, (0, bid(100)), (1, CALL))  # seat 0 out first
    assert state["out"] == [0]
    assert not state["over"]
    s = state["turn"]
    assert s == 1  # the winner starts after the loser's elimination
    state["hands"] = [None, "5", "5"]
    state, events = play(state, (1, bid(1)), (2, CALL))  # caller 2 loses, out
    assert state["over"]
    assert GAME.placements(state) == [3, 1, 2]
    assert any(e.type == "game_over" for e in events)


def test_poker_fourth_penalty_ends_game_with_one_loser():
    state = make("poker-deck", ["A", "2", "3", "4"], turn=0, lives=[4, 1, 4, 4])
    new, _ = play(state, (0, bid(1)), (1, CALL))  # total 10 > 1: caller 1 takes the 4th
    assert new["over"]
    assert GAME.placements(new) == [1, 4, 1, 1]


def test_poker_only_four_penalties():
    assert GAME.new_state(3, 1, {"edition": "poker-deck"})["lives"] == [4, 4, 4]
    for lives in (3, 5):
        with pytest.raises(RuleError):
            GAME.new_state(3, 1, {"edition": "poker-deck", "lives": lives})


@pytest.mark.parametrize(("edition", "seats", "lives", "ok"), [
    ("classic", 3, 2, True), ("classic", 10, 5, True), ("classic", 3, 1, False),
    ("classic", 3, 6, False), ("classic", 3, None, True),
    ("feathers", 4, 4, True), ("feathers", 4, 5, True), ("feathers", 5, 4, False),
    ("feathers", 10, 5, False), ("feathers", 3, 2, False), ("feathers", 10, 3, True),
])
def test_lives_ranges_and_more_lives_player_limit(edition, seats, lives, ok):
    opts = {"edition": edition} if lives is None else {"edition": edition, "lives": lives}
    if ok:
        state = GAME.new_state(seats, 1, opts)
        assert state["lives"] == [lives or 3] * seats
    else:
        with pytest.raises(RuleError):
            GAME.new_state(seats, 1, opts)


@pytest.mark.parametrize(("edition", "low", "high"), [
    ("classic", 3, 10), ("feathers", 3, 10), ("poker-deck", 3, 8)])
def test_player_counts(edition, low, high):
    assert GAME.player_limits({"edition": edition}) == (low, high)


# --- masks ------------------------------------------------------------------------------------

def test_double_called_by_next_player_costs_two_lives():
    state = make("classic", ["5", "10", "3"], turn=0, specials=True)
    _, events = play(state, (0, bid(30, "double")), (1, CALL))
    assert lives_lost(events) == {0: 2}
    _, events = play(state, (0, bid(2, "double")), (1, CALL))
    assert lives_lost(events) == {1: 2}


def test_double_void_if_next_player_bids():
    state = make("classic", ["5", "10", "3"], turn=0, specials=True)
    _, events = play(state, (0, bid(2, "double")), (1, bid(30)), (2, CALL))
    assert lives_lost(events) == {1: 1}


def test_one_mask_per_player_per_round_and_it_comes_back():
    state = make("classic", ["5", "10", "3"], turn=0, specials=True)
    state, _ = play(state, (0, bid(2, "double")), (1, bid(3)), (2, bid(4)))
    assert rule_error(state, 0, special("reverse")) == "mask_used"
    state, _ = play(state, (0, bid(5)), (1, CALL))
    assert state["masks"] == [True, True, True]


def test_pass_then_next_may_not_pass():
    state = make("classic", ["5", "10", "3"], turn=0, specials=True)
    state, _ = play(state, (0, bid(2)), (1, special("pass")))
    assert state["turn"] == 2
    assert rule_error(state, 2, special("pass")) == "pass_blocked"


def test_reverse_then_bid_or_call():
    state = make("classic", ["5", "10", "3", "1"], turn=0, specials=True)
    state, _ = play(state, (0, bid(2)), (1, special("reverse")))
    assert state["turn"] == 1
    state, _ = play(state, (1, bid(3)))
    assert state["turn"] == 0


def test_draw1_one_per_round_counts_and_hidden_from_holder():
    state = make("classic", ["5", "10", "3", "1"], top=("4",), turn=0, specials=True)
    state, _ = play(state, (0, bid(2, "draw1", 2)))
    assert state["extra"][2] == ["4"]
    assert GAME.view(state, 2)["extra"][2] == [None]
    assert GAME.view(state, 0)["extra"][2] == ["4"]
    assert rule_error(state, 1, bid(3, "draw1", 0)) == "draw1_used"
    _, events = play(state, (1, CALL))
    assert showdown(events)["total"] == 23


def test_change_previous_player_rebids_higher_then_turn_returns():
    state = make("classic", ["5", "10", "3", "1"], turn=0, specials=True)
    state, _ = play(state, (0, bid(2)), (1, bid(5)), (2, special("change")))
    assert state["turn"] == 1
    assert rule_error(state, 1, bid(5)) == "bid_too_low"
    state, _ = play(state, (1, bid(7)))
    assert state["bids"][-1] == [1, 7]
    assert state["turn"] == 2


def test_change_answer_may_call_bid_before_theirs():
    state = make("classic", ["5", "10", "3", "1"], turn=0, specials=True)
    state, _ = play(state, (0, bid(30)), (1, bid(31)), (2, special("change")))
    _, events = play(state, (1, CALL))
    data = showdown(events)
    assert data["bid"] == 30 and data["bidder"] == 0 and data["loser"] == 0


def test_shot_chooses_next_then_current_direction():
    state = make("classic", ["5", "10", "3", "1", "2"], turn=0, specials=True)
    state, _ = play(state, (0, bid(2, "shot", 3)))
    assert state["turn"] == 3
    state, _ = play(state, (3, bid(3)))
    assert state["turn"] == 4


# --- coins ------------------------------------------------------------------------------------

def test_each_coin_once_per_round_shared_and_back_next_round():
    state = make("feathers", ["5", "10", "3", "1"], turn=0, specials=True)
    state, _ = play(state, (0, bid(2)), (1, special("skip")))
    assert rule_error(state, 2, special("skip")) == "coin_used"
    state, _ = play(state, (2, bid(3)), (3, CALL))
    assert sorted(state["coins"]) == sorted(["extra", "reverse", "skip", "swap", "guess"])


def test_no_coins_with_two_players_left():
    state = make("feathers", ["5", "10", None], turn=0, specials=True, lives=[3, 3, 0])
    assert rule_error(state, 0, special("skip")) == "coins_two_players"


def test_extra_feather_counts_and_is_seen_by_all():
    state = make("feathers", ["5", "10", "3"], top=("7",), turn=0, specials=True)
    state, _ = play(state, (0, special("extra")))
    assert GAME.view(state, 0)["face_up"][0] == ["7"]
    assert rule_error(state, 0, CALL) in ("must_bid", "no_bid_to_call")
    _, events = play(state, (0, bid(25)), (1, CALL))
    assert showdown(events)["total"] == 25


def test_swap_old_feather_does_not_count_but_0b_still_reshuffles():
    state = make("feathers", ["0b", "10", "3"], top=("7",), turn=0, specials=True)
    state, _ = play(state, (0, special("swap")))
    assert state["hands"][0] == "7"
    assert GAME.view(state, 0)["cards"][0] is None
    new, events = play(state, (0, bid(20)), (1, CALL))
    assert showdown(events)["total"] == 20
    assert any(e.type == "reshuffled" for e in events)
    assert new["discard"] == []


def test_guess_right_safe_skipped_still_counts():
    state = make("feathers", ["5", "10", "3", "1"], turn=0, specials=True)
    state, _ = play(state, (0, special("guess", "5")))
    assert state["safe"][0]
    state, _ = play(state, (1, bid(10)), (2, bid(11)), (3, bid(12)))
    assert state["turn"] == 1  # seat 0 skipped
    _, events = play(state, (1, CALL))
    assert showdown(events)["total"] == 19


def test_guess_wrong_loses_life_round_ends_guesser_starts():
    state = make("feathers", ["5", "10", "3", "1"], turn=0, specials=True)
    state, _ = play(state, (0, bid(4)), (1, special("guess", "7")))
    assert state["lives"][1] == 2
    assert state["round"] == 2
    assert state["starter"] == 1 and state["turn"] == 1


# --- view never shows a player their own card -------------------------------------------------

def _check_views(state: dict) -> None:
    for seat in range(state["seats"]):
        v = GAME.view(state, seat)
        if not state["revealed"][seat]:
            assert v["cards"][seat] is None
        assert all(c is None for c in v["extra"][seat])
        assert all(c is None for c in v["void"][seat])
        assert "draw" not in v and "hands" not in v
    pub = GAME.view(state, None)
    assert all(c is None or state["revealed"][s] for s, c in enumerate(pub["cards"]))


@pytest.mark.parametrize(("edition", "specials", "seed"), [
    ("classic", True, 1), ("classic", False, 2), ("feathers", True, 3), ("feathers", True, 4),
    ("poker-deck", False, 5),
])
def test_view_never_shows_own_card_random_play(edition, specials, seed):
    rng = random.Random(seed)
    opts = {"edition": edition}
    if specials:
        opts["specials"] = True
    state = GAME.new_state(5, seed, opts)
    for _ in range(150):
        if state["over"]:
            break
        _check_views(state)
        seat = state["turn"]
        actions = GAME.legal_actions(state, seat)
        calls = [a for a in actions if a.kind == "call"]
        pick = calls[0] if calls and rng.random() < 0.35 else rng.choice(actions)
        state, _ = GAME.apply(state, seat, pick)
    _check_views(state)
