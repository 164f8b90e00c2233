"""turn clocks and chat settings

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-29 15:13:41.679541
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0002'
down_revision: str | None = '0001'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table('chats', schema=None) as batch_op:
        batch_op.add_column(sa.Column('pace', sa.String(length=16), server_default='standard', nullable=False))
        batch_op.add_column(sa.Column('edition', sa.String(length=16), server_default='classic', nullable=False))
        batch_op.add_column(sa.Column('lives', sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column('specials', sa.Boolean(), server_default=sa.false(), nullable=False))
        batch_op.add_column(sa.Column('timeout_policy', sa.String(length=16), server_default='ai', nullable=False))
        batch_op.add_column(sa.Column('lobby_ttl', sa.Integer(), server_default='3600', nullable=False))

    with op.batch_alter_table('game_players', schema=None) as batch_op:
        batch_op.add_column(sa.Column('timeouts_in_row', sa.Integer(), server_default='0', nullable=False))

    with op.batch_alter_table('games', schema=None) as batch_op:
        batch_op.add_column(sa.Column('due_at', sa.DateTime(timezone=True), nullable=True))
        batch_op.add_column(sa.Column('deadline_at', sa.DateTime(timezone=True), nullable=True))
        batch_op.add_column(sa.Column('remind_at', sa.DateTime(timezone=True), nullable=True))
        batch_op.add_column(sa.Column('paused_left', sa.Float(), nullable=True))
        batch_op.create_index('ix_games_due', ['due_at'], unique=False, postgresql_where=sa.text("status IN ('lobby', 'running') AND due_at IS NOT NULL"), sqlite_where=sa.text("status IN ('lobby', 'running') AND due_at IS NOT NULL"))



def downgrade() -> None:
    with op.batch_alter_table('games', schema=None) as batch_op:
        batch_op.drop_index('ix_games_due', postgresql_where=sa.text("status IN ('lobby', 'running') AND due_at IS NOT NULL"), sqlite_where=sa.text("status IN ('lobby', 'running') AND due_at IS NOT NULL"))
        batch_op.drop_column('paused_left')
        batch_op.drop_column('remind_at')
        batch_op.drop_column('deadline_at')
        batch_op.drop_column('due_at')

    with op.batch_alter_table('game_players', schema=None) as batch_op:
        batch_op.drop_column('timeouts_in_row')

    with op.batch_alter_table('chats', schema=None) as batch_op:
        batch_op.drop_column('lobby_ttl')
        batch_op.drop_column('timeout_policy')
        batch_op.drop_column('specials')
        batch_op.drop_column('lives')
        batch_op.drop_column('edition')
        batch_op.drop_column('pace')

