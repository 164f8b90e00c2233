"""Deploying and running ``python -m telegram_app`` as an operator follows README ("Running
the bot", "Polling or webhook", "Docker Compose", "systemd", "Known limits") and ``deploy/``:
a start-up mistake is one line naming the setting (never a traceback or a restart loop), the
HTTPS settings are checked, uvicorn's lines are masked too, the deploy files agree with the
README (each of these was a review's finding, fixed since)."""

from __future__ import annotations

import asyncio
import configparser
import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from telegram_app.config import Settings
from tests.e2e.harness import play_turn, start_game, wait_for
from tests.e2e.processes import free_port
from tests.fakebot import FakeBotAPI

pytestmark = pytest.mark.process  # these tests start the bot (or python) as a process

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "987654321:AAHx-operator-review-token_42"
SECRET = "whsec-0123456789abcdef"
SETTINGS = {name.upper() for name in Settings.model_fields}
GROUP = -100919


def _env(api: FakeBotAPI | None, **extra: str | None) -> dict[str, str]:
    """The process's environment: the fake Bot API's token and URL, ``extra`` on top
    (``None`` removes a variable)."""
    env = {k: v for k, v in os.environ.items()
           if k not in SETTINGS and not k.startswith("TELEGRAM_")}
    if api is not None:
        env |= {"TELEGRAM_BOT_TOKEN": api.token, "TELEGRAM_BASE_URL": api.base_url}
    env |= {"SWEEP_INTERVAL": "0.2", "TELEGRAM_GROUP_RATE": "6000",
            "TELEGRAM_OVERALL_RATE": "1000"}
    for key, value in extra.items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    return env


async def _run_to_exit(env: dict[str, str], *, cwd: Path = ROOT, timeout: float = 45  # noqa: ASYNC109
                       ) -> tuple[int | None, list[str]]:
    """Run the bot until it exits on its own (``None``: still running after ``timeout`` s,
    then stopped with SIGTERM): its status and its non-empty output lines."""
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "telegram_app", cwd=cwd, env=env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
    reader = asyncio.ensure_future(process.stdout.read())  # type: ignore[union-attr]
    code: int | None
    try:
        code = await asyncio.wait_for(asyncio.shield(process.wait()), timeout)
    except TimeoutError:
        code = None
        process.send_signal(signal.SIGTERM)
        try:
            await asyncio.wait_for(process.wait(), 20)
        except TimeoutError:
            process.kill()
            await process.wait()
    output = (await reader).decode()
    return code, [line for line in output.splitlines() if line.strip()]


async def _spawn(api: FakeBotAPI, cwd: Path, log: Path, **extra: str | None
                 ) -> asyncio.subprocess.Process:
    with open(log, "ab") as out:  # noqa: ASYNC230
        return await asyncio.create_subprocess_exec(
            sys.executable, "-m", "telegram_app", cwd=cwd, env=_env(api, **extra),
            stdout=out, stderr=asyncio.subprocess.STDOUT)


async def _stop(process: asyncio.subprocess.Process) -> int:
    if process.returncode is None:
        process.send_signal(signal.SIGTERM)
        try:
            return await asyncio.wait_for(process.wait(), 30)
        except TimeoutError:
            process.kill()
    return await process.wait()


# --------------------------------------------------------------- verified: the SQLite default

