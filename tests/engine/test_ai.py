"""The computer player: its arithmetic matches the rules, it sees only the view, it is
deterministic, and every decision it makes is legal."""

from __future__ import annotations

import copy
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.core import Action
from engine.coyote import CoyoteGame, get_edition, score
from engine.coyote.ai import CoyoteAI, choose_action, estimate, naive_action
from engine.coyote.ai_dist import distribution, fast_total, unseen_counts

GAME = CoyoteGame()
EDITIONS = ["classic", "feathers", "poker-deck"]
STEP_CAP = 20000


# --- arithmetic against engine.coyote.score ------------------------------------------------

@st.composite
def tables(draw):
    edition = draw(st.sampled_from(EDITIONS))
    deck = list(get_edition(edition).deck)
    order = draw(st.permutations(deck))
    n = draw(st.integers(1, min(14, len(deck))))
    pile = draw(st.integers(0, 3))
    return edition, list(order[:n]), list(order[n:n + pile])


@settings(max_examples=1500, deadline=None)
@given(tables())
def test_fast_total_matches_score(table):
    edition, cards, pile = table
    assert fast_total(edition, cards, pile) == score(edition, cards, pile).total


@pytest.mark.parametrize("edition", EDITIONS)
def test_fast_total_every_pair_and_triple_with_specials(edition):
    """Exhaustive on small tables: every pair, and every special with every pair."""
    kinds = sorted(set(get_edition(edition).deck))
    deck = Counter(get_edition(edition).deck)
    specials = [k for k in kinds if k not in ("A", "2", "3", "4", "5") and not
                k.lstrip("-").isdigit()]
    for a in kinds:
        for b in kinds:
            for extra in [[]] + [[s] for s in specials]:
                cards = [a, b] + extra
                if any(Counter(cards)[c] > deck[c] for c in cards):
                    continue
                for top in kinds:
                    assert fast_total(edition, cards, [top]) == \
                        score(edition, cards, [top]).total, (cards, top)


def brute_force(edition, counted, unseen, hidden, draw_count):
    """Per own card, P(total >= t) for every t, by enumerating physical cards with score()."""
    cards = [c for c, n in unseen for _ in range(n)]
    result: dict = {}

    def rec(chosen, rest, weight):
        if len(chosen) < hidden:
            for i, c in enumerate(rest):
                rec(chosen + [c], rest[:i] + rest[i + 1:], weight / len(rest))
            return
        # the draw pile: every ordering matters only through its first cards
        depth = min(draw_count, 2, len(rest))
        if depth == 0:
            totals = [(score(edition, counted + chosen, []).total, 1.0)]
        else:
            totals = []
            for i, c in enumerate(rest):
                others = rest[:i] + rest[i + 1:]
                if depth == 1 or not others:
                    totals.append((score(edition, counted + chosen, [c]).total, 1 / len(rest)))
                else:
                    for d in others:
                        totals.append((score(edition, counted + chosen, [c, d]).total,
                                       1 / len(rest) / len(others)))
        own = chosen[0] if chosen else None
        for total, w in totals:
            result.setdefault(own, Counter())[total] += weight * w

    rec([], cards, 1.0)
    return result


@pytest.mark.parametrize("seed", range(60))
def test_distribution_matches_brute_force(seed):
    rng = random.Random(seed)
    edition = EDITIONS[seed % 3]
    deck = list(get_edition(edition).deck)
    rng.shuffle(deck)
    drawer = "Q" if edition == "poker-deck" else "?"
    if seed % 2:  # make sure drawing cards come up often
        deck.remove(drawer)
        deck.insert(rng.randrange(6), drawer)
    k = rng.randrange(2, 7)
    counted = sorted(deck[:k])
    hidden = 1 + (seed % 5 == 0)
    # two hidden cards (a Draw 1 on the viewer): keep the brute force small
    seen = deck[k:-10] if hidden == 2 else deck[k:k + rng.randrange(0, 12)]
    unseen = unseen_counts(edition, counted + seen)
    dist = distribution(edition, tuple(counted), unseen, hidden, 3, ())
    expected = brute_force(edition, counted, unseen, hidden, 3)
    for card, weight, totals, tails in dist.own:
        exp = expected[card]
        norm = sum(exp.values())
        assert weight == pytest.approx(norm)
        for i, t in enumerate(totals):
            assert tails[i] == pytest.approx(sum(p for v, p in exp.items() if v >= t) / norm)
        assert set(totals) == set(exp)


