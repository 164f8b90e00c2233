"""Koira's options, the deal and the seat helpers both phases share.

Source: ``shared/rules/koira.md`` ("Setup", "Card notation and dealing", "Variants").

State (a JSON object)::

    {"game": "koira", "options": {"tie_split": bool, "trump_ends_trick": bool,
                                  "pickup_single": bool, "min_sequence": 2 | 3},
     "seed": int, "step": int, "seats": int, "dealer": seat,
     "phase": 1 | 2, "hands": [[cards] per seat], "stock": [cards, top first],
     "piles": [[cards] per seat] (phase 1 won piles, face down),
     "shuffled": [cards] (phase 1: the cards R3 shuffled shares dealt onto won piles; who got
              which stays hidden, from the receivers too; absent in older states: []),
     "discarded": [cards] (phase 2 tricks and removed players' cards: out of the game),
     "discarded_unseen": [cards] (the cards of "discarded" nobody saw: a removed player's
              hand and pile cards not publicly known; absent in older states: []),
     "known": [[cards] per seat] (cards publicly known to lie in that seat's hand or pile:
              a trick won whole, a tie_split share, the face-up trump card, a pick-up),
     "trump": suit letter or None, "trump_card": card or None,
     "face_up": [seat, card] or None (the last stock card, face up in its drawer's hand),
     "trick": [[seat, [cards], from_stock]] (the plays of the trick, oldest first),
     "round_seats": [seats] (phase 1: who plays in this round of the trick, in order),
     "round_from": int (phase 1: index of this round's first play in "trick"),
     "need": int (phase 2: cards that complete this trick, R9), "lead_trump": bool,
     "trick_no": int (tricks begun, from 1), "last_winner": seat or None,
     "turn": seat or None, "out": [seats in the order they went out],
     "removed": [seats in the order they were removed], "over": bool,
     "quiet": int (phase 2: pick-ups since a card last left the game or a player went out;
              public, so computer players can tell a game going round in circles)}
"""

from __future__ import annotations

from typing import Any

from engine.core import JSON, OptionSpec, RuleError, rng_for
from engine.koira.cards import DECK, is_card

MIN_PLAYERS, MAX_PLAYERS = 3, 8
HAND_SIZE = 3
"""Cards dealt to each player, and the phase-1 refill target (R6)."""

OPTION_SPECS = (
    OptionSpec("tie_split", (False, True), False, "option_tie_split"),
    OptionSpec("trump_ends_trick", (False, True), False, "option_trump_ends_trick"),
    OptionSpec("pickup_single", (False, True), False, "option_pickup_single"),
    OptionSpec("min_sequence", (2, 3), 2, "option_min_sequence"),
)
"""The settable rules (koira.md "Variants"); the league's own options (``pace``, …) and
``deck``/``dealer`` pass through :func:`game_options` unread."""


def game_options(options: JSON | None) -> JSON:
    """The rule options of ``options`` with defaults filled in; other keys are ignored.

    Raises ``RuleError("bad_option", option=name)`` for a value not allowed.
    """
    given = options or {}
    chosen: JSON = {}
    for spec in OPTION_SPECS:
        value = given.get(spec.name, spec.default)
        if type(value) is not type(spec.default) or value not in spec.values:
            raise RuleError("bad_option", option=spec.name)
        chosen[spec.name] = value
    return chosen


