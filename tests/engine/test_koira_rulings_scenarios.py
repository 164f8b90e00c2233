"""Koira to the letter: every worked scenario of ``shared/rules/koira.md``, set up exactly."""

from __future__ import annotations

from tests.engine.koira_helpers import GAME, act, deal, phase2, play, plays
from tests.engine.koira_rulings_helpers import _of, _raises, _singles, _with_stock


def test_scenario_1_kings_tie_replay_3c_vs_7d() -> None:
    """| 4 players, phase 1: 9♣, K♦, 4♠, K♥ | K♦ and K♥ tie: those two play again, 3♣ vs 7♦ →
    the K♥ player wins all 6 cards and leads |"""
    state = deal([["9C", "2S", "2H"], ["KD", "3C", "5S"], ["4S", "3S", "3H"],
                  ["KH", "7D", "4D"]])
    for seat, card in enumerate(["9C", "KD", "4S", "KH"]):
        state, events = play(state, seat, card)
    assert _of(events, "tie") == [{"type": "tie", "seats": [1, 3], "rank": 13}]
    assert not _of(events, "trick_over")
    # only the two tied players play again, in play order (K♦ player first)
    assert GAME.current_seat(state) == 1
    assert GAME.legal_actions(state, 0) == [] and GAME.legal_actions(state, 2) == []
    _raises("not_your_turn", play, state, 3, "7D")
    _raises("not_your_turn", play, state, 0, "2S")
    state, _ = play(state, 1, "3C")
    state, events = play(state, 3, "7D")
    won = _of(events, "trick_over")
    assert len(won) == 1 and won[0]["seat"] == 3
    six = ["9C", "KD", "4S", "KH", "3C", "7D"]
    assert sorted(won[0]["cards"]) == sorted(six)
    assert sorted(state["piles"][3]) == sorted(six)          # face down before the winner
    assert state["piles"][0] == state["piles"][1] == state["piles"][2] == []
    assert not set(six) & {c for h in state["hands"] for c in h}  # never back into a hand
    assert GAME.current_seat(state) == 3                       # the K♥ player leads
    assert _of(events, "trick_started")[-1]["leader"] == 3
    assert all(len(h) == 3 for h in state["hands"])            # everyone refilled to 3


def test_scenario_2_tie_below_the_top_is_no_tie() -> None:
    """| 3 players, phase 1: Q♠, 5♥, 5♦ | Q♠ wins (a tie below the top is no tie) |"""
    for options in ({}, {"tie_split": True}):
        state = deal([["QS", "2S", "3S"], ["5H", "2H", "3H"], ["5D", "2D", "3D"]],
                     **options)
        for seat, card in enumerate(["QS", "5H", "5D"]):
            state, events = play(state, seat, card)
        assert not _of(events, "tie") and not _of(events, "trick_shared")
        assert _of(events, "trick_over")[0]["seat"] == 0
        assert sorted(state["piles"][0]) == ["5D", "5H", "QS"]
        assert GAME.current_seat(state) == 0


def test_scenario_3_last_stock_card_is_never_played_blind() -> None:
    """| stock holds 1 card; a player wants to play it blind | not allowed | (Phase 1: "Allowed
    only while the stock holds at least 2 cards, so the last stock card is never played
    blind.")"""
    base = deal([["9C", "2S", "2H"], ["KD", "3C", "5S"], ["4S", "3S", "3H"]])
    one = _with_stock(base, ["AC"])
    assert "stock" not in plays(one, 0)
    _raises("stock_too_small", act, one, 0, "stock")
    for seat in (None, 0, 1, 2):
        assert GAME.view(one, seat)["can_stock"] is False
    # with 2 cards it is allowed; once one is played, the next player may not take the last
    two = _with_stock(base, ["AC", "KC"])
    assert "stock" in plays(two, 0) and GAME.view(two, 0)["can_stock"] is True
    two, events = act(two, 0, "stock")
    assert events[0]["cards"] == ["AC"] and events[0]["from_stock"] is True
    assert two["hands"][0] == ["9C", "2S", "2H"]  # never into the hand
    assert two["stock"] == ["KC"]
    assert "stock" not in plays(two, 1)
    _raises("stock_too_small", act, two, 1, "stock")


