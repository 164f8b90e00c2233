"""What the deliveries record moves out of ``games`` and ``game_players`` into tables only
the deliveries write: ``game_messages`` (``told_version``, the lobby's, table's and
reminder's message ids, and the chat they are in) and ``private_messages`` (each player's private message and its
hand), so that a move's transaction and a delivery's never touch the same rows. Every
running game keeps its messages (the rows are copied). The inbox gets ``taken_until`` (an
undone item a replay has taken).

Revision ID: 0014_delivery_tables
Revises: 0013_ai_levels
Create Date: 2026-12-05 00:30:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0014_delivery_tables'
down_revision: str | None = '0013_ai_levels'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

UNTOLD = "status IN ('running', 'finished') AND told_version < version"
FINISHED = "status = 'finished'"
UNDONE = "done_at IS NULL"


def upgrade() -> None:
    op.create_table(
        'game_messages',
        sa.Column('game_id', sa.Integer(), autoincrement=False, nullable=False),
        sa.Column('told_version', sa.Integer(), nullable=True),
        sa.Column('lobby_message_id', sa.BigInteger(), nullable=True),
        sa.Column('table_message_id', sa.BigInteger(), nullable=True),
        sa.Column('reminder_message_id', sa.BigInteger(), nullable=True),
        sa.Column('chat_id', sa.BigInteger(), nullable=True),
        sa.ForeignKeyConstraint(['game_id'], ['games.id'], ondelete='CASCADE',
                                name=op.f('fk_game_messages_game_id_games')),
        sa.PrimaryKeyConstraint('game_id', name=op.f('pk_game_messages')))
    op.create_table(
        'private_messages',
        sa.Column('game_id', sa.Integer(), autoincrement=False, nullable=False),
        sa.Column('user_id', sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column('message_id', sa.BigInteger(), nullable=True),
        sa.Column('hand', sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(['game_id'], ['games.id'], ondelete='CASCADE',
                                name=op.f('fk_private_messages_game_id_games')),
        sa.PrimaryKeyConstraint('game_id', 'user_id', name=op.f('pk_private_messages')))
    op.execute(
        "INSERT INTO game_messages (game_id, told_version, lobby_message_id, table_message_id, "
        "reminder_message_id, chat_id) SELECT id, told_version, lobby_message_id, "
        "table_message_id, reminder_message_id, chat_id FROM games WHERE told_version IS NOT NULL "
        "OR lobby_message_id IS NOT NULL OR table_message_id IS NOT NULL "
        "OR reminder_message_id IS NOT NULL")
    # (a claim of a send a process never finished, 0, is no message: sent again)
    op.execute(
        "INSERT INTO private_messages (game_id, user_id, message_id, hand) "
        "SELECT game_id, user_id, NULLIF(private_message_id, 0), private_hand "
        "FROM game_players WHERE user_id IS NOT NULL AND (private_message_id IS NOT NULL "
        "OR private_hand IS NOT NULL)")
    with op.batch_alter_table('games', schema=None) as batch_op:
        batch_op.drop_index('ix_games_untold', postgresql_where=sa.text(UNTOLD),
                            sqlite_where=sa.text(UNTOLD))
        batch_op.create_index('ix_games_finished', ['finished_at'], unique=False,
                              postgresql_where=sa.text(FINISHED),
                              sqlite_where=sa.text(FINISHED))
        batch_op.drop_column('told_version')
        batch_op.drop_column('lobby_message_id')
        batch_op.drop_column('table_message_id')
        batch_op.drop_column('reminder_message_id')
    with op.batch_alter_table('game_players', schema=None) as batch_op:
        batch_op.drop_column('private_message_id')
        batch_op.drop_column('private_hand')
    with op.batch_alter_table('inbox', schema=None) as batch_op:
        batch_op.add_column(sa.Column('taken_until', sa.DateTime(timezone=True),
                                      nullable=True))
        # (undone items are read in id order, no longer by lane)
        batch_op.drop_index('ix_inbox_undone', postgresql_where=sa.text(UNDONE),
                            sqlite_where=sa.text(UNDONE))
        batch_op.create_index('ix_inbox_undone', ['id'], unique=False,
                              postgresql_where=sa.text(UNDONE), sqlite_where=sa.text(UNDONE))


def downgrade() -> None:
    with op.batch_alter_table('inbox', schema=None) as batch_op:
        batch_op.drop_index('ix_inbox_undone', postgresql_where=sa.text(UNDONE),
                            sqlite_where=sa.text(UNDONE))
        batch_op.create_index('ix_inbox_undone', ['lane', 'id'], unique=False,
                              postgresql_where=sa.text(UNDONE), sqlite_where=sa.text(UNDONE))
        batch_op.drop_column('taken_until')
    with op.batch_alter_table('game_players', schema=None) as batch_op:
        batch_op.add_column(sa.Column('private_message_id', sa.BigInteger(), nullable=True))
        batch_op.add_column(sa.Column('private_hand', sa.Integer(), nullable=True))
    with op.batch_alter_table('games', schema=None) as batch_op:
        batch_op.add_column(sa.Column('told_version', sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column('lobby_message_id', sa.BigInteger(), nullable=True))
        batch_op.add_column(sa.Column('table_message_id', sa.BigInteger(), nullable=True))
        batch_op.add_column(sa.Column('reminder_message_id', sa.BigInteger(), nullable=True))
        batch_op.drop_index('ix_games_finished', postgresql_where=sa.text(FINISHED),
                            sqlite_where=sa.text(FINISHED))
        batch_op.create_index('ix_games_untold', ['id'], unique=False,
                              postgresql_where=sa.text(UNTOLD), sqlite_where=sa.text(UNTOLD))
    op.execute(
        "UPDATE games SET told_version = m.told_version, lobby_message_id = "
        "m.lobby_message_id, table_message_id = m.table_message_id, reminder_message_id = "
        "m.reminder_message_id FROM game_messages m WHERE m.game_id = games.id")
    op.execute(
        "UPDATE game_players SET private_message_id = p.message_id, private_hand = p.hand "
        "FROM private_messages p WHERE p.game_id = game_players.game_id "
        "AND p.user_id = game_players.user_id")
    op.drop_table('private_messages')
    op.drop_table('game_messages')
