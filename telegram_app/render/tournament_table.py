"""A tournament table's own words: the line above the usual heading of its table and private
messages, which says the game is one, and the name of the forum topic the bot opens for it.
Both in the language of the context (the callers' decorators set it)."""

from __future__ import annotations

from league.store.snapshots import GameSnapshot
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
