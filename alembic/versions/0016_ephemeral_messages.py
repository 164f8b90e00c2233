"""``ephemeral_messages``: each player's ephemeral message of a game in its group (Bot API
10.2; a message only that player sees), written and read by the game's deliveries, so that
any process can edit it as the game moves on or delete it when its hand ends.

Revision ID: 0016_ephemeral_messages
Revises: 0015_league_places
Create Date: 2026-12-12 00:30:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0016_ephemeral_messages'
down_revision: str | None = '0015_league_places'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        'ephemeral_messages',
        sa.Column('game_id', sa.Integer(), autoincrement=False, nullable=False),
        sa.Column('user_id', sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column('chat_id', sa.BigInteger(), nullable=False),
        sa.Column('message_id', sa.BigInteger(), nullable=False),
        sa.Column('hand', sa.Integer(), nullable=True),
        sa.Column('acting', sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.ForeignKeyConstraint(['game_id'], ['games.id'], ondelete='CASCADE',
                                name=op.f('fk_ephemeral_messages_game_id_games')),
        sa.PrimaryKeyConstraint('game_id', 'user_id', name=op.f('pk_ephemeral_messages')))


def downgrade() -> None:
    op.drop_table('ephemeral_messages')
