"""Koira's rules through the engine contract: every worked scenario of
``shared/rules/koira.md`` and each ruling R1–R20 (one test or more each, named after it)."""

from __future__ import annotations

import random

import pytest

from engine import GAMES
from engine.core import Action, RuleError
from engine.koira.cards import DECK
from tests.engine.koira_helpers import (
    GAME,
    act,
    deal,
    deck_for,
    phase1_end,
    phase2,
    play,
    plays,
)


def test_registered_under_its_name() -> None:
    assert GAMES["koira"].name == "koira"
    assert GAME.player_limits() == (3, 8)


@pytest.mark.parametrize("seats", [2, 9, True, "4"])
def test_player_count(seats: object) -> None:
    with pytest.raises(RuleError) as err:
        GAME.new_game(seats, 1)  # type: ignore[arg-type]
    assert err.value.code == "bad_player_count"


@pytest.mark.parametrize("options", [{"tie_split": 1}, {"min_sequence": 4},
                                     {"pickup_single": "yes"}, {"dealer": 5},
                                     {"deck": DECK[:51]}, {"deck": [*DECK[:51], "AS"]}])
def test_bad_options(options: dict) -> None:
    with pytest.raises(RuleError) as err:
        GAME.new_game(5, 1, options)
    assert err.value.code == "bad_option"


def test_deal_from_a_given_deck() -> None:
    """Card notation and dealing: one card at a time clockwise from the seat after the
    dealer; the rest in order is the stock, the next card its top; left of the dealer
    leads."""
    deck = list(DECK)
    state, _ = GAME.new_game(4, 9, {"deck": deck, "dealer": 2})
    assert state["hands"][3] == [deck[0], deck[4], deck[8]]
    assert state["hands"][0] == [deck[1], deck[5], deck[9]]
    assert state["hands"][2] == [deck[3], deck[7], deck[11]]
    assert state["stock"] == deck[12:]
    assert GAME.current_seat(state) == 3
    assert GAME.view(state, None)["trump"] is None


def test_seed_chooses_dealer_and_shuffle() -> None:
    a, _ = GAME.new_game(5, 42)
    b, _ = GAME.new_game(5, 42)
    c, _ = GAME.new_game(5, 43)
    assert a == b and a != c
    assert sorted(c for h in a["hands"] for c in h) + a["stock"] != list(DECK)


# --- the worked scenarios ------------------------------------------------------------------
def test_scenario_tie_replayed() -> None:
    """4 players: 9♣, K♦, 4♠, K♥: K♦ and K♥ tie; 3♣ vs 7♦: the K♥ player wins all 6 cards
    and leads."""
    state = deal([["9C", "2S", "2H"], ["KD", "3C", "2D"], ["4S", "3S", "3H"],
                  ["KH", "7D", "3D"]])
    for seat, card in enumerate(["9C", "KD", "4S", "KH"]):
        state, events = play(state, seat, card)
    assert events[-1] == {"type": "tie", "seats": [1, 3], "rank": 13}
    assert GAME.view(state, None)["tied"] == [1, 3]
    assert plays(state, 1) == {("2D",), ("3C",), "stock"}
    assert GAME.legal_actions(state, 0) == []
    state, _ = play(state, 1, "3C")
    state, events = play(state, 3, "7D")
    won = next(e for e in events if e["type"] == "trick_over")
    assert won["seat"] == 3 and sorted(won["cards"]) == sorted(
        ["9C", "KD", "4S", "KH", "3C", "7D"])
    assert sorted(state["piles"][3]) == sorted(won["cards"])
    assert GAME.current_seat(state) == 3


def test_scenario_tie_below_the_top_is_no_tie() -> None:
    """3 players: Q♠, 5♥, 5♦: Q♠ wins."""
    state = deal([["QS", "2S", "3S"], ["5H", "2H", "3H"], ["5D", "2D", "3D"]])
    for seat, card in enumerate(["QS", "5H", "5D"]):
        state, events = play(state, seat, card)
    assert [e for e in events if e["type"] == "tie"] == []
    assert sorted(state["piles"][0]) == sorted(["QS", "5H", "5D"])
    assert GAME.current_seat(state) == 0


