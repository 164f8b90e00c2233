"""``private_messages.turn_first_id``: the private message that began a player's turn. After a
timeout, a move typed before it was meant for the turn the computer played; the latest
message is no mark of that once the turn's reminder (a newer message of the same turn) went
out. A running turn's first message is not known: none stands (the latest then counts, as
before).

Revision ID: 0029_turn_first_message
Revises: 0028_chat_bot_left
Create Date: 2026-12-07 09:55:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0029_turn_first_message'
down_revision: str | None = '0028_chat_bot_left'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("private_messages") as batch:
        batch.add_column(sa.Column("turn_first_id", sa.BigInteger(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("private_messages") as batch:
        batch.drop_column("turn_first_id")
