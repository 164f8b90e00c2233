"""Phase 2 of Koira: shedding the won cards by beating, sequences and pick-ups.

Source: ``shared/rules/koira.md`` "Phase 2 — shedding" and rulings R9–R18, R20. Every
function changes the (copied) state in place and appends public events.
"""

from __future__ import annotations

from engine.core import GAME_OVER, JSON, TRICK_OVER, Event, RuleError
from engine.koira.cards import is_sequence, play_beats, sorted_hand, suit
from engine.koira.deal import clockwise, forget, in_game, next_in_game, players_in_game, take


def begin(state: JSON, events: list[Event]) -> None:
    """Phase 2: each player takes up their won pile as their hand (R9: one who won nothing
    plays on with an empty hand); the last phase-1 trick's winner leads (R4 for a shared
    trick)."""
    state["phase"] = 2
    for seat in range(state["seats"]):
        state["hands"][seat] = sorted_hand(state["hands"][seat] + state["piles"][seat])
        state["piles"][seat] = []
    state["face_up"] = None
    events.append(Event("phase_changed", {"phase": 2, "trump": state["trump"],
                                          "counts": [len(h) for h in state["hands"]]}))
    if not check_over(state, events):
        lead(state, state["last_winner"], events)


def lead(state: JSON, seat: int | None, events: list[Event]) -> None:
    """Begin a trick led by ``seat`` or, if they are out or hold no cards, the next player
    clockwise in the game who holds cards (R13, R15). The trick is complete once it holds as
    many cards as players in the game now (R9). No such player: the game ends (R16)."""
    start = state["last_winner"] if seat is None else seat
    leader = next((s for s in clockwise(state, start)
                   if in_game(state, s) and state["hands"][s]), None)
    state["trick"] = []
    if leader is None:
        finish(state, events)
        return
    state["need"] = len(players_in_game(state))
    state["lead_trump"] = False
    state["trick_no"] += 1
    state["turn"] = leader
    events.append(Event("trick_started", {"phase": 2, "trick": state["trick_no"],
                                          "leader": leader}))


def top_play(state: JSON) -> list[str] | None:
    """The cards of the trick's top (latest) play, or ``None`` on an empty trick."""
    return state["trick"][-1][1] if state["trick"] else None


def check_play(state: JSON, seat: int, cards: tuple[str, ...]) -> None:
    """Raise the ``RuleError`` that forbids ``seat`` playing ``cards`` now, if any:
    ``not_in_hand``, ``bad_sequence`` (not a sequence lowest first, R20, ``min_sequence``;
    R17: with ``trump_ends_trick`` a sequence must start with a 2; detail ``min``,
    ``from_two``: whether it must, so the refusal can say so) or ``does_not_beat``
    (R10: the play's lowest card must beat the top play's highest)."""
    hand = state["hands"][seat]
    if len(set(cards)) != len(cards) or any(c not in hand for c in cards):
        raise RuleError("not_in_hand")
    options = state["options"]
    if len(cards) > 1 and not is_sequence(cards, options["min_sequence"],
                                          options["trump_ends_trick"]):
        raise RuleError("bad_sequence", min=options["min_sequence"],
                        from_two=options["trump_ends_trick"])
    top = top_play(state)
    if top is not None and not play_beats(cards, top, state["trump"]):
        raise RuleError("does_not_beat")


def play(state: JSON, seat: int, cards: tuple[str, ...], events: list[Event]) -> None:
    """``seat`` plays one card or a sequence (lowest first) on the trick.

    R14: emptying the hand puts the player out at once; their cards stay in the trick.
    R9: the trick is complete as soon as it holds ``need`` cards (a lead may complete it);
    the last player to have played wins it and its cards leave the game. R17
    ``trump_ends_trick``: a trump play on a trick not led with trump ends it at once.
    """
    check_play(state, seat, cards)
    trump_cut = (state["options"]["trump_ends_trick"] and bool(state["trick"])
                 and not state["lead_trump"] and suit(cards[0]) == state["trump"])
    if not state["trick"]:
        state["lead_trump"] = suit(cards[0]) == state["trump"]
    take(state["hands"][seat], cards)
    forget(state, seat, cards)
    state["trick"].append([seat, list(cards), False])
    events.append(Event("card_played", {"seat": seat, "cards": list(cards), "phase": 2}))
    if not state["hands"][seat]:
        went_out(state, seat, events)
    lying = sum(len(p[1]) for p in state["trick"])
    if trump_cut or lying >= state["need"]:
        _complete(state, seat, events, cut=trump_cut and lying < state["need"])
    elif not check_over(state, events):
        state["turn"] = next_in_game(state, seat)


def pickup(state: JSON, seat: int, events: list[Event]) -> None:
    """``seat`` picks up the bottom (earliest) play of the trick (R11), or with
    ``pickup_single`` only its lowest card, the rest staying in the trick (R18). Their turn
    ends; the next player in the game acts, leading a new trick if the trick is now empty
    (R12, R13). Raises ``RuleError("nothing_to_pick_up")`` on an empty trick (R19)."""
    if not state["trick"]:
        raise RuleError("nothing_to_pick_up")
    bottom = state["trick"][0][1]
    taken = bottom[:1] if state["options"]["pickup_single"] else list(bottom)
    del bottom[:len(taken)]
    if not bottom:
        state["trick"].pop(0)
    state["hands"][seat] = sorted_hand(state["hands"][seat] + taken)
    state["known"][seat].extend(taken)
    state["quiet"] += 1
    events.append(Event("picked_up", {"seat": seat, "cards": taken}))
    after = next_in_game(state, seat)
    if state["trick"]:
        state["turn"] = after
    else:
        events.append(Event(TRICK_OVER, {"phase": 2, "trick": state["trick_no"],
                                         "seat": None, "picked_up": True}))
        lead(state, after, events)


def _complete(state: JSON, winner: int, events: list[Event], cut: bool = False) -> None:
    """A complete trick: its cards leave the game; the winner leads next, or if they went
    out, the next player clockwise still in the game (R15). ``cut``: a trump ended it before
    it held ``need`` cards (R17), which the event says (``trump_cut``)."""
    cards = [c for p in state["trick"] for c in p[1]]
    state["discarded"].extend(cards)
    state["trick"] = []
    state["quiet"] = 0
    events.append(Event(TRICK_OVER, {"phase": 2, "trick": state["trick_no"], "seat": winner,
                                     "cards": cards, **({"trump_cut": True} if cut else {})}))
    if not check_over(state, events):
        lead(state, winner if in_game(state, winner) else next_in_game(state, winner), events)


def went_out(state: JSON, seat: int, events: list[Event]) -> None:
    """R14: ``seat`` got rid of their last card: out and safe, placed in going-out order."""
    state["out"].append(seat)
    state["quiet"] = 0
    events.append(Event("player_out", {"seat": seat, "place": len(state["out"])}))


def check_over(state: JSON, events: list[Event]) -> bool:
    """R16: end the game once only one player (or none) is still in the game."""
    if len(players_in_game(state)) > 1:
        return False
    finish(state, events)
    return True


def finish(state: JSON, events: list[Event]) -> None:
    """End the game; the placements follow from ``out``, ``removed`` and the seats left
    (:func:`engine.koira.views.placements`)."""
    from engine.koira.views import placements

    state["over"] = True
    state["turn"] = None
    places = placements(state)
    assert places is not None
    events.append(Event(GAME_OVER, {"placements": places,
                                    "koira": places.index(state["seats"])}))