def _until(seed: int, seats: int, done) -> dict:
    """Turn up the stock whenever allowed (else a random legal move) from a seeded deal until
    ``done(state)``."""
    state, _ = GAME.new_game(seats, seed)
    rng = random.Random(seed)
    while not done(state):
        assert not state["over"], "the position never came up"
        seat = GAME.current_seat(state)
        legal = GAME.legal_actions(state, seat)
        stock = [a for a in legal if a.kind == "stock"]
        state, _ = GAME.apply(state, seat, stock[0] if stock else rng.choice(legal))
    return state


def test_scenario_last_stock_card_never_played_blind() -> None:
    """The stock holds 1 card: a player may not play it blind (phase 1, R2)."""
    state = _until(3, 4, lambda s: len(s["stock"]) == 1 and not s["over"]
                   and s["phase"] == 1)
    seat = GAME.current_seat(state)
    assert "stock" not in plays(state, seat)
    assert GAME.view(state, seat)["can_stock"] is False
    with pytest.raises(RuleError) as err:
        act(state, seat, "stock")
    assert err.value.code == "stock_too_small"


def test_scenario_last_stock_card_is_trump_and_face_up() -> None:
    """The last stock card drawn is 7♥: hearts are trump; the drawer keeps 7♥ face up.
    R7: everyone knows the trump from that moment, still in phase 1."""
    deck = [c for c in DECK if c != "7H"] + ["7H"]
    state, _ = GAME.new_game(5, 2, {"deck": deck, "dealer": 0})
    rng = random.Random(2)
    events: list = []
    while state["trump"] is None:
        seat = GAME.current_seat(state)
        state, events = GAME.apply(state, seat, rng.choice(GAME.legal_actions(state, seat)))
    shown = next(e.to_json() for e in events if e.type == "trump_revealed")
    drawer = shown["seat"]
    assert shown["card"] == "7H" and shown["suit"] == "H"
    assert state["phase"] == 1 and "7H" in state["hands"][drawer]
    for seat in [None, *range(5)]:
        view = GAME.view(state, seat)
        assert view["trump"] == "H" and view["face_up"] == [drawer, "7H"]
    assert "7H" in GAME.view(state, (drawer + 1) % 5)["known"][drawer]


def test_scenario_what_beats_9_spades() -> None:
    """Trump ♥, top of the trick 9♠: 10♠…A♠ or any ♥ beats it; after 2♥ only a higher ♥."""
    hand = ["8S", "10S", "AS", "2H", "5H", "KD", "QC"]
    state = phase2([["9S", "3C"], hand, ["4D"]], trump="H", turn=1, trick=[(0, ["9S"])])
    singles = {p for p in plays(state, 1) if isinstance(p, tuple) and len(p) == 1}
    assert singles == {("10S",), ("AS",), ("2H",), ("5H",)}
    state, _ = play(state, 1, "2H")
    state2 = phase2([["9S", "3C"], ["4D"], ["3H", "AH", "KS", "3D"]], trump="H", turn=2,
                    trick=[(0, ["9S"]), (1, ["2H"])])
    assert plays(state2, 2) == {("3H",), ("AH",), "pickup"}


def test_scenario_must_pick_up_the_lowest() -> None:
    """Trump ♠, trick [6♣, 9♣]; the next player has no ♣ above 9 and no ♠: must pick up
    6♣."""
    state = phase2([["AD"], ["KD"], ["8C", "QH", "2D"]], trump="S", turn=2,
                   trick=[(0, ["6C"]), (1, ["9C"])], need=4)
    assert plays(state, 2) == {"pickup"}
    with pytest.raises(RuleError) as err:
        play(state, 2, "8C")
    assert err.value.code == "does_not_beat"
    state, events = act(state, 2, "pickup")
    assert events == [{"type": "picked_up", "seat": 2, "cards": ["6C"]}]
    assert "6C" in state["hands"][2] and state["trick"] == [[1, ["9C"], False]]
    assert GAME.current_seat(state) == 0


def test_scenario_last_two_players() -> None:
    """2 players hold cards; one plays their last card: they are out, the other is the
    koira."""
    state = phase2([["5C"], ["KD", "3S"], []], trump="S", turn=0, out=[2])
    state, events = play(state, 0, "5C")
    assert GAME.is_over(state) and GAME.current_seat(state) is None
    assert GAME.placements(state) == [2, 3, 1]
    assert events[-1]["type"] == "game_over" and events[-1]["koira"] == 1
    assert GAME.view(state, None)["koira"] == 1
    assert GAME.still_playing(state) == [1]


