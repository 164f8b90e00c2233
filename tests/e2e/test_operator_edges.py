"""What an operator meets when a setting or the database is wrong, against the real bot process
(``python -m telegram_app``) and the fake Bot API: README ("Running the bot": "If the settings
are incomplete or invalid, … the last log line says which", status 78 for a setting that
cannot work, 1 for a database that cannot be used; "Polling or webhook": ``/healthz`` answers
503 when the database is unreachable). Each test failed before its fix; its docstring tells
what the bot did then."""

from __future__ import annotations

import asyncio
import contextlib
import re
import signal
import socket
import time
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest

from tests.e2e.harness import wait_for
from tests.e2e.processes import free_port, kill, spawn
from tests.e2e.test_operator import _env, _run_to_exit
from tests.fakebot import FakeBotAPI

pytestmark = pytest.mark.process  # these tests start the bot as a process

TOKEN = "987654321:AAHx-operator-edges-token_42"
SECRET = "whsec-0123456789abcdef-edges"
HEALTH_TIMEOUT = 3.0  # telegram_app.transport.web.HEALTH_TIMEOUT: "seconds /healthz waits"


# --------------------------------------------------------------- start-up mistakes

@pytest.mark.timeout(120)
@pytest.mark.parametrize("url", ["sqlite://", "sqlite:///", "sqlite:///:memory:"])
async def test_an_in_memory_sqlite_database_url_is_one_line_naming_database_url(
        tmp_path: Path, url: str) -> None:
    """``DATABASE_URL=sqlite://`` (an in-memory SQLite database: an operator trying the bot
    out, or ``sqlite:///$DIR/x`` with an unset folder written without it) passes the
    settings; the bot asks Telegram ``getMe``, migrates a throwaway in-memory database (28
    "Running upgrade" lines), then ``Database()`` passes ``pool_size``/``max_overflow`` to
    SQLAlchemy's ``StaticPool`` and the process ends in the ``unhandled error`` traceback
    ("TypeError: Invalid argument(s) 'pool_size','max_overflow','pool_use_lifo' sent to
    create_engine()"), whose last line names no setting. Even if it started, a memory
    database loses every game at a restart (README: "a restart … loses nothing"). It
    should be one line naming ``DATABASE_URL``, status 78 (a setting that cannot work)."""
    async with FakeBotAPI(token=TOKEN) as api:
        code, lines = await _run_to_exit(_env(api, DATABASE_URL=url), cwd=tmp_path)
    output = "\n".join(lines)
    assert code == 78, output
    assert "Traceback" not in output, output[-2000:]
    assert "DATABASE_URL" in lines[-1], lines[-1]


@pytest.mark.timeout(120)
@pytest.mark.parametrize("case", ["port in use", "host unknown"])
@pytest.mark.parametrize("mode", ["polling with web app", "webhook"])
async def test_a_listen_address_that_cannot_be_used_is_one_line_naming_it(
        tmp_path: Path, case: str, mode: str) -> None:
    """A ``WEB_LISTEN_PORT`` another process holds (a second webhook worker given the same
    port, 8080 taken on the host) or a ``WEB_LISTEN_HOST`` that does not resolve: the bot
    starts, polls or sets its webhook, then uvicorn fails to bind; its line ("[Errno 98]
    error while attempting to bind on address …: address already in use", or "[Errno -2]
    Name or service not known") names no setting and is not the last (the stop's four
    lines follow, "telegram_app.app: stopped" last), and the process exits with uvicorn's
    status 3, not the README's 1. The last line should name the setting."""
    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen()
    setting = {"port in use": "WEB_LISTEN_PORT", "host unknown": "WEB_LISTEN_HOST"}[case]
    port = busy.getsockname()[1] if case == "port in use" else free_port()
    extra = {"WEB_LISTEN_PORT": str(port)}
    if case == "host unknown":
        extra["WEB_LISTEN_HOST"] = "no-such-host.invalid"  # (.invalid never resolves)
    if mode == "webhook":
        extra |= {"TELEGRAM_WEBHOOK_URL": f"http://127.0.0.1:{port}/hook",
                  "TELEGRAM_WEBHOOK_SECRET": SECRET}
    try:
        async with FakeBotAPI(token=TOKEN) as api:
            code, lines = await _run_to_exit(_env(
                api, DATABASE_URL=f"sqlite:///{tmp_path / 'b.sqlite3'}", **extra))
    finally:
        busy.close()
    output = "\n".join(lines)
    assert code == 1, output
    assert setting in lines[-1], output


