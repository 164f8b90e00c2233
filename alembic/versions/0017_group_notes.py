"""A chat's choice of what the group is told of each move: ``chats.group_notes``, ``quiet``
(the default: the table is edited in place, a new message only for what everyone should
notice) or ``every_move`` (a note per move, as before).

Revision ID: 0017_group_notes
Revises: 0016_ephemeral_messages
Create Date: 2026-12-05 04:15:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0017_group_notes'
down_revision: str | None = '0016_ephemeral_messages'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("chats") as batch:
        batch.add_column(sa.Column("group_notes", sa.String(16), nullable=False,
                                   server_default="quiet"))


def downgrade() -> None:
    with op.batch_alter_table("chats") as batch:
        batch.drop_column("group_notes")