# --- games -----------------------------------------------------------------------------

def random_legal(state, seat, rng):
    legal = GAME.legal_actions(state, seat)
    calls = [a for a in legal if a.kind == "call"]
    if calls and (len(state["bids"]) > 8 or rng.random() < 0.3):
        return calls[0]
    specials = [a for a in legal if a.special is not None]
    if specials and rng.random() < 0.3:
        return rng.choice(specials)
    return rng.choice([a for a in legal if a.kind == "bid"][:3])


def games(count, seed=0):
    """(edition, seats, specials, seed) for ``count`` varied games."""
    rng = random.Random(seed)
    for g in range(count):
        edition = EDITIONS[g % 3]
        ed = get_edition(edition)
        seats = rng.randint(3, ed.max_players)
        specials = ed.specials is not None and rng.random() < 0.6
        yield edition, seats, specials, rng.randrange(10**9)


def run_game(edition, seats, specials, seed, ai_seats, check=None):
    """Play a game to its end; AI seats use choose_action, the others random legal moves."""
    state = GAME.new_state(seats, seed, {"edition": edition, "specials": specials})
    rng = random.Random(seed)
    steps = 0
    while not state["over"]:
        seat = state["turn"]
        if seat in ai_seats:
            view = GAME.view(state, seat)
            action = choose_action(view, rng)
            if check is not None:
                check(state, seat, view, action)
        else:
            action = random_legal(state, seat, rng)
        state, _ = GAME.apply(state, seat, action)  # raises if the AI's action is illegal
        steps += 1
        assert steps < STEP_CAP, "game does not terminate"
    return state


def test_all_ai_games_terminate_and_stay_legal():
    for edition, seats, specials, seed in games(90):
        state = run_game(edition, seats, specials, seed, set(range(seats)))
        assert GAME.placements(state) is not None


