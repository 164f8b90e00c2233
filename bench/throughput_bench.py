"""Throughput of the whole bot as an operator sees it: the real bot process
(``python -m bench.bot_process``, i.e. ``python -m telegram_app``) against PostgreSQL with
100,000 finished games and the fake Bot API (``tests/fakebot``) adding a delay to every call;
four scripted human players per group press as soon as their keyboard appears, or a set time
after it (🐺 Coyote! asks first: that press is no move and not counted, its "Yes" is; the
calls and transactions of both count toward the moves').

``.venv/bin/python -m bench.throughput_bench [--seconds 30] [--concurrency N]
[--finished 100000] [--only NAMES] [--repeat K] [--profile DIR] [--markdown] [--dump DIR]``.
Prints, per setting: presses/s; what a player feels, from the press (the moment the scripted
player's callback query is queued at the fake Bot API): press → answer (the bot's
``answerCallbackQuery`` for that press reaching the fake Bot API: the arrival of its request,
before the fake's added delay) and press → the next player's keyboard, p50/p95, also as
multiples of the round trip (the fake's added delay per call); press → fetched (the
``getUpdates`` call that handed the press to the bot returned; a diagnostic); rate-limited Bot
API calls per move (all, in the group), bot CPU per press, database transactions per press,
sequential scans of the tables that grow with games, the load average before and after; then
each target with its figure and "met" / "missed"; then single-client ``pgbench`` TPS
measured in the same run (before and after the settings: the machine is shared).

The targets: press → answer p50 ≤ 1.5 and p95 ≤ 2.5 round trips, press → next keyboard p50
≤ 3 round trips (settings with a delay); ≥ 15 presses/s with 150 ms calls and 50 groups; one
busy group changes the others' presses/s by < 10 % and their press → keyboard p95 by < 10 % +
100 ms (the busy setting against its base run in the same invocation: run both, e.g.
``--only "limits on,busy"``); ≤ 3 rate-limited calls a move, ≤ 1 of them in the group; ≤ 3
transactions a press.

The main setting (150 ms calls, 50 groups pressing at once) is a closed loop: each group
presses again as soon as it can, so its latency is about groups / presses per second, and
every millisecond of CPU the machine spends on a press lengthens it, this process's too
(the players and the fake Bot API, which in production are Telegram's; shown as ``bench cpu
ms/press``: the players wait on the fake's log of their own chats, not on its every request).
The paced setting, the same 50 groups whose players think 3 s before each press (about
14 presses/s: about the 30 messages a second one bot token may send, at 3 calls a move),
tells what players feel at a real bot's load; it has the same figures and no presses/s
target.

``--only`` takes comma-separated parts of setting names (a setting runs if its name contains
one): ``"150 ms"`` is the main setting alone, ``"no delay"`` the first, ``"limits on,busy"``
the third and fourth, ``"think"`` the paced one (``"150 ms,think"``: the main setting, then
the paced one). ``--markdown`` also prints one table row per target (with the date, the
machine, the commit and the command) for ``docs/benchmarks.md``; the commit is
``BENCH_COMMIT`` if set, else ``git rev-parse --short HEAD`` of the tree the bot runs from,
``+dirty`` when its code has uncommitted changes. ``--dump DIR`` writes each setting's
presses and Bot API calls of the window (times relative to its start) to
``DIR/<setting>.json``, to read a press's path call by call.

The bot runs as deployed (its ``LaneProcessor``); ``--concurrency N`` sets
``UPDATE_CONCURRENCY`` (default: the bot's own, 16 on PostgreSQL). ``--repeat K`` runs each
setting K times (the spread of a shared machine). ``--profile DIR`` has the bot write a
cProfile of the measured window and its transactions by origin
(:mod:`bench.bot_process`) to ``DIR/<setting>.prof`` / ``.xacts.json``; cProfile slows
the bot, so take the other figures from a run without it.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import os
import re
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import psycopg
from sqlalchemy.engine import make_url

from bench.pg import ADMIN, throwaway_database
from tests.e2e.harness import MOVE_VERBS, choose, confirms, move_version
from tests.fakebot import FakeBotAPI, FakeUser, StoredMessage

ROOT = Path(__file__).resolve().parents[1]
RATE_LIMITED = {"sendmessage", "editmessagetext", "editmessagereplymarkup", "deletemessage",
                "sendphoto", "senddocument"}
GROWING = ("games", "game_players", "game_events", "rating_events", "inbox", "game_messages",
           "private_messages")
POLL = 0.01
BOT_LOG = os.environ.get("BENCH_BOT_LOG", "/tmp/throughput_bench_bot.log")
"""The bot processes' log (stderr), appended to."""


