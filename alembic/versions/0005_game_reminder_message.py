"""game reminder message: the group reminder a timed-out turn's report replaces

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-29 19:25:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0005'
down_revision: str | None = '0004'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table('games', schema=None) as batch_op:
        batch_op.add_column(sa.Column('reminder_message_id', sa.BigInteger(), nullable=True))
        batch_op.add_column(sa.Column('reminder_version', sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('games', schema=None) as batch_op:
        batch_op.drop_column('reminder_version')
        batch_op.drop_column('reminder_message_id')
