"""``chats.bot_left_at``: when Telegram refused a call in a group because the bot is out of
it (a 403: it was removed). Its weekly and season posts wait until
the bot is added back, instead of being tried again every ten minutes. Every chat starts
with none (the bot taken as in it: a post refused since is refused once more, then waits).

Revision ID: 0028_chat_bot_left
Revises: 0027_tournament_final_elo
Create Date: 2026-12-08 12:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0028_chat_bot_left'
down_revision: str | None = '0027_tournament_final_elo'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("chats") as batch:
        batch.add_column(sa.Column("bot_left_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("chats") as batch:
        batch.drop_column("bot_left_at")
