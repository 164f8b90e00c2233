"""Special actions: the classic masks and the feathers variant coins.

Source: ``shared/rules/coyote.md``, "Mask actions (optional "special game")" and "Variant coins
(optional advanced rules)". Rulings where the texts are silent:

- A mask is used either on its own (Pass, Reverse, Change) or together with a bid (Double,
  Draw 1, Shot: "after bidding"). Reverse keeps the turn: the player then bids or calls.
- Pass (and the Skip coin) may be used before the round's first bid: the next player then
  opens. "The starting player must bid" (Turn structure 2) is read as "may not call Coyote
  with no bid on the table"; a mask or coin used "on their turn" is not excluded.
- Double counts only when the next player calls Coyote on that bid (after a Reverse of theirs
  too); any other action voids it. If that next player is removed from the game, the player
  who now follows is "the next player", so their call still costs two lives.
- Change makes the last bidder re-bid higher (replacing their bid) or call Coyote on the bid
  before theirs; the turn then returns to the player who used Change.
- A coin is used before the player's bid, one coin per turn; Extra feather, Reverse and Swap
  then require a bid (no call), as the texts say "then bid".
- The Extra feather is face up, so everyone sees it (Spanish text: "visible para todos").
- Guess needs at least two other players still to act, so the round cannot stall; a right
  guess puts the feather face up and skips the player for the round (unless a removal leaves
  a single player to act: then the safe players play again, see ``flow.next_active``); a
  wrong one costs a life at once, ends the round without a showdown, and the guesser starts
  the next round. Its ``round_ended`` event shows the hands, not a feather swapped away
  that round: that one stays unseen by its holder in the discard pile (``discard_unseen``).
"""

from __future__ import annotations

import random

from engine.core import JSON, Action, Event, RuleError
from engine.coyote.editions import BID_SPECIALS, MAX_BID, Edition
from engine.coyote.flow import (
    alive,
    end_round,
    may_call,
    next_active,
    pass_turn,
    take_from_draw,
)

STANDALONE_MASKS = ("pass", "reverse", "change")


def specials_mode(state: JSON, edition: Edition) -> str | None:
    """``"masks"``, ``"coins"`` or ``None`` for this game."""
    return edition.specials if state["options"].get("specials") else None


def coins_usable(state: JSON) -> bool:
    """Whether coins may be used at all now: "none may be used once only two players
    remain" (``coyote.md``, Variant coins)."""
    return len(alive(state)) > 2


def check_bid_special(state: JSON, seat: int, edition: Edition, action: Action) -> None:
    """Raise ``RuleError`` unless ``action`` (a bid) may carry its special now."""
    name = action.special
    if name is None:
        return
    if specials_mode(state, edition) != "masks" or name not in BID_SPECIALS:
        raise RuleError("special_not_available", special=name)
    if not state["masks"][seat]:
        raise RuleError("mask_used")
    if name == "draw1" and state["draw1_used"]:
        raise RuleError("draw1_used")
    if name in ("draw1", "shot"):
        target = action.target
        if not isinstance(target, int) or isinstance(target, bool) or target == seat or \
                not 0 <= target < state["seats"] or state["lives"][target] == 0:
            raise RuleError("bad_target")
        if name == "draw1" and not (state["draw"] or state["discard"]):
            raise RuleError("no_card_to_draw")
    elif action.target is not None:
        raise RuleError("bad_action")


def after_bid(state: JSON, seat: int, action: Action, rng: random.Random,
              events: list[Event]) -> int:
    """Apply a bid's mask (already checked); return the seat that plays next."""
    name = action.special
    state["double"] = seat if name == "double" else None
    if name is None:
        return next_active(state, seat)
    state["masks"][seat] = False
    if name == "draw1":
        state["draw1_used"] = True
        card = take_from_draw(state, rng, events)
        if card is not None:
            state["extra"][action.target].append(card)
        events.append(Event("card_drawn", {"seat": action.target, "by": seat}))
    if name == "shot":
        return int(action.target)  # type: ignore[arg-type]
    return next_active(state, seat)


