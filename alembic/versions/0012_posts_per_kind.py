"""posts per game kind: a weekly or season post is claimed for one game kind (each game has
its own league), so a second game's table no longer collides with Coyote's

Revision ID: 0012_posts_per_kind
Revises: 0011_game_options
Create Date: 2026-12-02 01:40:00.000000

Every claim made before this revision was a Coyote table (the only game rated then), so it
stays one. Downgrading keeps the Coyote claims only: the older key has room for one game.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0012_posts_per_kind'
down_revision: str | None = '0011_game_options'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table('league_posts', schema=None) as batch_op:
        batch_op.add_column(sa.Column('game_kind', sa.String(length=32),
                                      server_default='coyote', nullable=False))
    with op.batch_alter_table('league_posts', schema=None) as batch_op:
        # (the default only filled the rows there were; a claim always names its game)
        batch_op.alter_column('game_kind', existing_type=sa.String(length=32),
                              server_default=None, existing_nullable=False)
        batch_op.drop_constraint('pk_league_posts', type_='primary')
        batch_op.create_primary_key('pk_league_posts',
                                    ['chat_id', 'game_kind', 'kind', 'period_start'])


def downgrade() -> None:
    posts = sa.table('league_posts', sa.column('game_kind', sa.String))
    op.execute(posts.delete().where(posts.c.game_kind != 'coyote'))
    with op.batch_alter_table('league_posts', schema=None) as batch_op:
        batch_op.drop_constraint('pk_league_posts', type_='primary')
        batch_op.create_primary_key('pk_league_posts', ['chat_id', 'kind', 'period_start'])
        batch_op.drop_column('game_kind')
