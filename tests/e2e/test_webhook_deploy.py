"""Deploying webhook workers as README ("Polling or webhook", "systemd") and ``deploy/`` say,
against the real bot process (``python -m telegram_app``) and the fake Bot API. Each test
failed before its fix; its docstring tells what the bot did then."""

from __future__ import annotations

import asyncio
import configparser
import re
import shlex
import sys
from pathlib import Path

import pytest

from tests.e2e.harness import wait_for
from tests.e2e.processes import ROOT, free_port, kill, spawn
from tests.e2e.test_operator import _env, _run_to_exit
from tests.fakebot import FakeBotAPI

pytestmark = pytest.mark.process  # these tests start the bot as a process

TOKEN = "987654321:AAHx-webhook-deploy-token_42"
SECRET = "whsec-0123456789abcdef-deploy"


@pytest.mark.timeout(180)
@pytest.mark.parametrize("tail", ["", "/"])
async def test_a_webhook_url_without_a_path_gets_its_updates(
        pg_db, pg_url: str, tmp_path: Path, tail: str) -> None:
    """README: ``TELEGRAM_WEBHOOK_URL`` is "the public HTTPS URL Telegram POSTs to (its path
    is served; ``/telegram`` if it has none)". The web app served ``/telegram``, but
    ``setWebhook`` was given the URL as written (``https://bot.example.org``): Telegram
    POSTed every update to ``/``, which answered 404, for ever; the bot never saw an update
    and logged nothing (only ``getWebhookInfo``'s ``last_error_message`` told)."""
    port = free_port()
    url = f"http://127.0.0.1:{port}{tail}"  # (plain HTTP: allowed with a self-hosted Bot API)
    log = tmp_path / "bot.log"
    async with FakeBotAPI(token=TOKEN) as api:
        ann = api.add_user(1, "Ann")
        bot = await spawn(api, pg_url, log, TELEGRAM_WEBHOOK_URL=url,
                          TELEGRAM_WEBHOOK_SECRET=SECRET, WEB_LISTEN_PORT=str(port))
        try:
            await wait_for(lambda: bool(api.webhook_url) or bot.returncode is not None,
                           timeout=90)
            assert api.webhook_url, log.read_text()[-2000:]
            api.deliver_by_webhook([api.webhook_url], SECRET)  # (where Telegram POSTs)
            await ann.start_bot()
            await wait_for(lambda: bool(api.bot_messages(1)) or
                           any(status not in (0, 200) for _, _, status in api.webhook_posts),
                           timeout=60)
            statuses = {status for _, _, status in api.webhook_posts}
        finally:
            await kill(bot)
    assert statuses == {200}, (api.webhook_url, sorted(statuses))
    assert api.bot_messages(1), "no answer to /start"


@pytest.mark.timeout(120)
async def test_an_unescaped_at_sign_in_the_database_password_is_not_logged(
        tmp_path: Path) -> None:
    """README: "The token, the webhook secret and the database's password (when it has 8
    characters or more …) are masked in every log line". A password with an ``@``
    (``POSTGRES_PASSWORD`` from a password manager, written into ``compose.yaml``'s URL
    as is) passes the settings: SQLAlchemy reads ``coyote:p@ssw0rd…@db`` as the password
    ``p`` and the host ``ssw0rd…@db``. ``p`` is too short to be masked, and the last line
    was "DATABASE_URL: the database cannot be used (OperationalError: failed to resolve
    host 'ssw0rd-long-secret@127.0.0.1' …)": the rest of the password, in the log."""
    tail = "ssw0rd-long-secret"
    url = f"postgresql://coyote:p@{tail}@127.0.0.1:5432/coyote"
    async with FakeBotAPI(token=TOKEN) as api:
        code, lines = await _run_to_exit(_env(api, DATABASE_URL=url), cwd=tmp_path)
    output = "\n".join(lines)
    assert code == 78, output  # (refused by the settings: restarting cannot help)
    assert tail not in output, output
    assert "DATABASE_URL" in lines[-1] and "%40" in lines[-1], lines[-1]


