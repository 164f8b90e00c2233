"""One setting of the throughput bench run and measured: the history seeded in the
database, the real bot process started on it, the players let loose, then a window of
``seconds`` whose presses, Bot API calls, CPU and transactions give the setting's figures
(what each means: ``bench/throughput_bench.py``)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import statistics
import sys
import time
from pathlib import Path

import psycopg

from bench.throughput_machine import ROOT
from bench.throughput_players import Changes, Tally, play_group, wait_until
from bench.throughput_settings import Setting
from tests.fakebot import FakeBotAPI, FakeUser

RATE_LIMITED = {"sendmessage", "editmessagetext", "editmessagereplymarkup", "deletemessage",
                "sendphoto", "senddocument"}
GROWING = ("games", "game_players", "game_events", "rating_events", "inbox", "game_messages",
           "private_messages")
BOT_LOG = os.environ.get("BENCH_BOT_LOG", "/tmp/throughput_bench_bot.log")
"""The bot processes' log (stderr), appended to."""


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _backend_cpu(url: str) -> dict[int, float]:
    """CPU seconds so far of each PostgreSQL backend serving the bench's database (the
    server is shared with other work, so only these count)."""
    with psycopg.connect(url, autocommit=True) as conn:
        pids = [row[0] for row in conn.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database() "
            "AND pid <> pg_backend_pid()")]
    found = {}
    for pid in pids:
        try:
            found[pid] = _cpu_seconds(pid)
        except (FileNotFoundError, ProcessLookupError, IndexError):
            pass
    return found


def _stats(url: str) -> tuple[int, dict[str, int]]:
    with psycopg.connect(url, autocommit=True) as conn:
        xacts = conn.execute("SELECT xact_commit + xact_rollback FROM pg_stat_database "
                             "WHERE datname = current_database()").fetchone()[0]
        scans = dict(conn.execute(
            "SELECT relname, seq_scan FROM pg_stat_user_tables WHERE relname = ANY(%s)",
            (list(GROWING),)).fetchall())
    return xacts, scans


def seed_finished_games(url: str, finished: int) -> None:
    """``finished`` finished four-player games with a logged move and a rating event each,
    in one chat."""
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("INSERT INTO users (id, first_name, can_message, created_at, updated_at) "
                     "VALUES (999000001, 'Seed', false, now(), now())")
        conn.execute("INSERT INTO chats (id, title, created_at, game_options) VALUES "
                     "(-999000001, 'Seed', now(), '{}')")
        conn.execute(
            "INSERT INTO games (chat_id, thread_id, kind, options, status, version, seed, "
            "creator_id, created_at, started_at, finished_at) "
            "SELECT -999000001, 0, 'coyote', '{}', 'finished', 40, g, 999000001, "
            "now() - interval '30 days', now() - interval '30 days', "
            "now() - interval '30 days' FROM generate_series(1, %s) g", (finished,))
        conn.execute(
            "INSERT INTO game_players (game_id, user_id, name, is_ai, seat, playing, placement, "
            "timeouts_in_row, joined_at) SELECT id, NULL, 'p' || s, true, s, false, s + 1, 0, "
            "created_at FROM games, generate_series(0, 3) s")
        conn.execute("INSERT INTO game_messages (game_id, told_version, table_message_id, "
                     "chat_id) SELECT id, 40, id, chat_id FROM games")
        conn.execute("INSERT INTO private_messages (game_id, user_id, message_id, hand) "
                     "SELECT id, 999000001, id, 1 FROM games")
        conn.execute(
            "INSERT INTO game_events (game_id, seq, events, version, created_at) "
            "SELECT id, 1, '[]', 40, created_at FROM games")
        # (a rated history too: with rating_events empty, the planner reads it sequentially
        # when a game ends, as it rightly does for a table that small)
        conn.execute(
            "INSERT INTO rating_events (game_id, user_id, chat_id, kind, before, after, k, "
            "score, expected, place, finished_at) SELECT id, 999000001, chat_id, 'coyote', "
            "1500, 1500, 32, 0.5, 0.5, 1, finished_at FROM games")
        conn.execute("ANALYZE")


