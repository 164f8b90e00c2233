"""The declarative base every table of the league derives from, its naming convention (so
migrations name constraints stably), and what the table modules share. The schema, all
its tables registered in ``Base.metadata``, is :mod:`league.store.models`."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import cast

from sqlalchemy import JSON, MetaData, Table
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import DeclarativeBase

JSONType = JSON().with_variant(JSONB(), "postgresql")

NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


def utcnow() -> datetime:
    """The current time in UTC, timezone-aware."""
    return datetime.now(UTC)


class Base(DeclarativeBase):
    """Declarative base with a naming convention, so migrations name constraints stably."""

    metadata = MetaData(naming_convention=NAMING)


def table_of(model: type[Base]) -> Table:
    """The table of a mapped class, for Core statements on its own columns (no ORM work)."""
    return cast(Table, model.__table__)