def _exec_start(unit: str, instance: str) -> list[str]:
    """The unit's ``ExecStart`` as systemd runs it for ``instance``: specifiers (``%i``,
    ``%%``) and ``$$`` resolved, split as systemd splits it (shell-like quotes), the install
    paths (``/opt/coyote-league``) replaced by this checkout's."""
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    parser.read_string((ROOT / "deploy" / unit).read_text())
    line = parser["Service"]["ExecStart"]
    assert not re.search(r"(?<!\$)\$(?!\$)", line.replace("$$", "")), \
        "a $VARIABLE systemd would expand itself"
    line = re.sub(r"%(.)", lambda m: {"i": instance, "%": "%"}[m.group(1)], line)
    line = line.replace("$$", "$")
    line = line.replace("/opt/coyote-league/.venv/bin/python", sys.executable)
    return shlex.split(line)


@pytest.mark.timeout(120)
async def test_a_webhook_worker_without_the_webhook_url_does_not_poll(tmp_path: Path) -> None:
    """``deploy/coyote-league-webhook@.service``: "Set up as for coyote-league.service …
    and, in /etc/coyote-league.env, TELEGRAM_WEBHOOK_URL". An env file without it (the
    polling bot's, a typo in the name) started every instance as a polling bot, each with a
    web app on its port: the first deleted the webhook (README: "Do not start a polling
    process beside the workers: it deletes the webhook"), the others fought it over
    ``getUpdates`` (409 Conflict), and each ``/healthz`` still answered 200. Compose's
    ``bot`` service refuses to start without the URL; the unit should too, with a line
    naming it and a status systemd does not restart (``RestartPreventExitStatus``)."""
    port = free_port()
    argv = _exec_start("coyote-league-webhook@.service", str(port))
    async with FakeBotAPI(token=TOKEN) as api:
        env = _env(api, DATABASE_URL=f"sqlite:///{tmp_path / 'w.sqlite3'}",
                   TELEGRAM_WEBHOOK_SECRET=SECRET)
        process = await asyncio.create_subprocess_exec(
            *argv, cwd=ROOT, env=env, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT)
        try:
            await wait_for(lambda: process.returncode is not None
                           or bool(api.calls("getUpdates")), timeout=60)
            polled = bool(api.calls("getUpdates") or api.calls("deleteWebhook"))
        finally:
            await kill(process)
        output = (await process.stdout.read()).decode()  # type: ignore[union-attr]
        assert not polled, output[-2000:]
        # With the URL, the same command starts a webhook worker on the instance's port.
        url = f"http://127.0.0.1:{port}/telegram"
        worker = await asyncio.create_subprocess_exec(
            *argv, cwd=ROOT, env={**env, "TELEGRAM_WEBHOOK_URL": url},
            stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL)
        try:
            await wait_for(lambda: api.webhook_url == url or worker.returncode is not None,
                           timeout=60)
            assert api.webhook_url == url and not api.calls("getUpdates"), worker.returncode
        finally:
            await kill(worker)
    unit = configparser.ConfigParser(interpolation=None, strict=False)
    unit.read_string((ROOT / "deploy" / "coyote-league-webhook@.service").read_text())
    kept = unit["Service"].get("RestartPreventExitStatus", "").split()
    assert str(process.returncode) in kept, (process.returncode, kept, output)
    assert "TELEGRAM_WEBHOOK_URL" in output.strip().splitlines()[-1], output


def _example_settings(*uncommented: str) -> dict[str, str]:
    """The settings ``deploy/coyote-league.env.example`` sets, with the commented-out lines
    of ``uncommented`` uncommented (what an operator does to choose webhook mode)."""
    settings: dict[str, str] = {}
    for line in (ROOT / "deploy" / "coyote-league.env.example").read_text().splitlines():
        text = line.lstrip("# ") if line.startswith("# ") else line
        if "=" not in text or text.startswith("#"):
            continue
        name, value = text.split("=", 1)
        if line.startswith("#") and name not in uncommented:
            continue
        settings[name] = value
    return settings


