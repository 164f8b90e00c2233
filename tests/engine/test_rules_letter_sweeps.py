"""The engine to the letter of ``shared/rules/coyote.md`` and ``shared/rules/koira.md``:
three sweeps. Random Koira and Coyote games checked move by move against the text, and the
scoring against an independent reading of the scoring rules, quoting the text with its
``file:line``. The computer players' legality sweep is in ``test_rules_letter_ai_legality``.
"""

from __future__ import annotations

import random

import pytest

from engine.core import Action
from engine.coyote import get_edition, score
from tests.engine.koira_helpers import GAME as KOIRA
from tests.engine.specials_helpers import GAME as COYOTE

# =============================================================================================
# Koira, random games checked move by move against the text
# =============================================================================================

RANK = {r: i for i, r in enumerate(["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q",
                                     "K", "A"], start=2)}


def _rank(card: str) -> int:
    return RANK[card[:-1]]


def _beats(card: str, top: str, trump: str) -> bool:
    """koira.md:38-39: "a single card is beaten by a higher card of its suit, or by any trump
    if it is not trump; a trump is beaten only by a higher trump"."""
    if card[-1] == top[-1]:
        return _rank(card) > _rank(top)
    return card[-1] == trump


def _clockwise_from(start: int, n: int) -> list[int]:
    return [(start + k) % n for k in range(n)]


def _check_phase2_move(before: dict, seat: int, action: Action, after: dict,
                       events: list[dict]) -> None:
    n = before["seats"]
    gone = set(before["out"]) | set(before["removed"])
    trick = before["trick"]
    opts = before["options"]
    if action.kind == "play":
        cards = list(action.cards or ())
        if trick:  # R10: lowest card beats the top play's highest card
            top = max(trick[-1][1], key=_rank)
            assert _beats(cards[0], top, before["trump"])
        if len(cards) > 1:  # koira.md:35-36, R17, R20
            assert len({c[-1] for c in cards}) == 1
            assert [_rank(c) for c in cards] == list(range(_rank(cards[0]),
                                                           _rank(cards[0]) + len(cards)))
            assert len(cards) >= opts["min_sequence"]
            if opts["trump_ends_trick"]:
                assert _rank(cards[0]) == 2
        lying = sum(len(p[1]) for p in trick) + len(cards)
        cut = (opts["trump_ends_trick"] and bool(trick) and not before["lead_trump"]
               and cards[0][-1] == before["trump"])
        went_out = len(before["hands"][seat]) == len(cards)
        assert (seat in after["out"]) == went_out  # R14
        if cut or lying >= before["need"]:  # R9, R17
            over = [e for e in events if e["type"] == "trick_over"]
            assert over and over[0]["seat"] == seat
            assert sorted(over[0]["cards"]) == sorted(
                [c for p in trick for c in p[1]] + cards)
            if not after["over"]:  # R15, R13: the winner leads, or the next holding cards
                still = [s for s in range(n) if s not in after["out"]
                         and s not in after["removed"]]
                lead = next(s for s in _clockwise_from(seat, n)
                            if s in still and after["hands"][s])
                assert after["turn"] == lead and after["trick"] == []
        else:
            assert after["trick"][-1] == [seat, cards, False]
            if not after["over"]:  # R12/R14: next player clockwise still in the game
                nxt = next(s for s in _clockwise_from(seat, n)[1:]
                           if s not in gone and s not in after["out"])
                assert after["turn"] == nxt
    else:
        assert trick, "R19: a leader cannot pick up"
        bottom = trick[0][1]
        taken = bottom[:1] if opts["pickup_single"] else bottom  # R11, R18
        picked = [e for e in events if e["type"] == "picked_up"]
        assert picked[0]["cards"] == taken
        assert sorted(after["hands"][seat]) == sorted(before["hands"][seat] + taken)
        nxt = next(s for s in _clockwise_from(seat, n)[1:] if s not in gone)
        rest = sum(len(p[1]) for p in trick) - len(taken)
        if rest:
            assert after["turn"] == nxt
        else:  # R12 + R13: the player after leads, or the next one holding cards
            lead = next(s for s in _clockwise_from(nxt, n)
                        if s not in gone and after["hands"][s])
            assert after["turn"] == lead and after["trick"] == []
    still = [s for s in range(n) if s not in after["out"] and s not in after["removed"]]
    assert after["over"] == (len(still) <= 1 or not any(after["hands"][s] for s in still)
                             and not after["trick"])  # R16


