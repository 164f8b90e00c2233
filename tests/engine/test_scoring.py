"""Showdown scoring against every worked scenario of ``shared/rules/coyote.md``."""

from __future__ import annotations

import json

import pytest

from engine.core import RuleError
from engine.coyote import score


def loser_by_rule(edition: str, total: int, bid: int) -> str | None:
    """Who loses the showdown, straight from the rule text (not from game internals).

    Classic / feathers: total >= bid -> the caller loses, else the bidder.
    Poker-deck: equal -> nobody, total > bid -> caller, total < bid -> bidder.
    """
    if edition == "poker-deck":
        if total == bid:
            return None
        return "caller" if total > bid else "bidder"
    return "caller" if total >= bid else "bidder"


# (edition, cards, draw pile top-first, last bid, expected total, expected loser)
SCENARIOS = [
    # classic
    ("classic", ["5", "10", "3"], [], 18, 18, "caller"),
    ("classic", ["5", "10", "3"], [], 19, 18, "bidder"),
    ("classic", ["x2", "-5", "2"], [], 1, -6, "bidder"),
    ("classic", ["max0", "10", "10", "5"], [], 15, 15, "caller"),
    ("classic", ["max0", "-5", "-10"], [], 1, -15, "bidder"),
    ("classic", ["?", "4", "5"], ["10"], 19, 19, "caller"),
    ("classic", ["?", "max0", "15", "3"], ["20"], 18, 18, "caller"),
    ("classic", ["?", "5", "5"], ["x2"], 20, 20, "caller"),
    ("classic", ["night", "5", "4"], [], 10, 9, "bidder"),
    ("classic", ["10", "5", "max0", "x2", "?"], ["4"], 18, 18, "caller"),
    # feathers
    ("feathers", ["x2", "5", "3", "-5"], [], 12, 11, "bidder"),
    ("feathers", ["max-", "10", "7"], [], 1, -3, "bidder"),
    ("feathers", ["?", "x2", "4", "-10"], ["6"], 10, 10, "caller"),
    # poker-deck
    ("poker-deck", ["A", "5", "3"], [], 9, 9, None),
    ("poker-deck", ["K", "5", "5", "3"], [], 7, 8, "caller"),
    ("poker-deck", ["J", "K", "5", "4", "2"], [], 12, 12, None),
]


def _id(s: tuple) -> str:
    edition, cards, top, bid, _, _ = s
    return f"{edition}:{','.join(cards)}|top={','.join(top) or '-'}|bid={bid}"


@pytest.mark.parametrize(
    ("edition", "cards", "draw", "bid", "total", "loser"),
    SCENARIOS,
    ids=[_id(s) for s in SCENARIOS],
)
def test_worked_scenario(edition, cards, draw, bid, total, loser):
    result = score(edition, cards, draw)
    assert result.total == total
    assert loser_by_rule(edition, result.total, bid) == loser
    # the breakdown is consistent with the total
    assert sum(c.value for c in result.cards) == result.total
    assert result.edition == edition
    # the table's cards come first, in order, then the drawn ones
    assert [c.card for c in result.cards[: len(cards)]] == cards
    assert [c.card for c in result.cards[len(cards):]] == result.drawn
    assert all(c.drawn for c in result.cards[len(cards):])
    assert not any(c.drawn for c in result.cards[: len(cards)])
    # a drawing card takes exactly the top of the pile
    assert result.drawn == draw[: len(result.drawn)]
    # JSON-ready
    assert json.loads(json.dumps(result.to_json())) == result.to_json()


def test_max0_zeroes_exactly_one_of_tied_highest():
    result = score("classic", ["max0", "10", "10", "5"])
    tens = [c for c in result.cards if c.card == "10"]
    assert sorted("zeroed" in c.effects for c in tens) == [False, True]
    zeroed = [c for c in result.cards if "zeroed" in c.effects]
    assert len(zeroed) == 1 and zeroed[0].value == 0
    assert result.total == 15


