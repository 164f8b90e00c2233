"""The league's places on the seats: ``game_players.rated`` (whether a human's result was
rated; NULL before the end, for a computer, and for games finished before this), and the
places of games already finished in which someone left or was removed, placed again as
every page now shows them (the game's order, those who left last and tied with each other;
competition ranks), on their seats and rating rows alike.

Revision ID: 0015_league_places
Revises: 0014_delivery_tables
Create Date: 2026-12-09 00:30:00.000000

The way down drops the column and keeps the new places (the old ones differed only where
someone left).
"""

import json
from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = '0015_league_places'
down_revision: str | None = '0014_delivery_tables'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _places(placements: list[int], departed: set[int]) -> list[int]:
    """``league.tables.places.final_places`` as of this revision (a migration keeps its own copy:
    the function may change, the migration may not)."""
    keys = [(1, 0) if seat in departed else (0, place) for seat, place in enumerate(placements)]
    return [1 + sum(other < key for other in keys) for key in keys]


def _events(value: Any) -> list[dict[str, Any]]:
    return json.loads(value) if isinstance(value, str) else list(value or [])


def upgrade() -> None:
    with op.batch_alter_table('game_players', schema=None) as batch_op:
        batch_op.add_column(sa.Column('rated', sa.Boolean(), nullable=True))
    bind = op.get_bind()
    departed: dict[int, set[int]] = {}
    for game_id, events in bind.execute(sa.text(
            "SELECT e.game_id, e.events FROM game_events e JOIN games g ON g.id = e.game_id "
            "WHERE g.status = 'finished' AND CAST(e.events AS TEXT) LIKE '%player_removed%'")):
        for event in _events(events):
            if event.get("type") == "player_removed" and isinstance(event.get("seat"), int):
                departed.setdefault(game_id, set()).add(event["seat"])
    for game_id, seats in sorted(departed.items()):
        players = bind.execute(sa.text(
            "SELECT id, seat, user_id, placement FROM game_players WHERE game_id = :game "
            "AND seat IS NOT NULL ORDER BY seat"), {"game": game_id}).all()
        if [p.seat for p in players] != list(range(len(players))):
            continue  # (never so: seats are numbered from 0 at the start)
        places = _places([p.placement or len(players) for p in players], seats)
        for player, place in zip(players, places, strict=True):
            bind.execute(sa.text("UPDATE game_players SET placement = :place WHERE id = :id"),
                         {"place": place, "id": player.id})
            if player.user_id is not None:
                bind.execute(sa.text(
                    "UPDATE rating_events SET place = :place WHERE game_id = :game "
                    "AND user_id = :user"), {"place": place, "game": game_id,
                                             "user": player.user_id})


def downgrade() -> None:
    with op.batch_alter_table('game_players', schema=None) as batch_op:
        batch_op.drop_column('rated')
