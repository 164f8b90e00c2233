"""Property tests: random games of every edition keep the engine's invariants, with and without
the special actions (classic masks, feathers coins)."""

from __future__ import annotations

import copy
import json
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.core import Action
from engine.coyote import CoyoteGame, get_edition, score

GAME = CoyoteGame()
EDITION_NAMES = ["classic", "feathers", "poker-deck"]
SPECIAL_EDITIONS = ["classic", "feathers"]
MAX_BIDS_PER_ROUND = 12  # after this many bids in a round the strategy must call
POKER_STEP_BOUND = 5000  # poker-deck draws replay a round, so only a generous bound holds
CARD_PLACES = ("extra", "face_up", "void")  # special actions' cards, per seat


def step_bound(edition: str, seats: int, lives: int, specials: bool = False) -> int:
    if get_edition(edition).first_out_ends:
        return POKER_STEP_BOUND
    # every round ends in a showdown or a wrong Guess and costs at least one life; the game
    # ends with at most one survivor. A round holds at most MAX_BIDS_PER_ROUND bids (a few
    # more when the seat to act may not call), one mask per seat plus a Change answer, and
    # one use of each of the 5 coins.
    per_round = MAX_BIDS_PER_ROUND + 3 + (2 * seats + 5 if specials else 0)
    return seats * lives * per_round


def choose(state: dict, seat: int, rng: random.Random, call_prob: float,
           special_prob: float = 0.0, legal: list[Action] | None = None) -> Action:
    if legal is None:
        legal = GAME.legal_actions(state, seat)
    assert legal, "the seat to act has no legal action"
    calls = [a for a in legal if a.kind == "call"]
    bids = [a for a in legal if a.kind == "bid" and a.special is None]
    specials = [a for a in legal if a.special is not None]
    assert bids, "a plain bid is always legal"
    if calls and (len(state["bids"]) >= MAX_BIDS_PER_ROUND or rng.random() < call_prob):
        return calls[0]
    if specials and rng.random() < special_prob:
        # pick a special by name first, so the many Draw 1/Shot/Guess variants do not crowd
        # out the others; a Guess is right half of the time (the strategy may peek)
        name = rng.choice(sorted({a.special for a in specials}))
        options = [a for a in specials if a.special == name]
        right = [a for a in options if a.guess is not None and a.guess == state["hands"][seat]]
        if right and rng.random() < 0.5:
            return right[0]
        return rng.choice(options[:12])
    return rng.choice(bids[:4])


def expected_specials(state: dict, seat: int) -> set[str]:
    """The special actions the rule text allows ``seat`` now, computed independently of the
    engine (``shared/rules/coyote.md``, "Mask actions" and "Variant coins")."""
    if state["change"] is not None or not state["options"]["specials"]:
        return set()  # a Change target must re-bid or call
    alive = [s for s in range(state["seats"]) if state["lives"][s] > 0]
    a_card_left = bool(state["draw"] or state["discard"])
    names: set[str] = set()
    if state["edition"] == "classic":
        if not state["masks"][seat]:
            return set()  # one mask per player per round
        names = {"reverse", "double", "shot"}
        if not state["pass_blocked"]:
            names.add("pass")
        if state["bids"] and state["bids"][-1][0] != seat:
            names.add("change")
        if not state["draw1_used"] and a_card_left:
            names.add("draw1")
    elif state["edition"] == "feathers":
        if len(alive) <= 2 or state["coin_turn"] == seat:
            return set()  # no coins with two players; one coin per turn
        names = set(state["coins"])
        if not a_card_left:
            names -= {"extra", "swap"}
        active = [s for s in alive if not state["safe"][s]]
        if len(active) - 1 < 2:
            names.discard("guess")
    return names


def check_legal(state: dict, seat: int, legal: list[Action]) -> None:
    """``legal_actions`` lists exactly the specials and calls the rules allow."""
    assert len(set(legal)) == len(legal)
    assert {a.special for a in legal if a.special is not None} == \
        expected_specials(state, seat)
    change = state["change"]
    if not state["bids"] or state["must_bid"]:
        can_call = False
    elif change is not None and change["target"] == seat:
        # the bid before theirs, and never one of their own
        can_call = len(state["bids"]) >= 2 and state["bids"][-2][0] != seat
    else:
        can_call = state["bids"][-1][0] != seat
    assert (Action("call") in legal) == can_call
    low = state["bids"][-1][1] + 1 if state["bids"] else 1
    assert Action("bid", low) in legal
    assert all(a.amount >= low for a in legal if a.kind == "bid")
    alive = {s for s in range(state["seats"]) if state["lives"][s] > 0}
    for action in legal:
        if action.special in ("draw1", "shot"):
            assert action.target in alive and action.target != seat


