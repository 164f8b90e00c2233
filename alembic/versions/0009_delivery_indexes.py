"""delivery indexes: the sweep's search for games whose last change was not shown reads a
partial index of the few games behind, not every game

Revision ID: 0009_delivery_indexes
Revises: 0008_languages
Create Date: 2026-12-01 21:50:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0009_delivery_indexes'
down_revision: str | None = '0008_languages'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

UNTOLD = "status IN ('running', 'finished') AND told_version < version"


def upgrade() -> None:
    with op.batch_alter_table('games', schema=None) as batch_op:
        batch_op.create_index('ix_games_untold', ['id'], unique=False,
                              postgresql_where=sa.text(UNTOLD), sqlite_where=sa.text(UNTOLD))


def downgrade() -> None:
    with op.batch_alter_table('games', schema=None) as batch_op:
        batch_op.drop_index('ix_games_untold', postgresql_where=sa.text(UNTOLD),
                            sqlite_where=sa.text(UNTOLD))
