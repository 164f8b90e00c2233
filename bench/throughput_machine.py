"""What the throughput figures were taken on, for the printout and ``docs/benchmarks.md``'s
table: the machine, the commit the bot runs from, and the database server's own speed
(single-client ``pgbench``, before and after the settings: the machine is shared)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import psycopg
from sqlalchemy.engine import make_url

from bench.pg import ADMIN

ROOT = Path(__file__).resolve().parents[1]
"""The tree the bot runs from (its commit is the figures')."""


def machine_summary() -> str:
    """``nproc`` cores and the memory, as in ``docs/benchmarks.md``."""
    kib = next((int(line.split()[1]) for line in Path("/proc/meminfo").read_text().splitlines()
                if line.startswith("MemTotal:")), 0)
    return f"{len(os.sched_getaffinity(0))} cores, {kib / 2**20:.1f} GiB"


def bot_commit() -> str:
    """The commit the bot runs from: ``BENCH_COMMIT`` if set, else ``git rev-parse --short
    HEAD`` of its tree, ``+dirty`` when the bot's code has uncommitted changes."""
    if os.environ.get("BENCH_COMMIT"):
        return os.environ["BENCH_COMMIT"]
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, text=True,
                              capture_output=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "engine", "league",
                                "telegram_app", "alembic", "bench/bot_process.py"], cwd=ROOT,
                               text=True, capture_output=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "?"
    return head + ("+dirty" if dirty else "")


def pgbench_tps(seconds: int = 10) -> float | None:
    """Single-client ``pgbench`` TPS (its default TPC-B-like script, scale 1) on a scratch
    database of the same server; ``None`` without pgbench."""
    binary = shutil.which("pgbench")
    if binary is None:
        return None
    admin = make_url(ADMIN).set(drivername="postgresql")
    name = f"coyote_pgbench_{os.getpid()}"
    with psycopg.connect(admin.render_as_string(hide_password=False), autocommit=True) as c:
        c.execute(f'CREATE DATABASE "{name}"')
    try:
        args = ["-h", admin.host or "127.0.0.1", "-p", str(admin.port or 5432),
                "-U", admin.username or "postgres"]
        subprocess.run([binary, *args, "-i", "-s", "1", "-q", name], check=True,
                       capture_output=True)
        out = subprocess.run([binary, *args, "-c", "1", "-j", "1", "-T", str(seconds), name],
                             check=True, capture_output=True, text=True).stdout
        match = re.search(r"tps = ([\d.]+)", out)
        return float(match.group(1)) if match else None
    finally:
        with psycopg.connect(admin.render_as_string(hide_password=False),
                             autocommit=True) as c:
            c.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
