"""told version and typed bids: the moves the group has been told (held and lost notes
survive a restart), and each player's last applied typed bid (no bid applied twice)

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-29 21:10:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0006'
down_revision: str | None = '0005'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table('games', schema=None) as batch_op:
        batch_op.add_column(sa.Column('told_version', sa.Integer(), nullable=True))
    with op.batch_alter_table('game_players', schema=None) as batch_op:
        batch_op.add_column(sa.Column('last_typed_id', sa.BigInteger(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('game_players', schema=None) as batch_op:
        batch_op.drop_column('last_typed_id')
    with op.batch_alter_table('games', schema=None) as batch_op:
        batch_op.drop_column('told_version')
