"""``users.confirm_coyote`` becomes ``users.confirm_ending``: whether a move that ends the round
asks the player to confirm it first is the league's preference, and which move that is (🐺
Coyote! today) is the game's to say; the league names no game. Values are kept.

Revision ID: 0023_confirm_ending
Revises: 0022_hand_first_message
Create Date: 2026-12-06 10:20:00.000000
"""

from collections.abc import Sequence

from alembic import op

revision: str = '0023_confirm_ending'
down_revision: str | None = '0022_hand_first_message'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("users") as batch:
        batch.alter_column("confirm_coyote", new_column_name="confirm_ending")


def downgrade() -> None:
    with op.batch_alter_table("users") as batch:
        batch.alter_column("confirm_ending", new_column_name="confirm_coyote")
