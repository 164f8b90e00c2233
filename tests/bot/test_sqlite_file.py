"""The SQLite file the bot holds for its one process (:func:`telegram_app.startup.sqlite_file`):
an SQLite URI (``file:…?uri=true``, which SQLAlchemy and Python's sqlite3 accept) names its
file after ``file:``. Taken as a path whole, an absolute URI stopped the bot at start ("the
SQLite file file:/… cannot be opened") and a relative one left a stray file named
``file:…`` beside the database."""

from __future__ import annotations

from pathlib import Path

import pytest

from telegram_app.startup import prepare_database, sqlite_file


@pytest.mark.parametrize(("url", "path"), [
    ("sqlite+aiosqlite:///data/league.sqlite3", "data/league.sqlite3"),
    ("sqlite:////srv/league.sqlite3", "/srv/league.sqlite3"),
    ("sqlite+aiosqlite:///file:/srv/league.sqlite3?mode=rwc&uri=true", "/srv/league.sqlite3"),
    ("sqlite:///file:///srv/league.sqlite3?uri=true", "/srv/league.sqlite3"),
    ("sqlite:///file:/srv/league.sqlite3?uri=1", "/srv/league.sqlite3"),  # (a boolean to
    ("sqlite:///file:/srv/league.sqlite3?uri=yes", "/srv/league.sqlite3"),  # SQLAlchemy)
    ("sqlite:///file:data/my%20league.sqlite3?uri=true", "data/my league.sqlite3"),
    ("sqlite:///file:shared?mode=memory&cache=shared&uri=true", None),
    ("sqlite:///:memory:", None),
    ("sqlite://", None),
    ("postgresql+psycopg://coyote@127.0.0.1/coyote", None),
])
def test_the_file_an_sqlite_url_opens(url: str, path: str | None) -> None:
    assert sqlite_file(url) == (None if path is None else Path(path))


def test_a_uri_database_is_created_where_it_says(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    prepare_database("sqlite+aiosqlite:///file:data.sqlite3?mode=rwc&uri=true")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data.sqlite3"]
    assert (tmp_path / "data.sqlite3").stat().st_size > 0  # (migrated)
