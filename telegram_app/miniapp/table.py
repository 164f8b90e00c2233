"""A game as the page draws it, for any game: a per-game adapter (each game's ``GameUI.page``, a
:class:`~telegram_app.games.base.PageTable`) turns the
engine's view into the generic shape below, so another game plugs in with its own adapter
and the page stays the same.

``page(game, user_id, recent)`` →::

    {"game": {"id", "kind", "status", "version", "chat_id", "deadline", "paused"},
     "tournament": {"id", "round", "table", "label"} or None (see :func:`tournament`),
     "you": seat or None (None: not a player, or the lobby),
     "title": str, "prompt": str, "notes": [str], "recent": [str],
     "seats": [{"seat", "name", "you", "ai", "turn", "out", "tally", "max_tally",
                "tally_label" (shown instead of hearts when set),
                "cards": [{"label", "tone", "hidden"?, "own"?, "note"?, "void"?}],
                "badges": [str], "place"}],
     "claims": [{"name", "amount", "you"}], "pile": int, "over": bool, "your_turn": bool,
     "result": [{"mark", "name", "player", "you"}] (once finished: see :func:`result`),
     "rematch": {"text", "button"} or None (see :func:`rematch`),
     "legend": [{"label", "text"}] (what the special cards shown do; may be absent),
     "controls": [...]  (see :func:`telegram_app.games.coyote.table.controls`,
                         :func:`telegram_app.games.koira.table.controls`)}

A game may add keys of its own (Koira: ``"layout": "koira"`` and ``"koira": {...}``).
"""

from __future__ import annotations

from typing import Any

from league.store.snapshots import GameSnapshot
from telegram_app.games.base import PageTable
from telegram_app.games.registry import UIS
from telegram_app.i18n import _
from telegram_app.miniapp.text import clean_name, plain
from telegram_app.render.common import FSI, PDI, error_text
from telegram_app.render.results import ranked
from telegram_app.render.tournament_table import table_heading


def seat_of(game: GameSnapshot, user_id: int) -> int | None:
    """The user's seat in a running or finished game, ``None`` for anyone else."""
    player = game.player(user_id)
    return None if player is None else player.seat


ISOLATES = str.maketrans("", "", FSI + PDI)


def result(game: GameSnapshot, user_id: int) -> list[dict[str, Any]]:
    """The places of a finished game exactly as the group's "is over!" message gives them
    (the game's ``game_over_text``: its marks, shared places, a game's own sign such as
    Koira's 🐕), one ``{"mark", "name", "player", "you"}`` per line, best first; empty
    before the end. ``name`` is the line after its mark (``Bob · +20 (Elo 1520?)``),
    ``player`` the player's name it begins with (the page isolates it, as the message does,
    so that a right-to-left name cannot reorder the Elo change after it). The lines are the
    game's ``render.results.final_lines``, in the order of ``render.results.ranked``: each
    is its player's by position, and "you" is the reader's own seat, whatever the players
    are called."""
    ui = UIS.get(game.kind)
    if game.status != "finished" or ui is None:
        return []
    lines = plain(ui.game_over_text(game)).split("\n")
    first = lines.index("") + 1 if "" in lines else len(lines)
    last = lines.index("", first) if "" in lines[first:] else len(lines)
    places = ranked(game)
    told = lines[first:last]
    if len(told) != len(places):  # (a game's message of another shape: nobody's line)
        places = []
    out = []
    for index, line in enumerate(told):
        mark, _space, rest = line.partition(" ")
        player, after = "", rest
        if rest.startswith(FSI) and PDI in rest:  # (a name holds no isolate of its own)
            player, _pdi, after = rest[1:].partition(PDI)
        after = after.translate(ISOLATES)
        who = places[index][1].user_id if places else None
        out.append({"mark": mark, "name": player + after, "player": player,
                    "you": who is not None and who == user_id})
    return out