@pytest.mark.timeout(120)
@pytest.mark.parametrize("copied", ["today's example", "an .env copied from the old one"])
async def test_the_env_examples_placeholder_secret_is_refused(tmp_path: Path,
                                                             copied: str) -> None:
    """``deploy/coyote-league.env.example`` (README, Docker Compose: ``cp … .env`` and set
    "the webhook URL and secret") offers ``# TELEGRAM_WEBHOOK_SECRET=replace-with-a-long-
    random-string``: 33 characters of ``A-Za-z0-9_-``, which the settings accept. A worker
    started with the line uncommented but not replaced ran with a secret anyone who has read
    this repository knows (README: a request without the right secret token gets 403;
    ``config.WEBHOOK_SECRET``: "anyone who knows it can post updates as Telegram"). It
    should refuse to start, as it does for a short secret, naming the setting."""
    example = _example_settings("TELEGRAM_WEBHOOK_URL", "TELEGRAM_WEBHOOK_SECRET")
    assert "TELEGRAM_WEBHOOK_URL" in example and "TELEGRAM_WEBHOOK_SECRET" in example
    if copied != "today's example":
        example["TELEGRAM_WEBHOOK_SECRET"] = "replace-with-a-long-random-string"
    async with FakeBotAPI(token=TOKEN) as api:
        env = _env(api, DATABASE_URL=f"sqlite:///{tmp_path / 'e.sqlite3'}",
                   WEB_LISTEN_PORT=str(free_port()),
                   TELEGRAM_WEBHOOK_URL=example["TELEGRAM_WEBHOOK_URL"],
                   TELEGRAM_WEBHOOK_SECRET=example["TELEGRAM_WEBHOOK_SECRET"])
        code, lines = await _run_to_exit(env, cwd=tmp_path, timeout=30)
        told = [c.params.get("url") for c in api.calls("setWebhook")]
    assert code == 78 and not told, (code, told, lines[-3:])
    assert "TELEGRAM_WEBHOOK_SECRET" in lines[-1], lines[-1]


@pytest.mark.timeout(120)
async def test_an_empty_webhook_secret_is_unset_for_a_polling_bot(tmp_path: Path) -> None:
    """README: compose's ``bot-polling`` polls because its ``TELEGRAM_WEBHOOK_URL`` is empty
    (an empty URL is no URL). The same env file with ``TELEGRAM_WEBHOOK_SECRET=`` emptied
    too (going back from webhook workers to one polling bot) stopped the polling bot at
    start: "TELEGRAM_WEBHOOK_SECRET must be 16 to 256 characters …", a setting it does not
    use. An empty secret is no secret (with a webhook URL: "required")."""
    async with FakeBotAPI(token=TOKEN) as api:
        env = _env(api, DATABASE_URL=f"sqlite:///{tmp_path / 'p.sqlite3'}",
                   TELEGRAM_WEBHOOK_URL="", TELEGRAM_WEBHOOK_SECRET="")
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "telegram_app", cwd=tmp_path, env=env,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
        try:
            await wait_for(lambda: process.returncode is not None
                           or bool(api.calls("getUpdates")), timeout=60)
            polled = bool(api.calls("getUpdates"))
        finally:
            await kill(process)
        output = (await process.stdout.read()).decode()  # type: ignore[union-attr]
        assert polled, output[-1500:]
        env["TELEGRAM_WEBHOOK_URL"] = "http://127.0.0.1:9/telegram"  # (with a URL: required)
        code, lines = await _run_to_exit(env, cwd=tmp_path, timeout=30)
    assert code == 78 and "TELEGRAM_WEBHOOK_SECRET" in lines[-1] and "required" in lines[-1], \
        lines[-3:]
