"""Koira computer players: legal, blind to hidden cards (leavers', shares), and going out."""

from __future__ import annotations

import copy
import random
from collections import Counter

from hypothesis import given
from hypothesis import strategies as st

from engine.core import Action
from engine.koira.ai_levels import choose as koira_choose
from tests.engine.ai_fairness_helpers import KOIRA, LEVELS, SETTINGS, play_koira
from tests.engine.koira_helpers import phase2, rehide

KOIRA_OPTIONS = [{}, {"tie_split": True}, {"trump_ends_trick": True}, {"pickup_single": True},
                 {"min_sequence": 3}]


@st.composite
def koira_tables(draw):
    seats = draw(st.integers(3, 8))
    policies = draw(st.lists(st.sampled_from(LEVELS + [None]), min_size=seats,
                             max_size=seats))
    policies[draw(st.integers(0, seats - 1))] = draw(st.sampled_from(LEVELS))
    return seats, draw(st.integers(0, 10**9)), draw(st.sampled_from(KOIRA_OPTIONS)), policies


# --- Koira: fairness, legality (these held) ------------------------------------------------

@SETTINGS
@given(koira_tables())
def test_koira_every_level_is_legal_and_blind_to_the_hidden_cards(table) -> None:
    """Both phases, every option, 3–8 players: every decision is legal and the same (same
    seed) when the others' unknown cards and the stock lie elsewhere."""
    seats, seed, options, policies = table
    problems = []

    def check(state, seat, view, action, level):
        assert action in KOIRA.legal_actions(state, seat), (level, action)
        other = rehide(state, seat, random.Random(seed ^ state["step"]))
        assert KOIRA.view(other, seat) == view
        s = state["step"]
        if koira_choose(KOIRA.view(other, seat), random.Random(s), level) != \
                koira_choose(copy.deepcopy(view), random.Random(s), level):
            problems.append((level, state["phase"], state["step"]))

    play_koira(seats, seed, options, policies, check)
    assert not problems


def _removal_worlds(seed: int):
    """A phase-1 position of a random game, a player (not the one to act) removed from it,
    and the same position in which the removed player's cards that nobody has seen were
    others from the stock. Returns the two states after the removal, or ``None``."""
    rng = random.Random(seed)
    seats = rng.randint(3, 6)
    state, _ = KOIRA.new_game(seats, seed)
    for _ in range(rng.randint(0, 25)):
        if state["over"] or state["phase"] != 1:
            return None
        seat = state["turn"]
        state, _ = KOIRA.apply(state, seat, rng.choice(KOIRA.legal_actions(state, seat)))
    if state["over"] or state["phase"] != 1 or not state["stock"]:
        return None
    candidates = [s for s in range(seats) if s != state["turn"] and state["hands"][s]]
    if not candidates:
        return None
    removed = rng.choice(candidates)
    other = copy.deepcopy(state)
    known = set(state["known"][removed])
    for i, card in enumerate(other["hands"][removed]):
        if card not in known:
            j = rng.randrange(len(other["stock"]))
            other["hands"][removed][i], other["stock"][j] = other["stock"][j], card
    a, _ = KOIRA.apply(state, removed, Action("resign"))
    b, _ = KOIRA.apply(other, removed, Action("resign"))
    if a["over"]:
        return None
    return a, b


def test_koira_removed_players_unseen_cards_stay_hidden() -> None:
    """Found: when a player is removed (a leave, or too many timeouts), their hand goes into
    ``discarded``, which every seat's view lists card by card, although nobody ever saw those
    cards (the ``player_removed`` event names none; the bot shows a human only how many
    cards left the game). Two positions that differ only in those cards (the others lie in
    the stock) must look the same to the player to act."""
    leaks = 0
    for seed in range(60):
        worlds = _removal_worlds(seed)
        if worlds is None:
            continue
        a, b = worlds
        me = a["turn"]
        leaks += KOIRA.view(a, me) != KOIRA.view(b, me)
    assert leaks == 0


