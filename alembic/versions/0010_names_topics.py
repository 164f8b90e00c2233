"""names and topics: forum topic names as the bot saw them, so private messages can name the
group and topic of their game

Revision ID: 0010_names_topics
Revises: 0009_delivery_indexes
Create Date: 2026-12-01 21:30:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0010_names_topics'
down_revision: str | None = '0009_delivery_indexes'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('forum_topics',
    sa.Column('chat_id', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('thread_id', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('name', sa.String(length=256), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.PrimaryKeyConstraint('chat_id', 'thread_id', name=op.f('pk_forum_topics'))
    )


def downgrade() -> None:
    op.drop_table('forum_topics')
