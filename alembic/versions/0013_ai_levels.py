"""AI levels and next-game alerts: a computer seat's level (``game_players.ai_level``), the
level that stands in for a timed-out human (``chats.stand_in_level``), the game a
rematch lobby was opened from (``games.rematch_of``), and the users who
asked to be told when a group's next lobby opens (``notify_subscriptions``)

Revision ID: 0013_ai_levels
Revises: 0012_posts_per_kind
Create Date: 2026-12-02 01:30:00.000000

Computer seats stored before keep ``ai_level`` NULL, which plays ``normal`` (today's AI).
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0013_ai_levels'
down_revision: str | None = '0012_posts_per_kind'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table('game_players', schema=None) as batch_op:
        batch_op.add_column(sa.Column('ai_level', sa.String(length=16), nullable=True))
    with op.batch_alter_table('games', schema=None) as batch_op:
        batch_op.add_column(sa.Column('rematch_of', sa.Integer(), nullable=True))
    with op.batch_alter_table('chats', schema=None) as batch_op:
        batch_op.add_column(sa.Column('stand_in_level', sa.String(length=16),
                                      server_default='normal', nullable=False))
    op.create_table(
        'notify_subscriptions',
        sa.Column('chat_id', sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column('user_id', sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column('told_game_id', sa.Integer(), nullable=True),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(['user_id'], ['users.id'],
                                name=op.f('fk_notify_subscriptions_user_id_users')),
        sa.PrimaryKeyConstraint('chat_id', 'user_id', name=op.f('pk_notify_subscriptions')),
    )


def downgrade() -> None:
    op.drop_table('notify_subscriptions')
    with op.batch_alter_table('chats', schema=None) as batch_op:
        batch_op.drop_column('stand_in_level')
    with op.batch_alter_table('games', schema=None) as batch_op:
        batch_op.drop_column('rematch_of')
    with op.batch_alter_table('game_players', schema=None) as batch_op:
        batch_op.drop_column('ai_level')
