"""Project-wide checks: import contracts, migrations matching the models, the translation
catalog holding every user-facing string."""

from __future__ import annotations

from pathlib import Path

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po
from importlinter.cli import lint_imports
from sqlalchemy import create_engine

from league.db import sync_url
from league.models import Base

ROOT = Path(__file__).resolve().parent.parent


def test_import_contracts_hold(monkeypatch) -> None:
    monkeypatch.chdir(ROOT)
    assert lint_imports(no_cache=True) == 0


MYPY_PACKAGES = ["engine", "league", "telegram_app"]
"""The packages mypy checks here and in ``make lint`` (``[tool.mypy]`` in pyproject.toml)."""


def test_mypy_is_clean(monkeypatch) -> None:
    """mypy finds no error in :data:`MYPY_PACKAGES`, with the project's configuration."""
    from mypy import api

    monkeypatch.chdir(ROOT)
    out, err, status = api.run(["--no-incremental", *[a for p in MYPY_PACKAGES
                                                      for a in ("-p", p)]])
    assert status == 0, out + err


def test_migrations_match_models(pg_url: str) -> None:
    engine = create_engine(sync_url(pg_url))
    with engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), Base.metadata)
    engine.dispose()
    assert diff == [], f"models and migrations differ; add a migration: {diff}"


def test_every_user_facing_string_is_in_the_catalog() -> None:
    extracted = {
        message if isinstance(message, str) else message[0]
        for _, _, message, _, _ in extract_from_dir(
            ROOT / "telegram_app", keywords={"_": None, "n_": (1, 2)})
    }
    po = ROOT / "telegram_app" / "locales" / "en" / "LC_MESSAGES" / "messages.po"
    with po.open("rb") as fh:
        catalog = {m.id if isinstance(m.id, str) else m.id[0] for m in read_po(fh) if m.id}
    missing = extracted - catalog
    assert not missing, f"run `make messages`; missing from the catalog: {sorted(missing)[:5]}"
    assert len(extracted) > 50
