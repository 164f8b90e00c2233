"""chat last rated at: where the weekly and season posts start looking

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-29 16:36:01.795429
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0004'
down_revision: str | None = '0003'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table('chats', schema=None) as batch_op:
        batch_op.add_column(sa.Column('last_rated_at', sa.DateTime(timezone=True), nullable=True))
        batch_op.create_index(batch_op.f('ix_chats_last_rated_at'), ['last_rated_at'], unique=False)
    op.execute("UPDATE chats SET last_rated_at = (SELECT max(rating_events.finished_at) "
               "FROM rating_events WHERE rating_events.chat_id = chats.id)")


def downgrade() -> None:
    with op.batch_alter_table('chats', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_chats_last_rated_at'))
        batch_op.drop_column('last_rated_at')
