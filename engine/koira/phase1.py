"""Phase 1 of Koira: collecting tricks, ties, the stock and the trump.

Source: ``shared/rules/koira.md`` "Phase 1 — collecting" and rulings R1–R8, R19. Every
function changes the (copied) state in place and appends public events.
"""

from __future__ import annotations

import random

from engine.core import JSON, TRICK_OVER, Event, RuleError
from engine.koira.cards import rank
from engine.koira.deal import HAND_SIZE, clockwise, forget, in_game, take

STOCK_MIN = 2
"""The stock may be played only while it holds at least this many cards, so the last stock
card is never played blind (koira.md Phase 1; R2)."""


def can_play_stock(state: JSON) -> bool:
    """Whether the stock's top may be turned up and played now (phase 1 only, R19)."""
    return state["phase"] == 1 and len(state["stock"]) >= STOCK_MIN


def start_trick(state: JSON, leader: int, events: list[Event]) -> None:
    """Begin a phase-1 trick led by ``leader`` (R8: a player with no cards sits it out; if
    the leader has none, the next player clockwise with cards leads)."""
    seats = [s for s in clockwise(state, leader)
             if in_game(state, s) and state["hands"][s]]
    state["trick"] = []
    state["round_seats"] = seats
    state["round_from"] = 0
    state["trick_no"] += 1
    state["turn"] = seats[0]
    events.append(Event("trick_started", {"phase": 1, "trick": state["trick_no"],
                                          "leader": seats[0]}))


def play(state: JSON, seat: int, card: str | None, rng: random.Random,
         events: list[Event]) -> None:
    """``seat`` plays ``card`` from hand, or (``card=None``) turns up the stock's top and
    plays it (it never goes into the hand). R19: exactly one card. Raises
    ``RuleError("not_in_hand")`` or ``("stock_too_small", min=2)``."""
    if card is None:
        if not can_play_stock(state):
            raise RuleError("stock_too_small", min=STOCK_MIN)
        card = state["stock"].pop(0)
        from_stock = True
    else:
        if card not in state["hands"][seat]:
            raise RuleError("not_in_hand", card=card)
        take(state["hands"][seat], [card])
        forget(state, seat, [card])
        from_stock = False
    state["trick"].append([seat, [card], from_stock])
    events.append(Event("card_played", {"seat": seat, "cards": [card], "phase": 1,
                                        "from_stock": from_stock}))
    _next(state, rng, events)


def _next(state: JSON, rng: random.Random, events: list[Event]) -> None:
    """Pass the turn within the round, or settle the round once all its players played."""
    seats = [s for s in state["round_seats"] if in_game(state, s)]
    state["round_seats"] = seats
    played = {p[0] for p in state["trick"][state["round_from"]:]}
    waiting = [s for s in seats if s not in played]
    if waiting:
        state["turn"] = waiting[0]
        return
    _settle_round(state, rng, events)


def removed_mid_trick(state: JSON, rng: random.Random, events: list[Event]) -> None:
    """A player left during a phase-1 trick: their cards stay in it, they play no more."""
    if any(in_game(state, s) for s in state["round_seats"]):
        _next(state, rng, events)
    elif state["trick"]:
        # nobody of the round is left (everyone else had no cards): the last leader keeps
        # the trick; the game is ending anyway when so few remain
        _win(state, state["trick"][-1][0], rng, events)


def _settle_round(state: JSON, rng: random.Random, events: list[Event]) -> None:
    """R1: only this round's cards are compared; a single highest card wins the trick, a tie
    at the top is replayed by the tied players in play order, or shared (R3, R5)."""
    plays = [p for p in state["trick"][state["round_from"]:] if in_game(state, p[0])]
    if not plays:  # every player of the round left
        _win(state, state["trick"][-1][0], rng, events)
        return
    top = max(rank(p[1][0]) for p in plays)
    tied = [p[0] for p in plays if rank(p[1][0]) == top]
    if len(tied) == 1:
        _win(state, tied[0], rng, events)
    elif state["options"]["tie_split"]:
        _split_sorted(state, tied, rng, events)
    elif any(not state["hands"][s] for s in tied):
        _split_shuffled(state, tied, rng, events)
    else:
        events.append(Event("tie", {"seats": tied, "rank": top}))
        state["round_seats"] = tied
        state["round_from"] = len(state["trick"])
        state["turn"] = tied[0]


def _trick_cards(state: JSON) -> list[str]:
    return [c for p in state["trick"] for c in p[1]]


