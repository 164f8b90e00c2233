"""The deployment files stay valid without Docker: ``compose.yaml`` against the Compose
specification's JSON schema (``deploy/compose_spec.json``, vendored from the PyPI
``docker-compose`` 1.29.2 wheel, ``compose/config/compose_spec.json``); the settings the
compose file and the systemd units set exist; the image runs the same entry point."""

from __future__ import annotations

import configparser
import json
from pathlib import Path

import jsonschema
import yaml

from telegram_app.config import Settings

ROOT = Path(__file__).resolve().parents[1]
SETTINGS = {name.upper() for name in Settings.model_fields}


def _compose() -> dict:
    return yaml.safe_load((ROOT / "compose.yaml").read_text())


def test_compose_file_follows_the_compose_schema() -> None:
    schema = json.loads((ROOT / "deploy" / "compose_spec.json").read_text())
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in
              jsonschema.Draft201909Validator(schema).iter_errors(_compose())]
    assert not errors


def test_compose_services_set_only_known_settings() -> None:
    services = _compose()["services"]
    assert {"db", "migrate", "bot", "bot-polling"} <= set(services)
    for name in ("bot", "bot-polling"):
        assert set(services[name]["environment"]) <= SETTINGS, name
        assert services[name]["depends_on"]["migrate"]["condition"] == \
            "service_completed_successfully"
    assert services["migrate"]["command"] == ["alembic", "upgrade", "head"]
    assert "TELEGRAM_WEBHOOK_SECRET" in services["bot"]["environment"]


def test_systemd_units_run_the_bot() -> None:
    for unit in ("coyote-league.service", "coyote-league-webhook@.service"):
        parser = configparser.ConfigParser(interpolation=None, strict=False)
        parser.read_string((ROOT / "deploy" / unit).read_text())
        assert parser["Service"]["ExecStart"].endswith("-m telegram_app"), unit
        assert parser["Service"]["EnvironmentFile"], unit
    example = (ROOT / "deploy" / "coyote-league.env.example").read_text().splitlines()
    keys = {line.lstrip("# ").split("=", 1)[0] for line in example if "=" in line}
    assert keys <= SETTINGS, keys - SETTINGS


def test_image_runs_the_bot() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert 'CMD ["python", "-m", "telegram_app"]' in dockerfile
    assert "USER coyote" in dockerfile


def test_postgres_takes_every_workers_connections() -> None:
    """Each bot process may open its whole pool (``league.store.db``: ``pool_size`` plus
    ``max_overflow``; busy lanes and deliveries each hold one); PostgreSQL's default
    ``max_connections`` (100) is less than three webhook workers' pools, and a refused
    connection is answered as a database outage."""
    from league.store.db import Database

    engine = Database("postgresql://u@localhost/x").engine
    per_process = engine.pool.size() + engine.pool._max_overflow
    services = _compose()["services"]
    workers = services["bot"]["deploy"]["replicas"]
    command = services["db"].get("command", [])
    limits = [int(arg.split("=", 1)[1]) for arg in command if arg.startswith("max_connections=")]
    # (the polling bot is another profile: it does not run beside the workers)
    assert limits and limits[0] >= workers * per_process + 10


def test_a_polling_bot_needs_no_webhook_setting() -> None:
    """Compose checks every ``${NAME:?…}`` in the file before it picks a service or a
    profile: only what every bot needs may be required that way (the webhook workers check
    their own settings when they start)."""
    import re

    required = set(re.findall(r"\$\{(\w+):\?", (ROOT / "compose.yaml").read_text()))
    assert required == {"TELEGRAM_BOT_TOKEN"}
    assert "TELEGRAM_WEBHOOK_URL" in " ".join(_compose()["services"]["bot"]["command"])