@pytest.mark.timeout(240)
async def test_the_sqlite_default_is_in_the_working_directory_and_a_game_survives_sigterm(
        tmp_path: Path) -> None:
    """README: unset ``DATABASE_URL`` is ``coyote-league.sqlite3`` in the working directory
    (the systemd unit's ``WorkingDirectory``); a stop (SIGTERM) exits 0 and the next start
    goes on with the game."""
    log = tmp_path / "bot.log"
    async with FakeBotAPI(token=TOKEN) as api:
        api.add_group(GROUP, "Operator group", admins=[1])
        players = [api.add_user(i, name) for i, name in enumerate(("Ann", "Bob", "Cat"), 1)]
        for user in players:
            await user.start_bot()
        bot = await _spawn(api, tmp_path, log, DATABASE_URL=None)
        try:
            await wait_for(lambda: bool(api.calls("getUpdates")), timeout=60)
            await start_game(api, players, GROUP)
            for _ in range(3):
                assert await play_turn(api, players, GROUP)
            assert await _stop(bot) == 0, log.read_text()
            assert (tmp_path / "coyote-league.sqlite3").is_file()
            assert not (ROOT / "coyote-league.sqlite3").exists()
            starts = len(api.calls("getMe"))
            bot = await _spawn(api, tmp_path, log, DATABASE_URL=None)
            await wait_for(lambda: len(api.calls("getMe")) > starts, timeout=60)
            for _ in range(400):
                if api.find_messages(GROUP, "is over!"):
                    break
                assert await play_turn(api, players, GROUP)
            assert api.find_messages(GROUP, "is over!")
        finally:
            await _stop(bot)
    assert TOKEN not in log.read_text()


# --------------------------------------------------------------- start-up mistakes

def _future_schema(path: Path) -> str:
    """A SQLite database whose schema is one revision newer than this code (a rollback of
    the code after a deploy had migrated)."""
    from league.store.db import upgrade

    url = f"sqlite:///{path}"
    upgrade(url)
    with sqlite3.connect(path) as connection:
        connection.execute("UPDATE alembic_version SET version_num = '0099_from_the_future'")
    return url


@pytest.mark.timeout(120)
@pytest.mark.parametrize("case", ["malformed", "unreachable", "newer schema"])
async def test_a_database_problem_at_start_is_one_line_naming_database_url(
        tmp_path: Path, case: str) -> None:
    """README: "If the settings are incomplete or invalid, … the last log line says which
    and the process exits with status 1". A ``DATABASE_URL`` that is no URL (a typo), a
    PostgreSQL that is not there, or a schema newer than the code (a rollback) each end in
    the ``unhandled error`` traceback of ``startup._log_uncaught`` (a malformed URL only
    after Telegram was asked ``getMe``); the last line is SQLAlchemy's "Background on this
    error at: https://sqlalche.me/…" or Alembic's, none names ``DATABASE_URL``."""
    url = {"malformed": "postgresql//coyote:hunter2@db/coyote",
           "unreachable": "postgresql://coyote:hunter2@127.0.0.1:1/coyote",
           "newer schema": ""}[case]
    if case == "newer schema":
        url = _future_schema(tmp_path / "bot.sqlite3")
    async with FakeBotAPI(token=TOKEN) as api:
        code, lines = await _run_to_exit(_env(api, DATABASE_URL=url))
    output = "\n".join(lines)
    assert code == (78 if case == "malformed" else 1), output  # (78: a setting that cannot work)
    assert "hunter2" not in output  # (holds: the password is never shown)
    assert "Traceback" not in output, output
    assert "DATABASE_URL" in lines[-1], lines[-1]


@pytest.mark.timeout(90)
async def test_an_empty_token_is_an_incomplete_setting(tmp_path: Path) -> None:
    """``TELEGRAM_BOT_TOKEN=`` (an env file's line left empty) passes the settings (a
    ``SecretStr`` takes ""), then ``startup.check_token``'s ``Bot("")`` raises PTB's
    ``InvalidToken`` outside its ``try``: the ``unhandled error`` traceback, status 1, which
    ``Restart=on-failure`` restarts every 5 s for ever (a refused token gets 78 and one
    line). It should be the one line "incomplete or invalid settings: TELEGRAM_BOT_TOKEN".
    (A blank token, "   ", is sent to Telegram; when Telegram cannot be reached the mask
    then replaces every space of the line: "Telegram[redacted]cannot[redacted]be…".)"""
    async with FakeBotAPI(token=TOKEN) as api:
        code, lines = await _run_to_exit(_env(
            api, TELEGRAM_BOT_TOKEN="", DATABASE_URL=f"sqlite:///{tmp_path / 'b.sqlite3'}"))
        asked = len(api.calls("getMe"))
    output = "\n".join(lines)
    assert code is not None and code != 0, output
    assert "Traceback" not in output and "[redacted]" not in output, output
    assert len(lines) == 1 and "TELEGRAM_BOT_TOKEN" in lines[0], output
    assert asked == 0