def lists_in(obj):
    """Every list found anywhere inside a JSON value (with the key that holds it)."""
    if isinstance(obj, dict):
        for key, value in obj.items():
            if isinstance(value, list):
                yield key, value
            yield from lists_in(value)
    elif isinstance(obj, list):
        for value in obj:
            if isinstance(value, list):
                yield None, value
            yield from lists_in(value)


def special_cards(state: dict) -> list[str]:
    """Every card in the special actions' places (Draw 1, Extra feather, Swap)."""
    return [c for key in CARD_PLACES for pile in state[key] for c in pile]


def check_invariants(state: dict, edition: str) -> None:
    deck = Counter(get_edition(edition).deck)
    in_hands = [c for c in state["hands"] if c is not None]
    assert Counter(state["draw"] + state["discard"] + in_hands + special_cards(state)) == deck
    assert json.loads(json.dumps(state)) == state
    n = state["seats"]
    assert all(0 <= life <= state["options"]["lives"] for life in state["lives"])
    assert sorted(state["out"]) == sorted(s for s in range(n) if state["lives"][s] == 0)
    assert len(set(state["out"])) == len(state["out"])
    if state["over"]:
        assert GAME.current_seat(state) is None
        placements = GAME.placements(state)
        assert placements is not None and len(placements) == n
    else:
        assert GAME.placements(state) is None
        turn = GAME.current_seat(state)
        assert turn is not None and state["lives"][turn] > 0
        assert not state["safe"][turn], "a player safe after a right Guess got a turn"
        assert state["direction"] in (1, -1)
        assert not any(state["masks"][s] and state["lives"][s] == 0 for s in range(n))
        for s in range(n):
            assert (state["hands"][s] is None) == (state["lives"][s] == 0)
            if s != turn:
                assert GAME.legal_actions(state, s) == []
    draw = state["draw"]
    for seat in [None, *range(n)]:
        view = GAME.view(state, seat)
        assert json.loads(json.dumps(view)) == view
        assert "draw" not in view and "hands" not in view and "seed" not in view
        assert view["draw_count"] == len(draw)
        cards = view["cards"]
        assert len(cards) == n
        for s in range(n):
            hand, revealed = state["hands"][s], state["revealed"][s]
            if seat is None or s == seat:
                # the public table and the holder see a hand card only after a right Guess
                assert cards[s] == (hand if revealed else None)
            else:
                assert cards[s] == hand
            # Draw 1 and swapped-away cards: hidden from their holder and the public table
            for key in ("extra", "void"):
                hidden = seat is None or s == seat
                expected = [None] * len(state[key][s]) if hidden else state[key][s]
                assert view[key][s] == expected, (key, seat, s)
            # Extra feather: face up for everyone
            assert view["face_up"][s] == state["face_up"][s]
        if len(draw) >= 2:  # a one-card draw pile may equal some single visible card
            for key, value in lists_in(view):
                if key == "discard":  # (a card swapped away unseen, then discarded by
                    # a wrong Guess, stays hidden from its holder and the public table)
                    hidden = {i for s, i in state.get("discard_unseen", [])
                              if seat is None or s == seat}
                    assert value == [None if i in hidden else c
                                     for i, c in enumerate(state["discard"])]
                    continue
                assert value != draw, f"view key {key!r} reveals the draw pile"


def expected_loser(edition: str, total: int, bid: int, bidder: int, caller: int) -> int | None:
    """The rule text: poker-deck equal -> nobody; else total >= bid -> caller, else bidder."""
    if edition == "poker-deck" and total == bid:
        return None
    return caller if total >= bid else bidder


def table_cards(state: dict) -> list[str]:
    """The cards that count, in seat order: own card, Draw 1 cards, Extra feathers (never the
    swapped-away ones)."""
    table: list[str] = []
    for s in range(state["seats"]):
        if state["hands"][s] is not None:
            table.append(state["hands"][s])
        table += state["extra"][s] + state["face_up"][s]
    return table