@dataclass(frozen=True)
class Setting:
    name: str
    delay: float
    groups: int
    limits: bool
    think: float = 0.0  # seconds a player waits before pressing (0: at once)
    busy: int = 0  # groups added that press at once (think 0)
    min_rate: float = 0.0  # the presses/s target of this setting (0: none)
    base: str = ""  # the setting a busy group must not change by much (see targets)


QUIET = "50 ms, limits on, 20 groups (a move every 3 s)"
PACED = "think 3 s (a bot's pace), no limits, 50 groups, calls of 0.15 s"
"""(Its name lacks "150 ms", which selects the main setting alone.)"""
SETTINGS = [
    Setting("no delay, no limits, 10 groups", 0.0, 10, False),
    Setting("150 ms, no limits, 50 groups", 0.15, 50, False, min_rate=15.0),
    Setting(QUIET, 0.05, 20, True, think=3.0),
    Setting("the same plus one busy group", 0.05, 20, True, think=3.0, busy=1, base=QUIET),
    Setting(PACED, 0.15, 50, False, think=3.0),
]
ANSWER_P50, ANSWER_P95, KEYBOARD_P50 = 1.5, 2.5, 3.0  # in round trips
CALLS, GROUP_CALLS, XACTS = 3.0, 1.0, 3.0  # a move, in the group a move, a press
BUSY_RATE, BUSY_P95, BUSY_P95_MS = 0.10, 0.10, 100.0  # the busy group's effect on the others


@dataclass
class Tally:
    presses: int = 0
    confirms: int = 0  # 🐺 Coyote!'s first presses (a press, no move: "Yes" is the move)
    latencies: list[float] = field(default_factory=list)  # press -> next keyboard, seconds
    pressed: list[tuple[str, int, float]] = field(default_factory=list)
    """The measured presses: (callback query id, update id, monotonic time of the press)."""
    measuring: bool = False
    playing: set[int] = field(default_factory=set)  # groups that have pressed once


@dataclass(frozen=True)
class Target:
    what: str  # the target, e.g. "press → answer p50 ≤ 1.5 round trips"
    figure: str  # today's figure, as shown
    met: bool | None  # None: not measured (a figure missing, or its base setting not run)

    @property
    def verdict(self) -> str:
        return {True: "met", False: "missed", None: "not measured"}[self.met]


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


def _seed(url: str, finished: int) -> None:
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


async def _until(api: FakeBotAPI, condition, timeout: float = 120) -> bool:  # noqa: ASYNC109
    """Wait for ``condition``, looked at again whenever the fake's state may have changed
    (a request started or ended): no polling, whose CPU the bot would share."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        await api.next_activity(POLL)
    return True


class Changes:
    """Wakes whoever waits on a chat when the fake Bot API's log shows a change in it.

    Every message the bot sends, edits or deletes, and every answer to a press, is an entry
    of ``api.log`` with its chat, made before the request ends; so a group, whose conditions
    read only its own chat and its players' private chats, is woken a few times a move
    rather than at each request of the fake (each of the fifty groups then re-reading its
    players' messages was most of this process's CPU, which the bot shares)."""

    def __init__(self, api: FakeBotAPI) -> None:
        self.api = api
        self.seen = len(api.log)
        self.waiting: dict[int, set[asyncio.Event]] = {}

    async def run(self) -> None:
        """Read the log's new entries whenever a request of the fake starts or ends."""
        while True:
            await self.api.next_activity(1.0)
            log = self.api.log
            if len(log) == self.seen:
                continue
            chats = {entry.chat_id for entry in log[self.seen:]}
            self.seen = len(log)
            for chat in chats:
                for event in self.waiting.get(chat, ()) if chat is not None else ():
                    event.set()

    async def until(self, chats: list[int], condition,
                    timeout: float = 120) -> bool:  # noqa: ASYNC109
        """Wait for ``condition``, which reads only ``chats``: looked at again when one of
        them changes (and each second, should a change escape the log)."""
        deadline = time.monotonic() + timeout
        while not condition():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            event = asyncio.Event()
            for chat in chats:
                self.waiting.setdefault(chat, set()).add(event)
            try:
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(min(remaining, 1.0)):
                        await event.wait()
            finally:
                for chat in chats:
                    self.waiting[chat].discard(event)
        return True


