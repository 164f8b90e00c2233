"""``tournament_entries.final_elo``: each player's Elo in the game when their tournament
finished, which a finished tournament's standings break ties with from then on (the
current Elo moved with every later game, and the places with it). A tournament finished
before is given each player's Elo as of its end, read back from ``rating_events`` (the last
rating of its game that finished by then; 1500 without one, and for computer players), so
its places return to those its final message told.

Revision ID: 0027_tournament_final_elo
Revises: 0026_private_message_buttons
Create Date: 2026-12-07 12:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0027_tournament_final_elo'
down_revision: str | None = '0026_private_message_buttons'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

START = 1500.0  # (league.tables.ratings.START)


def upgrade() -> None:
    with op.batch_alter_table("tournament_entries") as batch:
        batch.add_column(sa.Column("final_elo", sa.Float(), nullable=True))
    op.execute(sa.text(
        "UPDATE tournament_entries SET final_elo = COALESCE(("
        " SELECT e.after FROM rating_events e JOIN tournaments t"
        " ON t.id = tournament_entries.tournament_id"
        " WHERE e.user_id = tournament_entries.user_id AND e.kind = t.kind"
        " AND e.finished_at <= t.finished_at"
        " ORDER BY e.finished_at DESC, e.id DESC LIMIT 1), :start)"
        " WHERE tournament_id IN (SELECT id FROM tournaments WHERE status = 'finished')"
    ).bindparams(start=START))


def downgrade() -> None:
    with op.batch_alter_table("tournament_entries") as batch:
        batch.drop_column("final_elo")