# --------------------------------------------------------------- a peer that hangs

class FreezingProxy:
    """A TCP proxy (to PostgreSQL, or to the fake Bot API) that can freeze: from
    :meth:`freeze` on, nothing more is forwarded either way and new connections are accepted
    and never answered, as when the peer's host stops answering (a network partition, a
    paused VM) rather than refusing (``tests.e2e.tcp_proxy.TcpProxy.cut`` closes the
    connections instead)."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.target = host, port
        self.frozen = asyncio.Event()
        self.port = 0
        self._server: asyncio.base_events.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()

    async def start(self) -> FreezingProxy:
        self._server = await asyncio.start_server(self._client, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    def freeze(self) -> None:
        self.frozen.set()

    async def stop(self) -> None:
        for writer in list(self._writers):
            writer.close()
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._server.wait_closed(), 5)

    async def _hold(self) -> None:
        await asyncio.Event().wait()  # (until stop() closes the connection's writers)

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._writers.add(writer)
        with contextlib.suppress(Exception, asyncio.CancelledError):
            if self.frozen.is_set():
                await self._hold()
            up_reader, up_writer = await asyncio.open_connection(self.host, self.target)
            self._writers.add(up_writer)

            async def pipe(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
                while data := await src.read(65536):
                    if self.frozen.is_set():
                        await self._hold()
                    dst.write(data)
                    await dst.drain()
                dst.close()

            await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))


async def _bot_on_a_database_that_freezes(pg_url: str, tmp_path: Path):  # type: ignore[no-untyped-def]
    """The bot (polling, with its web app) on ``pg_url`` through a :class:`FreezingProxy`,
    started, with several pooled connections: ``(api, proxy, process, port, log)``."""
    from sqlalchemy.engine import make_url

    real = make_url(pg_url)
    proxy = await FreezingProxy(real.host or "127.0.0.1", real.port or 5432).start()
    url = real.set(host="127.0.0.1", port=proxy.port).render_as_string(hide_password=False)
    port = free_port()
    log = tmp_path / "bot.log"
    log.touch()
    api = FakeBotAPI(token=TOKEN)
    await api.__aenter__()
    bot = await spawn(api, url, log, WEB_LISTEN_PORT=str(port))
    try:
        await wait_for(lambda: "Application started" in log.read_text(), timeout=60)
        async with httpx.AsyncClient(timeout=30) as http:
            for _ in range(600):  # (uvicorn listens once the Application has started)
                with contextlib.suppress(httpx.TransportError):
                    await http.get(f"http://127.0.0.1:{port}/healthz")
                    break
                await asyncio.sleep(0.05)
            # Several health checks at once: the pool keeps a few connections (as a busy bot's).
            answers = await asyncio.gather(*(http.get(f"http://127.0.0.1:{port}/healthz")
                                             for _ in range(10)))
        assert all(a.status_code == 200 for a in answers), [a.text for a in answers]
    except BaseException:
        await _close(api, proxy, bot)
        raise
    return api, proxy, bot, port, log


async def _close(api: FakeBotAPI, proxy: FreezingProxy,
                 bot: asyncio.subprocess.Process) -> None:
    await kill(bot)
    await proxy.stop()
    await api.__aexit__(None, None, None)


@pytest.mark.timeout(180)
async def test_healthz_answers_503_in_its_timeout_when_the_database_hangs(
        pg_db, pg_url: str, tmp_path: Path) -> None:
    """README: ``/healthz`` answers "503 when the database is unreachable: use it for the
    proxy's or the orchestrator's health checks"; ``web.HEALTH_TIMEOUT`` is the "seconds
    /healthz waits for the database" (3). When the database stops answering (its host
    partitioned away), the first ``/healthz`` takes about 13 s: the 3 s timeout cancels
    ``SELECT 1`` on a pooled connection inside psycopg, which then tries to cancel the query
    on the server (5 s, "query cancellation failed: cancellation timeout expired") and waits
    for it to end (5 s more, "query not terminated after cancellation") before the 503.
    Compose's own check (``urlopen(…, timeout=3)``) and any orchestrator with a shorter
    timeout see a hung request, not the 503 and its ``"database": "unreachable"``."""
    api, proxy, bot, port, log = await _bot_on_a_database_that_freezes(pg_url, tmp_path)
    try:
        proxy.freeze()
        async with httpx.AsyncClient(timeout=60) as http:
            started = time.monotonic()
            response = await http.get(f"http://127.0.0.1:{port}/healthz")
            took = time.monotonic() - started
    finally:
        await _close(api, proxy, bot)
    assert response.status_code == 503, response.text
    assert took < HEALTH_TIMEOUT + 2, f"/healthz answered after {took:.1f} s"


@pytest.mark.timeout(180)
async def test_metrics_answers_in_its_timeout_when_the_database_hangs(
        pg_db, pg_url: str, tmp_path: Path) -> None:
    """``/metrics`` reads ``coyote_active_games`` from the database "at scrape time" within
    the same 3 s as ``/healthz``, and answers with what it has when it cannot. Before the fix,
    a database that stopped answering held the page about 13 s (psycopg cancelling the query
    on the server, as ``/healthz`` did): Prometheus's scrape (10 s by default) timed out, so
    the sweeper's lag and the Bot API errors, the figures that tell what is wrong, were lost
    with it. Several scrapes at once wait for one read, not one each."""
    api, proxy, bot, port, log = await _bot_on_a_database_that_freezes(pg_url, tmp_path)
    try:
        proxy.freeze()
        async with httpx.AsyncClient(timeout=60) as http:
            started = time.monotonic()
            answers = await asyncio.gather(*(http.get(f"http://127.0.0.1:{port}/metrics")
                                             for _ in range(3)))
            took = time.monotonic() - started
    finally:
        await _close(api, proxy, bot)
    assert all(a.status_code == 200 for a in answers), [a.status_code for a in answers]
    assert all("coyote_sweeper_lag_seconds" in a.text for a in answers)
    assert took < HEALTH_TIMEOUT + 2, f"/metrics answered after {took:.1f} s"


@pytest.mark.timeout(180)
async def test_a_stop_while_telegram_hangs_logs_one_line_per_record(tmp_path: Path) -> None:
    """README: "… masked in every log line (the bot's and its libraries', tracebacks
    included); each record is one line" (``test_operator``: "so journald, ``docker logs``
    and a log shipper see one entry each"). A polling bot stopped (SIGTERM) while Telegram
    does not answer exits 0 in about 6 s, but PTB's Updater logs its last ``getUpdates``
    ("Error while calling `get_updates` one more time to mark all fetched updates…") with
    its traceback: one record of about 50 lines, 49 of them without time, level or logger
    (``main``'s ``logging.basicConfig`` format writes ``exc_info`` as Python prints it).
    Every record logged with a traceback (``update … failed``, ``storing … failed``) is
    the same."""
    log = tmp_path / "bot.log"
    log.touch()
    async with FakeBotAPI(token=TOKEN) as api:
        fake = urlsplit(api.base_url)
        proxy = await FreezingProxy(fake.hostname or "127.0.0.1", fake.port or 80).start()
        base = api.base_url.replace(f":{fake.port}/", f":{proxy.port}/", 1)
        bot = await spawn(api, f"sqlite:///{tmp_path / 'b.sqlite3'}", log,
                          TELEGRAM_BASE_URL=base)
        try:
            await wait_for(lambda: len(api.calls("getUpdates")) >= 2, timeout=60)
            proxy.freeze()
            bot.send_signal(signal.SIGTERM)
            code = await asyncio.wait_for(bot.wait(), 60)
        finally:
            await kill(bot)
            await proxy.stop()
    output = log.read_text()
    assert code == 0, output[-2000:]
    stamp = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} [A-Z]+ \S+: ")
    loose = [line for line in output.splitlines() if line.strip() and not stamp.match(line)]
    assert not loose, f"{len(loose)} lines without a record's prefix, e.g. {loose[:3]}"
