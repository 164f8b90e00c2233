"""A player's choice whether 🐺 Coyote! (which ends the round) asks them to confirm it:
``users.confirm_coyote``, on by default (``/confirm off`` in the private chat).

Revision ID: 0018_coyote_confirm
Revises: 0017_group_notes
Create Date: 2026-12-14 10:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0018_coyote_confirm'
down_revision: str | None = '0017_group_notes'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("users") as batch:
        batch.add_column(sa.Column("confirm_coyote", sa.Boolean(), nullable=False,
                                   server_default=sa.true()))


def downgrade() -> None:
    with op.batch_alter_table("users") as batch:
        batch.drop_column("confirm_coyote")