def _keyboard(api: FakeBotAPI, players: list[FakeUser], above: int, game: int):
    """The newest private message of game ``game`` with move buttons above version
    ``above``, if any. (Of that game: a player knocked out of the last game kept its last
    message with buttons, and the bench pressed it at the next game's start, as the first
    move; each group then stalled until the end of the window: about half of the no-delay
    setting's time, the "unexplained gap" of earlier figures.)"""
    best = None
    for user in players:
        messages = api.bot_messages(user.id)
        if messages and (version := move_version(api, messages[-1])) is not None \
                and version > above and (best is None or version > best[0]) \
                and _game_of(api, messages[-1]) == game:
            best = (version, user, messages[-1])
    return best


def _game_of(api: FakeBotAPI, message: StoredMessage) -> int | None:
    """The game id a message's move buttons carry (``verb:game:version:…``)."""
    for _, data in api.buttons(message):
        if data and data.split(":")[0] in MOVE_VERBS:
            return int(data.split(":")[1])
    return None


async def _group(api: FakeBotAPI, changes: Changes, group: int, players: list[FakeUser],
                 think: float, tally: Tally, stop: asyncio.Event) -> None:
    """Play games in ``group`` until ``stop``: open, join, start, then press each keyboard
    as it appears (after ``think`` seconds)."""
    everyone = [group, *(user.id for user in players)]  # the chats the conditions read
    while not stop.is_set():
        lobbies = len(api.find_messages(group, "new game #"))
        await players[0].send(group, "/newgame")
        if not await changes.until(
                [group], lambda n=lobbies: len(api.find_messages(group, "new game #")) > n):
            return
        lobby = api.find_messages(group, "new game #")[-1]
        found_id = re.search(r"new game #(\d+)", lobby.text or "")
        if found_id is None:
            return
        game = int(found_id.group(1))
        for user, label in [*((user, "✋ Join") for user in players[1:]),
                            (players[0], "▶️ Start")]:
            query = await user.press(lobby, label)
            if not await changes.until([group], lambda q=query: api.callback_answer(q)
                                       is not None):
                return
        overs = len(api.find_messages(group, "is over!"))
        pressed = 0

        def over(overs: int = overs) -> bool:
            return any("is over!" in (m.text or "") for m in api.bot_messages(group)[-3:]) \
                and len(api.find_messages(group, "is over!")) > overs

        while not stop.is_set():
            if not await changes.until(everyone, lambda v=pressed, g=game:
                                       _keyboard(api, players, v, g) or over()):
                return
            found = _keyboard(api, players, pressed, game)
            if found is None:
                break  # the game is over: the next one
            if think:
                await asyncio.sleep(think)
            version, user, message = found
            data = choose(api, message)
            start = time.monotonic()
            try:
                query = await user.press(message, data)
            except LookupError:
                continue
            if confirms(data):  # 🐺 Coyote! asks first: no move, "Yes" on the same message
                tally.playing.add(group)  # (pressed next, as the move: choose picks it)
                if tally.measuring:
                    tally.confirms += 1
                if not await changes.until([message.chat_id, group], lambda m=message: any(
                        d and d.startswith("c:") for _, d in api.buttons(m)) or over()):
                    return
                continue
            pressed = version
            tally.playing.add(group)
            if tally.measuring:
                tally.presses += 1
                # (press enqueues its update at once, awaiting nothing: the newest id is its)
                tally.pressed.append((query, api._next_update_id - 1, start))
            if not await changes.until(everyone, lambda v=pressed, g=game:
                                       _keyboard(api, players, v, g) or over()):
                return
            if tally.measuring:
                tally.latencies.append(time.monotonic() - start)


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
            await _until(api, lambda: bool(api.calls("getUpdates")), 60)
            for _, players, _, _ in groups:
                for user in players:
                    await user.start_bot()
            changes = Changes(api)
            watching = asyncio.create_task(changes.run())
            tasks = [asyncio.create_task(_group(api, changes, group, players, think, tally,
                                                stop))
                     for group, players, think, tally in groups]
            # warm up: every group plays (the bot's first start migrates the schema)
            await _until(api, lambda: len(normal.playing) + len(busy.playing) == len(groups), 180)
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
            await _until(api, lambda: all(api.callback_answer(q) is not None
                                     for t in (normal, busy) for q, _, _ in t.pressed), 10)
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


