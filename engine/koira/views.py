"""What each seat of a Koira game may see, and the placements.

Source: ``shared/rules/koira.md``. Hidden: other players' hands and won piles (apart from
the cards publicly known to be there), the stock, who got which card of a shuffled share
(R3: not even its receivers see theirs), and the cards of a removed player that nobody saw
(their hand, and pile cards not publicly known), though they left the game. Public: the
trick, the trump once the last stock card is drawn (R7), the face-up trump card, every count,
the other cards that left the game, pick-ups.
"""

from __future__ import annotations

from engine.core import JSON, RuleError
from engine.koira.cards import sorted_hand
from engine.koira.deal import clockwise, in_game


def placements(state: JSON) -> list[int] | None:
    """Per seat, the final place once over, else ``None``.

    R16: the players who went out in that order (1 = first out), then whoever is still in
    the game (one player: the koira; several holding no card: clockwise from the seat after
    the last player who went out), then the removed players, the first removed last (a
    player who leaves takes the koira's place). The koira is the seat placed last.
    """
    if not state["over"]:
        return None
    n = state["seats"]
    start = (state["out"][-1] + 1) % n if state["out"] else (state["last_winner"] or 0)
    left = [s for s in clockwise(state, start) if in_game(state, s)]
    order = list(state["out"]) + left + state["removed"][::-1]
    places = [0] * n
    for place, seat in enumerate(order, start=1):
        places[seat] = place
    return places


def koira(state: JSON) -> int | None:
    """The koira's seat (last place) once over, else ``None``."""
    places = placements(state)
    return None if places is None else places.index(state["seats"])


def view(state: JSON, seat: int | None) -> JSON:
    """What ``seat`` may see (``None``: the public table).

    Shape: ``{"game", "seat", "seats", "dealer", "phase", "turn", "trick_no", "options",
    "hand": own cards sorted (``None`` publicly), "pile": own won cards (phase 1; ``None``
    publicly), each card of an R3 shuffled share ``None`` (who got which stays hidden),
    "counts": cards in each hand, "pile_counts": each won pile's size,
    "stock": cards left in it, "can_stock": the stock may be played, "trump": suit or
    ``None``, "trump_card", "face_up": [seat, card] or ``None``, "trick": [{"seat",
    "cards", "from_stock"}], "round_seats": seats playing this round of a phase-1 trick,
    "round_from": index in "trick" of this round's first play,
    "tied": seats replaying a tie (R1) or [], "need": cards that complete a phase-2 trick,
    "in_game": [bool], "out", "removed", "known": [[cards] per seat] publicly known to be in
    that seat's hand or pile, "discarded": cards that left the game, ``None`` for each that
    nobody saw (a removed player's, ``discarded_unseen``; the list's length is how many
    left), "quiet": pick-ups since a card last left the game, "over", "placements",
    "koira"}``. Raises ``RuleError("bad_seat")``.
    """
    n = state["seats"]
    if seat is not None and (not isinstance(seat, int) or isinstance(seat, bool)
                             or not 0 <= seat < n):
        raise RuleError("bad_seat")
    trick = state["trick"]
    shuffled = set(state.get("shuffled", ()))  # absent in states saved before it
    unseen = set(state.get("discarded_unseen", ()))
    tied: list[int] = []
    if state["phase"] == 1 and state["round_from"] > 0:
        tied = list(state["round_seats"])
    return {
        "game": "koira", "seat": seat, "seats": n, "dealer": state["dealer"],
        "phase": state["phase"], "turn": None if state["over"] else state["turn"],
        "trick_no": state["trick_no"], "options": dict(state["options"]),
        "hand": None if seat is None else sorted_hand(state["hands"][seat]),
        "pile": None if seat is None else [None if c in shuffled else c
                                           for c in state["piles"][seat]],
        "counts": [len(h) for h in state["hands"]],
        "pile_counts": [len(p) for p in state["piles"]],
        "stock": len(state["stock"]),
        "can_stock": state["phase"] == 1 and len(state["stock"]) >= 2,
        "trump": state["trump"], "trump_card": state["trump_card"],
        "face_up": None if state["face_up"] is None else list(state["face_up"]),
        "trick": [{"seat": s, "cards": list(cards), "from_stock": src}
                  for s, cards, src in trick],
        "round_seats": list(state["round_seats"]), "round_from": state["round_from"],
        "tied": tied, "need": state["need"],
        "in_game": [in_game(state, s) for s in range(n)],
        "out": list(state["out"]), "removed": list(state["removed"]),
        "known": [list(k) for k in state["known"]],
        "discarded": [None if c in unseen else c for c in state["discarded"]],
        "quiet": state["quiet"],
        "over": state["over"], "placements": placements(state), "koira": koira(state),
    }
