"""Tournaments: ``tournaments``, ``tournament_entries``, ``tournament_results``, and each
game's tournament, round and table (``games.tournament_id`` …). A tournament's tables run side
by side in a topic, so the one-open-game-per-topic index leaves them out.

Revision ID: 0019_tournaments
Revises: 0018_coyote_confirm
Create Date: 2026-12-15 10:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = '0019_tournaments'
down_revision: str | None = '0018_coyote_confirm'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

JSON = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")
OPEN = "status IN ('lobby', 'running')"
OPEN_CASUAL = "status IN ('lobby', 'running') AND tournament_id IS NULL"
TOURNAMENT_OPEN = "status IN ('signup', 'running')"


def upgrade() -> None:
    op.create_table(
        "tournaments",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("chat_id", sa.BigInteger(), nullable=False),
        sa.Column("thread_id", sa.BigInteger(), nullable=False),
        sa.Column("forum", sa.Boolean(), nullable=False),
        sa.Column("kind", sa.String(length=32), nullable=False),
        sa.Column("options", JSON, nullable=False),
        sa.Column("rounds", sa.Integer(), nullable=False),
        sa.Column("round_seconds", sa.Integer(), nullable=False),
        sa.Column("table_size", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("round_ends_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("creator_id", sa.BigInteger(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("message_id", sa.BigInteger(), nullable=True),
        sa.Column("told_round", sa.Integer(), nullable=False),
        sa.Column("tell_claimed_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["chat_id"], ["chats.id"],
                                name=op.f("fk_tournaments_chat_id_chats")),
        sa.ForeignKeyConstraint(["creator_id"], ["users.id"],
                                name=op.f("fk_tournaments_creator_id_users")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tournaments")),
    )
    op.create_index("ix_tournaments_open", "tournaments", ["chat_id"],
                    postgresql_where=sa.text(TOURNAMENT_OPEN),
                    sqlite_where=sa.text(TOURNAMENT_OPEN))
    op.create_table(
        "tournament_entries",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.BigInteger(), nullable=True),
        sa.Column("name", sa.String(length=256), nullable=False),
        sa.Column("ai_level", sa.String(length=16), nullable=True),
        sa.Column("joined_round", sa.Integer(), nullable=False),
        sa.Column("active", sa.Boolean(), nullable=False),
        sa.Column("no_shows", sa.Integer(), nullable=False),
        sa.Column("byes", sa.Integer(), nullable=False),
        sa.Column("joined_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["tournament_id"], ["tournaments.id"], ondelete="CASCADE",
                                name=op.f("fk_tournament_entries_tournament_id_tournaments")),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"],
                                name=op.f("fk_tournament_entries_user_id_users")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tournament_entries")),
        sa.UniqueConstraint("tournament_id", "user_id", name="uq_tournament_entries_user"),
    )
    op.create_index(op.f("ix_tournament_entries_tournament_id"), "tournament_entries",
                    ["tournament_id"])
    op.create_index(op.f("ix_tournament_entries_user_id"), "tournament_entries", ["user_id"])
    op.create_table(
        "tournament_results",
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("entry_id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=True),
        sa.Column("place", sa.Integer(), nullable=True),
        sa.Column("points", sa.Float(), nullable=False),
        sa.Column("no_show", sa.Boolean(), nullable=False),
        sa.Column("deadline", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(["tournament_id"], ["tournaments.id"], ondelete="CASCADE",
                                name=op.f("fk_tournament_results_tournament_id_tournaments")),
        sa.ForeignKeyConstraint(["entry_id"], ["tournament_entries.id"], ondelete="CASCADE",
                                name=op.f("fk_tournament_results_entry_id_tournament_entries")),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"],
                                name=op.f("fk_tournament_results_game_id_games")),
        sa.PrimaryKeyConstraint("tournament_id", "round", "entry_id",
                                name=op.f("pk_tournament_results")),
    )
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("tournament_id", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("tournament_round", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("tournament_table", sa.Integer(), nullable=True))
        batch.create_foreign_key(op.f("fk_games_tournament_id_tournaments"), "tournaments",
                                 ["tournament_id"], ["id"])
        batch.create_index(op.f("ix_games_tournament_id"), ["tournament_id"])
        batch.drop_index("uq_games_open_per_topic", postgresql_where=sa.text(OPEN),
                         sqlite_where=sa.text(OPEN))
        batch.create_index("uq_games_open_per_topic", ["chat_id", "thread_id"], unique=True,
                           postgresql_where=sa.text(OPEN_CASUAL),
                           sqlite_where=sa.text(OPEN_CASUAL))


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.drop_index("uq_games_open_per_topic", postgresql_where=sa.text(OPEN_CASUAL),
                         sqlite_where=sa.text(OPEN_CASUAL))
        batch.create_index("uq_games_open_per_topic", ["chat_id", "thread_id"], unique=True,
                           postgresql_where=sa.text(OPEN), sqlite_where=sa.text(OPEN))
        batch.drop_index(op.f("ix_games_tournament_id"))
        batch.drop_constraint(op.f("fk_games_tournament_id_tournaments"), type_="foreignkey")
        batch.drop_column("tournament_table")
        batch.drop_column("tournament_round")
        batch.drop_column("tournament_id")
    op.drop_table("tournament_results")
    op.drop_index(op.f("ix_tournament_entries_user_id"), table_name="tournament_entries")
    op.drop_index(op.f("ix_tournament_entries_tournament_id"), table_name="tournament_entries")
    op.drop_table("tournament_entries")
    op.drop_index("ix_tournaments_open", table_name="tournaments")
    op.drop_table("tournaments")