@pytest.mark.timeout(90)
async def test_a_plain_http_webhook_url_is_refused_by_the_settings(tmp_path: Path) -> None:
    """README: ``TELEGRAM_WEBHOOK_URL`` is "the public HTTPS URL": with Telegram's own Bot API
    an ``http://`` one is refused by the settings, in one line, before Telegram is asked
    anything (it would refuse ``setWebhook``: "bad webhook: HTTPS url must be provided")."""
    code, lines = await _run_to_exit(_env(
        None, TELEGRAM_BOT_TOKEN=TOKEN, DATABASE_URL=f"sqlite:///{tmp_path / 'b.sqlite3'}",
        TELEGRAM_WEBHOOK_URL="http://bot.example.org/telegram",
        TELEGRAM_WEBHOOK_SECRET=SECRET, WEB_LISTEN_PORT=str(free_port())))
    output = "\n".join(lines)
    assert code == 78 and len(lines) == 1, output
    assert "TELEGRAM_WEBHOOK_URL" in lines[-1], lines[-1]


@pytest.mark.timeout(90)
async def test_a_refused_webhook_is_not_called_unreachable(tmp_path: Path) -> None:
    """A self-hosted Bot API server (``TELEGRAM_BASE_URL``) in ``--local`` mode may post to
    plain HTTP, so the settings let it through; when the server refuses ``setWebhook`` all
    the same, the last line says Telegram refused it and names the setting, not "Telegram
    cannot be reached" (it was reached)."""
    async with FakeBotAPI(token=TOKEN) as api:
        api.fail_next("setWebhook", 400, "Bad Request: bad webhook: HTTPS url must be "
                      "provided for webhook", count=10)
        code, lines = await _run_to_exit(_env(
            api, DATABASE_URL=f"sqlite:///{tmp_path / 'b.sqlite3'}",
            TELEGRAM_WEBHOOK_URL="http://bot.example.org/telegram",
            TELEGRAM_WEBHOOK_SECRET=SECRET, WEB_LISTEN_PORT=str(free_port())))
    output = "\n".join(lines)
    assert code == 1, output
    assert "cannot be reached" not in output, lines[-1]
    assert "TELEGRAM_WEBHOOK_URL" in lines[-1], lines[-1]


def test_a_plain_http_miniapp_url_is_refused_by_the_settings() -> None:
    """README: ``MINIAPP_URL`` is ``https://<host>/app/``. Telegram accepts a ``web_app``
    button only with an HTTPS URL ("Only HTTPS links are allowed"), and the button rides on
    every private game message: an ``http://`` (or schemeless) URL passes the settings, and
    the operator learns of it from players whose private messages fail."""
    for url in ("http://bot.example.org/app/", "bot.example.org/app/"):
        with pytest.raises(ValueError, match="MINIAPP_URL|miniapp_url"):
            Settings(telegram_bot_token=TOKEN, miniapp_url=url)  # type: ignore[call-arg]