def check_showdown(before: dict, after: dict, caller: int, evs: list[dict], edition: str) -> None:
    """Cross-check a showdown against the scoring function and the rule text."""
    [sd] = [e for e in evs if e["type"] == "showdown"]
    change = before["change"]
    answering_change = change is not None and change["target"] == caller
    # a Change target calls Coyote on the bid before theirs
    bidder, bid = before["bids"][-2] if answering_change else before["bids"][-1]
    assert bidder != caller
    # Double: the very next action is a call on the doubled bid
    lives_lost = 2 if before["double"] == bidder and change is None else 1
    table = table_cards(before)
    assert (sd["bidder"], sd["caller"], sd["bid"]) == (bidder, caller, bid)
    assert [c["card"] for c in sd["cards"][: len(table)]] == table
    assert sd["void"] == before["void"]
    if not any(e["type"] == "reshuffled" and e["reason"] == "draw_for_special" for e in evs):
        assert sd["total"] == score(edition, table, before["draw"]).total
    loser = expected_loser(edition, sd["total"], bid, bidder, caller)
    assert sd["loser"] == loser
    expected_lives = list(before["lives"])
    if loser is not None:
        assert sd["lives_lost"] == lives_lost
        expected_lives[loser] = max(0, expected_lives[loser] - lives_lost)
    assert after["lives"] == expected_lives
    if after["over"]:
        return
    winner = None if loser is None else (caller if loser == bidder else bidder)
    if edition == "classic":
        starter = loser if after["lives"][loser] > 0 else winner
    elif edition == "feathers":
        starter = winner
    else:
        starter = caller if loser is None else loser
    assert after["turn"] == starter


def check_wrong_guess(before: dict, after: dict, seat: int, evs: list[dict]) -> None:
    """A wrong Guess: a life lost at once, no showdown, the guesser starts the next round."""
    assert "showdown" not in [e["type"] for e in evs]
    [ended] = [e for e in evs if e["type"] == "round_ended"]
    assert ended == {"type": "round_ended", "reason": "wrong_guess", "seat": seat,
                     "cards": before["hands"]}
    expected_lives = list(before["lives"])
    expected_lives[seat] -= 1
    assert after["lives"] == expected_lives
    if not after["over"] and after["lives"][seat] > 0:
        assert after["turn"] == seat and after["round"] == before["round"] + 1


def check_special(before: dict, after: dict, seat: int, action: Action, evs: list[dict]) -> None:
    """Per-action checks of a special action (not a call)."""
    name = action.special
    if action.kind == "bid" or name is None or after["round"] != before["round"]:
        return
    if name in ("pass", "skip"):
        assert after["bids"] == before["bids"] and after["turn"] != seat
    elif name == "reverse":
        assert after["direction"] == -before["direction"] and after["turn"] == seat
    elif name == "change":
        assert after["change"] == {"by": seat, "target": before["bids"][-1][0]}
    elif name in ("extra", "swap"):
        assert after["must_bid"] is True and after["turn"] == seat
    elif name == "guess":
        assert after["safe"][seat] and after["revealed"][seat]
        assert after["hands"][seat] == action.guess
    assert after["bids"] == before["bids"]


def run_game(edition: str, seats: int, seed: int, choice_seed: int, call_prob: float,
             lives: int | None = None, check: bool = True, specials: bool = False,
             special_prob: float = 0.0):
    options: dict = {"edition": edition}
    if lives is not None:
        options["lives"] = lives
    if specials:
        options["specials"] = True
    state = GAME.new_state(seats, seed, options)
    lives = state["options"]["lives"]
    if check:
        check_invariants(state, edition)
    rng = random.Random(choice_seed)
    actions: list[tuple[int, Action]] = []
    events: list[dict] = []
    bound = step_bound(edition, seats, lives, specials)
    while not state["over"]:
        assert len(actions) < bound, "the game did not end within the step bound"
        seat = GAME.current_seat(state)
        legal = GAME.legal_actions(state, seat)
        if check:
            check_legal(state, seat, legal)
        action = choose(state, seat, rng, call_prob, special_prob, legal)
        before = copy.deepcopy(state) if check else None
        new, evs = GAME.apply(state, seat, action)
        if check:
            assert state == before, "apply mutated its input"
            check_invariants(new, edition)
            assert new["step"] == state["step"] + 1
        evs_json = [e.to_json() for e in evs]
        if check and action.kind == "call":
            check_showdown(state, new, seat, evs_json, edition)
        if check and action.special == "guess" and action.guess != state["hands"][seat]:
            check_wrong_guess(state, new, seat, evs_json)
        elif check:
            check_special(state, new, seat, action, evs_json)
        if check:
            assert Action.from_json(json.loads(json.dumps(action.to_json()))) == action
        assert json.loads(json.dumps(evs_json)) == evs_json
        events.extend(evs_json)
        actions.append((seat, action))
        state = new
    return state, actions, events