def use(state: JSON, seat: int, edition: Edition, action: Action, rng: random.Random,
        events: list[Event]) -> None:
    """Apply a standalone special (``Action("special", special=...)``) for ``seat``."""
    mode = specials_mode(state, edition)
    name = action.special
    if action.target is not None or (action.guess is not None and name != "guess"):
        raise RuleError("bad_action")
    if state["change"] is not None:
        raise RuleError("must_answer_change")
    if state["bids"] and state["bids"][-1][1] >= MAX_BID:
        raise RuleError("bid_too_high", max=MAX_BID)  # the highest bid may only be called
    if mode == "masks" and name in STANDALONE_MASKS:
        _use_mask(state, seat, name, events)
    elif mode == "coins" and name in state["coins"]:
        _use_coin(state, seat, edition, action, rng, events)
    elif mode == "coins" and name in ("extra", "reverse", "skip", "swap", "guess"):
        raise RuleError("coin_used")
    else:
        raise RuleError("special_not_available", special=name)


def _use_mask(state: JSON, seat: int, name: str, events: list[Event]) -> None:
    if not state["masks"][seat]:
        raise RuleError("mask_used")
    if name == "pass" and state["pass_blocked"]:
        raise RuleError("pass_blocked")
    if name == "change":
        if not state["bids"] or state["bids"][-1][0] == seat:
            raise RuleError("nothing_to_change")
        target = state["bids"][-1][0]
        if state["lives"][target] == 0:
            raise RuleError("nothing_to_change")
    state["masks"][seat] = False
    used: JSON = {"seat": seat, "special": name}
    if name != "reverse":  # Reverse is followed by this player's call, which may be doubled
        if state["double"] is not None:
            used["double_voided"] = True
        state["double"] = None
    if name == "pass":
        state["pass_blocked"] = True
        pass_turn(state, next_active(state, seat))
    elif name == "reverse":
        state["direction"] = -state["direction"]
    else:
        target = state["bids"][-1][0]
        state["change"] = {"by": seat, "target": target}
        state["pass_blocked"] = False
        pass_turn(state, target)
        # The event tells the whole Change, so a report written later needs no state.
        used.update(target=target, may_call=may_call(state, target))
    events.append(Event("special_used", used))


def _use_coin(state: JSON, seat: int, edition: Edition, action: Action, rng: random.Random,
              events: list[Event]) -> None:
    name = action.special
    if not coins_usable(state):
        raise RuleError("coins_two_players")
    if state["coin_turn"] == seat:
        raise RuleError("one_coin_per_turn")
    if name in ("extra", "swap") and not (state["draw"] or state["discard"]):
        raise RuleError("no_card_to_draw")
    if name == "guess":
        if action.guess not in set(edition.deck):
            raise RuleError("bad_action")
        active = [s for s in alive(state) if not state["safe"][s]]
        if len(active) - 1 < 2:
            raise RuleError("guess_not_allowed")
    state["coins"].remove(name)
    state["coin_turn"] = seat
    if name == "extra":
        card = take_from_draw(state, rng, events)
        state["face_up"][seat].append(card)
        state["must_bid"] = True
        events.append(Event("special_used", {"seat": seat, "special": name, "card": card}))
    elif name == "reverse":
        state["direction"] = -state["direction"]
        state["must_bid"] = True
        events.append(Event("special_used", {"seat": seat, "special": name}))
    elif name == "skip":
        events.append(Event("special_used", {"seat": seat, "special": name}))
        pass_turn(state, next_active(state, seat))
    elif name == "swap":
        new = take_from_draw(state, rng, events)
        state["void"][seat].append(state["hands"][seat])
        state["hands"][seat] = new
        state["must_bid"] = True
        events.append(Event("special_used", {"seat": seat, "special": name}))
    else:
        _guess(state, seat, action.guess or "", rng, events)


def _guess(state: JSON, seat: int, guess: str, rng: random.Random, events: list[Event]) -> None:
    card = state["hands"][seat]
    right = card == guess
    events.append(Event("special_used", {"seat": seat, "special": "guess", "guess": guess,
                                         "right": right, "card": card}))
    if right:
        state["revealed"][seat] = True
        state["safe"][seat] = True
        pass_turn(state, next_active(state, seat))
        return
    events.append(Event("round_ended", {"reason": "wrong_guess", "seat": seat,
                                        "cards": state["hands"][:]}))
    end_round(state, rng, events, loser=seat, winner=None, caller=seat, lives_lost=1,
              extra_discards=[], full_reshuffle=False, void_shown=False)
