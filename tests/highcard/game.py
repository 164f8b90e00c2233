"""High card's rules (a toy used only by the tests): each round every player is dealt three
cards (ranks 2–14 of a 52-card deck) and plays one, in turn from the round's leader; the
highest card wins the round's point (a tie at the top: nobody scores); the first to
:data:`TARGET` points wins. Leaving (``resign``) removes a player; the last one left wins.

State (JSON): ``{"seed", "step", "seats", "round", "turn", "leader", "hands": [[rank]],
"played": [rank or None], "scores": [int], "removed": [bool], "over", "winner"}``.
"""

from __future__ import annotations

import random
from typing import Any

from engine.core import (
    GAME_OVER,
    PLAYER_REMOVED,
    ROUND_OVER,
    TURN_ENDING_EVENTS,
    Action,
    Event,
    OptionSpec,
    RuleError,
    rng_for,
)

TARGET = 3
HAND = 3
DEALT = "hand_dealt"
PLAYED = "card_played"


class HighCardGame:
    """The :class:`engine.core.Game` of high card."""

    name = "highcard"
    ai_levels: tuple[str, ...] = ("normal",)
    turn_ending_events: frozenset[str] = TURN_ENDING_EVENTS
    answer_events: frozenset[str] = frozenset()

    def new_game(self, seats: int, seed: int, options: dict[str, Any] | None = None
                 ) -> tuple[dict[str, Any], list[Event]]:
        low, high = self.player_limits(options)
        if not low <= seats <= high:
            raise RuleError("bad_player_count", min=low, max=high)
        state: dict[str, Any] = {
            "seed": seed, "step": 0, "seats": seats, "round": 0, "turn": None, "leader": 0,
            "hands": [[] for _ in range(seats)], "played": [None] * seats,
            "scores": [0] * seats, "removed": [False] * seats, "over": False,
            "winner": None,
        }
        return state, self._deal(state)

    def _deal(self, state: dict[str, Any]) -> list[Event]:
        deck = [rank for rank in range(2, 15) for _ in range(4)]
        rng_for(state["seed"], state["step"]).shuffle(deck)
        state["round"] += 1
        state["played"] = [None] * state["seats"]
        state["hands"] = [sorted(deck[i * HAND:(i + 1) * HAND]) if not gone else []
                          for i, gone in enumerate(state["removed"])]
        state["leader"] = self._next(state, (state["round"] - 2) % state["seats"])
        state["turn"] = state["leader"]
        return [Event(DEALT, {"round": state["round"]})]

    def _next(self, state: dict[str, Any], seat: int) -> int:
        """The first seat after ``seat`` (clockwise) still in the game."""
        n = state["seats"]
        for step in range(1, n + 1):
            other = (seat + step) % n
            if not state["removed"][other]:
                return other
        return seat

    def player_limits(self, options: dict[str, Any] | None = None) -> tuple[int, int]:
        return 2, 6

    def current_seat(self, state: dict[str, Any]) -> int | None:
        return None if state["over"] else state["turn"]

    def legal_actions(self, state: dict[str, Any], seat: int) -> list[Action]:
        if state["over"] or state["turn"] != seat:
            return []
        return [Action("play", cards=(str(r),)) for r in sorted(set(state["hands"][seat]))]

    def apply(self, state: dict[str, Any], seat: int, action: Action
              ) -> tuple[dict[str, Any], list[Event]]:
        if state["over"]:
            raise RuleError("game_over")
        new = {**state, "hands": [list(h) for h in state["hands"]],
               "played": list(state["played"]), "scores": list(state["scores"]),
               "removed": list(state["removed"])}
        new["step"] += 1
        if action.kind == "resign":
            return new, self._resign(new, seat)
        if new["turn"] != seat:
            raise RuleError("not_your_turn")
        if action.kind != "play" or not action.cards or len(action.cards) != 1 \
                or not action.cards[0].isdigit() or int(action.cards[0]) not in new["hands"][seat]:
            raise RuleError("bad_action")
        rank = int(action.cards[0])
        new["hands"][seat].remove(rank)
        new["played"][seat] = rank
        events = [Event(PLAYED, {"seat": seat, "card": str(rank)})]
        return new, events + self._after_play(new)

    def _after_play(self, state: dict[str, Any]) -> list[Event]:
        active = [s for s in range(state["seats"]) if not state["removed"][s]]
        if any(state["played"][s] is None for s in active):
            state["turn"] = self._next(state, state["turn"])
            return []
        top = max(state["played"][s] for s in active)
        best = [s for s in active if state["played"][s] == top]
        winner = best[0] if len(best) == 1 else None
        if winner is not None:
            state["scores"][winner] += 1
        events = [Event(ROUND_OVER, {"round": state["round"], "winner": winner,
                                     "card": str(top)})]
        if winner is not None and state["scores"][winner] >= TARGET:
            return events + self._finish(state, winner)
        return events + self._deal(state)

    def _resign(self, state: dict[str, Any], seat: int) -> list[Event]:
        if state["removed"][seat]:
            raise RuleError("bad_action")
        state["removed"][seat] = True
        state["hands"][seat] = []
        events = [Event(PLAYER_REMOVED, {"seat": seat})]
        active = [s for s in range(state["seats"]) if not state["removed"][s]]
        if len(active) == 1:
            return events + self._finish(state, active[0])
        if state["turn"] == seat:
            state["played"][seat] = None
            return events + self._after_play(state)
        return events

    def _finish(self, state: dict[str, Any], winner: int) -> list[Event]:
        state["over"], state["winner"], state["turn"] = True, winner, None
        return [Event(GAME_OVER, {"placements": self.placements(state)})]

    def view(self, state: dict[str, Any], seat: int | None) -> dict[str, Any]:
        """The public table, plus ``seat``'s own hand (``hand``; ``[]`` for the public)."""
        return {"seats": state["seats"], "round": state["round"], "turn": state["turn"],
                "played": list(state["played"]), "scores": list(state["scores"]),
                "removed": list(state["removed"]), "over": state["over"],
                "counts": [len(h) for h in state["hands"]], "seat": seat,
                "hand": list(state["hands"][seat]) if seat is not None else [],
                "in_play": [not r for r in state["removed"]]}

    def option_choices(self, options: dict[str, Any] | None = None) -> dict[str, list[Any]]:
        return {}

    def option_specs(self, options: dict[str, Any] | None = None) -> list[OptionSpec]:
        return []

    def setting_specs(self, options: dict[str, Any] | None = None) -> list[OptionSpec]:
        return []

    def ai_action(self, view: dict[str, Any], rng: random.Random, level: str = "normal"
                  ) -> Action:
        """Play the highest card in hand."""
        return Action("play", cards=(str(max(view["hand"])),))

    def stand_in_action(self, state: dict[str, Any], seat: int, rng: random.Random,
                        level: str = "normal") -> Action:
        return self.ai_action(self.view(state, seat), rng, level)

    def placements(self, state: dict[str, Any]) -> list[int] | None:
        """Once over: by points, the winner first; removed players last (in seat order)."""
        if not state["over"]:
            return None
        def key(seat: int) -> tuple[int, int]:
            return (0 if seat == state["winner"] else 1 if not state["removed"][seat] else 2,
                    -state["scores"][seat])
        order = sorted(range(state["seats"]), key=key)
        places = [0] * state["seats"]
        for place, seat in enumerate(order, start=1):
            places[seat] = place
        return places

    # --- the game-neutral queries (the league and the bot read no state key) ------------
    def is_over(self, state: dict[str, Any]) -> bool:
        return bool(state["over"])

    def still_playing(self, state: dict[str, Any]) -> list[int]:
        return [s for s in range(state["seats"]) if not state["removed"][s]]

    def progress(self, state: dict[str, Any]) -> dict[str, Any]:
        return {"round": state["round"]}

    def hand_number(self, state: dict[str, Any]) -> int:
        return int(state["round"])
