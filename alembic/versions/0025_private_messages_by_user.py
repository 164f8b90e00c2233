"""An index on ``private_messages.user_id``: a reply in the private chat is placed by its
message among the replying user's games, which must not read every game's messages.

Revision ID: 0025_private_messages_by_user
Revises: 0024_posts_by_period_end
Create Date: 2026-12-06 16:20:00.000000
"""

from collections.abc import Sequence

from alembic import op

revision: str = '0025_private_messages_by_user'
down_revision: str | None = '0024_posts_by_period_end'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index("ix_private_messages_user_id", "private_messages", ["user_id"])


def downgrade() -> None:
    op.drop_index("ix_private_messages_user_id", table_name="private_messages")