def _ok(value: float, limit: float) -> bool | None:
    return None if math.isnan(value) else value <= limit


def targets(setting: Setting, f: dict[str, float],
            base: dict[str, float] | None) -> list[Target]:
    """The targets that apply to ``setting``, with its figures ``f`` (``base``: the figures of
    ``setting.base`` measured in the same invocation, if it was run)."""
    found = []
    rt = setting.delay
    if rt:
        for name, key, limit in (("press → answer p50", "press→answer p50", ANSWER_P50),
                                 ("press → answer p95", "press→answer p95", ANSWER_P95),
                                 ("press → next keyboard p50", "press→keyboard p50",
                                  KEYBOARD_P50)):
            ms, ratio = f[f"{key} ms"], f[f"{key} ×rt"]
            shown = f"{ms:.0f} ms = {ratio:.2f} round trips"
            if key == "press→keyboard p50":  # (its p95 has no target of its own: shown too)
                shown += (f" (p95 {f['press→keyboard p95 ms']:.0f} ms = "
                          f"{f['press→keyboard p95 ×rt']:.2f})")
            found.append(Target(
                f"{name} ≤ {limit:g} round trips ({limit * rt * 1000:.0f} ms)", shown,
                _ok(ratio, limit)))
    if setting.min_rate:
        rate = f["presses/s"]
        found.append(Target(f"presses/s ≥ {setting.min_rate:g}", f"{rate:.1f}",
                            None if math.isnan(rate) else rate >= setting.min_rate))
    if setting.base:
        if base is None:
            found.append(Target(f"one busy group changes the others' presses/s by "
                                f"< {BUSY_RATE:.0%}", f"– (“{setting.base}” not run)", None))
            found.append(Target(f"one busy group changes the others' press → keyboard p95 "
                                f"by < {BUSY_P95:.0%} + {BUSY_P95_MS:.0f} ms", "–", None))
        else:
            change = f["presses/s"] / base["presses/s"] - 1
            found.append(Target(
                f"one busy group changes the others' presses/s by < {BUSY_RATE:.0%}",
                f"{base['presses/s']:.2f} → {f['presses/s']:.2f} ({change:+.1%})",
                None if math.isnan(change) else abs(change) < BUSY_RATE))
            was, now = base["press→keyboard p95 ms"], f["press→keyboard p95 ms"]
            allowed = BUSY_P95 * was + BUSY_P95_MS
            found.append(Target(
                f"one busy group changes the others' press → keyboard p95 by "
                f"< {BUSY_P95:.0%} + {BUSY_P95_MS:.0f} ms",
                f"{was:.0f} → {now:.0f} ms ({now - was:+.0f} ms, allowed ±{allowed:.0f})",
                None if math.isnan(now - was) else abs(now - was) < allowed))
    for what, key, limit in (("rate-limited Bot API calls a move", "calls/move", CALLS),
                             ("rate-limited Bot API calls a move in the group", "group calls/move",
                              GROUP_CALLS),
                             ("database transactions a press", "xacts/press", XACTS)):
        found.append(Target(f"{what} ≤ {limit:g}", f"{f[key]:.2f}", _ok(f[key], limit)))
    return found


def _machine() -> str:
    """``nproc`` cores and the memory, as in ``docs/benchmarks.md``."""
    kib = next((int(line.split()[1]) for line in Path("/proc/meminfo").read_text().splitlines()
                if line.startswith("MemTotal:")), 0)
    return f"{len(os.sched_getaffinity(0))} cores, {kib / 2**20:.1f} GiB"