def _check_phase1_move(before: dict, seat: int, action: Action, after: dict,
                       events: list[dict]) -> None:
    n = before["seats"]
    if action.kind == "stock":
        assert len(before["stock"]) >= 2  # koira.md:20-22
    for over in (e for e in events if e["type"] == "trick_over" and not e.get("shared")):
        # koira.md:16-17 and R1: the winner's card is the single highest of the last round
        card = action.cards[0] if action.cards else before["stock"][0]
        trick = before["trick"] + [[seat, [card], None]]
        last_round = trick[before["round_from"]:]
        ranks = [_rank(p[1][0]) for p in last_round]
        winner_rank = max(ranks)
        assert ranks.count(winner_rank) == 1
        assert [p[0] for p in last_round if _rank(p[1][0]) == winner_rank] == [over["seat"]]
        assert sorted(over["cards"]) == sorted(c for p in trick for c in p[1])
    drawn = [e for e in events if e["type"] == "cards_drawn"]
    if drawn:  # R6: clockwise from the winner, each to 3, while the stock lasts
        winner = next(e["seat"] for e in events if e["type"] == "trick_over")
        order = [s for s in _clockwise_from(winner, n)]
        seats = [e["seat"] for e in drawn]
        assert seats == [s for s in order if s in seats]
        for e in drawn[:-1]:
            assert len(after["hands"][e["seat"]]) >= 3 or after["phase"] == 2
    for e in (e for e in events if e["type"] == "trump_revealed"):  # koira.md:25-26
        assert after["stock"] == [] and e["seat"] == drawn[-1]["seat"]
        assert after["trump"] == e["suit"] == e["card"][-1]


