"""A rules-minded review of the computer players (both games, every level): do they see only
what their seat may see, are they deterministic for their seed, is every decision legal, and
do they avoid moves a human would find absurd.

Rules: ``shared/rules/coyote.md`` ("every player holds one card so that everyone else can see
it but they cannot"; the draw pile is face down; Swap: "exchange your feather for the top of
the draw pile without looking") and ``shared/rules/koira.md`` (the stock is face down; the
others' hands are hidden; R3: "who got which card stays hidden").

Some tests reproduced leaks a review found (a removed Koira player's unseen cards, a shuffled
share's cards, a Coyote feather swapped away before a wrong Guess) and a Koira player that
declined to go out; all are fixed since.
"""

from __future__ import annotations

import copy
import os
import random
import subprocess
import sys
from collections import Counter
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.core import Action, RuleError
from engine.coyote import CoyoteGame, get_edition, score
from engine.coyote.ai_levels import choose as coyote_choose
from engine.coyote.editions import MAX_BID
from engine.coyote.scoring import DRAWING_CARDS
from engine.koira import KoiraGame
from engine.koira.ai_levels import choose as koira_choose
from tests.engine.koira_helpers import phase2, rehide

COYOTE = CoyoteGame()
KOIRA = KoiraGame()
EDITIONS = ["classic", "feathers", "poker-deck"]
LEVELS = ["easy", "normal", "hard"]
KOIRA_OPTIONS = [{}, {"tie_split": True}, {"trump_ends_trick": True}, {"pickup_single": True},
                 {"min_sequence": 3}]
