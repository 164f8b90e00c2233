"""Koira games as the bot sees them: snapshots around real engine states."""

from __future__ import annotations

import dataclasses
from typing import Any

from engine import GAMES
from engine.core import Action
from league.store.snapshots import GameSnapshot, PlayerInfo
from league.tables.places import final_places
from tests.engine.koira_helpers import deck_for

GAME = GAMES["koira"]
NAMES = ["Kim", "Sato", "Ruiz", "Park", "Lee", "Mori", "Vega", "Cho"]


def player(seat: int, name: str, *, ai: bool = False, language: str | None = None
           ) -> PlayerInfo:
    """A seated player (fields the league's side may add or drop get their defaults, so
    these tests survive the league's refactor)."""
    values: dict[str, Any] = {"user_id": None if ai else 1000 + seat, "name": name,
                              "seat": seat, "is_ai": ai, "language": language}
    fields = {f.name: f for f in dataclasses.fields(PlayerInfo)}
    for name_, f in fields.items():
        if name_ not in values and f.default is dataclasses.MISSING:
            values[name_] = None if name_ != "playing" else True
    return PlayerInfo(**{k: v for k, v in values.items() if k in fields})


def snapshot(state: dict, *, names: list[str] | None = None, version: int = 7,
             game_id: int = 41, language: str | None = None,
             languages: list[str | None] | None = None) -> GameSnapshot:
    """A running Koira game in ``state`` with players named ``names``."""
    n = state["seats"]
    names = names or NAMES[:n]
    languages = languages or [None] * n
    # Over: the league's places, as the finishing transaction stores them on the seats
    places = final_places(GAME.placements(state), state["removed"]) if state["over"] else \
        [None] * n
    players = tuple(dataclasses.replace(player(s, names[s], language=languages[s]),
                                        placement=places[s]) for s in range(n))
    return GameSnapshot(game_id, -100, 0, "koira", dict(state["options"]), "running", version,
                        state, 1000, 5, 6, players, chat_title="Dogs", language=language)


def dealt(hands: list[list[str]], stock: list[str] | None = None, **options: Any) -> dict:
    """A new game where seat ``s`` holds ``hands[s]``; seat 0 leads."""
    state, _ = GAME.new_game(len(hands), 1, {"deck": deck_for(hands, stock),
                                             "dealer": len(hands) - 1, **options})
    return state


def apply(state: dict, seat: int, action: Action) -> tuple[dict, list[dict]]:
    new, events = GAME.apply(state, seat, action)
    return new, [e.to_json() for e in events]


def play_random(seed: int, players: int, limit: int = 2000) -> list[tuple[dict, list[dict]]]:
    """A whole game of random legal moves: every (state, events) after each move, the deal
    first."""
    import random

    rng = random.Random(seed)
    state, events = GAME.new_game(players, seed, {})
    out = [(state, [e.to_json() for e in events])]
    for _ in range(limit):
        seat = GAME.current_seat(state)
        if seat is None:
            break
        action = rng.choice(GAME.legal_actions(state, seat))
        state, evs = apply(state, seat, action)
        out.append((state, evs))
    return out