def test_koira_computer_players_decide_by_a_removed_players_unseen_cards() -> None:
    """Found: the same leak changes decisions: normal and hard count the removed player's
    hand as seen (``_unseen``: ``discarded``), so their phase-1 card or stock choice differs
    between two positions that look alike to a human in that seat (seed 44: hard turns up
    the stock in one and plays K♣ in the other; seed 66: normal and hard play Q♦ or K♥;
    seed 93: hard plays A♦ or 6♣)."""
    differ = []
    for seed in range(150):
        worlds = _removal_worlds(seed)
        if worlds is None:
            continue
        a, b = worlds
        me = a["turn"]
        for level in LEVELS:
            for s in range(3):
                x = koira_choose(KOIRA.view(a, me), random.Random(s), level)
                y = koira_choose(KOIRA.view(b, me), random.Random(s), level)
                if x != y:
                    differ.append((seed, level, x, y))
    assert differ == []


# --- Koira: a shuffled share (R3) shown to its receiver -----------------------------------

def test_koira_who_got_which_card_of_a_shuffled_share_stays_hidden() -> None:
    """Found (minor): R3 deals a tied trick's cards, shuffled, onto the tied players' face-down
    piles, "who got which card stays hidden" (the ``trick_shared`` event gives counts only;
    the bot shows a human only the size of their pile). The view's ``pile`` still lists the
    receiver's share card by card, and the computer player uses it (``_unseen``). Two
    positions that differ only in the shares must look the same to a tied player."""
    found = 0
    mismatches = []
    for seed in range(400):
        rng = random.Random(seed)
        seats = rng.randint(3, 5)
        state, _ = KOIRA.new_game(seats, seed)
        while not state["over"] and state["phase"] == 1:
            seat = state["turn"]
            before = state
            state, events = KOIRA.apply(state, seat, rng.choice(KOIRA.legal_actions(state, seat)))
            shared = [e for e in events if e.type == "trick_shared"
                      and e.data["how"] == "shuffled"]
            if not shared:
                continue
            tied = shared[0].data["seats"]
            new_cards = {s: [c for c in state["piles"][s] if c not in before["piles"][s]]
                         for s in tied}
            pool = [c for s in tied for c in new_cards[s]]
            rng.shuffle(pool)
            other = copy.deepcopy(state)
            at = 0
            for s in tied:
                old = [c for c in other["piles"][s] if c not in new_cards[s]]
                other["piles"][s] = old + pool[at:at + len(new_cards[s])]
                at += len(new_cards[s])
            found += 1
            for s in tied:
                if KOIRA.view(state, s) != KOIRA.view(other, s):
                    mismatches.append((seed, s))
            break
        if found >= 5:
            break
    assert found > 0
    assert mismatches == []


# --- Koira: declining to go out ------------------------------------------------------------

def test_koira_never_declines_to_go_out_when_play_goes_round_in_circles() -> None:
    """Found: once phase 2 "goes round in circles" (``quiet`` pick-ups past ``STALL`` per
    player), the normal and hard players' circle-breaking (``_unstick``) plays a random legal
    play before looking at the hand: holding 9♠ 10♠ on a 5♠ it plays 9♠ or 10♠ alone about
    half the time instead of the sequence that empties its hand and makes it safe (R14).
    Going out is never worse (the koira is the last holding cards), so a human never
    declines it."""
    state = phase2([["9S", "10S"], ["2H", "3H", "4H", "5H"], ["2D", "3D", "4D", "5D"],
                    ["2C", "3C", "4C", "5C"]], trump="H", turn=0, trick=[(3, ["5S"])], need=4)
    state["quiet"] = 3 * 4  # STALL pick-ups per player in the game: the circle-breaker starts
    assert Action("play", cards=("9S", "10S")) in KOIRA.legal_actions(state, 0)
    declined = Counter()
    for level in ("normal", "hard"):
        for s in range(100):
            action = koira_choose(KOIRA.view(state, 0), random.Random(s), level)
            if action.cards != ("9S", "10S"):
                declined[level] += 1
    assert declined == Counter()
