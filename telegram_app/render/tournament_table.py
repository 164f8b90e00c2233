"""A tournament table's own words: the line above the usual heading of its table and private
messages, which says the game is one, and the name of the forum topic the bot opens for it.
Both in the language of the context (the callers' decorators set it)."""

from __future__ import annotations

from typing import Any

from league.store.snapshots import GameSnapshot
from league.tournaments.rounds import ROUND_DEADLINE
from telegram_app.i18n import _


def table_heading(game: GameSnapshot) -> str | None:
    """``🏆 Tournament #12 · Round 2 · Table 1`` (``None`` for a casual game)."""
    if game.tournament_id is None:
        return None
    return _("🏆 Tournament #{id} · Round {round} · Table {table}").format(
        id=game.tournament_id, round=game.tournament_round or 1,
        table=game.tournament_table or 1)


def heading_lines(game: GameSnapshot) -> list[str]:
    """:func:`table_heading` as the lines above a message's heading (none for a casual
    game)."""
    line = table_heading(game)
    return [] if line is None else [line]


def topic_name(game: GameSnapshot) -> str:
    """The name of the table's forum topic, short (a topic list shows a line of it): plain
    text, no HTML (``🏆 #12 · Round 2 · Table 1``)."""
    return _("🏆 #{id} · Round {round} · Table {table}").format(
        id=game.tournament_id, round=game.tournament_round or 1,
        table=game.tournament_table or 1)


def note_lines(game: GameSnapshot, lines: list[str], events: list[dict[str, Any]],
               over_text: str | None) -> list[str]:
    """A group note of a tournament table (``lines``: what it would say), headed by the
    table's heading, since several tables share the group; moves the computer played at
    the round's deadline (``ROUND_DEADLINE`` among ``events``) are told in one line, then
    ``over_text`` (the game's end). A casual game's note is ``lines`` as they are."""
    if game.tournament_id is None or not lines:
        return lines
    if any(e.get("type") == ROUND_DEADLINE for e in events):
        lines = [_("⏰ The round's deadline: the computer played this table to its end.")]
        if over_text:
            lines += ["", over_text]
    return heading_lines(game) + lines