ROOT = Path(__file__).resolve().parents[2]
SETTINGS = settings(max_examples=25, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


# --- Coyote helpers ----------------------------------------------------------------------

def coyote_random_legal(state: dict, seat: int, rng: random.Random) -> Action:
    """Any legal action, specials included (they create Change, Draw 1, Swap, Guess …)."""
    legal = COYOTE.legal_actions(state, seat)
    calls = [a for a in legal if a.kind == "call"]
    if calls and (len(state["bids"]) > 6 or rng.random() < 0.3):
        return calls[0]
    specials = [a for a in legal if a.special is not None]
    if specials and rng.random() < 0.35:
        return rng.choice(specials)
    return rng.choice([a for a in legal if a.kind == "bid"][:3])


def coyote_rehide(state: dict, seat: int, rng: random.Random) -> dict:
    """``state`` with every card hidden from ``seat`` dealt out differently: its own card
    (unless a right Guess turned it up), its own Draw 1 cards, its own swapped-away cards
    and the draw pile, shuffled among those places."""
    other = copy.deepcopy(state)
    slots: list[tuple[str, int, int | None]] = []
    if other["hands"][seat] is not None and not other["revealed"][seat]:
        slots.append(("hands", seat, None))
    slots += [("extra", seat, i) for i in range(len(other["extra"][seat]))]
    slots += [("void", seat, i) for i in range(len(other["void"][seat]))]
    cards = [other[k][s] if i is None else other[k][s][i] for k, s, i in slots]
    cards += other["draw"]
    rng.shuffle(cards)
    for (k, s, i), card in zip(slots, cards, strict=False):
        if i is None:
            other[k][s] = card
        else:
            other[k][s][i] = card
    other["draw"] = cards[len(slots):]
    return other


def coyote_legal(state: dict, seat: int, action: Action) -> bool:
    try:
        COYOTE.apply(state, seat, action)
    except RuleError:
        return False
    return True


def called_bid(view: dict) -> int | None:
    """The bid a call would be on now (the one before theirs when answering a Change)."""
    if not view["can_call"]:
        return None
    change = view["change"]
    if change is not None and change["target"] == view["seat"]:
        return view["bids"][-2][1]
    return view["bids"][-1][1]


def possible_totals(view: dict) -> set[int] | None:
    """Every total the showdown may give, from what the seat sees (brute force with
    :func:`engine.coyote.score`), or ``None`` where this brute force does not apply (its own
    Draw 1 or swapped cards hidden, or an empty draw pile)."""
    me = view["seat"]
    if any(c is None for c in view["extra"][me]) or any(c is None for c in view["void"][me]) \
            or view["draw_count"] == 0:
        return None
    edition = view["edition"]
    table = [c for c in view["cards"] if c is not None]
    for group in (view["extra"], view["face_up"]):
        for cards in group:
            table += [c for c in cards if c is not None]
    seen = table + list(view["discard"]) + [c for v in view["void"] for c in v if c]
    unseen = Counter(get_edition(edition).deck)
    unseen.subtract(seen)
    pool = [c for c, n in unseen.items() for _ in range(n) if n > 0]
    own = [None] if view["cards"][me] is not None or not view["in_play"][me] else sorted(set(pool))
    drawer = DRAWING_CARDS[edition]
    totals = set()
    for card in own:
        cards = table + ([card] if card is not None else [])
        rest = list(pool)
        if card is not None:
            rest.remove(card)
        if drawer in cards:
            for top in set(rest):  # one drawing card per deck: the drawn card draws nothing
                totals.add(score(edition, cards, [top]).total)
        else:
            totals.add(score(edition, cards).total)
    return totals


def play_coyote(edition: str, seats: int, specials: bool, seed: int, policies: list,
                check, max_steps: int = 400) -> dict:
    """Play (at most ``max_steps`` moves); ``policies[seat]``: a level or ``None`` (random
    legal moves); ``check(state, seat, view, action, level)`` at each computer decision."""
    state = COYOTE.new_state(seats, seed, {"edition": edition, "specials": specials})
    return _play(COYOTE, state, coyote_choose, coyote_random_legal, seed, policies, check,
                 max_steps)


def _play(game, state: dict, choose, random_legal, seed: int, policies: list, check,
          max_steps: int) -> dict:
    """The loop of :func:`play_coyote` and :func:`play_koira`, for either game."""
    rng = random.Random(seed)
    for _ in range(max_steps):
        if state["over"]:
            break
        seat = state["turn"]
        level = policies[seat]
        if level is None:
            action = random_legal(state, seat, rng)
        else:
            view = game.view(state, seat)
            action = choose(view, random.Random(rng.random()), level)
            check(state, seat, view, action, level)
        state, _ = game.apply(state, seat, action)
    return state


@st.composite
def coyote_tables(draw):
    edition = draw(st.sampled_from(EDITIONS))
    ed = get_edition(edition)
    seats = draw(st.integers(3, ed.max_players))
    specials = ed.specials is not None and draw(st.booleans())
    policies = draw(st.lists(st.sampled_from(LEVELS + [None]), min_size=seats,
                             max_size=seats))
    policies[draw(st.integers(0, seats - 1))] = draw(st.sampled_from(LEVELS))
    return edition, seats, specials, draw(st.integers(0, 10**9)), policies


# --- Coyote: fairness, legality, determinism (these held) ----------------------------------

@SETTINGS
@given(coyote_tables())
def test_coyote_every_level_is_legal_and_blind_to_every_hidden_card(table) -> None:
    """At every decision of every level, in every edition with and without special actions:
    the action is legal, and the same (same seed) when the cards hidden from the seat (its
    own card, its own Draw 1 cards, its own swapped-away feather, the draw pile's order)
    lie elsewhere."""
    edition, seats, specials, seed, policies = table
    problems = []

    def check(state, seat, view, action, level):
        assert coyote_legal(state, seat, action), (level, action)
        other = coyote_rehide(state, seat, random.Random(seed ^ state["step"]))
        other_view = COYOTE.view(other, seat)
        assert other_view == view
        s = state["step"]
        if coyote_choose(other_view, random.Random(s), level) != \
                coyote_choose(copy.deepcopy(view), random.Random(s), level):
            problems.append((level, state["step"]))

    play_coyote(edition, seats, specials, seed, policies, check, max_steps=150)
    assert not problems


@SETTINGS
@given(coyote_tables())
def test_coyote_never_calls_a_bid_the_visible_cards_prove_good(table) -> None:
    """A call on a bid that holds whatever one's own card (and whatever ``?``/``Q`` turns up)
    always loses (poker-deck: total above the bid); any bid would do better. And a bid that
    fails whatever one's own card is always called."""
    edition, seats, specials, seed, policies = table
    bad = []

    def check(state, seat, view, action, level):
        bid = called_bid(view)
        if bid is None or view["min_bid"] > MAX_BID:
            return
        totals = possible_totals(view)
        if totals is None:
            return
        caller_loses = get_edition(edition).equal_total_loser == "caller"
        sure_good = all(t >= bid if caller_loses else t > bid for t in totals)
        sure_bad = all(t < bid for t in totals)
        if sure_good and action.kind == "call":
            bad.append(("called a sure bid", level, bid, sorted(totals)))
        if sure_bad and action.kind != "call":
            bad.append(("let a sure bluff pass", level, bid, sorted(totals), action))

    play_coyote(edition, seats, specials, seed, policies, check, max_steps=150)
    assert not bad


def test_coyote_and_koira_ais_use_no_global_random_or_clock(monkeypatch) -> None:
    """The global ``random`` functions and the clock are never used by a decision."""
    import time

    def boom(*_a, **_k):
        raise AssertionError("global random or clock used")

    for name in ("random", "randint", "randrange", "choice", "choices", "shuffle", "sample",
                 "uniform", "getrandbits", "gauss"):
        monkeypatch.setattr(random, name, boom)
    for name in ("time", "perf_counter", "monotonic", "process_time", "thread_time"):
        monkeypatch.setattr(time, name, boom)
    for level in LEVELS:
        play_coyote("classic", 5, False, 7, [level] * 5, lambda *a: None, max_steps=60)
        play_coyote("classic", 5, True, 8, [level] * 5, lambda *a: None, max_steps=60)
        play_coyote("feathers", 5, True, 9, [level] * 5, lambda *a: None, max_steps=60)
        play_koira(5, 3, {}, [level] * 5, lambda *a: None, max_steps=300)


_DETERMINISM_SCRIPT = """
import random, hashlib
from engine.coyote import CoyoteGame
from engine.coyote.ai_levels import choose as cc
from engine.koira import KoiraGame
from engine.koira.ai_levels import choose as kc
out = []
for level in ("easy", "normal", "hard"):
    for edition, specials in (("classic", False), ("classic", True), ("feathers", True),
                              ("poker-deck", False)):
        g = CoyoteGame(); s = g.new_state(6, 11, {"edition": edition, "specials": specials})
        for step in range(120):
            if s["over"]:
                break
            seat = s["turn"]; a = cc(g.view(s, seat), random.Random(step), level)
            out.append(repr(a)); s, _ = g.apply(s, seat, a)
    g = KoiraGame(); s = g.new_state(5, 11, {})
    for step in range(400):
        if s["over"]:
            break
        seat = s["turn"]; a = kc(g.view(s, seat), random.Random(step), level)
        out.append(repr(a)); s, _ = g.apply(s, seat, a)
print(hashlib.sha256("|".join(out).encode()).hexdigest())
"""


def test_decisions_do_not_depend_on_the_process_hash_seed() -> None:
    """The same games, decided in two processes with different ``PYTHONHASHSEED`` (set
    iteration order), give the same actions: deterministic for a seed across restarts."""
    got = set()
    for hash_seed in ("1", "2"):
        env = dict(os.environ, PYTHONHASHSEED=hash_seed)
        run = subprocess.run([sys.executable, "-c", _DETERMINISM_SCRIPT], cwd=ROOT, env=env,
                             capture_output=True, text=True, timeout=240, check=True)
        got.add(run.stdout.strip())
    assert len(got) == 1


# --- Coyote: a swapped-away feather shown to its holder -----------------------------------

def _swap_then_wrong_guess(old_card: str) -> dict:
    """Feathers with coins, four players; seat 1 holds ``old_card`` (unseen by seat 1), swaps
    it for the top of the draw pile "without looking", bids; seat 2 then guesses its own
    feather wrong, which ends the round without a showdown. Two worlds that differ only in
    ``old_card`` (the other candidate lies at the bottom of the draw pile) look the same to
    seat 1 in every event: the swap names no card, the wrong Guess shows the hands (seat
    1's new feather), not the swapped-away one."""
    state = COYOTE.new_state(4, 3, {"edition": "feathers", "specials": True})
    hands = ["5", old_card, "7", "8"]
    other = "9" if old_card == "3" else "3"
    rest = list(get_edition("feathers").deck)
    for card in hands + [other]:
        rest.remove(card)
    rest.remove("10")
    state.update(hands=hands, draw=["10"] + rest + [other], discard=[], turn=0, starter=0)
    state, _ = COYOTE.apply(state, 0, Action("bid", 1))
    state, _ = COYOTE.apply(state, 1, Action("special", special="swap"))
    state, _ = COYOTE.apply(state, 1, Action("bid", 2))
    state, events = COYOTE.apply(state, 2, Action("special", special="guess", guess="1"))
    assert [e.type for e in events][:2] == ["special_used", "round_ended"]
    assert state["round"] == 2
    return state


def test_coyote_swapped_away_feather_stays_unseen_by_its_holder_after_a_wrong_guess() -> None:
    """Found: after a wrong Guess ends the round, the swapper's view (``discard``) names the
    feather they swapped away without looking; the computer player counts it (``estimate``
    takes the discard pile as seen). After a showdown the swapped card is shown to all (the
    ``showdown`` event's ``void``), but a wrong Guess reveals only the hands, and the bot
    shows a human no discard pile at all."""
    a, b = _swap_then_wrong_guess("3"), _swap_then_wrong_guess("9")
    assert COYOTE.view(a, 1) == COYOTE.view(b, 1)


# --- Koira helpers -------------------------------------------------------------------------

def play_koira(seats: int, seed: int, options: dict, policies: list, check,
               max_steps: int = 3000) -> dict:
    state, _ = KOIRA.new_game(seats, seed, options)
    return _play(KOIRA, state, koira_choose,
                 lambda state, seat, rng: rng.choice(KOIRA.legal_actions(state, seat)),
                 seed, policies, check, max_steps)


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


# --- Koira: a removed player's hand shown to everyone -------------------------------------

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
