"""Round mechanics shared by every Coyote edition: turn order, dealing, showdowns, lives and
the end of a round or of the game, and a player's removal (:func:`resign`). The functions
mutate the state they are given, but :func:`copy_state` and :func:`resign`, which return a
new one.

Source: ``shared/rules/coyote.md``, "Turn structure (all editions)" 1–6, each edition's
"Next round" rule, and for the extra cards of special actions "Mask actions" (Draw 1) and
"Variant coins" (Extra feather, Swap, Guess).
"""

from __future__ import annotations

import random
from typing import Any

from engine.core import JSON, Event, RuleError
from engine.coyote.editions import COINS, MAX_BID, Edition, get_edition
from engine.coyote.scoring import DRAWING_CARDS, score


def alive(state: JSON) -> list[int]:
    """Seats with lives left, in seat order."""
    return [s for s in range(state["seats"]) if state["lives"][s] > 0]


def next_active(state: JSON, seat: int) -> int:
    """The next seat in the current direction that is alive and not safe (a right Guess).

    Our ruling: safe players sit out only while someone else can answer; if ``seat`` would be
    the only one left to act (a removal after a right Guess), the safe players play again,
    so the round can still reach a Coyote call. The bidder of a bid at
    :data:`~engine.coyote.editions.MAX_BID` cannot answer it (no higher bid, and not their
    own call), so they are passed over."""
    n, step = state["seats"], state["direction"]
    bids = state["bids"]
    closed = bids[-1][0] if bids and bids[-1][1] >= MAX_BID else None
    for skip_safe in (True, False):
        for k in range(1, n):
            nxt = (seat + k * step) % n
            if state["lives"][nxt] > 0 and not (skip_safe and state["safe"][nxt]) and \
                    nxt != closed:
                return nxt
    return seat


def may_call(state: JSON, seat: int) -> bool:
    """Whether ``seat`` may call Coyote now: on the last bid, not their own; answering a
    Change, on the bid before theirs (coyote.md, masks: Change); never while a bid is owed."""
    if state["must_bid"] or not state["bids"]:
        return False
    change = state["change"]
    if change is not None and change["target"] == seat:
        return len(state["bids"]) >= 2 and state["bids"][-2][0] != seat
    return state["bids"][-1][0] != seat


def pass_turn(state: JSON, to: int) -> None:
    """Give the turn to ``to``; per-turn flags end with the turn."""
    state["turn"] = to
    state["must_bid"] = False
    state["coin_turn"] = None


def shuffled(cards: list[str], rng: random.Random) -> list[str]:
    """A shuffled copy of ``cards``."""
    cards = list(cards)
    rng.shuffle(cards)
    return cards


def take_discard(state: JSON) -> list[str]:
    """Empty the discard pile (to shuffle it into the draw pile) and return its cards; the
    record of the ones a seat never saw (``discard_unseen``) goes with them."""
    cards = state["discard"]
    state["discard"] = []
    state["discard_unseen"] = []
    return cards


def take_from_draw(state: JSON, rng: random.Random, events: list[Event]) -> str | None:
    """The top card of the draw pile, reshuffling the discard pile first if the draw pile is
    empty; ``None`` when both are empty."""
    if not state["draw"] and state["discard"]:
        state["draw"] = shuffled(take_discard(state), rng)
        events.append(Event("reshuffled", {"reason": "empty_draw_pile"}))
    return state["draw"].pop(0) if state["draw"] else None


def round_cards(state: JSON) -> tuple[list[str], list[int], list[str]]:
    """The cards that count this round, their owners and where each lay (``"own"``,
    ``"draw1"`` or ``"face_up"``), in seat order: each seat's own card, then its extra cards
    (Draw 1), then its face-up cards (Extra feather)."""
    cards: list[str] = []
    owners: list[int] = []
    sources: list[str] = []
    for seat in range(state["seats"]):
        own = [state["hands"][seat]] if state["hands"][seat] is not None else []
        for kind, mine in (("own", own), ("draw1", state["extra"][seat]),
                           ("face_up", state["face_up"][seat])):
            cards += mine
            owners += [seat] * len(mine)
            sources += [kind] * len(mine)
    return cards, owners, sources


def reset_round(state: JSON, edition: Edition) -> None:
    """Clear everything that lasts one round (bids, specials, extra cards, direction)."""
    n = state["seats"]
    specials = edition.specials if state["options"].get("specials") else None
    state.update({
        "bids": [], "direction": 1, "extra": [[] for _ in range(n)],
        "face_up": [[] for _ in range(n)], "void": [[] for _ in range(n)],
        "revealed": [False] * n, "safe": [False] * n,
        "masks": [specials == "masks" and state["lives"][s] > 0 for s in range(n)],
        "coins": list(COINS) if specials == "coins" else [], "draw1_used": False,
        "pass_blocked": False, "double": None, "change": None, "must_bid": False,
        "coin_turn": None,
    })