def test_scenario_4_last_stock_card_7h_is_trump_and_face_up() -> None:
    """| last stock card drawn is 7♥ | hearts are trump; the drawer keeps 7♥ face up |
    R7: the trump is known to everyone from the moment the last stock card is drawn."""
    state = _with_stock(deal([["2S", "9C", "9D"], ["3S", "10C", "10D"],
                              ["AS", "JC", "JD"]]), ["5C", "7H"])
    for seat in (None, 0, 1, 2):
        assert GAME.view(state, seat)["trump"] is None
    for seat, card in enumerate(["2S", "3S"]):
        state, _ = play(state, seat, card)
    state, events = play(state, 2, "AS")
    # seat 2 wins and draws first (5♣), then seat 0 draws the last card, 7♥
    assert [(e["seat"], e["count"]) for e in _of(events, "cards_drawn")] == [(2, 1), (0, 1)]
    shown = _of(events, "trump_revealed")
    assert shown == [{"type": "trump_revealed", "seat": 0, "card": "7H", "suit": "H"}]
    assert state["phase"] == 1 and "7H" in state["hands"][0]
    for seat in (None, 0, 1, 2):
        view = GAME.view(state, seat)
        assert view["trump"] == "H" and view["trump_card"] == "7H"
        assert view["face_up"] == [0, "7H"]
    assert "7H" in GAME.view(state, 1)["known"][0]
    # "They keep it in hand, face up, and may play it as normal."
    state, _ = play(state, 2, "JC")
    assert ("7H",) in plays(state, 0)
    state, _ = play(state, 0, "7H")
    assert GAME.view(state, 1)["face_up"] is None


def test_scenario_5_what_beats_9_spades_with_hearts_trump() -> None:
    """| trump ♥, top of trick 9♠ | 10♠…A♠ or any ♥ beats it; after 2♥ only a higher ♥
    beats |"""
    spades = [r + "S" for r in ("2", "3", "4", "5", "6", "7", "8", "10", "J", "Q", "K", "A")]
    hearts = [r + "H" for r in ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K",
                                "A")]
    hand = spades + hearts + ["AD", "KD", "AC"]
    state = phase2([["9S", "3C"], hand, ["4D"], ["5D"]], trump="H", turn=1,
                   trick=[(0, ["9S"])])
    assert _singles(state, 1) == {"10S", "JS", "QS", "KS", "AS"} | set(hearts)
    state, events = play(state, 1, "2H")
    assert not _of(events, "trick_over") and GAME.current_seat(state) == 2
    # after 2♥ only a higher ♥ beats: no spade (not even A♠), no other suit
    after = phase2([["3C"], ["4D"], [c for c in hand if c != "2H"], ["5D"]], trump="H",
                   turn=2, trick=[(0, ["9S"]), (1, ["2H"])], need=4)
    assert _singles(after, 2) == set(hearts) - {"2H"}
    _raises("does_not_beat", play, after, 2, "AS")
    _raises("does_not_beat", play, after, 2, "AD")


def test_scenario_6_must_pick_up_6_clubs() -> None:
    """| trump ♠, trick [6♣, 9♣], next player has no ♣ above 9 and no ♠ | must pick up 6♣ |"""
    state = phase2([["AD", "2D"], ["KD", "3D"], ["8C", "2C", "AH", "QD"],
                    ["4D"]], trump="S", turn=2, trick=[(0, ["6C"]), (1, ["9C"])])
    assert plays(state, 2) == {"pickup"}
    for card in ("8C", "2C", "AH", "QD"):
        _raises("does_not_beat", play, state, 2, card)
    state, events = act(state, 2, "pickup")
    assert _of(events, "picked_up") == [{"type": "picked_up", "seat": 2, "cards": ["6C"]}]
    assert "6C" in state["hands"][2] and "9C" not in state["hands"][2]
    assert state["trick"] == [[1, ["9C"], False]]
    assert GAME.current_seat(state) == 3  # "Their turn ends."


def test_scenario_7_last_two_players_one_plays_last_card() -> None:
    """| 2 players hold cards; one plays their last card | that player is out; the other is
    the koira |"""
    # 4 seats, seats 0 and 2 already out in that order; seat 3 leads its last card
    state = phase2([[], ["KD", "3S", "4H"], [], ["5C"]], trump="S", turn=3, out=[0, 2])
    state, events = play(state, 3, "5C")
    assert _of(events, "player_out") == [{"type": "player_out", "seat": 3, "place": 3}]
    assert GAME.is_over(state) and GAME.current_seat(state) is None
    assert GAME.placements(state) == [1, 4, 2, 3]
    assert events[-1]["type"] == "game_over" and events[-1]["koira"] == 1
    # and as a beat, mid-trick (R14/R16): seat 0 beats with its last card
    state = phase2([["KC"], ["2D", "3D"], []], trump="S", turn=0, out=[2],
                   trick=[(1, ["9C"])])
    state, events = play(state, 0, "KC")
    assert GAME.is_over(state) and GAME.view(state, None)["koira"] == 1