# --- phase-1 rulings -----------------------------------------------------------------------
def test_r1_replay_compares_only_its_round_and_ties_again() -> None:
    """R1: the replay's cards only are compared; a new tie at the top replays again among
    those players only, in play order."""
    state = deal([["KS", "5S", "4S"], ["KH", "5H", "8H"], ["KD", "3D", "QC"],
                  ["2C", "3C", "4C"]])
    for seat, card in enumerate(["KS", "KH", "KD", "2C"]):
        state, _ = play(state, seat, card)
    assert GAME.view(state, None)["tied"] == [0, 1, 2]
    state, _ = play(state, 0, "5S")
    state, _ = play(state, 1, "5H")
    state, events = play(state, 2, "3D")  # lower than 5 though Q beats both: not played
    assert events[-1] == {"type": "tie", "seats": [0, 1], "rank": 5}
    assert GAME.current_seat(state) == 0
    state, _ = play(state, 0, "4S")
    state, events = play(state, 1, "8H")
    assert next(e for e in events if e["type"] == "trick_over")["seat"] == 1
    assert len(state["piles"][1]) == 9


def test_r2_tied_player_may_replay_from_the_stock() -> None:
    """R2: a tied player may replay with the stock's top; it never enters the hand. R6: a
    player still holding 3 cards draws nothing."""
    state = deal([["KS", "2S", "3S"], ["KH", "2H", "3H"], ["4D", "2D", "3D"]],
                 stock=["AC", "5C", "6C", "7C"])
    for seat, card in enumerate(["KS", "KH", "4D"]):
        state, _ = play(state, seat, card)
    state, events = act(state, 0, "stock")
    assert events[0] == {"type": "card_played", "seat": 0, "cards": ["AC"], "phase": 1,
                         "from_stock": True}
    assert state["hands"][0] == ["2S", "3S"]
    state, events = play(state, 1, "2H")
    assert next(e for e in events if e["type"] == "trick_over")["seat"] == 0
    # seat 0 (the winner) draws first: 1 card; seat 1 needs 2; seat 2 needs 1
    assert state["hands"][0] == ["2S", "3S", "5C"]
    assert state["hands"][1] == ["3H", "6C", "7C"]


def test_r3_unbreakable_tie_is_shuffled_onto_won_piles() -> None:
    """R3: a round ends tied at the top and a tied player has no card left in hand (the
    stock does not count): the trick is shuffled and dealt one at a time to the tied players
    in play order, onto their won piles. R4: the first tied player draws first and leads."""
    state = deal([["KS", "5S", "4S"], ["KH", "5H", "4H"], ["2C", "9D", "9H"],
                  ["3C", "9C", "9S"]], stock=["AC", "AD", "AH", "2D"])
    for seat, card in enumerate(["KS", "KH", "2C", "3C"]):
        state, _ = play(state, seat, card)
    for card in ("5", "4"):
        state, _ = play(state, 0, card + "S")
        state, events = play(state, 1, card + "H")
    shared = next(e for e in events if e["type"] == "trick_shared")
    assert shared["seats"] == [0, 1] and shared["counts"] == [4, 4]
    assert "cards" not in shared  # who got which card stays hidden
    assert sorted(state["piles"][0] + state["piles"][1]) == sorted(
        ["KS", "KH", "2C", "3C", "5S", "5H", "4S", "4H"])
    assert state["hands"][0] == ["AC", "AD", "AH"]  # R4: seat 0 draws first
    assert GAME.current_seat(state) == 0
    assert GAME.view(state, 1)["known"][0] == []
    # the receiver knows how many cards it got, not which (they were shuffled unseen)
    assert GAME.view(state, 0)["pile"] == [None] * len(state["piles"][0])


def test_r4_r5_tie_split_shares_the_trick() -> None:
    """R5 ``tie_split``: no replay; tied cards back to their players' won piles; the rest
    ascending: the lowest to the trick's last player, then round the tied players. R4: the
    first tied player counts as the winner."""
    state = deal([["9C", "2S", "2H"], ["KD", "3C", "2D"], ["4S", "3S", "3H"],
                  ["KH", "7D", "3D"], ], stock=["AC", "AD"], tie_split=True)
    for seat, card in enumerate(["9C", "KD", "4S", "KH"]):
        state, events = play(state, seat, card)
    assert not any(e["type"] == "tie" for e in events)
    assert sorted(state["piles"][1]) == ["9C", "KD"]
    assert sorted(state["piles"][3]) == ["4S", "KH"]
    assert state["hands"][1] == ["3C", "2D", "AC"] and GAME.current_seat(state) == 1


