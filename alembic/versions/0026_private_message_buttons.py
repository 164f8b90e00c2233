"""``private_messages.acting``: whether a player's private message was last drawn with the
buttons of their turn, so that a new message to them (a turn's ping, a reminder, a view sent
again) takes those buttons out of play: a chat never holds two live keyboards of a game.
Messages drawn before are taken as drawn with them (which of them carry buttons is not
known): the next new message to each player of a running game retires the one before, once.

Revision ID: 0026_private_message_buttons
Revises: 0025_private_messages_by_user
Create Date: 2026-12-06 22:40:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0026_private_message_buttons'
down_revision: str | None = '0025_private_messages_by_user'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("private_messages") as batch:
        batch.add_column(sa.Column("acting", sa.Boolean(), nullable=False,
                                   server_default=sa.false()))
    op.execute(sa.text("UPDATE private_messages SET acting = :yes").bindparams(yes=True))


def downgrade() -> None:
    with op.batch_alter_table("private_messages") as batch:
        batch.drop_column("acting")