def new_state(seats: int, seed: int, options: JSON | None) -> JSON:
    """A dealt game (koira.md "Setup", "Card notation and dealing").

    ``options["deck"]``: all 52 cards, top first; without it the seed shuffles.
    ``options["dealer"]``: the dealer's seat; without it the seed chooses. Cards are dealt
    one at a time clockwise from the seat after the dealer until each holds 3; the rest, in
    order, is the stock (its first card the top). Raises ``RuleError("bad_player_count",
    min=, max=)``, ``("bad_option", option=)`` (``deck``, ``dealer`` or a rule option).
    """
    if (not isinstance(seats, int) or isinstance(seats, bool)
            or not MIN_PLAYERS <= seats <= MAX_PLAYERS):
        raise RuleError("bad_player_count", min=MIN_PLAYERS, max=MAX_PLAYERS)
    given = options or {}
    rules = game_options(given)
    rng = rng_for(seed, 0)
    dealer: Any = given.get("dealer")
    if dealer is None:
        dealer = rng.randrange(seats)
    elif not isinstance(dealer, int) or isinstance(dealer, bool) or not 0 <= dealer < seats:
        raise RuleError("bad_option", option="dealer")
    deck: Any = given.get("deck")
    if deck is None:
        deck = list(DECK)
        rng.shuffle(deck)
    elif (not isinstance(deck, list | tuple) or len(deck) != len(DECK)
          or not all(is_card(c) for c in deck) or len(set(deck)) != len(DECK)):
        raise RuleError("bad_option", option="deck")
    hands: list[list[str]] = [[] for _ in range(seats)]
    for i, card in enumerate(deck[:HAND_SIZE * seats]):
        hands[(dealer + 1 + i) % seats].append(card)
    return {
        "game": "koira", "options": rules, "seed": seed, "step": 0, "seats": seats,
        "dealer": dealer, "phase": 1, "hands": hands, "stock": list(deck[HAND_SIZE * seats:]),
        "piles": [[] for _ in range(seats)], "shuffled": [], "discarded": [],
        "discarded_unseen": [],
        "known": [[] for _ in range(seats)], "trump": None, "trump_card": None,
        "face_up": None, "trick": [], "round_seats": [], "round_from": 0, "need": 0,
        "lead_trump": False, "trick_no": 0, "last_winner": None, "turn": None, "out": [],
        "removed": [], "over": False, "quiet": 0,
    }


def copy_state(state: JSON) -> JSON:
    """A copy deep enough that changing it never touches ``state`` (faster than deepcopy)."""
    new = dict(state)
    for key in ("hands", "piles", "known"):
        new[key] = [list(x) for x in state[key]]
    for key in ("stock", "discarded", "round_seats", "out", "removed"):
        new[key] = list(state[key])
    for key in ("shuffled", "discarded_unseen"):  # absent in states saved before them
        new[key] = list(state.get(key, ()))
    new["trick"] = [[seat, list(cards), src] for seat, cards, src in state["trick"]]
    new["options"] = dict(state["options"])
    if state["face_up"] is not None:
        new["face_up"] = list(state["face_up"])
    return new


def in_game(state: JSON, seat: int) -> bool:
    """Whether ``seat`` still plays (R9: until they get rid of their last card; not removed)."""
    return seat not in state["out"] and seat not in state["removed"]


def players_in_game(state: JSON) -> list[int]:
    """Seats still in the game, in seat order."""
    return [s for s in range(state["seats"]) if in_game(state, s)]


def clockwise(state: JSON, start: int) -> list[int]:
    """Every seat in clockwise order beginning with ``start``."""
    n = state["seats"]
    return [(start + k) % n for k in range(n)]


def next_in_game(state: JSON, seat: int) -> int | None:
    """The next seat clockwise after ``seat`` that is still in the game (``None``: nobody)."""
    return next((s for s in clockwise(state, seat)[1:] if in_game(state, s)), None)


def take(hand: list[str], cards: list[str] | tuple[str, ...]) -> None:
    """Remove ``cards`` from ``hand`` (in place)."""
    for card in cards:
        hand.remove(card)


def forget(state: JSON, seat: int, cards: list[str] | tuple[str, ...]) -> None:
    """``cards`` left ``seat``'s hand: they are no longer publicly known to be there."""
    known = state["known"][seat]
    for card in cards:
        if card in known:
            known.remove(card)
    face_up = state["face_up"]
    if face_up is not None and face_up[0] == seat and face_up[1] in cards:
        state["face_up"] = None