def test_r5_tie_split_round_and_round() -> None:
    """R5 with more cards than tied players: 5 players, tie of seats 0 and 2, last player
    seat 4."""
    state = deal([["AS", "2S", "3S"], ["2C", "4S", "5S"], ["AH", "6S", "7S"],
                  ["3C", "8S", "9S"], ["4C", "10S", "JS"]], tie_split=True)
    for seat, card in enumerate(["AS", "2C", "AH", "3C", "4C"]):
        state, _ = play(state, seat, card)
    assert state["piles"][4] == ["2C"]
    assert sorted(state["piles"][0]) == ["3C", "AS"]
    assert sorted(state["piles"][2]) == ["4C", "AH"]


def test_r6_refill_order_after_a_replay() -> None:
    """R6: clockwise from the winner, each draws all they need before the next."""
    state = deal([["9C", "2S", "2H"], ["KD", "3C", "2D"], ["4S", "3S", "3H"],
                  ["KH", "7D", "3D"]], stock=["AC", "AD", "AH", "AS", "KC", "KS"])
    for seat, card in [(0, "9C"), (1, "KD"), (2, "4S"), (3, "KH"), (1, "3C"), (3, "7D")]:
        state, events = play(state, seat, card)
    drawn = [(e["seat"], e["count"]) for e in events if e["type"] == "cards_drawn"]
    assert drawn == [(3, 2), (0, 1), (1, 2), (2, 1)]
    assert state["hands"][3] == ["3D", "AC", "AD"]
    assert state["hands"][0] == ["2S", "2H", "AH"]
    assert state["hands"][1] == ["2D", "AS", "KC"]
    assert state["hands"][2] == ["3S", "3H", "KS"]


def _phase1_trick_starts(seed: int, seats: int):
    """Every phase-1 trick start of a random game: (state before, events, state after)."""
    state, _ = GAME.new_game(seats, seed)
    rng = random.Random(seed)
    while not state["over"] and state["phase"] == 1:
        seat = GAME.current_seat(state)
        before = state
        state, events = GAME.apply(state, seat, rng.choice(GAME.legal_actions(state, seat)))
        if any(e.type == "trick_started" and e.data["phase"] == 1 for e in events):
            yield before, events, state


def test_r8_empty_hands_sit_out_and_lead_passes() -> None:
    """R8: a player with no cards when a phase-1 trick begins sits it out; if the player due
    to lead has none, the next player clockwise with cards leads."""
    passed = 0
    for seed in range(40):
        for _, _events, state in _phase1_trick_starts(seed, 5):
            winner = state["last_winner"]
            holders = [s for s in range(5) if state["hands"][s]]
            order = [(winner + k) % 5 for k in range(5)]
            assert state["round_seats"] == [s for s in order if s in holders]
            assert GAME.current_seat(state) == state["round_seats"][0]
            passed += winner not in holders
    assert passed > 0, "no trick led past an empty hand in these games"


def test_r19_phase_1_moves() -> None:
    """R19: one card per play in phase 1; no pick-up in phase 1."""
    state = deal([["9C", "2S", "2H"], ["KD", "3C", "2D"], ["4S", "3S", "3H"]])
    with pytest.raises(RuleError) as err:
        GAME.apply(state, 0, Action("play", cards=("2S", "2H")))
    assert err.value.code == "one_card_only"
    with pytest.raises(RuleError) as err:
        act(state, 0, "pickup")
    assert err.value.code == "no_pickup_in_phase_1"
    with pytest.raises(RuleError) as err:
        play(state, 0, "KD")
    assert err.value.code == "not_in_hand"
    with pytest.raises(RuleError) as err:
        play(state, 1, "KD")
    assert err.value.code == "not_your_turn"
    assert plays(state, 0) == {("9C",), ("2S",), ("2H",), "stock"}


@pytest.mark.parametrize("action", [Action("play"), Action("play", cards=()),
                                    Action("play", cards=("ZZ",)), Action("bid", 3),
                                    Action("play", 3, cards=("9C",)),
                                    Action("stock", cards=("9C",)), Action("resign", 1)])