def replay(edition: str, seats: int, seed: int, actions, lives: int, specials: bool = False):
    options = {"edition": edition, "lives": lives}
    if specials:
        options["specials"] = True
    state = GAME.new_state(seats, seed, options)
    events: list[dict] = []
    for seat, action in actions:
        # actions travel as JSON (the league stores them so)
        action = Action.from_json(json.loads(json.dumps(action.to_json())))
        state, evs = GAME.apply(state, seat, action)
        events.extend(e.to_json() for e in evs)
    return state, events


def check_finished_game(edition: str, seats: int, seed: int, lives: int, specials: bool,
                        final: dict, actions, events) -> None:
    ed = get_edition(edition)

    # the game ended properly
    assert final["over"] is True
    assert events[-1]["type"] == "game_over"
    placements = GAME.placements(final)
    assert events[-1]["placements"] == placements
    if ed.first_out_ends:
        assert len(final["out"]) == 1
        assert sorted(placements) == [1] * (seats - 1) + [seats]
    else:
        assert len(final["out"]) == seats - 1
        assert sorted(placements) == list(range(1, seats + 1))
        assert placements[final["out"][-1]] == 2

    # determinism: the same seed and actions rebuild the same state and events
    again, again_events = replay(edition, seats, seed, actions, lives, specials)
    assert again == final
    assert again_events == events


def lives_for(edition, seats: int):
    """The lives a table of ``seats`` may choose (feathers: 4 or 5 with 3–4 players only)."""
    low, high = edition.lives_range
    most = edition.more_lives_max_players
    if most is not None and seats > most:
        high = edition.lives
    return st.integers(low, high)


@pytest.mark.parametrize("edition", EDITION_NAMES)
@settings(max_examples=60, deadline=None)
@given(data=st.data(), seed=st.integers(0, 2**31), choice_seed=st.integers(0, 2**31),
       call_prob=st.floats(0.15, 0.9))
def test_random_games_keep_invariants(edition, data, seed, choice_seed, call_prob):
    ed = get_edition(edition)
    seats = data.draw(st.integers(3, ed.max_players), label="seats")
    lives = data.draw(lives_for(ed, seats), label="lives")
    final, actions, events = run_game(edition, seats, seed, choice_seed, call_prob, lives)
    check_finished_game(edition, seats, seed, lives, False, final, actions, events)


@pytest.mark.parametrize("edition", SPECIAL_EDITIONS)
@settings(max_examples=40, deadline=None)
@given(data=st.data(), seed=st.integers(0, 2**31), choice_seed=st.integers(0, 2**31),
       call_prob=st.floats(0.15, 0.9), special_prob=st.floats(0.1, 0.9))
def test_random_games_with_specials_keep_invariants(edition, data, seed, choice_seed,
                                                    call_prob, special_prob):
    ed = get_edition(edition)
    seats = data.draw(st.integers(3, ed.max_players), label="seats")
    lives = data.draw(lives_for(ed, seats), label="lives")
    final, actions, events = run_game(edition, seats, seed, choice_seed, call_prob, lives,
                                      specials=True, special_prob=special_prob)
    check_finished_game(edition, seats, seed, lives, True, final, actions, events)


@pytest.mark.parametrize(("edition", "specials"), [
    *((e, False) for e in EDITION_NAMES), *((e, True) for e in SPECIAL_EDITIONS)])
@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**31), choice_seed=st.integers(0, 2**31))
def test_same_inputs_same_game(edition, specials, seed, choice_seed):
    seats = get_edition(edition).min_players
    a = run_game(edition, seats, seed, choice_seed, 0.5, check=False, specials=specials,
                 special_prob=0.4)
    b = run_game(edition, seats, seed, choice_seed, 0.5, check=False, specials=specials,
                 special_prob=0.4)
    assert a == b