def _commit() -> str:
    """The commit the bot runs from (see the module's docstring)."""
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


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--concurrency", type=int, default=None)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--profile", default="", help="a directory for profiles (slower)")
    parser.add_argument("--no-pgbench", action="store_true")
    parser.add_argument("--finished", type=int, default=100_000)
    parser.add_argument("--only", default="",
                        help="run the settings whose name has one of these (comma-separated)")
    parser.add_argument("--markdown", action="store_true",
                        help="also print a table row per target for docs/benchmarks.md")
    parser.add_argument("--dump", default="",
                        help="a directory for each setting's presses and calls (JSON)")
    args = parser.parse_args()
    # (the command that measures, for the table: without the options that only print or save)
    words = [".venv/bin/python", "-m", "bench.throughput_bench"]
    for name, value in vars(args).items():
        if name not in ("markdown", "dump") and value != parser.get_default(name):
            words += [f"--{name.replace('_', '-')}"] if value is True else \
                [f"--{name}", f"{value:g}" if isinstance(value, float) else str(value)]
    command = shlex.join(words)
    measured: list[tuple[Setting, list[Target]]] = []
    print(f"{time.strftime('%Y-%m-%d %H:%M')} · {os.cpu_count()} cores · load average "
          f"{'/'.join(f'{x:.1f}' for x in os.getloadavg())} · update concurrency "
          f"{args.concurrency or 'default'} · {args.seconds:.0f} s a setting")
    if not args.no_pgbench:
        tps = await asyncio.to_thread(pgbench_tps)
        print(f"pgbench, one client: {tps:.0f} TPS (load average {os.getloadavg()[0]:.1f})"
              if tps else "pgbench not found")
    async with throwaway_database() as db:
        url = db.url.replace("postgresql+psycopg://", "postgresql://")
        started = time.monotonic()
        await asyncio.to_thread(_seed, url, args.finished)
        print(f"seeded {args.finished} finished games in {time.monotonic() - started:.0f} s")
        runs = [(n, setting) for n, setting in enumerate(SETTINGS)
                if not args.only or any(part in setting.name
                                        for part in args.only.split(","))]
        latest: dict[str, dict[str, float]] = {}  # setting name -> its latest figures
        for k, (n, setting) in enumerate(runs * args.repeat):
            hooks = {}
            if args.profile:
                stem = Path(args.profile) / f"{n}-{k}"
                stem.parent.mkdir(parents=True, exist_ok=True)
                hooks = {"BENCH_PROFILE": f"{stem}.prof", "BENCH_XACTS": f"{stem}.xacts.json"}
            dump = Path(args.dump) / f"{n}-{k}.json" if args.dump else None
            figures = await run_setting(setting, url, args.seconds, args.concurrency,
                                        offset=(k + 1) * 100_000, hooks=hooks, dump=dump)
            latest[setting.name] = figures
            rt = f", round trip {setting.delay * 1000:.0f} ms" if setting.delay else ""
            print(f"\n{setting.name}{rt}", flush=True)
            for key, value in figures.items():
                shown = f"{value:.2f}" if isinstance(value, float) else value
                print(f"  {key:>26}: {shown}")
            found = targets(setting, figures, latest.get(setting.base))
            measured.append((setting, found))
            print("  targets:")
            for target in found:
                print(f"    {target.verdict:>12}  {target.what}: {target.figure}")
    if not args.no_pgbench:
        tps = await asyncio.to_thread(pgbench_tps)
        print(f"\npgbench, one client: {tps:.0f} TPS (load average {os.getloadavg()[0]:.1f})"
              if tps else "\npgbench not found")
    if args.markdown:
        when = f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {_commit()}"
        machine = _machine()
        print("\n| target | setting | figure | status | measured | machine | command |\n"
              "| --- | --- | --- | --- | --- | --- | --- |")
        for setting, found in measured:
            for target in found:
                print(f"| {target.what} | {setting.name} | {target.figure} | "
                      f"{target.verdict} | {when} | {machine} | "
                      f"`{command}` |")


if __name__ == "__main__":
    asyncio.run(main())