def test_malformed_actions(action: Action) -> None:
    state = deal([["9C", "2S", "2H"], ["KD", "3C", "2D"], ["4S", "3S", "3H"]])
    with pytest.raises(RuleError) as err:
        GAME.apply(state, 0, action)
    assert err.value.code == "bad_action"


# --- phase-2 rulings -----------------------------------------------------------------------
def test_phase_2_begins_with_won_piles() -> None:
    """Phase 2: the won piles become the hands; the last phase-1 winner leads; R9: a player
    who won nothing is still in the game with an empty hand."""
    state, _ = GAME.new_game(6, 11)
    rng = random.Random(11)
    while state["phase"] == 1:
        seat = GAME.current_seat(state)
        before = state
        state, events = GAME.apply(state, seat, rng.choice(GAME.legal_actions(state, seat)))
    assert any(e.type == "phase_changed" for e in events)
    assert sum(len(h) for h in state["hands"]) == 52
    assert all(set(pile) <= set(state["hands"][s]) for s, pile in enumerate(before["piles"]))
    assert state["piles"] == [[]] * 6 and state["stock"] == []
    assert GAME.still_playing(state) == list(range(6))
    leader = GAME.current_seat(state)
    assert leader == state["last_winner"] or not state["hands"][state["last_winner"]]
    assert GAME.progress(state)["phase"] == 2


def test_r9_trick_size_fixed_and_a_lead_may_complete_it() -> None:
    """R9: a trick is complete as soon as it holds as many cards as players in the game when
    it began (a sequence counts every card); a lead can complete it at once."""
    state = phase2([["5C", "6C", "7C", "2D"], ["KD"], ["QD"]], trump="S")
    state, events = play(state, 0, "5C", "6C", "7C")
    assert next(e for e in events if e["type"] == "trick_over")["seat"] == 0
    assert state["trick"] == [] and GAME.current_seat(state) == 0
    assert {"5C", "6C", "7C"} <= set(state["discarded"])


def test_r9_empty_hand_must_pick_up() -> None:
    """R9, R13: a player in the game with no cards can only pick up on a trick."""
    state = phase2([["5C", "2D"], [], ["QD"]], trump="S", turn=1, trick=[(0, ["5C"])])
    assert plays(state, 1) == {"pickup"}


def test_r10_sequences_and_singles_beat_each_other() -> None:
    """R10: a play beats the top when its lowest card beats the top's highest: a sequence on
    a single, a single on a sequence, any trump single on a plain sequence."""
    hand = ["10C", "JC", "QC", "KC", "9C", "3S"]
    state = phase2([["9H"], hand, ["2D"]], trump="S", turn=1, trick=[(0, ["8C"])])
    legal = plays(state, 1)
    assert ("9C", "10C", "JC", "QC", "KC") in legal and ("10C", "JC") in legal
    assert ("3S",) in legal
    state = phase2([["9H"], ["JC", "QC", "KC", "3S", "10D"], ["2D"]], trump="S", turn=1,
                   trick=[(0, ["8C", "9C", "10C"])])
    legal = plays(state, 1)
    assert ("JC",) in legal and ("JC", "QC") in legal and ("3S",) in legal
    assert ("10D",) not in legal
    state = phase2([["9H"], ["9C", "10C", "JC"], ["2D"]], trump="S", turn=1,
                   trick=[(0, ["10C"])])
    assert ("9C", "10C", "JC") not in plays(state, 1)  # its lowest, 9♣, does not beat 10♣
    trumped = phase2([["9H"], ["4S", "5S", "AH"], ["2D"]], trump="S", turn=1,
                     trick=[(0, ["2S", "3S"])])
    assert plays(trumped, 1) == {("4S",), ("5S",), ("4S", "5S"), "pickup"}


def test_r11_pick_up_takes_the_bottom_play_whole() -> None:
    """R11: the "lowest" play is the earliest still lying in the trick; a sequence is
    picked up whole."""
    state = phase2([["AD"], ["2C"], ["KD", "3H"], ["4H"]], trump="S", turn=2,
                   trick=[(0, ["5C", "6C"]), (1, ["7C"])], need=5)
    state, events = act(state, 2, "pickup")
    assert events[0]["cards"] == ["5C", "6C"]
    assert state["trick"] == [[1, ["7C"], False]]


