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
    """A player of this round left (``KoiraGame._resign``): their cards stay in the trick,
    they play no more, and the turn never stays with them.

    The rules text is silent on a trick whose players leave; our choices, as players would
    expect (each keeps to the remaining players' cards, as :func:`_settle_round` does):

    - while a player of this round is still in the game, the round goes on without the
      leaver, whose card is not compared;
    - if every player of this round left (e.g. both players of a tie, R1), the trick is
      settled on the latest round holding a card of a player still in the game, by those
      cards: the highest wins, a tie is replayed or shared as usual (R1, R3, R5);
    - if no player still in the game played in it (all others sat it out with empty hands,
      R8), nobody can win it: its cards leave the game with the rest of the leavers' cards
      (``trick_over`` with ``seat`` None). The next trick is then led as after the last
      trick won, or, the stock and every hand in the game being empty (the only way this
      happens), phase 2 begins, led by the winner of the last trick won (R4, R8, R13). A
      trick not yet led when its only players leave ends the same way, with no event.
    """
    if any(in_game(state, s) for s in state["round_seats"]):
        _next(state, rng, events)
        return
    trick = state["trick"]
    for start in reversed(_round_starts(trick)):
        if any(in_game(state, p[0]) for p in trick[start:]):
            state["round_from"] = start
            _settle_round(state, rng, events)
            return
    if trick:
        cards = _trick_cards(state)
        state["discarded"].extend(cards)
        events.append(Event(TRICK_OVER, {"phase": 1, "trick": state["trick_no"],
                                         "seat": None, "cards": cards}))
    state["trick"] = []
    state["round_seats"] = []
    state["round_from"] = 0
    _next_trick(state, state["last_winner"], events)


def _round_starts(trick: list) -> list[int]:
    """The index in ``trick`` where each of its rounds begins (R1). Each player plays once a
    round, and a replay begins with a player of the round before, so a seat playing again
    begins a new round."""
    starts = [0]
    seen: set[int] = set()
    for i, (seat, _cards, _src) in enumerate(trick):
        if seat in seen:
            starts.append(i)
            seen = set()
        seen.add(seat)
    return starts


def _settle_round(state: JSON, rng: random.Random, events: list[Event]) -> None:
    """R1: only this round's cards are compared; a single highest card wins the trick, a tie
    at the top is replayed by the tied players in play order, or shared (R3, R5)."""
    plays = [p for p in state["trick"][state["round_from"]:] if in_game(state, p[0])]
    assert plays, "a round is settled only with a card of a player still in the game"
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
    first tied player counts as the winner. The cards are listed in ``shuffled``: a view
    shows none of them on a pile, not even to its owner."""
    cards = _trick_cards(state)
    state["shuffled"].extend(cards)  # in play order: the deal stays hidden (views.py)
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
    order, round and round. R4: the first tied player counts as the winner. If the last
    player left the game (the text is silent), the lowest goes to the last player still in
    the game to have played, as a removed player's won pile has left the game."""
    top = max(rank(p[1][0]) for p in state["trick"] if p[0] in tied)
    given: dict[int, list[str]] = {s: [] for s in tied}
    rest: list[str] = []
    for seat, cards, _src in state["trick"]:
        if seat in tied and rank(cards[0]) == top:
            given[seat].append(cards[0])
        else:
            rest.append(cards[0])
    rest.sort(key=rank)  # stable: equal ranks stay in play order
    last = next(p[0] for p in reversed(state["trick"]) if in_game(state, p[0]))
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
    state["trick"] = []
    state["round_seats"] = []
    state["round_from"] = 0
    state["last_winner"] = winner
    refill(state, winner, events)
    _next_trick(state, winner, events)


def _next_trick(state: JSON, leader: int, events: list[Event]) -> None:
    """The next trick, from ``leader`` clockwise (R8), while the stock or a hand in the game
    holds cards; else phase 2 (rules: "tricks go on until all hands are empty")."""
    from engine.koira import phase2  # phase 2 follows phase 1; it never imports this module

    if state["stock"] or any(state["hands"][s] for s in range(state["seats"])
                             if in_game(state, s)):
        start_trick(state, leader, events)
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
