"""league ratings and posts

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-29 15:23:04.198466
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0003'
down_revision: str | None = '0002'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('league_posts',
    sa.Column('chat_id', sa.BigInteger(), nullable=False),
    sa.Column('kind', sa.String(length=16), nullable=False),
    sa.Column('period_start', sa.DateTime(timezone=True), nullable=False),
    sa.Column('claimed_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('posted_at', sa.DateTime(timezone=True), nullable=True),
    sa.PrimaryKeyConstraint('chat_id', 'kind', 'period_start', name=op.f('pk_league_posts'))
    )
    op.create_table('ratings',
    sa.Column('user_id', sa.BigInteger(), nullable=False),
    sa.Column('kind', sa.String(length=32), nullable=False),
    sa.Column('rating', sa.Float(), nullable=False),
    sa.Column('games', sa.Integer(), nullable=False),
    sa.Column('wins', sa.Integer(), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], name=op.f('fk_ratings_user_id_users')),
    sa.PrimaryKeyConstraint('user_id', 'kind', name=op.f('pk_ratings'))
    )
    op.create_table('rating_events',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('game_id', sa.Integer(), nullable=False),
    sa.Column('user_id', sa.BigInteger(), nullable=False),
    sa.Column('chat_id', sa.BigInteger(), nullable=False),
    sa.Column('kind', sa.String(length=32), nullable=False),
    sa.Column('before', sa.Float(), nullable=False),
    sa.Column('after', sa.Float(), nullable=False),
    sa.Column('k', sa.Integer(), nullable=False),
    sa.Column('score', sa.Float(), nullable=False),
    sa.Column('expected', sa.Float(), nullable=False),
    sa.Column('place', sa.Integer(), nullable=False),
    sa.Column('finished_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['game_id'], ['games.id'], name=op.f('fk_rating_events_game_id_games')),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], name=op.f('fk_rating_events_user_id_users')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_rating_events')),
    sa.UniqueConstraint('game_id', 'user_id', name='uq_rating_events_game_user')
    )
    with op.batch_alter_table('rating_events', schema=None) as batch_op:
        batch_op.create_index('ix_rating_events_chat_finished', ['chat_id', 'finished_at'], unique=False)
        batch_op.create_index('ix_rating_events_user_finished', ['user_id', 'finished_at'], unique=False)

    with op.batch_alter_table('chats', schema=None) as batch_op:
        batch_op.add_column(sa.Column('timezone', sa.String(length=64), server_default='UTC', nullable=False))
        batch_op.add_column(sa.Column('season_weeks', sa.Integer(), server_default='4', nullable=False))



def downgrade() -> None:
    with op.batch_alter_table('chats', schema=None) as batch_op:
        batch_op.drop_column('season_weeks')
        batch_op.drop_column('timezone')

    with op.batch_alter_table('rating_events', schema=None) as batch_op:
        batch_op.drop_index('ix_rating_events_user_finished')
        batch_op.drop_index('ix_rating_events_chat_finished')

    op.drop_table('rating_events')
    op.drop_table('ratings')
    op.drop_table('league_posts')
