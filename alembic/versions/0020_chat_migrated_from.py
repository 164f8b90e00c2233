"""The group a supergroup was before Telegram converted it: ``chats.migrated_from`` (the
group's chat id; ``None`` for a chat that was never a group), so that the bot, which Telegram
shows joining the new supergroup, does not welcome the group a second time.

Revision ID: 0020_chat_migrated_from
Revises: 0019_tournaments
Create Date: 2026-12-05 23:50:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0020_chat_migrated_from'
down_revision: str | None = '0019_tournaments'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("chats") as batch:
        batch.add_column(sa.Column("migrated_from", sa.BigInteger(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("chats") as batch:
        batch.drop_column("migrated_from")