async def _spawn(api: FakeBotAPI, url: str, limits: bool, concurrency: int | None,
                 hooks: dict[str, str]) -> asyncio.subprocess.Process:
    rates = {} if limits else {"TELEGRAM_GROUP_RATE": "100000",
                               "TELEGRAM_OVERALL_RATE": "100000"}
    env = {**os.environ, "TELEGRAM_BOT_TOKEN": api.token, "TELEGRAM_BASE_URL": api.base_url,
           "DATABASE_URL": url, "SWEEP_INTERVAL": "5", **rates, **hooks}
    if concurrency:
        env["UPDATE_CONCURRENCY"] = str(concurrency)
    log = open(BOT_LOG, "a")  # noqa: SIM115, ASYNC230  # the child writes it (a bench)
    return await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bench.bot_process", cwd=ROOT, env=env, stdout=log, stderr=log)


def _quantiles(values: list[float]) -> tuple[float, float]:
    """p50 and p95 in milliseconds (NaN when there are none)."""
    found = sorted(values)
    if not found:
        return float("nan"), float("nan")
    return (1000 * statistics.median(found),
            1000 * found[min(len(found) - 1, int(0.95 * len(found)))])


def _answered(api: FakeBotAPI) -> dict[str, float]:
    """Callback query id -> when the bot's first ``answerCallbackQuery`` for it reached the
    fake Bot API (the request's arrival, before the fake's added delay)."""
    found: dict[str, float] = {}
    for request in api.requests:
        if request.method.lower() == "answercallbackquery":
            found.setdefault(str(request.params.get("callback_query_id")), request.time)
    return found


def _dump(path: Path, api: FakeBotAPI, tallies: dict[str, Tally], since: float) -> None:
    """The window's presses and Bot API calls (times in seconds from ``since``), to follow a
    press call by call."""
    calls = [{"t": round(r.time - since, 4), "method": r.method,
              "chat_id": r.params.get("chat_id"), "message_id": r.params.get("message_id"),
              "query": r.params.get("callback_query_id")}
             for r in api.requests if r.time >= since]
    presses = {name: [{"query": q, "update": u, "t": round(t - since, 4),
                       "fetched": round(api.fetched_at[u] - since, 4)
                       if u in api.fetched_at else None} for q, u, t in tally.pressed]
               for name, tally in tallies.items()}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"presses": presses, "calls": calls}))


