"""game options: a chat's defaults per game kind (the Coyote columns edition, lives and
specials become ``chats.game_options["coyote"]``), a seat's ``playing`` instead of its lives,
and the hand number of a game and of each private message instead of Coyote's round

Revision ID: 0011_game_options
Revises: 0010_names_topics
Create Date: 2026-12-02 00:20:00.000000

Both directions keep every chat's Coyote settings. Downgrading reads the lives of each seat
back from the game's state (the only game the older schema knew, Coyote, kept them there).
"""

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

revision: str = '0011_game_options'
down_revision: str | None = '0010_names_topics'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

JSONType = sa.JSON().with_variant(JSONB(), "postgresql")


def _hand(kind: str, state: dict[str, Any] | None) -> int | None:
    """``Game.hand_number`` as the games of this revision define it (copied here: a
    migration must not change when the engine does)."""
    if not state:
        return None
    return state.get("phase") if kind == "koira" else state.get("round")


def upgrade() -> None:
    bind = op.get_bind()
    with op.batch_alter_table('chats', schema=None) as batch_op:
        batch_op.add_column(sa.Column('game_options', JSONType, nullable=True))
    with op.batch_alter_table('games', schema=None) as batch_op:
        batch_op.add_column(sa.Column('hand', sa.Integer(), nullable=True))
    with op.batch_alter_table('game_players', schema=None) as batch_op:
        batch_op.add_column(sa.Column('playing', sa.Boolean(), server_default=sa.true(),
                                      nullable=False))
        batch_op.alter_column('private_round', new_column_name='private_hand')

    chats = sa.table('chats', sa.column('id', sa.BigInteger), sa.column('edition', sa.String),
                     sa.column('lives', sa.Integer), sa.column('specials', sa.Boolean),
                     sa.column('game_options', JSONType))
    for chat_id, edition, lives, specials in bind.execute(
            sa.select(chats.c.id, chats.c.edition, chats.c.lives, chats.c.specials)).all():
        coyote: dict[str, Any] = {"edition": edition or "classic", "specials": bool(specials)}
        if lives is not None:  # None: the edition's own number of lives
            coyote["lives"] = lives
        bind.execute(chats.update().where(chats.c.id == chat_id)
                     .values(game_options={"coyote": coyote}))
    players = sa.table('game_players', sa.column('lives', sa.Integer),
                       sa.column('playing', sa.Boolean))
    bind.execute(players.update().where(players.c.lives == 0).values(playing=False))
    games = sa.table('games', sa.column('id', sa.Integer), sa.column('kind', sa.String),
                     sa.column('state', JSONType), sa.column('hand', sa.Integer))
    for game_id, kind, state in bind.execute(
            sa.select(games.c.id, games.c.kind, games.c.state)
            .where(games.c.state.is_not(None))).all():
        bind.execute(games.update().where(games.c.id == game_id)
                     .values(hand=_hand(kind, state)))

    with op.batch_alter_table('chats', schema=None) as batch_op:
        batch_op.alter_column('game_options', existing_type=JSONType, nullable=False)
        batch_op.drop_column('specials')
        batch_op.drop_column('lives')
        batch_op.drop_column('edition')
    with op.batch_alter_table('game_players', schema=None) as batch_op:
        batch_op.drop_column('lives')


def downgrade() -> None:
    bind = op.get_bind()
    with op.batch_alter_table('chats', schema=None) as batch_op:
        batch_op.add_column(sa.Column('edition', sa.String(length=16), server_default='classic',
                                      nullable=False))
        batch_op.add_column(sa.Column('lives', sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column('specials', sa.Boolean(), server_default=sa.false(),
                                      nullable=False))
    with op.batch_alter_table('game_players', schema=None) as batch_op:
        batch_op.add_column(sa.Column('lives', sa.Integer(), nullable=True))

    chats = sa.table('chats', sa.column('id', sa.BigInteger), sa.column('edition', sa.String),
                     sa.column('lives', sa.Integer), sa.column('specials', sa.Boolean),
                     sa.column('game_options', JSONType))
    for chat_id, options in bind.execute(sa.select(chats.c.id, chats.c.game_options)).all():
        coyote = (options or {}).get("coyote") or {}
        bind.execute(chats.update().where(chats.c.id == chat_id).values(
            edition=coyote.get("edition") or "classic", lives=coyote.get("lives"),
            specials=bool(coyote.get("specials", False))))
    players = sa.table('game_players', sa.column('game_id', sa.Integer),
                       sa.column('seat', sa.Integer), sa.column('lives', sa.Integer))
    games = sa.table('games', sa.column('id', sa.Integer), sa.column('state', JSONType))
    for game_id, state in bind.execute(sa.select(games.c.id, games.c.state)
                                       .where(games.c.state.is_not(None))).all():
        for seat, lives in enumerate((state or {}).get("lives") or []):
            bind.execute(players.update().where(players.c.game_id == game_id,
                                                players.c.seat == seat).values(lives=lives))

    with op.batch_alter_table('game_players', schema=None) as batch_op:
        batch_op.alter_column('private_hand', new_column_name='private_round')
        batch_op.drop_column('playing')
    with op.batch_alter_table('games', schema=None) as batch_op:
        batch_op.drop_column('hand')
    with op.batch_alter_table('chats', schema=None) as batch_op:
        batch_op.drop_column('game_options')
