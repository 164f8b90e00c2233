"""Coyote computer players: legal, blind to hidden cards, and never calling a sure bid."""

from __future__ import annotations

import copy
import random
from collections import Counter

from hypothesis import given
from hypothesis import strategies as st

from engine.core import Action, RuleError
from engine.coyote import get_edition, score
from engine.coyote.ai_levels import choose as coyote_choose
from engine.coyote.editions import MAX_BID
from engine.coyote.scoring import DRAWING_CARDS
from tests.engine.ai_fairness_helpers import COYOTE, LEVELS, SETTINGS, play_coyote

EDITIONS = ["classic", "feathers", "poker-deck"]


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