@pytest.mark.timeout(120)
async def test_a_second_process_on_the_same_sqlite_file_refuses_to_start(
        tmp_path: Path) -> None:
    """README, Known limits: "SQLite is for one process" (its sweeps cannot be claimed:
    ``SKIP LOCKED`` is dropped on SQLite). Nothing enforces it: a second ``make run`` (or a
    second container on one volume) beside the service starts, both poll (each logs
    "update ? failed" with a ``Conflict`` traceback) and both sweep the same games. The
    second should say in one line that the SQLite file is in use and exit."""
    first_log, second_log = tmp_path / "first.log", tmp_path / "second.log"
    async with FakeBotAPI(token=TOKEN) as api:
        first = await _spawn(api, tmp_path, first_log, DATABASE_URL=None)
        second = None
        try:
            await wait_for(lambda: bool(api.calls("getUpdates")), timeout=60)
            second = await _spawn(api, tmp_path, second_log, DATABASE_URL=None)
            try:
                code = await asyncio.wait_for(second.wait(), 25)
            except TimeoutError:
                code = None
        finally:
            if second is not None:
                await _stop(second)
            await _stop(first)
    output = second_log.read_text()
    assert code is not None and code != 0, "the second process ran beside the first:\n" + \
        output[-1500:]
    assert "coyote-league.sqlite3" in output.strip().splitlines()[-1]


@pytest.mark.timeout(90)
async def test_a_first_start_logs_one_line_per_record(tmp_path: Path) -> None:
    """Every record is one line (``%(asctime)s %(levelname)s %(name)s: …``), so journald,
    ``docker logs`` and a log shipper see one entry each. A first start (an empty database)
    logs each migration with its whole docstring ("Running upgrade 0013_ai_levels ->
    0014_delivery_tables, What the deliveries record …"), about 40 lines that carry no time,
    level or logger; and seven "alembic.runtime.plugins: setup plugin …" lines at INFO on
    every start."""
    import re

    async with FakeBotAPI(token=TOKEN) as api:
        code, lines = await _run_to_exit(_env(
            api, DATABASE_URL=f"sqlite:///{tmp_path / 'b.sqlite3'}"), timeout=12)
    assert code is None  # (it ran until stopped)
    stamp = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} [A-Z]+ \S+: ")
    loose = [line for line in lines if not stamp.match(line)]
    assert not loose, f"{len(loose)} lines without a record's prefix, e.g. {loose[:3]}"
    assert not [line for line in lines if "setup plugin" in line]


# --------------------------------------------------------------- secrets in the log

def test_uvicorn_log_lines_are_masked_too(tmp_path: Path) -> None:
    """README: "The token and the webhook secret are masked in every log line (the bot's and
    its libraries', tracebacks included)". uvicorn (the web app's server: webhook, /healthz,
    /metrics, Mini App) configures its own handlers on ``uvicorn``/``uvicorn.error`` with
    ``propagate`` off, so its lines (an "Exception in ASGI application" traceback) never
    pass the ``Redact`` filter that ``redact_secrets`` puts on the root handlers and on
    ``LIBRARY_LOGGERS`` (which does not list uvicorn). Run as ``main`` sets it up."""
    script = f"""
import logging, types
from telegram_app import startup
from telegram_app.app import make_server
from telegram_app.config import Settings
logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
settings = Settings(telegram_bot_token={TOKEN!r}, telegram_webhook_url="https://x.org/hook",
                    telegram_webhook_secret={SECRET!r}, web_listen_port=8999)
startup.redact_secrets([{TOKEN!r}, {SECRET!r}])
make_server(types.SimpleNamespace(bot_data={{}}, running=False), settings)
for name in ("telegram_app.app", "uvicorn.error"):
    logging.getLogger(name).error("Exception in ASGI application: %s %s", {TOKEN!r}, {SECRET!r})
"""
    result = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True,
                            text=True, timeout=60, env=_env(None))
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert output.count("Exception in ASGI application") == 2, output
    assert TOKEN not in output and SECRET not in output, output


# --------------------------------------------------------------- deploy files

def _unit(name: str) -> configparser.ConfigParser:
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    parser.read_string((ROOT / "deploy" / name).read_text())
    return parser