def deal(state: JSON, edition: Edition, rng: random.Random, events: list[Event]) -> None:
    """Start the next round: every living seat gets the top card of the draw pile."""
    living = alive(state)
    if edition.reshuffle_every_round and state["round"] > 0:
        state["draw"] = shuffled(state["draw"] + take_discard(state), rng)
        events.append(Event("reshuffled", {"reason": "every_round"}))
    elif len(state["draw"]) < len(living):
        state["draw"] = shuffled(state["draw"] + take_discard(state), rng)
        events.append(Event("reshuffled", {"reason": "short_draw_pile"}))
    reset_round(state, edition)
    for s in living:
        state["hands"][s] = state["draw"].pop(0)
    state["round"] += 1
    pass_turn(state, state["starter"])
    events.append(Event("round_dealt", {"round": state["round"], "starter": state["starter"],
                                        "seats": living}))


def end_round(state: JSON, rng: random.Random, events: list[Event], *, loser: int | None,
              winner: int | None, caller: int, lives_lost: int, extra_discards: list[str],
              full_reshuffle: bool, void_shown: bool = True) -> None:
    """Discard the round's cards, take the loser's lives, then deal again or end the game.

    ``winner``/``caller`` decide the next starting seat with the edition's rule; a round that
    ends without a showdown (a wrong Guess) passes ``winner=None`` and the loser as caller,
    and ``void_shown=False``: the swapped-away cards were not shown, so each stays unseen by
    its holder in the discard pile (``discard_unseen``).
    """
    edition = get_edition(state["edition"])
    cards, _, _ = round_cards(state)
    if not void_shown:  # by position in the discard pile, after the round's cards
        at = len(state["discard"]) + len(cards)
        owners = [seat for seat, void in enumerate(state["void"]) for _ in void]
        state.setdefault("discard_unseen", []).extend(
            [seat, at + i] for i, seat in enumerate(owners))
    used = cards + [c for void in state["void"] for c in void] + extra_discards
    state["discard"].extend(used)
    state["hands"] = [None] * state["seats"]
    for key in ("extra", "face_up", "void"):
        state[key] = [[] for _ in range(state["seats"])]
    state["bids"] = []
    if state.pop("reshuffle_due", False) or full_reshuffle or \
            edition.full_reshuffle_cards.intersection(used):
        state["draw"] = shuffled(state["draw"] + take_discard(state), rng)
        events.append(Event("reshuffled", {"reason": "night"}))
    if loser is not None and state["lives"][loser] > 0:  # a removed bidder has none to lose
        state["lives"][loser] = max(0, state["lives"][loser] - lives_lost)
        events.append(Event("life_lost", {"seat": loser, "lives": state["lives"][loser],
                                          "amount": lives_lost}))
        if state["lives"][loser] == 0:
            state["out"].append(loser)
            events.append(Event("player_eliminated", {"seat": loser}))
    if len(alive(state)) <= 1 or (edition.first_out_ends and state["out"]):
        state["over"] = True
        state["turn"] = None
        events.append(Event("game_over", {"placements": placements(state)}))
        return
    state["starter"] = _next_starter(state, edition, loser, winner, caller)
    deal(state, edition, rng, events)


def showdown(state: JSON, caller: int, bidder: int, bid: int, lives_lost: int,
             rng: random.Random, events: list[Event]) -> None:
    """Reveal and score the round, decide the loser, and end the round.

    Our ruling for a bid whose bidder was removed meanwhile: the bid stands; if it held, the
    caller loses; if it was too high, nobody loses a life (the bidder has none left)."""
    edition = get_edition(state["edition"])
    cards, owners, sources = round_cards(state)
    if DRAWING_CARDS[edition.name] in cards and not state["draw"] and state["discard"]:
        state["draw"] = shuffled(take_discard(state), rng)
        events.append(Event("reshuffled", {"reason": "draw_for_special"}))
    result = score(edition.name, cards, state["draw"])
    del state["draw"][: len(result.drawn)]
    total = result.total
    if total == bid and edition.equal_total_loser is None:
        loser, winner = None, None
    elif total >= bid:
        loser, winner = caller, bidder
    else:
        loser, winner = bidder, caller
    removed = loser is not None and state["lives"][loser] == 0  # the bidder has left
    data: dict[str, Any] = result.to_json()
    data.update({"owners": owners, "sources": sources, "bid": bid, "bidder": bidder,
                 "caller": caller,
                 "loser": None if removed else loser, "removed_loser": loser if removed else None,
                 "lives_lost": lives_lost if loser is not None and not removed else 0,
                 "void": [list(v) for v in state["void"]]})
    events.append(Event("showdown", data))
    end_round(state, rng, events, loser=loser, winner=winner, caller=caller,
              lives_lost=lives_lost, extra_discards=result.drawn,
              full_reshuffle=result.reshuffle_all)


