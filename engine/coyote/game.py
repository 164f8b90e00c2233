"""The Coyote game: dealing, bidding, Coyote calls, showdowns, lives and the end of the game.

Source: ``shared/rules/coyote.md``, "Turn structure (all editions)" steps 1–6 and each
edition's "Next round" and end-of-game rules. Edition differences are read from
:class:`engine.coyote.editions.Edition`.

State (a JSON object)::

    {"game": "coyote", "edition": str, "options": {"lives": int}, "seed": int, "step": int,
     "seats": int, "lives": [int per seat], "hands": [card or None per seat],
     "draw": [cards, top first], "discard": [cards], "round": int, "starter": seat,
     "turn": seat or None, "bids": [[seat, amount], ...], "out": [seats in elimination order],
     "over": bool}
"""

from __future__ import annotations

import copy
from typing import Any

from engine.core import JSON, Action, Event, RuleError, rng_for
from engine.coyote.editions import Edition, get_edition
from engine.coyote.scoring import DRAWING_CARDS, score

BID_WINDOW = 30
"""How many bids :meth:`CoyoteGame.legal_actions` lists; any higher whole number is legal too."""


class CoyoteGame:
    """Coyote for every edition, as the :class:`engine.core.Game` interface."""

    name = "coyote"

    # --- creation -------------------------------------------------------------------------
    def new_state(self, seats: int, seed: int, options: JSON | None = None) -> JSON:
        """The state of :meth:`new_game`, without its events."""
        return self.new_game(seats, seed, options)[0]

    def new_game(self, seats: int, seed: int,
                 options: JSON | None = None) -> tuple[JSON, list[Event]]:
        """Deal round 1; return the state and its events (``round_dealt``).

        ``options``: ``{"edition": name, "lives": n}`` (both optional). Raises
        ``RuleError("bad_player_count", min=, max=)``, ``("bad_lives", min=, max=)`` or
        ``("unknown_edition")``.
        """
        options = dict(options or {})
        edition = get_edition(options.pop("edition", "classic"))
        if (not isinstance(seats, int) or isinstance(seats, bool)
                or not edition.min_players <= seats <= edition.max_players):
            raise RuleError("bad_player_count", min=edition.min_players, max=edition.max_players)
        lives = options.get("lives", edition.lives)
        low, high = edition.lives_range
        if not isinstance(lives, int) or isinstance(lives, bool) or not low <= lives <= high:
            raise RuleError("bad_lives", min=low, max=high)
        rng = rng_for(seed, 0)
        draw = list(edition.deck)
        rng.shuffle(draw)
        state: JSON = {
            "game": self.name, "edition": edition.name, "options": {"lives": lives},
            "seed": seed, "step": 0, "seats": seats, "lives": [lives] * seats,
            "hands": [None] * seats, "draw": draw, "discard": [], "round": 0,
            "starter": rng.randrange(seats), "turn": None, "bids": [], "out": [], "over": False,
        }
        events: list[Event] = []
        _deal(state, edition, rng, events)
        return state, events

    def player_limits(self, options: JSON | None = None) -> tuple[int, int]:
        """(min, max) players of the edition named in ``options`` (default classic)."""
        edition = get_edition((options or {}).get("edition", "classic"))
        return edition.min_players, edition.max_players

    # --- queries --------------------------------------------------------------------------
    def current_seat(self, state: JSON) -> int | None:
        """The seat to act, ``None`` once the game is over."""
        return None if state["over"] else state["turn"]

    def min_bid(self, state: JSON) -> int:
        """The lowest legal bid now: 1 to open, else the last bid + 1."""
        return state["bids"][-1][1] + 1 if state["bids"] else 1

    def legal_actions(self, state: JSON, seat: int) -> list[Action]:
        """``call`` (once a bid stands) and the next :data:`BID_WINDOW` bids; ``[]`` off-turn."""
        if self.current_seat(state) != seat:
            return []
        low = self.min_bid(state)
        actions = [Action("call")] if state["bids"] else []
        return actions + [Action("bid", n) for n in range(low, low + BID_WINDOW)]

    def alive(self, state: JSON) -> list[int]:
        """Seats still in the game, in seat order."""
        return [s for s in range(state["seats"]) if state["lives"][s] > 0]

    def placements(self, state: JSON) -> list[int] | None:
        """Per seat, the final place (1 = winner; ties share the better place) or ``None``.

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

    def view(self, state: JSON, seat: int | None) -> JSON:
        """What ``seat`` may see; ``seat=None`` is the public table.

        ``cards`` lists every seat's card with the viewer's own (and, publicly, all) as
        ``None``. The draw pile is given only as a count. Raises ``RuleError("bad_seat")``.
        """
        if seat is not None and not 0 <= seat < state["seats"]:
            raise RuleError("bad_seat")
        cards = [None if (seat is None or s == seat) else c for s, c in enumerate(state["hands"])]
        return {
            "game": self.name, "edition": state["edition"], "seat": seat,
            "seats": state["seats"], "round": state["round"], "turn": self.current_seat(state),
            "bids": [list(b) for b in state["bids"]], "lives": list(state["lives"]),
            "max_lives": state["options"]["lives"], "cards": cards,
            "in_play": [c is not None for c in state["hands"]],
            "draw_count": len(state["draw"]), "discard": list(state["discard"]),
            "min_bid": self.min_bid(state), "can_call": bool(state["bids"]),
            "over": state["over"], "placements": self.placements(state),
        }

    # --- the move -------------------------------------------------------------------------
    def apply(self, state: JSON, seat: int, action: Action) -> tuple[JSON, list[Event]]:
        """Apply a bid or a Coyote call by ``seat``; the input state is not modified.

        Raises ``RuleError`` with code ``game_over``, ``not_your_turn``, ``bad_action``,
        ``bid_too_low`` (detail ``min_bid``) or ``no_bid_to_call``.
        """
        if state["over"]:
            raise RuleError("game_over")
        if seat != state["turn"]:
            raise RuleError("not_your_turn")
        if action.kind == "bid":
            amount = action.amount
            if not isinstance(amount, int) or isinstance(amount, bool):
                raise RuleError("bad_action")
            if amount < self.min_bid(state):
                raise RuleError("bid_too_low", min_bid=self.min_bid(state))
            new = copy.deepcopy(state)
            new["step"] += 1
            new["bids"].append([seat, amount])
            new["turn"] = _next_alive(new, seat)
            return new, [Event("bid_placed", {"seat": seat, "amount": amount})]
        if action.kind == "call":
            if not state["bids"]:
                raise RuleError("no_bid_to_call")
            new = copy.deepcopy(state)
            new["step"] += 1
            return new, _showdown(new, seat)
        raise RuleError("bad_action")


def _next_alive(state: JSON, seat: int) -> int:
    n = state["seats"]
    for k in range(1, n + 1):
        nxt = (seat + k) % n
        if state["lives"][nxt] > 0:
            return nxt
    return seat


def _showdown(state: JSON, caller: int) -> list[Event]:
    """Score the table, take the lives, deal the next round or end the game (mutates state)."""
    edition = get_edition(state["edition"])
    rng = rng_for(state["seed"], state["step"])
    bidder, bid = state["bids"][-1]
    events = [Event("coyote_called", {"seat": caller, "bidder": bidder, "bid": bid})]
    seats_in_play = [s for s, c in enumerate(state["hands"]) if c is not None]
    table = [state["hands"][s] for s in seats_in_play]
    if DRAWING_CARDS[edition.name] in table and not state["draw"] and state["discard"]:
        state["draw"] = _shuffled(state["discard"], rng)
        state["discard"] = []
        events.append(Event("reshuffled", {"reason": "draw_for_special"}))
    result = score(edition.name, table, state["draw"])
    del state["draw"][: len(result.drawn)]
    total = result.total
    if total == bid and edition.equal_total_loser is None:
        loser, winner = None, None
    elif total >= bid:
        loser, winner = caller, bidder
    else:
        loser, winner = bidder, caller
    showdown: dict[str, Any] = result.to_json()
    showdown.update({"seats": seats_in_play, "bid": bid, "bidder": bidder, "caller": caller,
                     "loser": loser, "lives_lost": 1 if loser is not None else 0})
    events.append(Event("showdown", showdown))
    state["discard"].extend(table + result.drawn)
    state["hands"] = [None] * state["seats"]
    state["bids"] = []
    if result.reshuffle_all:
        state["draw"] = _shuffled(state["draw"] + state["discard"], rng)
        state["discard"] = []
        events.append(Event("reshuffled", {"reason": "night"}))
    if loser is not None:
        state["lives"][loser] -= 1
        events.append(Event("life_lost", {"seat": loser, "lives": state["lives"][loser]}))
        if state["lives"][loser] == 0:
            state["out"].append(loser)
            events.append(Event("player_eliminated", {"seat": loser}))
    alive = [s for s in range(state["seats"]) if state["lives"][s] > 0]
    if len(alive) <= 1 or (edition.first_out_ends and state["out"]):
        state["over"] = True
        state["turn"] = None
        events.append(Event("game_over", {"placements": CoyoteGame().placements(state)}))
        return events
    state["starter"] = _next_starter(state, edition, loser, winner, caller)
    _deal(state, edition, rng, events)
    return events


def _next_starter(state: JSON, edition: Edition, loser: int | None, winner: int | None,
                  caller: int) -> int:
    if edition.next_starter == "winner" and winner is not None:
        return winner
    if loser is None:
        return caller
    if state["lives"][loser] > 0:
        return loser
    return winner if winner is not None else _next_alive(state, loser)


def _shuffled(cards: list[str], rng: Any) -> list[str]:
    cards = list(cards)
    rng.shuffle(cards)
    return cards


def _deal(state: JSON, edition: Edition, rng: Any, events: list[Event]) -> None:
    """Give each living seat one card from the top of the draw pile (mutates state)."""
    alive = [s for s in range(state["seats"]) if state["lives"][s] > 0]
    if edition.reshuffle_every_round and state["round"] > 0:
        state["draw"] = _shuffled(state["draw"] + state["discard"], rng)
        state["discard"] = []
        events.append(Event("reshuffled", {"reason": "every_round"}))
    elif len(state["draw"]) < len(alive):
        state["draw"] = _shuffled(state["draw"] + state["discard"], rng)
        state["discard"] = []
        events.append(Event("reshuffled", {"reason": "short_draw_pile"}))
    for s in alive:
        state["hands"][s] = state["draw"].pop(0)
    state["round"] += 1
    state["turn"] = state["starter"]
    events.append(Event("round_dealt", {"round": state["round"], "starter": state["starter"],
                                        "seats": alive}))