def test_the_webhook_workers_do_not_restart_a_refused_token() -> None:
    """README: a refused token exits 78, "which the systemd unit does not restart".
    ``coyote-league.service`` has ``RestartPreventExitStatus=78``; the webhook template
    ``coyote-league-webhook@.service`` has ``Restart=always`` and no such line: every worker
    asks Telegram ``getMe`` with the revoked token every 2 s, for ever."""
    service = _unit("coyote-league-webhook@.service")["Service"]
    assert "78" in service.get("RestartPreventExitStatus", "").split()


def test_the_webhook_workers_port_is_not_overridden_by_the_env_file() -> None:
    """systemd reads ``EnvironmentFile=`` after ``Environment=``, and "settings from these
    files override settings made with Environment=" (systemd.exec). The env example invites
    ``WEB_LISTEN_PORT=8080`` ("with polling, set the port to serve /healthz and /metrics
    anyway"), and the webhook template says to set up "as for coyote-league.service" with
    the same ``/etc/coyote-league.env``: then ``Environment=WEB_LISTEN_PORT=%i`` loses, every
    instance binds 8080 and all but one fail (and restart every 2 s)."""
    service = _unit("coyote-league-webhook@.service")["Service"]
    unit_env = dict(item.split("=", 1) for item in
                    service.get("Environment", "").split())  # (the last Environment= line)
    file_env = {"WEB_LISTEN_PORT": "8080"}  # uncommented as the example suggests
    environment = {**unit_env, **file_env}  # systemd: the file wins
    command = service["ExecStart"]
    port = environment.get("WEB_LISTEN_PORT")
    # The instance's port reaches the process if ExecStart sets it itself (env VAR=%i …).
    assert "WEB_LISTEN_PORT=%i" in command or port == "%i", (port, command)


def test_the_env_example_names_every_setting() -> None:
    """``deploy/coyote-league.env.example`` is the settings file the README points at; it
    leaves out ``MINIAPP_URL`` and ``MINIAPP_SHORT_NAME`` (the Mini App's button and direct
    link), and calls the rate limiter "PTB's" (it is ``transport/ratelimit.py``'s)."""
    example = (ROOT / "deploy" / "coyote-league.env.example").read_text()
    keys = {line.lstrip("# ").split("=", 1)[0] for line in example.splitlines() if "=" in line}
    assert SETTINGS - keys == set(), SETTINGS - keys


def test_the_dot_env_that_holds_the_token_is_ignored_by_git() -> None:
    """README, Docker Compose: ``cp deploy/coyote-league.env.example .env`` and set the token
    there, in the repository's root; ``.gitignore`` does not list ``.env``, so a ``git add
    .`` or ``git commit -a`` of a deploy's checkout can publish the bot's token."""
    result = subprocess.run(["git", "check-ignore", "-q", ".env"], cwd=ROOT, timeout=30)
    assert result.returncode == 0


def test_compose_passes_the_settings_set_in_dot_env() -> None:
    """README, Docker Compose: ``cp deploy/coyote-league.env.example .env`` and edit it. Compose
    reads ``.env`` only to fill the ``${…}`` in ``compose.yaml`` (no ``env_file:``), and the
    bot services pass on only the token, the database, the webhook's URL and secret and the
    listen address: ``MINIAPP_URL`` (the Mini App's button), ``UPDATE_CONCURRENCY``,
    ``SWEEP_INTERVAL``, the rate limits … set there never reach the bot, silently."""
    import yaml

    services = yaml.safe_load((ROOT / "compose.yaml").read_text())["services"]
    for name in ("bot", "bot-polling"):
        service = services[name]
        passed = set(service.get("environment") or {})
        if service.get("env_file"):
            continue
        missing = {"MINIAPP_URL", "MINIAPP_SHORT_NAME", "UPDATE_CONCURRENCY",
                   "SWEEP_INTERVAL", "TELEGRAM_GROUP_RATE"} - passed
        assert not missing, (name, sorted(missing))