def _win(state: JSON, winner: int, rng: random.Random, events: list[Event]) -> None:
    """The trick goes onto ``winner``'s won pile, face down; its cards were seen by all."""
    cards = _trick_cards(state)
    state["piles"][winner].extend(cards)
    state["known"][winner].extend(cards)
    events.append(Event(TRICK_OVER, {"phase": 1, "trick": state["trick_no"],
                                     "seat": winner, "cards": cards}))
    _finish(state, winner, rng, events)


def _split_shuffled(state: JSON, tied: list[int], rng: random.Random,
                    events: list[Event]) -> None:
    """R3: a tie that cannot break (a tied player has no card left in hand; the stock does
    not count): all the trick's cards are shuffled and dealt one at a time to the tied
    players in play order, onto their won piles (who got which card stays hidden). R4: the
    first tied player counts as the winner."""
    cards = _trick_cards(state)
    rng.shuffle(cards)
    shares = {s: 0 for s in tied}
    for i, card in enumerate(cards):
        seat = tied[i % len(tied)]
        state["piles"][seat].append(card)
        shares[seat] += 1
    events.append(Event("trick_shared", {"phase": 1, "trick": state["trick_no"],
                                         "seats": tied, "how": "shuffled",
                                         "counts": [shares[s] for s in tied]}))
    events.append(Event(TRICK_OVER, {"phase": 1, "trick": state["trick_no"],
                                     "seat": tied[0], "shared": True}))
    _finish(state, tied[0], rng, events)


def _split_sorted(state: JSON, tied: list[int], rng: random.Random,
                  events: list[Event]) -> None:
    """R5 ``tie_split``: no replay. Each tied card goes onto its player's won pile; the other
    cards, ascending by rank (equal ranks in the order played), go one at a time: the lowest
    to the player who played last in the trick, then the rest to the tied players in play
    order, round and round. R4: the first tied player counts as the winner."""
    top = max(rank(p[1][0]) for p in state["trick"] if p[0] in tied)
    given: dict[int, list[str]] = {s: [] for s in tied}
    rest: list[str] = []
    for seat, cards, _src in state["trick"]:
        if seat in tied and rank(cards[0]) == top:
            given[seat].append(cards[0])
        else:
            rest.append(cards[0])
    rest.sort(key=rank)  # stable: equal ranks stay in play order
    last = state["trick"][-1][0]
    receivers = []
    if rest:
        receivers.append((last, rest[0]))
        receivers += [(tied[i % len(tied)], card) for i, card in enumerate(rest[1:])]
    for seat, card in receivers:
        given.setdefault(seat, []).append(card)
    for seat, cards in given.items():
        state["piles"][seat].extend(cards)
        state["known"][seat].extend(cards)
    events.append(Event("trick_shared", {"phase": 1, "trick": state["trick_no"],
                                         "seats": tied, "how": "sorted",
                                         "shares": {str(s): c for s, c in given.items()}}))
    events.append(Event(TRICK_OVER, {"phase": 1, "trick": state["trick_no"],
                                     "seat": tied[0], "shared": True}))
    _finish(state, tied[0], rng, events)


def _finish(state: JSON, winner: int, rng: random.Random, events: list[Event]) -> None:
    """After a trick: refill, then the next trick (the winner leads) or phase 2."""
    from engine.koira import phase2  # phase 2 follows phase 1; it never imports this module

    state["trick"] = []
    state["round_seats"] = []
    state["round_from"] = 0
    state["last_winner"] = winner
    refill(state, winner, events)
    if state["stock"] or any(state["hands"][s] for s in range(state["seats"])
                             if in_game(state, s)):
        start_trick(state, winner, events)
    else:
        phase2.begin(state, events)


def refill(state: JSON, winner: int, events: list[Event]) -> None:
    """R6: clockwise from the trick's winner, each player draws all the cards they need to
    hold 3 before the next draws, while the stock lasts. R7: whoever draws the last stock
    card shows it; its suit is trump from that moment; it stays face up in their hand."""
    for seat in clockwise(state, winner):
        if not state["stock"]:
            return
        if not in_game(state, seat):
            continue
        count = min(HAND_SIZE - len(state["hands"][seat]), len(state["stock"]))
        if count <= 0:
            continue
        drawn = state["stock"][:count]
        del state["stock"][:count]
        state["hands"][seat].extend(drawn)
        events.append(Event("cards_drawn", {"seat": seat, "count": count}))
        if not state["stock"]:
            last = drawn[-1]
            state["trump"] = last[-1]
            state["trump_card"] = last
            state["face_up"] = [seat, last]
            state["known"][seat].append(last)
            events.append(Event("trump_revealed", {"seat": seat, "card": last,
                                                   "suit": last[-1]}))