def rematch(game: GameSnapshot, user_id: int) -> dict[str, str] | None:
    """For a player of a finished game, where to play it again: 🔁 Rematch is a button of
    the group's last message about it, which the page cannot press (its tap opens the
    lobby in the group), so the page says where it is and offers to go back to the chat.
    ``None`` for anyone else (only a player may tap it), for a game that did not end and for
    a tournament's table (no rematch: the tournament seats the next round)."""
    player = game.player(user_id)
    if game.status != "finished" or player is None or player.is_ai or \
            game.tournament_id is not None:  # (a tournament's table: the next round comes)
        return None
    return {"text": _("To play again, tap 🔁 Rematch under the result in the group."),
            "button": _("↩️ Back to the chat")}


def tournament(game: GameSnapshot) -> dict[str, Any] | None:
    """For a tournament's table, the way to its tournament's page: ``{"id", "round",
    "table", "label"}`` (the label: the heading of the table's messages in the group);
    ``None`` for a casual game."""
    heading = table_heading(game)
    if heading is None:
        return None
    return {"id": game.tournament_id, "round": game.tournament_round,
            "table": game.tournament_table, "label": plain(heading)}


def page(game: GameSnapshot, user_id: int, recent: list[str] | None = None) -> dict[str, Any]:
    """What ``user_id`` may see of ``game`` (what their seat may see, the game's adapter
    says: a player no longer in the hand sees no card the public table does not show; the
    public table for anyone else). A cancelled game shows its last state, saying it was
    cancelled, with nobody to act."""
    seat = seat_of(game, user_id) if game.state is not None else None
    head = {"id": game.id, "kind": game.kind, "status": game.status, "version": game.version,
            "chat_id": game.chat_id, "paused": game.paused,
            "deadline": game.deadline_at.isoformat() if game.deadline_at and
            game.status == "running" else None}
    if game.state is None or game.kind not in UIS:  # the lobby (or a cancelled one)
        return {"game": head, "tournament": tournament(game), "you": None,
                "title": _("Game #{id}").format(id=game.id),
                "prompt": _("Waiting in the lobby: the host starts the game in the group.")
                if game.status == "lobby" else _("This game is not running any more."),
                "notes": [], "recent": [], "claims": [], "pile": None, "over": False,
                "your_turn": False, "controls": [], "result": [], "rematch": None,
                "seats": [{"seat": i, "name": clean_name(p.name), "you": p.user_id == user_id,
                           "ai": p.is_ai, "turn": False, "out": False, "tally": None,
                           "max_tally": None, "tally_label": None, "cards": [], "badges": [],
                           "place": None}
                          for i, p in enumerate(game.players)]}
    adapter = UIS[game.kind].page
    body = adapter.table(game, seat)
    body["controls"] = adapter.controls(game, seat) if seat is not None and \
        game.status == "running" else []
    body["your_turn"] = bool(body["controls"])
    body["result"] = result(game, user_id)
    body["rematch"] = rematch(game, user_id)
    out = out_line(game, seat)
    if out is not None:  # (the chat's answer to their 🎴: they read why nothing is theirs)
        body["prompt"] = out
    if game.status == "cancelled":  # (the state is the last one played: nobody acts now)
        body["prompt"] = _("Game #{id} was cancelled.").format(id=game.id)
        body["seats"] = [s | {"turn": False} for s in body["seats"]]
    return {"game": head, "tournament": tournament(game), "you": seat,
            "recent": recent or [], **body}


def out_line(game: GameSnapshot, seat: int | None) -> str | None:
    """For a seat of a running game no longer in it (knocked out, removed for timeouts,
    left; Koira: out of cards), what the chat answers their 🎴 (``GameUI.out_text``, else
    "You are out of this game: follow the rest on the table."); ``None`` for anyone else."""
    ui = UIS.get(game.kind)
    if seat is None or ui is None or game.status != "running" or game.state is None or \
            ui.in_hand(game, seat):
        return None
    return plain(ui.out_text(game, seat) or error_text("out_of_game"))


def controls(game: GameSnapshot, user_id: int) -> list[dict[str, Any]]:
    """The legal moves of ``user_id`` now (empty when not their turn or not a player)."""
    seat = seat_of(game, user_id)
    if seat is None or game.status != "running" or game.kind not in UIS:
        return []
    return UIS[game.kind].page.controls(game, seat)


def adapter_of(kind: str) -> PageTable | None:
    """How the page draws games of ``kind`` (``None``: a kind the bot does not run)."""
    ui = UIS.get(kind)
    return ui.page if ui is not None else None