async def run_setting(setting: Setting, url: str, seconds: float, concurrency: int | None,
                      offset: int, hooks: dict[str, str] | None = None,
                      dump: Path | None = None) -> dict[str, float]:
    async with FakeBotAPI(delay=setting.delay) as api:
        # Each setting's fake Bot API is new, but the inbox remembers the update ids it has
        # handled (it drops a repeat): this setting's ids follow the earlier ones'.
        api._next_update_id = offset * 10
        # (and its callback query ids: a new bot process answers the presses of the minute
        # before its start again, which must not be taken for this setting's answers)
        api._query_counter = offset * 10
        groups: list[tuple[int, list[FakeUser], float, Tally]] = []
        normal, busy = Tally(), Tally()
        for g in range(setting.groups + setting.busy):
            group = -(1_000_000 + offset + g)
            api.add_group(group, f"Group {g}", admins=[offset * 10 + g * 4 + 1])
            players = [api.add_user(offset * 10 + g * 4 + i, f"P{g}_{i}")
                       for i in range(1, 5)]
            is_busy = g >= setting.groups
            groups.append((group, players, 0.0 if is_busy else setting.think,
                           busy if is_busy else normal))
        hooks = dict(hooks or {})
        counted = Path(hooks.setdefault(
            "BENCH_XACTS", f"/tmp/throughput_bench_xacts_{os.getpid()}_{offset}.json"))
        counted.unlink(missing_ok=True)  # noqa: ASYNC240  # (a bench, before it starts)
        bot = await _spawn(api, url, setting.limits, concurrency, hooks)
        stop = asyncio.Event()
        try:
            await wait_until(api, lambda: bool(api.calls("getUpdates")), 60)
            for _, players, _, _ in groups:
                for user in players:
                    await user.start_bot()
            changes = Changes(api)
            watching = asyncio.create_task(changes.run())
            tasks = [asyncio.create_task(play_group(api, changes, group, players, think,
                                                    tally, stop))
                     for group, players, think, tally in groups]
            # warm up: every group plays (the bot's first start migrates the schema)
            await wait_until(api, lambda: len(normal.playing) + len(busy.playing) == len(groups),
                             180)
            await asyncio.sleep(2 + setting.think)
            load_before = os.getloadavg()[0]
            bot.send_signal(signal.SIGUSR1)  # the transaction count (and profile) start here
            before = (time.monotonic(), _cpu_seconds(bot.pid), _stats(url),
                      dict(api.counts), len(api.requests), time.process_time(),
                      _backend_cpu(url))
            normal.measuring = busy.measuring = True
            await asyncio.sleep(seconds)
            normal.measuring = busy.measuring = False
            bot.send_signal(signal.SIGUSR1)  # ... and end here: the bot writes the count
            after = (time.monotonic(), _cpu_seconds(bot.pid), _stats(url),
                     dict(api.counts), len(api.requests), time.process_time(),
                     _backend_cpu(url))
            load_after = os.getloadavg()[0]
            stop.set()
            await asyncio.wait(tasks, timeout=30)
            watching.cancel()
            # (the window's last presses are answered after it)
            await wait_until(api, lambda: all(api.callback_answer(q) is not None
                                              for t in (normal, busy) for q, _, _ in t.pressed),
                             10)
        finally:
            if bot.returncode is None:
                bot.terminate()
                try:
                    await asyncio.wait_for(bot.wait(), 30)
                except TimeoutError:
                    bot.kill()
                    await bot.wait()
        elapsed = after[0] - before[0]
        presses = normal.presses + busy.presses or 1  # the moves
        every_press = presses + normal.confirms + busy.confirms
        calls = [r for r in api.requests[before[4]:after[4]] if r.method.lower() in RATE_LIMITED]
        group_calls = sum(int(r.params.get("chat_id", 0)) < 0 for r in calls)
        scans = {t: after[2][1].get(t, 0) - before[2][1].get(t, 0) for t in GROWING}
        answered = _answered(api)
        answers = [answered[q] - t for q, _, t in normal.pressed if q in answered]
        fetched = [api.fetched_at[u] - t for _, u, t in normal.pressed if u in api.fetched_at]
        if dump is not None:
            _dump(dump, api, {"normal": normal, "busy": busy}, before[0])
        figures: dict[str, float] = {
            "presses/s": normal.presses / elapsed,
            "busy presses/s": busy.presses / elapsed,
        }
        rt = setting.delay
        for name, values in (("press→answer", answers), ("press→keyboard", normal.latencies),
                             ("press→fetched", fetched)):
            p50, p95 = _quantiles(values)
            figures[f"{name} p50 ms"], figures[f"{name} p95 ms"] = p50, p95
            if rt and name != "press→fetched":
                figures[f"{name} p50 ×rt"] = p50 / (1000 * rt)
                figures[f"{name} p95 ×rt"] = p95 / (1000 * rt)
        figures["unanswered presses"] = float(len(normal.pressed) - len(answers))
        if busy.pressed:
            figures["busy press→answer p50 ms"], figures["busy press→answer p95 ms"] = \
                _quantiles([answered[q] - t for q, _, t in busy.pressed if q in answered])
        return figures | {
            "calls/move": len(calls) / presses,
            "group calls/move": group_calls / presses,
            "cpu ms/press": 1000 * (after[1] - before[1]) / presses,
            # per press, as the target says: a move's, and a confirmation's (no move)
            "xacts/press": (counts := _bot_counts(counted))["total"] / every_press,
            "xacts/move": counts["total"] / presses,
            "statements/press": counts["statements"] / every_press,
            "confirmation presses": float(normal.confirms + busy.confirms),
            # pg_stat_database's count lags (a backend reports at most once a second, an idle
            # one after up to 10 s), so it takes in some of the set-up before the window
            "pg_stat xacts/press": (after[2][0] - before[2][0]) / presses,
            # the rest of the machine's work for a press: the players and the fake Bot API
            # (this process), and the database's backends serving the bot
            "bench cpu ms/press": 1000 * (after[5] - before[5]) / presses,
            "pg cpu ms/press": 1000 * sum(t - before[6].get(pid, 0.0)
                                          for pid, t in after[6].items()) / presses,
            "seq scans": sum(scans.values()),
            "seq scans by table": scans,  # type: ignore[dict-item]
            "load average": f"{load_before:.1f} → {load_after:.1f}",  # type: ignore[dict-item]
        }


def _bot_counts(path: Path, timeout: float = 10.0) -> dict[str, float]:
    """The transactions (``total``) and statements the bot counted in the measuring window
    (:mod:`bench.bot_process` writes them on the window's second ``SIGUSR1``); NaN if it
    never wrote them."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            found = json.loads(path.read_text())
            return {"total": float(found.get("total", 0)),
                    "statements": float(found.get("statements", 0))}
        except (FileNotFoundError, ValueError):
            time.sleep(0.05)
    return {"total": float("nan"), "statements": float("nan")}