def test_ai_among_random_players_is_always_legal():
    """Random opponents create every situation: Change aimed at the AI, Pass, Skip, Draw 1,
    Extra feather, Swap, a right Guess revealing its card, its own bid coming back."""
    for edition, seats, specials, seed in games(150, seed=1):
        run_game(edition, seats, specials, seed, {0, seats // 2})


def hide_differently(state, seat, rng):
    """A state differing only in ``seat``'s own card and the draw pile's order."""
    other = copy.deepcopy(state)
    pile = other["draw"]
    if pile:
        i = rng.randrange(len(pile))
        pile[i], other["hands"][seat] = other["hands"][seat], pile[i]
        rng.shuffle(pile)
    return other


def test_decision_ignores_hidden_cards_and_is_a_function_of_the_view():
    checked = 0
    mismatch = []

    def check(state, seat, view, action):
        nonlocal checked
        if state["revealed"][seat]:
            return
        other = hide_differently(state, seat, random.Random(checked))
        other_view = GAME.view(other, seat)
        assert other_view == view
        frozen = copy.deepcopy(view)
        for s in (3, 99):
            a = choose_action(copy.deepcopy(view), random.Random(s))
            b = choose_action(other_view, random.Random(s))
            if a != b:
                mismatch.append((a, b))
        assert view == frozen, "the AI must not modify the view"
        checked += 1

    for edition, seats, specials, seed in games(36, seed=2):
        run_game(edition, seats, specials, seed, {0, 1, 2}, check)
    assert checked > 200
    assert not mismatch


def test_same_view_same_seed_same_action():
    state = GAME.new_state(6, 5)
    view = GAME.view(state, state["turn"])
    a = [choose_action(view, random.Random(7)) for _ in range(3)]
    assert a[0] == a[1] == a[2]


# --- situations ------------------------------------------------------------------------

def state_with(edition, hands, bids, turn, specials=False, **changes):
    seats = len(hands)
    state = GAME.new_state(seats, 1, {"edition": edition, "specials": specials})
    deck = Counter(get_edition(edition).deck)
    deck.subtract(hands)
    state["hands"] = list(hands)
    state["draw"] = [c for c, n in deck.items() for _ in range(n)]
    state["discard"] = []
    state["bids"] = [list(b) for b in bids]
    state["turn"] = turn
    state.update(changes)
    return state


def test_opens_with_a_bid_of_at_least_one():
    state = state_with("classic", ["-10", "-5", "-5"], [], 0)
    action = choose_action(GAME.view(state, 0), random.Random(0))
    assert action.kind == "bid" and action.amount >= 1


def test_calls_an_impossible_bid_and_never_its_own():
    state = state_with("classic", ["5", "1", "2"], [[2, 90]], 0)
    assert choose_action(GAME.view(state, 0), random.Random(0)) == Action("call")
    state = state_with("classic", ["5", "1", "2"], [[0, 90]], 0)
    action = choose_action(GAME.view(state, 0), random.Random(0))
    assert action.kind == "bid" and action.amount == 91


def test_bids_up_when_the_bid_is_surely_good():
    state = state_with("classic", ["5", "20", "15", "10"], [[3, 2]], 0)
    action = choose_action(GAME.view(state, 0), random.Random(0))
    assert action.kind == "bid" and action.amount > 2


def test_answers_a_change_legally():
    change = {"by": 2, "target": 0}
    state = state_with("classic", ["5", "1", "2"], [[1, 3], [0, 60]], 0, specials=True,
                       change=change)
    view = GAME.view(state, 0)
    assert view["can_call"]
    assert choose_action(view, random.Random(0)) == Action("call")  # 60 stays
    state = state_with("classic", ["5", "20", "15"], [[1, 3], [0, 4]], 0, specials=True,
                       change=change)
    action = choose_action(GAME.view(state, 0), random.Random(0))
    assert action.kind == "bid" and action.special is None and action.amount > 4


def test_poker_equal_total_penalises_nobody():
    """Calling a bid equal to the highest possible total never loses in poker-deck (equal:
    nobody is penalised), so the AI calls it; in classic the same call would lose."""
    state = state_with("poker-deck", ["5", "A", "2"], [[1, 8]], 0)
    dist = estimate(GAME.view(state, 0))
    top = dist.high
    state["bids"] = [[1, top]]
    assert choose_action(GAME.view(state, 0), random.Random(0)) == Action("call")


def test_classic_equal_total_makes_the_caller_lose():
    """With its own card revealed the AI knows the total (8): it calls 9 but not 8."""
    state = state_with("classic", ["5", "1", "2"], [[1, 9]], 0)
    state["revealed"][0] = True
    assert choose_action(GAME.view(state, 0), random.Random(0)) == Action("call")
    state["bids"] = [[1, 8]]
    assert choose_action(GAME.view(state, 0), random.Random(0)).kind == "bid"
    state = state_with("poker-deck", ["5", "A", "2"], [[1, 8]], 0)
    state["revealed"][0] = True
    assert choose_action(GAME.view(state, 0), random.Random(0)) == Action("call")


def test_guess_when_the_own_card_is_certain():
    hands = ["7", "3", "5", "9"]
    state = state_with("feathers", hands, [[3, 2]], 0, specials=True)
    deck = Counter(get_edition("feathers").deck)
    deck.subtract(hands + ["7"])
    state["draw"] = ["7"]
    state["discard"] = [c for c, n in deck.items() for _ in range(n)]
    view = GAME.view(state, 0)
    action = choose_action(view, random.Random(0))
    assert action == Action("special", special="guess", guess="7")
    GAME.apply(state, 0, action)


def test_naive_player():
    state = state_with("classic", ["5", "1", "2"], [[2, 9]], 0)
    assert naive_action(GAME.view(state, 0)) == Action("call")  # sees 1 + 2 < 9
    state["bids"] = [[2, 3]]
    assert naive_action(GAME.view(state, 0)) == Action("bid", 4)


def test_tuned_players_are_legal_too():
    ai = CoyoteAI(call=0.3, jump=0.6, trust=0.0)
    state = GAME.new_state(5, 3, {"edition": "feathers", "specials": True})
    rng = random.Random(0)
    while not state["over"]:
        seat = state["turn"]
        state, _ = GAME.apply(state, seat, ai(GAME.view(state, seat), rng))


def test_draw1_on_the_next_player_when_one_more_card_makes_its_bid_safer():
    """Visible -10, 5, 1: an opening bid of 1 is unlikely to hold; one more card (Draw 1, which
    its holder cannot see) makes it clearly likelier, so the AI opens with Draw 1 on the
    next player. Without masks it bids plainly."""
    state = state_with("classic", ["-10", "5", "1", "2"], [], 3, specials=True)
    action = choose_action(GAME.view(state, 3), random.Random(0))
    assert action.special == "draw1" and action.target == 0 and action.amount >= 1
    GAME.apply(state, 3, action)  # legal
    state["draw1_used"] = True
    assert choose_action(GAME.view(state, 3), random.Random(0)).special != "draw1"
    state = state_with("classic", ["-10", "5", "1", "2"], [], 3)
    assert choose_action(GAME.view(state, 3), random.Random(0)).special is None


def test_extra_feather_when_one_more_card_makes_its_bid_safer():
    bids = [[3, 1], [0, 3], [1, 4], [2, 5], [3, 9], [0, 10], [1, 11], [2, 12], [3, 15],
            [0, 16], [2, 17], [3, 18], [0, 19], [1, 20]]
    state = state_with("feathers", ["1", "9", "5", "0b"], bids, 2, specials=True)
    action = choose_action(GAME.view(state, 2), random.Random(0))
    assert action == Action("special", special="extra")
    state, _ = GAME.apply(state, 2, action)
    follow = choose_action(GAME.view(state, 2), random.Random(0))
    assert follow.kind == "bid" and follow.special is None  # "then bid"
    GAME.apply(state, 2, follow)


def test_reverse_mask_when_the_previous_player_serves_its_bid_better():
    """Classic, masks ("Mask actions": Reverse). Cards 5 (own, hidden), 20, 3, -10; the bid
    is 16, so its minimum bid 17 holds unless its own card is low. The next player (seat 1)
    cannot see their 20 and sees -2 plus its card: they would call at once, and the AI loses
    whenever its card is low. The previous player (seat 3) cannot see their -10, sees 28 plus
    its card and bids on instead, passing the risk on: the AI reverses, then bids. With the
    two cards swapped the next player is already the better one, and it bids plainly."""
    state = state_with("classic", ["5", "20", "3", "-10"], [[2, 16]], 0, specials=True,
                       draw1_used=True)
    action = choose_action(GAME.view(state, 0), random.Random(0))
    assert action == Action("special", special="reverse")
    state, _ = GAME.apply(state, 0, action)
    assert state["direction"] == -1 and state["turn"] == 0
    follow = choose_action(GAME.view(state, 0), random.Random(0))
    assert follow.special is None  # the mask is used
    state, _ = GAME.apply(state, 0, follow)
    if follow.kind == "bid":
        assert state["turn"] == 3
    mirrored = state_with("classic", ["5", "-10", "3", "20"], [[2, 16]], 0, specials=True,
                          draw1_used=True)
    assert choose_action(GAME.view(mirrored, 0), random.Random(0)).special != "reverse"


def test_reverse_coin_when_the_previous_player_serves_its_bid_better():
    """Feathers, coins ("Variant coins": Reverse, then bid): the same reasoning with the
    coin; after it the AI must bid, and the previous player answers. Never reversed without
    the coin, or when the next player is the better one."""
    state = state_with("feathers", ["5", "20", "3", "-10"], [[3, 12]], 0, specials=True)
    action = choose_action(GAME.view(state, 0), random.Random(0))
    assert action == Action("special", special="reverse")
    state, _ = GAME.apply(state, 0, action)
    follow = choose_action(GAME.view(state, 0), random.Random(0))
    assert follow.kind == "bid" and follow.special is None  # "then bid"
    state, _ = GAME.apply(state, 0, follow)
    assert state["turn"] == 3
    used = state_with("feathers", ["5", "20", "3", "-10"], [[3, 12]], 0, specials=True,
                      coins=["extra", "skip", "swap", "guess"])
    assert choose_action(GAME.view(used, 0), random.Random(0)).special != "reverse"
    mirrored = state_with("feathers", ["5", "-10", "3", "20"], [[3, 12]], 0, specials=True)
    assert choose_action(GAME.view(mirrored, 0), random.Random(0)).special != "reverse"


def test_reverse_can_be_switched_off():
    state = state_with("feathers", ["5", "20", "3", "-10"], [[3, 12]], 0, specials=True)
    ai = CoyoteAI(reverse=9.0)
    assert ai(GAME.view(state, 0), random.Random(0)).special != "reverse"
