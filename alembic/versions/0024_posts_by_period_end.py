"""A weekly or season post is keyed by the moment its period ends (``period_end``), not by its
first local day: a chat that moves west would otherwise find an older week due again, one
whose new week begins on the day the old one began would find it posted already, and a
season made longer keeps its first day, so its end was never told. A period is due only
when it ends after every post of its kind already made there (``league.tables.queries``).

Revision ID: 0024_posts_by_period_end
Revises: 0023_confirm_ending
Create Date: 2026-12-06 13:20:00.000000

Each claim's end is worked out from its first local day in the chat's time zone and season
length as they are now (the best the rows tell). Downgrading works the first day back the
same way.
"""

from collections.abc import Sequence
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

import sqlalchemy as sa
from alembic import op

revision: str = '0024_posts_by_period_end'
down_revision: str | None = '0023_confirm_ending'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

KEY = ['chat_id', 'game_kind', 'kind']


def _zone(name: str | None) -> ZoneInfo:
    try:
        return ZoneInfo(name or "UTC")
    except Exception:  # (a zone this machine lacks: UTC, as the league reads it)
        return ZoneInfo("UTC")


def _midnight(day: date, zone: ZoneInfo) -> datetime:
    return datetime.combine(day, time(), zone).astimezone(UTC)


def _rows(bind: sa.Connection, column: str) -> list[tuple]:
    """Each claim with its chat's time zone and season length; the date column as stored
    (SQLite: text) and as a datetime."""
    rows = bind.execute(sa.text(
        f"SELECT p.chat_id, p.game_kind, p.kind, p.{column}, c.timezone, c.season_weeks "
        "FROM league_posts p LEFT JOIN chats c ON c.id = p.chat_id")).all()
    return [(*row, row[3] if isinstance(row[3], datetime)
             else datetime.fromisoformat(str(row[3]))) for row in rows]


def _set(bind: sa.Connection, column: str, new: str, row: tuple, value: datetime) -> None:
    """Write ``value`` into ``new`` of ``row``'s claim, through the type (stored as the
    application stores a date, on SQLite too); the row found by its value as stored."""
    chat_id, game_kind, kind, stored = row[:4]
    bind.execute(sa.text(
        f"UPDATE league_posts SET {new} = :value WHERE chat_id = :chat AND "
        f"game_kind = :game AND kind = :kind AND {column} = :stored").bindparams(
        sa.bindparam("value", type_=sa.DateTime(timezone=True))),
        {"value": value, "chat": chat_id, "game": game_kind, "kind": kind, "stored": stored})


def _weeks(kind: str, season_weeks: int | None) -> int:
    return 1 if kind == "week" else max(1, season_weeks or 4)


def upgrade() -> None:
    with op.batch_alter_table('league_posts', schema=None) as batch_op:
        batch_op.add_column(sa.Column('period_end', sa.DateTime(timezone=True), nullable=True))
    bind = op.get_bind()
    for row in _rows(bind, "period_start"):
        _, _, kind, _, tz, season_weeks, start = row
        first = (start.astimezone(UTC) if start.tzinfo else start).date()  # (a UTC midnight)
        end = _midnight(first + timedelta(weeks=_weeks(kind, season_weeks)), _zone(tz))
        _set(bind, "period_start", "period_end", row, end)
    with op.batch_alter_table('league_posts', schema=None) as batch_op:
        batch_op.alter_column('period_end', existing_type=sa.DateTime(timezone=True),
                              nullable=False)
        batch_op.drop_constraint('pk_league_posts', type_='primary')
        batch_op.drop_column('period_start')
        batch_op.create_primary_key('pk_league_posts', [*KEY, 'period_end'])


def downgrade() -> None:
    with op.batch_alter_table('league_posts', schema=None) as batch_op:
        batch_op.add_column(sa.Column('period_start', sa.DateTime(timezone=True),
                                      nullable=True))
    bind = op.get_bind()
    for row in _rows(bind, "period_end"):
        _, _, kind, _, tz, season_weeks, end = row
        moment = end if end.tzinfo is not None else end.replace(tzinfo=UTC)
        last = moment.astimezone(_zone(tz)).date()
        start = datetime.combine(last - timedelta(weeks=_weeks(kind, season_weeks)), time(),
                                 UTC)
        _set(bind, "period_end", "period_start", row, start)
    with op.batch_alter_table('league_posts', schema=None) as batch_op:
        batch_op.alter_column('period_start', existing_type=sa.DateTime(timezone=True),
                              nullable=False)
        batch_op.drop_constraint('pk_league_posts', type_='primary')
        batch_op.drop_column('period_end')
        batch_op.create_primary_key('pk_league_posts', [*KEY, 'period_start'])
