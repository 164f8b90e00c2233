"""A database error never carries its statement's parameters: the engine hides them
(``hide_parameters``), so a logged error (a traceback, the outage warning) shows no update's
payload, no user's message text or callback data. PostgreSQL and SQLite."""

from __future__ import annotations

import logging
import traceback

import pytest
from sqlalchemy import insert
from sqlalchemy.exc import DBAPIError, StatementError

from league.store.db import Database
from league.store.inbox import Inbox, Item
from league.store.models import InboxItem

SECRET = "private-message-text-7f3a91"  # a player's message, as the payload holds it
log = logging.getLogger("tests.db_logging")


def _payload() -> dict:
    return {"update_id": 1, "message": {"text": SECRET, "data": f"{SECRET}-data"}}


async def _refused(db: Database, values: dict) -> StatementError:
    """The error of inserting ``values`` into the inbox twice (a duplicate primary key)."""
    async with db.sessions.begin() as session:
        await session.execute(insert(InboxItem).values(values))
    with pytest.raises(StatementError) as caught:
        async with db.sessions.begin() as session:
            await session.execute(insert(InboxItem).values(values))
    return caught.value


def _assert_hidden(error: BaseException, caplog) -> None:
    shown = "".join(traceback.format_exception(error))
    assert SECRET not in str(error) and SECRET not in shown, shown
    assert "hidden" in str(error), str(error)  # (SQLAlchemy says so where it would show them)
    caplog.clear()
    with caplog.at_level(logging.ERROR, logger=log.name):
        try:
            raise error
        except StatementError:
            log.exception("storing 1 updates failed")  # (as the intake logs one)
    assert caplog.records and caplog.text
    assert SECRET not in caplog.text, caplog.text


async def _check_engine(url: str, dialect: str, caplog) -> None:
    db = Database(url)
    try:
        assert db.dialect == dialect
        error = await _refused(db, {"id": 4242, "lane": "u1", "payload": _payload()})
        assert isinstance(error, DBAPIError)  # (an IntegrityError: the primary key)
        _assert_hidden(error, caplog)
    finally:
        await db.dispose()


async def test_a_postgresql_error_shows_no_parameter(pg_db, pg_url, caplog) -> None:
    await _check_engine(pg_url, "postgresql", caplog)


async def test_a_sqlite_error_shows_no_parameter(sqlite_url, caplog) -> None:
    await _check_engine(sqlite_url, "sqlite", caplog)


async def test_a_value_the_database_refuses_is_not_shown(pg_db, caplog) -> None:
    """PostgreSQL refuses a lane longer than its column: the value is not in the error."""
    with pytest.raises(StatementError) as caught:
        await Inbox(pg_db).store([Item(4243, SECRET * 4, _payload())])
    _assert_hidden(caught.value, caplog)
