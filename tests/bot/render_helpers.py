"""Coyote game snapshots for the rendering tests: a game of n seats, a snapshot of a state."""

from __future__ import annotations

from engine.coyote import CoyoteGame
from league.store.snapshots import GameSnapshot, PlayerInfo


def _game(n: int, hands: list[str] | None = None, names: list[str] | None = None,
          bids: list[list[int]] | None = None) -> GameSnapshot:
    state = CoyoteGame().new_state(n, 7)
    if hands:
        state["hands"] = hands
    state["bids"] = bids or []
    names = names or [f"P{i}" for i in range(n)]
    players = tuple(PlayerInfo(1000 + i, names[i], i, False, 3, None, None, None)
                    for i in range(n))
    return GameSnapshot(1, -100, 0, "coyote", {"edition": "classic"}, "running", 12, state,
                        1000, 5, 6, players)


def _snapshot(state: dict, options: dict) -> GameSnapshot:
    n = state["seats"]
    players = tuple(PlayerInfo(1000 + i, f"P{i}", i, False, 3, None, None, None)
                    for i in range(n))
    return GameSnapshot(1, -100, 0, "coyote", options, "running", 12, state, 1000, 5, 6,
                        players)
