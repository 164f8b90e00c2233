"""What the sweep reads every tick: ``game_messages.drawn_version``, the version a game's
messages were drawn at while a move's note is held (the same player acts again), so that the
sweep does not draw such a game again at every tick until its player moves; and
``ix_games_open``, so that finding the running games and lobbies reads no whole ``games``.

Revision ID: 0021_sweep_reads
Revises: 0020_chat_migrated_from
Create Date: 2026-12-06 00:05:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0021_sweep_reads'
down_revision: str | None = '0020_chat_migrated_from'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

OPEN = "status IN ('lobby', 'running')"


def upgrade() -> None:
    with op.batch_alter_table("game_messages") as batch:
        batch.add_column(sa.Column("drawn_version", sa.Integer(), nullable=True))
    op.create_index("ix_games_open", "games", ["status"], postgresql_where=sa.text(OPEN),
                    sqlite_where=sa.text(OPEN))


def downgrade() -> None:
    op.drop_index("ix_games_open", table_name="games")
    with op.batch_alter_table("game_messages") as batch:
        batch.drop_column("drawn_version")