def test_r12_after_a_pick_up_the_next_player_acts() -> None:
    """R12: after a pick-up the next player clockwise still in the game must beat the new
    top or pick up; if the trick is empty, they lead a new trick."""
    state = phase2([["AD"], ["3C", "4H"], ["KD", "3H"], ["4D"]], trump="S", turn=2,
                   trick=[(0, ["5C"]), (1, ["7C"])], out=[3], need=4)
    state, _ = act(state, 2, "pickup")
    assert GAME.current_seat(state) == 0 and plays(state, 0) == {"pickup"}
    state, events = act(state, 0, "pickup")
    assert events[-1]["type"] == "trick_started" and events[-1]["leader"] == 1
    assert state["trick"] == [] and state["need"] == 3
    assert plays(state, 1) == {("3C",), ("4H",)}  # a lead: no pick-up


def test_r13_lead_skips_empty_hands() -> None:
    """R13: a pick-up empties the trick; the next player holds no card, so the one after
    them leads."""
    state = phase2([["5C", "6D"], [], ["3H", "4C"]], trump="S", turn=2, trick=[(0, ["9H"])],
                   need=3)
    state, events = act(state, 2, "pickup")
    assert events[-1] == {"type": "trick_started", "phase": 2, "trick": 21, "leader": 0}
    assert GAME.current_seat(state) == 0


def test_r14_out_at_once_mid_trick() -> None:
    """R14: emptying the hand puts the player out at once, even mid-trick; their cards stay
    in the trick (and may be picked up); turns skip them."""
    state = phase2([["5C", "2D"], ["9C"], ["3H", "4H"], ["6H"]], trump="S", turn=1,
                   trick=[(0, ["8C"])])
    state, events = play(state, 1, "9C")
    assert {"type": "player_out", "seat": 1, "place": 1} in events
    assert state["trick"][-1] == [1, ["9C"], False]
    assert GAME.current_seat(state) == 2 and not GAME.view(state, None)["in_game"][1]
    state, _ = act(state, 2, "pickup")
    assert "8C" in state["hands"][2] and GAME.current_seat(state) == 3
    assert plays(state, 3) == {"pickup"}
    state, _ = act(state, 3, "pickup")
    assert GAME.current_seat(state) == 0 and state["trick"] == []  # the leader after 3


def test_r15_trick_won_by_a_player_going_out() -> None:
    """R15: a complete trick leaves the game even if its winner went out with that play; the
    next player clockwise still in the game leads."""
    state = phase2([["5C", "2D"], ["KD"], ["9C"]], trump="S", turn=2,
                   trick=[(0, ["7C"]), (1, ["8C"])], need=3)
    state, events = play(state, 2, "9C")
    assert [e["type"] for e in events] == ["card_played", "player_out", "trick_over",
                                           "trick_started"]
    assert {"7C", "8C", "9C"} <= set(state["discarded"]) and state["trick"] == []
    assert GAME.current_seat(state) == 0 and state["need"] == 2


def test_r16_nobody_left_holding_cards() -> None:
    """R16 corner: no player in the game holds a card: they are placed clockwise from the
    seat after the last player who went out; the last of them is the koira."""
    state = phase2([[], ["5C", "6C"], [], []], trump="S", turn=1, out=[], need=2)
    state, events = play(state, 1, "5C", "6C")
    assert GAME.is_over(state)
    assert GAME.placements(state) == [4, 1, 2, 3]
    assert events[-1]["koira"] == 0


def test_r17_trump_ends_trick() -> None:
    """R17 ``trump_ends_trick``: a trump on a trick not led with trump ends it at once, won
    by that player who leads next; only sequences starting with a 2 are valid."""
    options = {"trump_ends_trick": True}
    state = phase2([["5C", "2D"], ["3S", "KH"], ["9H", "4C"], ["6H"]], trump="S", turn=1,
                   trick=[(0, ["8C"])], need=4, **options)
    state, events = play(state, 1, "3S")
    assert next(e for e in events if e["type"] == "trick_over")["seat"] == 1
    assert GAME.current_seat(state) == 1 and state["trick"] == []
    led = phase2([["5S", "2D"], ["7S", "KH"], ["9H", "4C"], ["6H"]], trump="S", turn=1,
                 trick=[(0, ["4S"])], need=4, **options)
    led, events = play(led, 1, "7S")
    assert not any(e["type"] == "trick_over" for e in events) and GAME.current_seat(led) == 2
    seqs = phase2([["2C", "3C", "4C", "6C", "7C"], ["KH"], ["9H"]], trump="S", **options)
    assert {p for p in plays(seqs, 0) if len(p) > 1} == {("2C", "3C"), ("2C", "3C", "4C")}
    with pytest.raises(RuleError) as err:
        play(seqs, 0, "6C", "7C")
    assert err.value.code == "bad_sequence"


