"""A game as the page draws it, for any game: a per-game adapter (``TABLES``) turns the
engine's view into the generic shape below, so another game plugs in with its own adapter
and the page stays the same.

``page(game, user_id, recent)`` →::

    {"game": {"id", "kind", "status", "version", "chat_id", "deadline", "paused"},
     "you": seat or None (None: not a player, or the lobby),
     "title": str, "prompt": str, "notes": [str], "recent": [str],
     "seats": [{"seat", "name", "you", "ai", "turn", "out", "tally", "max_tally",
                "cards": [{"label", "tone", "hidden"?, "own"?, "note"?, "void"?}],
                "badges": [str], "place"}],
     "claims": [{"name", "amount", "you"}], "pile": int, "over": bool, "your_turn": bool,
     "controls": [...]  (see :func:`telegram_app.miniapp.coyote_table.controls`,
                         :func:`telegram_app.miniapp.koira_table.controls`)}

A game may add keys of its own (Koira: ``"layout": "koira"`` and ``"koira": {...}``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from league.snapshots import GameSnapshot
from telegram_app.i18n import _
from telegram_app.miniapp import coyote_table, koira_table
from telegram_app.miniapp.text import clean_name


class Adapter(NamedTuple):
    """One game's drawing for the page: ``table(game, seat or None)`` (the generic shape
    above plus the game's own keys), ``controls(game, seat)`` (the seat's legal moves as
    controls) and ``recent(game, [events of a logged step, …])`` (plain lines)."""

    table: Callable[[GameSnapshot, int | None], dict[str, Any]]
    controls: Callable[[GameSnapshot, int], list[dict[str, Any]]]
    recent: Callable[[GameSnapshot, list[list[dict[str, Any]]]], list[str]]


TABLES: dict[str, Adapter] = {
    "coyote": Adapter(coyote_table.table, coyote_table.controls, coyote_table.recent),
    "koira": Adapter(koira_table.table, koira_table.controls, koira_table.recent),
}
"""Per game kind, its adapter."""


def seat_of(game: GameSnapshot, user_id: int) -> int | None:
    """The user's seat in a running or finished game, ``None`` for anyone else."""
    player = game.player(user_id)
    return None if player is None else player.seat


def page(game: GameSnapshot, user_id: int, recent: list[str] | None = None) -> dict[str, Any]:
    """What ``user_id`` may see of ``game`` (their seat's view; the public one otherwise)."""
    seat = seat_of(game, user_id) if game.state is not None else None
    head = {"id": game.id, "kind": game.kind, "status": game.status, "version": game.version,
            "chat_id": game.chat_id, "paused": game.paused,
            "deadline": game.deadline_at.isoformat() if game.deadline_at and
            game.status == "running" else None}
    if game.state is None or game.kind not in TABLES:  # the lobby (or a cancelled one)
        return {"game": head, "you": None, "title": _("Game #{id}").format(id=game.id),
                "prompt": _("Waiting in the lobby: the host starts the game in the group.")
                if game.status == "lobby" else _("This game is not running any more."),
                "notes": [], "recent": [], "claims": [], "pile": None, "over": False,
                "your_turn": False, "controls": [],
                "seats": [{"seat": i, "name": clean_name(p.name), "you": p.user_id == user_id,
                           "ai": p.is_ai, "turn": False, "out": False, "tally": None,
                           "max_tally": None, "cards": [], "badges": [], "place": None}
                          for i, p in enumerate(game.players)]}
    adapter = TABLES[game.kind]
    body = adapter.table(game, seat)
    body["controls"] = adapter.controls(game, seat) if seat is not None and \
        game.status == "running" else []
    body["your_turn"] = bool(body["controls"])
    return {"game": head, "you": seat, "recent": recent or [], **body}


def controls(game: GameSnapshot, user_id: int) -> list[dict[str, Any]]:
    """The legal moves of ``user_id`` now (empty when not their turn or not a player)."""
    seat = seat_of(game, user_id)
    if seat is None or game.status != "running" or game.kind not in TABLES:
        return []
    return TABLES[game.kind].controls(game, seat)
