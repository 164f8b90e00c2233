"""Schema migrations on PostgreSQL when several bot processes start at once (a redeploy)."""

from __future__ import annotations

import subprocess
import sys
import uuid
from pathlib import Path

import psycopg
from sqlalchemy.engine import make_url

from tests.conftest import ADMIN_URL

ROOT = Path(__file__).resolve().parents[2]


def test_processes_starting_together_migrate_once() -> None:
    admin = make_url(ADMIN_URL).set(drivername="postgresql")
    name = f"coyote_migrate_{uuid.uuid4().hex[:10]}"
    admin_dsn = admin.render_as_string(hide_password=False)
    with psycopg.connect(admin_dsn, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    url = admin.set(database=name).render_as_string(hide_password=False)
    try:
        # Separate processes, as in a redeploy (Alembic's context is per process).
        script = f"from league.db import upgrade; upgrade({url!r})"
        runs = [subprocess.Popen([sys.executable, "-c", script], cwd=ROOT,
                                 stderr=subprocess.PIPE, text=True) for _ in range(3)]
        for run in runs:
            _, err = run.communicate(timeout=120)
            assert run.returncode == 0, err  # none fails on "already exists"
        with psycopg.connect(url) as conn:
            versions = conn.execute("SELECT version_num FROM alembic_version").fetchall()
        assert len(versions) == 1
    finally:
        with psycopg.connect(admin_dsn, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
