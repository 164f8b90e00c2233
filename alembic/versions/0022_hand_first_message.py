"""``private_messages.hand_first_id``: the first private message of a player's hand. A turn's
ping is a new private message in the same hand, so the last one no longer marks when the
hand began: a number typed after the hand began but before the ping arrived was refused as
"sent before this round began". A running hand's first message is not known: its last one
stands in (what the check compared before).

Revision ID: 0022_hand_first_message
Revises: 0021_sweep_reads
Create Date: 2026-12-06 09:30:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0022_hand_first_message'
down_revision: str | None = '0021_sweep_reads'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("private_messages") as batch:
        batch.add_column(sa.Column("hand_first_id", sa.BigInteger(), nullable=True))
    op.execute("UPDATE private_messages SET hand_first_id = message_id")


def downgrade() -> None:
    with op.batch_alter_table("private_messages") as batch:
        batch.drop_column("hand_first_id")
