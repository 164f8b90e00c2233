"""inbox: every update is stored before Telegram is told it arrived (unique by update id),
with its lane and raw JSON; done_at is set with the change it caused

Revision ID: 0007_inbox
Revises: 0006
Create Date: 2026-12-01 21:30:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = '0007_inbox'
down_revision: str | None = '0006'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        'inbox',
        sa.Column('id', sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column('lane', sa.String(length=64), nullable=False),
        sa.Column('payload', sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()),
                                                    'postgresql'), nullable=False),
        sa.Column('received_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('done_at', sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_inbox')),
    )
    with op.batch_alter_table('inbox', schema=None) as batch_op:
        batch_op.create_index('ix_inbox_received', ['received_at'], unique=False)
        batch_op.create_index('ix_inbox_undone', ['lane', 'id'], unique=False,
                              postgresql_where=sa.text('done_at IS NULL'),
                              sqlite_where=sa.text('done_at IS NULL'))


def downgrade() -> None:
    with op.batch_alter_table('inbox', schema=None) as batch_op:
        batch_op.drop_index('ix_inbox_undone', postgresql_where=sa.text('done_at IS NULL'),
                            sqlite_where=sa.text('done_at IS NULL'))
        batch_op.drop_index('ix_inbox_received')
    op.drop_table('inbox')