@pytest.mark.parametrize("seed", range(24))
def test_koira_random_games_follow_the_text_move_by_move(seed: int) -> None:
    """Random legal moves of every option combination, each checked against the text:
    koira.md:13-28 and R1/R6 for phase-1 tricks and refills, koira.md:30-49 and R9-R18 for
    phase-2 beating, completion, pick-ups, who acts next and the end of the game."""
    rng = random.Random(seed)
    seats = 3 + seed % 6
    options = {"tie_split": seed % 2 == 1, "trump_ends_trick": seed % 3 == 1,
               "pickup_single": seed % 4 >= 2, "min_sequence": 2 + (seed // 4) % 2}
    state, _ = KOIRA.new_game(seats, seed, options)
    for _ in range(20_000):
        if state["over"]:
            break
        seat = KOIRA.current_seat(state)
        legal = KOIRA.legal_actions(state, seat)
        # prefer plays to pick-ups, so that games end, and sequences, so that they are seen
        plays_ = [a for a in legal if a.kind != "pickup"]
        runs = [a for a in plays_ if len(a.cards or ()) > 1]
        if runs and rng.random() < 0.5:
            action = rng.choice(runs)
        else:
            action = rng.choice(plays_ if plays_ and rng.random() < 0.8 else legal)
        new, evs = KOIRA.apply(state, seat, action)
        events = [e.to_json() for e in evs]
        if state["phase"] == 2:
            _check_phase2_move(state, seat, action, new, events)
        else:
            _check_phase1_move(state, seat, action, new, events)
        state = new
    assert state["over"]


# --- random Coyote games checked move by move against the text -----------------------------


def _independent_total(edition: str, cards: list[str], pile: list[str]) -> int:
    return {"classic": _classic_total, "feathers": _feathers_total,
            "poker-deck": _poker_total}[edition](cards, pile)


def _next_alive(state: dict, seat: int, *, skip_safe: bool = True) -> int:
    """The next seat in the current direction with lives (and not safe after a right Guess,
    coyote.md:97-98 "your turns are skipped")."""
    n = state["seats"]
    for k in range(1, n):
        s = (seat + k * state["direction"]) % n
        if state["lives"][s] > 0 and not (skip_safe and state["safe"][s]):
            return s
    raise AssertionError("nobody to act")


def _after_clockwise(lives: list[int], seat: int) -> int:
    n = len(lives)
    return next((seat + k) % n for k in range(1, n + 1) if lives[(seat + k) % n] > 0)


def _expected_starter(edition: str, options: dict, lives: list[int], loser: int | None,
                      caller: int, bidder: int) -> int:
    """coyote.md:49-50 (classic), :85-86 (feathers), :114 (poker-deck)."""
    winner = None if loser is None else (bidder if loser == caller else caller)
    if edition == "feathers":
        return winner
    if edition == "poker-deck":
        return caller if loser is None else loser
    if lives[loser] > 0:
        return loser
    return winner if options["after_elimination"] == "winner" else _after_clockwise(lives, loser)


def _check_coyote_move(before: dict, seat: int, action: Action, after: dict,
                       events: list[dict], doubled: bool) -> None:
    edition = before["edition"]
    kinds = [e["type"] for e in events]
    if "showdown" in kinds:
        [data] = [e for e in events if e["type"] == "showdown"]
        change = before["change"]
        bidder, bid_ = before["bids"][-2 if change and change["target"] == seat else -1]
        assert (data["caller"], data["bidder"], data["bid"]) == (seat, bidder, bid_)
        table = [c for c in before["hands"] if c is not None]
        table += [c for pile in before["extra"] + before["face_up"] for c in pile]
        if before["draw"]:
            total = _independent_total(edition, table, before["draw"])
            assert data["total"] == total, (table, before["draw"][:1])
        total = data["total"]
        loser = (None if total == bid_ and edition == "poker-deck"
                 else seat if total >= bid_ else bidder)  # coyote.md:23-26, :111-113
        assert data["loser"] == loser
        amount = 2 if doubled else 1  # coyote.md:27, :56-57
        lives = list(before["lives"])
        if loser is not None:
            lives[loser] = max(0, lives[loser] - amount)
            assert [(e["seat"], e["amount"]) for e in events if e["type"] == "life_lost"] == [
                (loser, amount)]
        assert after["lives"] == lives
        used = table + [c for pile in before["void"] for c in pile] + data["drawn"]
        alive = [s for s in range(before["seats"]) if lives[s] > 0]
        over = len(alive) <= 1 or (edition == "poker-deck" and loser is not None
                                   and lives[loser] == 0)
        assert after["over"] == over
        if not over:
            assert after["starter"] == _expected_starter(
                edition, before["options"], lives, loser, seat, bidder)
            assert after["turn"] == after["starter"]
            assert [s for s, c in enumerate(after["hands"]) if c is not None] == alive
            if {"night", "0b"} & set(used) or edition == "poker-deck":  # :46-47, :83, :105
                assert after["discard"] == []
        return
    if "round_ended" in kinds:  # a wrong Guess, coyote.md:98-99
        assert action.special == "guess" and action.guess != before["hands"][seat]
        assert after["lives"][seat] == before["lives"][seat] - 1
        if not after["over"]:
            start = seat if after["lives"][seat] else _after_clockwise(after["lives"], seat)
            assert after["starter"] == after["turn"] == start
        return
    if action.kind == "bid" and before["change"] is not None:  # coyote.md:62-64
        assert after["bids"][-1] == [seat, action.amount]
        assert len(after["bids"]) == len(before["bids"])
        assert after["turn"] == before["change"]["by"]
    elif action.kind == "bid":
        assert after["bids"][-1] == [seat, action.amount]
        if action.special == "shot":  # coyote.md:65-66
            assert after["turn"] == action.target
        else:
            assert after["turn"] == _next_alive(after, seat)
    elif action.special in ("pass", "skip"):  # coyote.md:55, :94
        assert after["bids"] == before["bids"] and after["turn"] == _next_alive(after, seat)
    elif action.special == "reverse":  # coyote.md:58, :93
        assert after["direction"] == -before["direction"] and after["turn"] == seat
    elif action.special == "change":
        assert after["turn"] == before["bids"][-1][0]
    elif action.special == "guess":  # a right Guess: safe, turns skipped
        assert after["safe"][seat] and after["turn"] == _next_alive(after, seat)
    elif action.special in ("extra", "swap"):
        assert after["turn"] == seat and not any(a.kind == "call" for a in
                                                 COYOTE.legal_actions(after, seat))


COYOTE_SWEEP = [("classic", False), ("classic", True), ("feathers", False),
                ("feathers", True), ("poker-deck", False)]


@pytest.mark.parametrize(("edition", "specials"), COYOTE_SWEEP)
def test_coyote_random_games_follow_the_text_move_by_move(edition: str,
                                                          specials: bool) -> None:
    """Random legal moves (specials often), each checked against coyote.md: the showdown's
    bid, total, loser and lives (Double only when the very next player calls), the next
    starter of each edition, dealing to survivors, the full reshuffles, and who acts after a
    bid, Shot, Pass/Skip, Reverse, Change and its answer, Guess."""
    for seed in range(30):
        rng = random.Random(f"{edition}{specials}{seed}")
        seats = 3 + seed % (6 if edition == "poker-deck" else 8)
        options = {"edition": edition, "specials": specials}
        if edition == "classic" and seed % 2:
            options["after_elimination"] = "next"
        state, _ = COYOTE.new_game(seats, seed, options)
        pending: int | None = None  # the seat whose Double bid awaits the next player
        for _ in range(4000):
            if state["over"]:
                break
            seat = COYOTE.current_seat(state)
            legal = COYOTE.legal_actions(state, seat)
            calls = [a for a in legal if a.kind == "call"]
            extras = [a for a in legal if a.special is not None]
            plain = [a for a in legal if a.kind == "bid" and a.special is None]
            if calls and (len(state["bids"]) > 6 or rng.random() < 0.25):
                action = calls[0]
            elif extras and rng.random() < 0.4:
                name = rng.choice(sorted({a.special for a in extras}))
                action = rng.choice([a for a in extras if a.special == name])
            else:
                action = rng.choice(plain[:4])
            doubled = (pending is not None and action.kind == "call"
                       and state["change"] is None and state["bids"][-1][0] == pending)
            new, evs = COYOTE.apply(state, seat, action)
            _check_coyote_move(state, seat, action, new, [e.to_json() for e in evs], doubled)
            if action.special == "reverse" and pending is not None:
                pass  # the next player reversed: their call still answers the Double
            else:
                pending = seat if action.special == "double" else None
            state = new
        assert state["over"]


# --- scoring against an independent reading of the text ------------------------------------


def _classic_total(cards: list[str], pile: list[str]) -> int:
    """coyote.md:38-47, read directly."""
    table = list(cards) + (pile[:1] if "?" in cards else [])
    nums = [int(c) for c in table if c.lstrip("-").isdigit()]
    positives = [v for v in nums if v > 0]
    if "max0" in table and positives:
        nums.remove(max(positives))
    return sum(nums) * (2 if "x2" in table else 1)


def _feathers_total(cards: list[str], pile: list[str]) -> int:
    """coyote.md:77-83, read directly."""
    table = list(cards) + (pile[:1] if "?" in cards else [])
    greens = sorted(int(c) for c in table if c.isdigit())
    reds = [int(c) for c in table if c.startswith("-")]
    if "max0" in table and greens:
        greens.pop()
    negated = -greens.pop() if "max-" in table and greens else 0
    return sum(greens) * (2 if "x2" in table else 1) + sum(reds) + negated


def _poker_total(cards: list[str], pile: list[str]) -> int:
    """coyote.md:107-109, read directly."""
    table = list(cards) + (pile[:1] if "Q" in cards else [])
    values = {"A": 1, "2": 2, "3": 3, "4": 4, "5": 5}
    nums = sorted(values[c] for c in table if c in values)
    if "K" in table and nums:
        nums.pop()
    return sum(nums) * (2 if "J" in table else 1)


@pytest.mark.parametrize(("edition", "total"), [("classic", _classic_total),
                                                ("feathers", _feathers_total),
                                                ("poker-deck", _poker_total)])
def test_scoring_matches_the_text_on_random_tables(edition: str, total) -> None:
    """Every edition's scoring order, on 4000 random tables (2–11 cards, 0–2 cards on the
    draw pile), agrees with a direct reading of the rules text."""
    rng = random.Random(edition)
    deck = list(get_edition(edition).deck)
    for _ in range(4000):
        rng.shuffle(deck)
        n = rng.randint(2, 11)
        cards, pile = deck[:n], deck[n:n + rng.randint(0, 2)]
        assert score(edition, cards, pile).total == total(cards, pile), (cards, pile)