def placements(state: JSON) -> list[int] | None:
    """Per seat, the final place (1 = winner; ties share the better place), or ``None``.

    Classic and feathers: the survivor first, then the eliminated in reverse order.
    Poker-deck: the one eliminated player last, everyone else tied first.
    """
    if not state["over"]:
        return None
    n = state["seats"]
    if get_edition(state["edition"]).first_out_ends:
        return [n if s in state["out"] else 1 for s in range(n)]
    order = [s for s in range(n) if s not in state["out"]] + state["out"][::-1]
    places = [0] * n
    for place, seat in enumerate(order, start=1):
        places[seat] = place
    return places


def _after(state: JSON, seat: int) -> int:
    n = state["seats"]
    for k in range(1, n + 1):
        nxt = (seat + k) % n
        if state["lives"][nxt] > 0:
            return nxt
    return seat


def _next_starter(state: JSON, edition: Edition, loser: int | None, winner: int | None,
                  caller: int) -> int:
    """``shared/rules/coyote.md``: classic "the loser … if eliminated, the winner (option: the
    next surviving player after the loser)"; feathers
    "the winner of the showdown"; poker-deck "the penalised player (on a draw, the caller)".
    Whoever that is must still be in the game (a removed bidder may have won the showdown);
    otherwise the next living seat after them starts."""
    if edition.next_starter == "winner" and winner is not None:
        starter = winner
    elif loser is None:
        starter = caller
    elif state["lives"][loser] > 0:
        starter = loser
    elif state["options"].get("after_elimination") == "next" or winner is None:
        starter = loser  # the next living seat after them, below
    else:
        starter = winner
    return starter if state["lives"][starter] > 0 else _after(state, starter)


def copy_state(state: JSON) -> JSON:
    """A copy of ``state`` that a move may change (the input is never modified)."""
    # Faster than copy.deepcopy: the state is flat apart from known lists of lists.
    new = dict(state)
    for key in ("lives", "hands", "draw", "discard", "out", "revealed", "safe", "masks",
                "coins"):
        new[key] = list(state[key])
    for key in ("bids", "extra", "face_up", "void"):
        new[key] = [list(x) for x in state[key]]
    new["discard_unseen"] = [list(x) for x in state.get("discard_unseen", ())]  # absent: old
    new["options"] = dict(state["options"])
    if state["change"] is not None:
        new["change"] = dict(state["change"])
    return new


def resign(state: JSON, seat: int) -> tuple[JSON, list[Event]]:
    """Remove ``seat`` from the game at any time (a leave, or too many timeouts): they
    are eliminated at once, so they are placed last among those still playing; their
    cards of the round go to the discard pile. In poker-deck (``first_out_ends``) the
    removal ends the game with the removed player as its only loser, as if they had taken
    the last penalty card. (The league's Elo counts every removed player as last.) A
    pending Change ends with the removal of either player in it; the turn goes back to
    the one who used Change, as after an answer. A ``night`` or ``0b`` among their cards was
    in the round all the same: its full reshuffle comes at the round's end
    (``reshuffle_due``)."""
    if not isinstance(seat, int) or not 0 <= seat < state["seats"] or \
            state["lives"][seat] == 0:
        raise RuleError("not_a_player")
    new = copy_state(state)
    new["step"] += 1
    events = [Event("player_removed", {"seat": seat})]
    gone = [c for key in ("extra", "face_up", "void") for c in new[key][seat]]
    for key in ("extra", "face_up", "void"):
        new[key][seat] = []
    if new["hands"][seat] is not None:
        gone.append(new["hands"][seat])
        new["hands"][seat] = None
    new["discard"].extend(gone)
    edition = get_edition(new["edition"])
    if edition.full_reshuffle_cards.intersection(gone):
        new["reshuffle_due"] = True  # (it was in the round: "if a blue zero was played")
    new["lives"][seat] = 0
    new["masks"][seat] = False
    new["out"].append(seat)
    events.append(Event("player_eliminated", {"seat": seat}))
    if len(alive(new)) <= 1 or edition.first_out_ends:
        new.pop("reshuffle_due", None)  # (no round's end will come)
        new["over"] = True
        new["turn"] = None
        events.append(Event("game_over", {"placements": placements(new)}))
        return new, events
    change = new["change"]
    if change is not None and seat in (change["by"], change["target"]):
        new["change"] = None
        if new["turn"] == change["target"]:  # the answer is off: "then the turn returns
            # to the player who used Change" (or, if they left, to whoever follows them)
            pass_turn(new, change["by"] if seat == change["target"]
                           else next_active(new, change["by"]))
    if new["double"] == seat:
        new["double"] = None
    if new["turn"] == seat:
        pass_turn(new, next_active(new, seat))
    return new, events