def test_max0_without_positive_card_does_nothing():
    result = score("classic", ["max0", "-5", "-10"])
    assert not any("zeroed" in c.effects for c in result.cards)
    assert result.total == -15


def test_drawn_20_is_zeroed_by_max0():
    result = score("classic", ["?", "max0", "15", "3"], ["20"])
    drawn = [c for c in result.cards if c.drawn]
    assert [c.card for c in drawn] == ["20"]
    assert "zeroed" in drawn[0].effects and drawn[0].value == 0


def test_drawn_x2_takes_effect():
    result = score("classic", ["?", "5", "5"], ["x2"])
    assert result.drawn == ["x2"]
    assert result.total == 20


@pytest.mark.parametrize("edition", ["classic", "feathers"])
def test_question_mark_with_empty_draw_pile_counts_zero(edition):
    result = score(edition, ["?", "4", "5"], [])
    q = result.cards[0]
    assert q.card == "?"
    assert q.value == 0
    assert "draws_nothing" in q.effects
    assert result.drawn == []
    assert result.total == 9


def test_poker_q_with_empty_draw_pile_counts_zero():
    result = score("poker-deck", ["Q", "4", "5"], [])
    assert result.cards[0].value == 0
    assert "draws_nothing" in result.cards[0].effects
    assert result.total == 9


def test_question_mark_draws_only_the_top_card():
    result = score("classic", ["?", "1"], ["3", "20", "15"])
    assert result.drawn == ["3"]
    assert result.total == 4


def test_night_sets_reshuffle_all_and_counts_zero():
    result = score("classic", ["night", "5", "4"])
    assert result.reshuffle_all is True
    night = result.cards[0]
    assert night.value == 0
    assert "reshuffles" in night.effects


def test_drawn_night_sets_reshuffle_all():
    result = score("classic", ["?", "5"], ["night"])
    assert result.reshuffle_all is True
    assert result.total == 5


def test_feathers_0b_sets_reshuffle_all():
    result = score("feathers", ["0b", "5", "4"])
    assert result.reshuffle_all is True
    assert result.total == 9


@pytest.mark.parametrize(
    ("edition", "cards"),
    [("classic", ["5", "10", "3"]), ("feathers", ["x2", "5", "3", "-5"]),
     ("poker-deck", ["J", "K", "5", "4", "2"])],
)
def test_no_reshuffle_without_night(edition, cards):
    assert score(edition, cards).reshuffle_all is False


def test_x2_doubles_negative_cards_in_classic():
    # rule text example: (15 + 3 - 5) x 2 = 26
    assert score("classic", ["x2", "15", "3", "-5"]).total == 26


def test_feathers_x2_does_not_double_red_or_negated():
    # max- negates 10; x2 doubles only 7; red -5 stays
    result = score("feathers", ["max-", "x2", "10", "7", "-5"])
    assert result.total == -10 + 14 - 5


def test_feathers_max0_then_max_negates_next_highest():
    result = score("feathers", ["max0", "max-", "10", "7", "3"])
    assert result.total == 0 - 7 + 3


@pytest.mark.parametrize(
    ("edition", "cards", "draw"),
    [
        ("classic", ["5", "11"], []),
        ("classic", ["5", "A"], []),
        ("classic", ["5", "max-"], []),
        ("classic", ["?", "5"], ["bogus"]),
        ("feathers", ["night"], []),
        ("poker-deck", ["10"], []),
        ("poker-deck", ["x2"], []),
    ],
)
def test_unknown_card_raises(edition, cards, draw):
    with pytest.raises(RuleError) as exc:
        score(edition, cards, draw)
    assert exc.value.code == "unknown_card"


def test_unknown_edition_raises():
    with pytest.raises(RuleError) as exc:
        score("uno", ["5"])
    assert exc.value.code == "unknown_edition"


def test_score_does_not_mutate_inputs():
    cards = ["?", "max0", "15", "3"]
    draw = ["20", "5"]
    score("classic", cards, draw)
    assert cards == ["?", "max0", "15", "3"]
    assert draw == ["20", "5"]
