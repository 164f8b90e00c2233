"""languages: a chat's language (/settings language) and the one a user chose (/language)

Revision ID: 0008_languages
Revises: 0006
Create Date: 2026-12-01 21:20:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0008_languages'
down_revision: str | None = '0006'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table('chats', schema=None) as batch_op:
        batch_op.add_column(sa.Column('language', sa.String(length=16), nullable=True))
    with op.batch_alter_table('users', schema=None) as batch_op:
        batch_op.add_column(sa.Column('chosen_language', sa.String(length=16), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('users', schema=None) as batch_op:
        batch_op.drop_column('chosen_language')
    with op.batch_alter_table('chats', schema=None) as batch_op:
        batch_op.drop_column('language')