def test_r18_pickup_single() -> None:
    """R18 ``pickup_single``: only the lowest card of the bottom play is picked up; the rest
    of that sequence stays in the trick and still counts."""
    state = phase2([["9C", "AD"], ["2C"], ["KD", "3H"], ["8C", "4H"]], trump="S", turn=2,
                   trick=[(0, ["5C", "6C"]), (1, ["7C"])], need=4, pickup_single=True)
    state, events = act(state, 2, "pickup")
    assert events[0]["cards"] == ["5C"]
    assert state["trick"] == [[0, ["6C"], False], [1, ["7C"], False]]
    state, events = play(state, 3, "8C")  # 6♣ 7♣ 8♣: 3 of the 4 cards
    assert not any(e["type"] == "trick_over" for e in events)
    state, events = play(state, 0, "9C")
    assert next(e for e in events if e["type"] == "trick_over")["seat"] == 0


def test_r19_phase_2_moves() -> None:
    """R19: no stock play in phase 2; a leader cannot pick up."""
    state = phase2([["5C", "2D"], ["KD"], ["9C"]], trump="S")
    with pytest.raises(RuleError) as err:
        act(state, 0, "stock")
    assert err.value.code == "no_stock_in_phase_2"
    with pytest.raises(RuleError) as err:
        act(state, 0, "pickup")
    assert err.value.code == "nothing_to_pick_up"
    with pytest.raises(RuleError) as err:
        play(state, 0, "2D", "5C")
    assert err.value.code == "bad_sequence"


def test_r20_aces_high_only() -> None:
    """R20: K-A is a sequence, A-2 is not; ``min_sequence`` 3 drops the pairs."""
    state = phase2([["KS", "AS", "2S", "3S"], ["KD"], ["9C"]], trump="H")
    assert {p for p in plays(state, 0) if len(p) > 1} == {("KS", "AS"), ("2S", "3S")}
    with pytest.raises(RuleError):
        play(state, 0, "AS", "2S")
    three = phase2([["KS", "AS", "QS", "3S"], ["KD"], ["9C"]], trump="H", min_sequence=3)
    assert {p for p in plays(three, 0) if len(p) > 1} == {("QS", "KS", "AS")}


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


def test_deck_for_helper() -> None:
    assert len(set(deck_for([["AS", "KS", "QS"]] * 1))) == 52


def test_legal_actions_are_exactly_what_apply_accepts() -> None:
    """``legal_actions`` lists exactly the legal actions: every card of the deck, every
    combination of hand cards (lowest first, and a pair reversed), the stock and a pick-up
    are tried on positions of random games; apply accepts just the listed ones."""
    from itertools import combinations

    from engine.koira.cards import sort_key

    checked = 0
    for seed in range(8):
        options = {"min_sequence": 2 + seed % 2, "trump_ends_trick": seed % 3 == 0,
                   "pickup_single": seed % 2 == 0}
        state, _ = GAME.new_game(3 + seed % 4, seed, options)
        rng = random.Random(seed)
        step = 0
        while not state["over"]:
            seat = GAME.current_seat(state)
            legal = GAME.legal_actions(state, seat)
            hand = sorted(state["hands"][seat], key=sort_key)
            if step % 5 == 0 and len(hand) <= 9:
                candidates = [Action("stock"), Action("pickup")]
                candidates += [Action("play", cards=(c,)) for c in DECK]
                for size in range(2, len(hand) + 1):
                    candidates += [Action("play", cards=combo)
                                   for combo in combinations(hand, size)]
                candidates += [Action("play", cards=pair[::-1])
                               for pair in combinations(hand, 2)]
                accepted = []
                for action in candidates:
                    try:
                        GAME.apply(state, seat, action)
                    except RuleError:
                        continue
                    accepted.append(action)
                assert sorted(map(repr, accepted)) == sorted(map(repr, legal))
                checked += 1
            state, _ = GAME.apply(state, seat, rng.choice(legal))
            step += 1
    assert checked > 100
