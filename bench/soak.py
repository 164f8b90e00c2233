"""``make soak`` (not part of ``make test``): crash safety from update to message, measured.

Starts its own throwaway PostgreSQL cluster (``initdb`` + ``pg_ctl`` on a free port, as the
``postgres`` user when run as root) and the fake Bot API, then runs three phases against the
real bot process (``python -m telegram_app``):

1. **Kills**: 12 four-player games (one group each, players pressing as soon as their
   keyboard appears) while the bot is SIGKILLed every 5–15 s (counted from its first poll
   after a start) and restarted, until every game ends or ``--minutes`` pass.
2. **Fuzz**: two running games played to the end through webhooks while 5,000 forged callback
   queries and 500 junk texts and commands arrive, one update in ten delivered twice.
3. **Outage**: a game in progress while the cluster is stopped for 20 s; a player presses
   every 2 s meanwhile; then the game goes on to its end.

Prints: games finished / stuck, presses unanswered, bids told twice in their group (the
same bid's line in two group notes, or twice in one: a kill between a note's send and the
record that it was told shows it again), inconsistencies in the database, and the bot's log
lines at ERROR. "Stuck" counts games that did not end in time, and stalls (no new keyboard
for ``STALL`` s, after which a player presses the same keyboard again); a game whose last move
was never shown is re-presented by the sweep (a kill between a move's commit and its
messages must not leave a game stuck).

Usage: ``.venv/bin/python -m bench.soak [--seed N] [--minutes M] [--phases kills,fuzz,outage]
[--think LOW-HIGH]``; ``--think 1.5-3``: the kill phase's players think 1.5 to 3 s before
each move (default ``0-3``), as people do.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import psycopg

from engine import GAMES
from league.store.db import upgrade
from tests.e2e.harness import choose, confirms, move_version, private_turn_message, wait_for
from tests.e2e.processes import free_port, kill, spawn
from tests.fakebot import FakeBotAPI, FakeUser

STALL = 20.0  # seconds without a new keyboard before a player presses the same one again
OUTAGE_TEXT = "I can't reach my records right now"
KEPT_LOG = Path(tempfile.gettempdir()) / "coyote-soak-bot.log"  # the bot's log, kept


# --- a throwaway PostgreSQL cluster ------------------------------------------------------------
class Cluster:
    """A PostgreSQL cluster of its own in a temporary folder (trust auth, loopback)."""

    def __init__(self) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="coyote-soak-pg-"))
        self.port = free_port()
        self.bindir = _pg_bindir()

    def _run(self, *args: str) -> None:
        cmd = [str(Path(self.bindir) / args[0]) if self.bindir else args[0], *args[1:]]
        if os.geteuid() == 0:
            cmd = ["runuser", "-u", "postgres", "--", *cmd]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def init(self) -> None:
        if os.geteuid() == 0:
            shutil.chown(self.dir, "postgres")
        self._run("initdb", "-D", str(self.dir / "data"), "-U", "postgres", "--auth=trust")

    def start(self) -> None:
        self._run("pg_ctl", "-D", str(self.dir / "data"), "-l", str(self.dir / "server.log"),
                  "-w", "-o", f"-h 127.0.0.1 -p {self.port} -k {self.dir} -c max_connections=300",
                  "start")

    def stop(self) -> None:
        self._run("pg_ctl", "-D", str(self.dir / "data"), "-m", "fast", "-w", "stop")

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def remove(self) -> None:
        try:
            self.stop()
        except subprocess.CalledProcessError:
            pass
        shutil.rmtree(self.dir, ignore_errors=True)


def _pg_bindir() -> str:
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin"), key=lambda p: p.parent.name)
    return str(found[-1]) if found else ""


# --- figures -----------------------------------------------------------------------------------
@dataclass
class Figures:
    games: int = 0
    finished: int = 0
    stalls: int = 0
    presses: list[str] = field(default_factory=list)
    kills: int = 0
    forged: list[str] = field(default_factory=list)
    junk: int = 0
    repeats: int = 0
    outage_answers: int = 0
    outage_presses: int = 0
    recovery: float | None = None


async def drain(api: FakeBotAPI, figures: Figures, seconds: float = 60) -> None:
    """Give the bot time to answer every press made so far (before it stops): as long as
    the answers still come (at least one in every ``seconds``), up to 10 minutes. The fuzz
    phase's 5,000 forged presses arrive in a burst, faster than a shared machine handles
    them: when the games end, some 1,700 may wait in the inbox (seed 11, 2026-12-02), which
    the bot works through at some 30 a second. A fixed minute counted the tail of that
    backlog as unanswered (72 of 5,000) although nothing was lost."""
    queries = [*figures.presses, *figures.forged]
    loop = asyncio.get_running_loop()
    give_up = loop.time() + 600
    while loop.time() < give_up:
        left = sum(api.callback_answer(q) is None for q in queries)
        if not left:
            return
        try:
            await wait_for(lambda n=left: sum(api.callback_answer(q) is None
                                              for q in queries) < n, timeout=seconds)
        except TimeoutError:
            return  # no progress for a while: the rest is counted as unanswered


def turn_message(api: FakeBotAPI, user: FakeUser, newer_than: int = 0):  # noqa: ANN201
    """The user's newest private message with move buttons, if for a version above
    ``newer_than``, however many messages follow it: the bot's answers to the junk a player
    sends in the fuzz phase may bury it (a person scrolls up). Looking only among the last
    six stalled a game for good once a dozen replies to junk followed the keyboard (seed 11:
    1 of the 2 fuzz games stuck; the fuzz phase alone: both); the bot closes an old
    keyboard when it sends a new one, so the newest with buttons is the current one."""
    for message in reversed(api.bot_messages(user.id)):
        version = move_version(api, message)
        if version is not None:
            return message if version > newer_than else None
    return None


def over(api: FakeBotAPI, group: int) -> bool:
    return bool(api.find_messages(group, "is over!"))


async def play(api: FakeBotAPI, group: int, players: list[FakeUser], figures: Figures,
               deadline: float, rng: random.Random,
               think: tuple[float, float] = (0.0, 0.05)) -> None:
    """Press for whoever has the newest keyboard, ``think`` seconds (drawn uniformly between
    the two) after it appears, until the game ends."""
    loop = asyncio.get_running_loop()
    pressed, since = 0, loop.time()
    while loop.time() < deadline:
        if over(api, group):
            figures.finished += 1
            return
        offers = [(move_version(api, m) or 0, i, u, m) for i, u in enumerate(players)
                  if (m := turn_message(api, u, pressed)) is not None]
        if not offers:
            if loop.time() - since > STALL:  # a lost move, or one never shown: press again
                figures.stalls += 1
                pressed, since = 0, loop.time()
            await asyncio.sleep(0.05)
            continue
        version, _, user, message = max(offers, key=lambda o: (o[0], -o[1]))
        await asyncio.sleep(rng.uniform(*think))
        # (the keyboard as it is after the thought: a restart may have redrawn it)
        message = turn_message(api, user, pressed) or message
        try:
            data = choose(api, message)
            figures.presses.append(await user.press(message, data))
        except (LookupError, ValueError):
            await asyncio.sleep(0.05)
            continue
        if confirms(data):  # 🐺 Coyote! asks first: "Yes" on the same message, pressed next
            try:
                await wait_for(lambda m=message: any(
                    d and d.startswith("c:") for _, d in api.buttons(m)), timeout=STALL)
            except TimeoutError:
                pass  # (lost to a kill, say: the same keyboard is pressed again)
            continue
        pressed, since = version, loop.time()


async def open_game(api: FakeBotAPI, group: int, players: list[FakeUser]) -> None:
    """The first player opens a lobby, the others join, the first starts it."""
    await players[0].send(group, "/newgame")
    await wait_for(lambda: bool(api.find_messages(group, "new game #")), timeout=120)
    lobby = api.find_messages(group, "new game #")[-1]
    for user in players[1:]:
        await wait_for(lambda: bool(api.buttons(api.get_message(group, lobby.message_id))),
                       timeout=120)
        query = await user.press(api.get_message(group, lobby.message_id), "✋ Join")
        await api.wait_answer(query, timeout=120)
    await wait_for(lambda: all(p.first_name in (api.get_message(group, lobby.message_id).text
                                                or "") for p in players), timeout=120)
    query = await players[0].press(api.get_message(group, lobby.message_id), "▶️ Start")
    await api.wait_answer(query, timeout=120)


def groups_of(api: FakeBotAPI, count: int, first_user: int, base: int) -> list[
        tuple[int, list[FakeUser]]]:
    made = []
    for g in range(count):
        group = base - g
        users = [api.add_user(first_user + 4 * g + i, f"P{g}x{i}") for i in range(4)]
        api.add_group(group, f"Soak {g}", admins=[users[0].id])
        made.append((group, users))
    return made


# --- phases ------------------------------------------------------------------------------------
class Bot:
    """The real bot process, restartable; its log is appended to ``log``."""

    def __init__(self, api: FakeBotAPI, url: str, log: Path, **env: str) -> None:
        self.api, self.url, self.log, self.env = api, url, log, env
        self.process: asyncio.subprocess.Process | None = None

    async def start(self) -> None:
        self.process = await spawn(self.api, self.url, self.log, **self.env)

    async def kill(self) -> None:
        if self.process is not None:
            await kill(self.process)

    async def stop(self) -> None:
        if self.process is not None and self.process.returncode is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(self.process.wait(), 30)
            except TimeoutError:
                await kill(self.process)


KILL_THINK = (0.0, 3.0)
"""Seconds a player of the kill phase thinks before a move (drawn uniformly between the two;
``--think``)."""


async def phase_kills(api: FakeBotAPI, url: str, log: Path, figures: Figures,
                      rng: random.Random, minutes: float,
                      think: tuple[float, float] = KILL_THINK) -> None:
    bot = Bot(api, url, log)
    await bot.start()
    tables = groups_of(api, 12, 1000, -1_000_100)
    for _, users in tables:
        for user in users:
            await user.start_bot()
    await asyncio.gather(*(open_game(api, g, users) for g, users in tables))
    print(f"kills: {len(tables)} games started", flush=True)
    figures.games += len(tables)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + minutes * 60
    # Players think a while before each move, so that the games outlast many kills
    # (pressing at once, the 12 games ended within the first kill or two).
    players = asyncio.gather(*(play(api, g, users, figures, deadline, rng, think)
                               for g, users in tables))
    while not players.done():
        # The 5-15 s count from when the bot polls: on a loaded machine its start alone can
        # take longer, and a bot killed before it ever polled would only measure start-ups.
        polls = len(api.calls("getUpdates"))
        try:
            await wait_for(lambda n=polls: len(api.calls("getUpdates")) > n or players.done(),
                           timeout=120)
            await asyncio.wait_for(asyncio.shield(players), rng.uniform(5, 15))
        except TimeoutError:
            await bot.kill()
            figures.kills += 1
            await bot.start()
            if figures.kills % 10 == 0:
                print(f"kills: {figures.kills} kills, {figures.finished} games over, "
                      f"{len(figures.presses)} presses", flush=True)
    await drain(api, figures)
    await bot.stop()


SOAK_SECRET = "soak-webhook-secret-0123456789"  # (the settings want 16 characters or more)
FORGED_VERBS = list("jlsaropbcmkxqgz") + ["", "zz", "b", "💥"]
# Junk, not moves: no /leave (a player's real way out of a game), and the numbers (which a
# player's private chat takes as a typed bid) are sent only by strangers (see phase_fuzz).
JUNK = ["/newgame", "/newgame@coyote_league_bot extra words", "/replay abc",
        "/replay 99999999999999999999", "/rating", "/standings season", "/history", "/top",
        "/settings", "/rules", "/help", "/start g0", "/start g99999999999",
        "/start ../../etc", "500", "-1", "٣", "\u202etxet", "a" * 4000, "🐺" * 50, "/", "//",
        "/profile@other_bot", "0x10", "1e9", "NaN", "<b>bold</b>", "&amp;"]


async def phase_fuzz(api: FakeBotAPI, url: str, log: Path, figures: Figures,
                     rng: random.Random, minutes: float) -> None:
    port = free_port()
    hook = f"http://127.0.0.1:{port}/hook"
    bot = Bot(api, url, log, TELEGRAM_WEBHOOK_URL=hook, TELEGRAM_WEBHOOK_SECRET=SOAK_SECRET,
              WEB_LISTEN_PORT=str(port))
    await bot.start()
    await wait_for(lambda: api.webhook_url == hook, timeout=120)
    api.deliver_by_webhook([hook], SOAK_SECRET)
    tables = groups_of(api, 2, 2000, -2_000_100)
    strangers = [api.add_user(3000 + i, f"Stranger{i}") for i in range(5)]
    for _, users in tables:
        for user in users:
            await user.start_bot()
    for user in strangers[:3]:
        await user.start_bot()
    await asyncio.gather(*(open_game(api, g, users) for g, users in tables))
    figures.games += len(tables)
    deadline = asyncio.get_running_loop().time() + minutes * 60
    players = asyncio.gather(*(play(api, g, users, figures, deadline, rng)
                               for g, users in tables))
    senders = strangers + [u for _, users in tables for u in users[1:]]  # no admin: no /cancel
    chats = [g for g, _ in tables]
    seen = set(api.webhook_updates)
    for i in range(5500):
        if i % 11 == 10:
            user = rng.choice(senders)
            chat = rng.choice([*chats, user.id])
            text = rng.choice(JUNK)
            if chat == user.id and user not in strangers:
                text = rng.choice([t for t in JUNK if t.startswith("/") or not any(
                    c.isdigit() for c in t)])
            await user.send(chat, text)
            figures.junk += 1
        else:
            chat = rng.choice(chats)
            messages = api.bot_messages(chat) or []
            for user in (rng.choice(senders),):
                if rng.random() < 0.5 and api.bot_messages(user.id):
                    messages = api.bot_messages(user.id)
                if not messages:
                    continue
                message = rng.choice(messages)
                verb = rng.choice(FORGED_VERBS)
                numbers = [str(rng.choice([0, 1, 2, 3, rng.randrange(10**6), 2**31, 10**12]))
                           for _ in range(rng.randrange(0, 5))]
                data = ":".join([verb, *numbers])[:64] or "x"
                figures.forged.append(await user.press_raw(message.chat_id, message.message_id,
                                                           data))
        fresh = [u for i2, u in api.webhook_updates.items() if i2 not in seen]
        seen.update(u["update_id"] for u in fresh)
        for update in fresh:
            if rng.random() < 0.1:
                api.redeliver(update)
                figures.repeats += 1
        if i % 50 == 0:
            await asyncio.sleep(0.05)  # a burst, then a breath: the games must go on too
    await players
    await drain(api, figures)
    await bot.stop()


async def phase_outage(api: FakeBotAPI, url: str, log: Path, figures: Figures,
                       rng: random.Random, cluster: Cluster, minutes: float) -> None:
    bot = Bot(api, url, log)
    await bot.start()
    [(group, users)] = groups_of(api, 1, 4000, -4_000_100)
    for user in users:
        await user.start_bot()
    await open_game(api, group, users)
    figures.games += 1
    await wait_for(lambda: any(private_turn_message(api, u) for u in users), timeout=120)
    await asyncio.to_thread(cluster.stop)
    stopped = time.monotonic()
    while time.monotonic() - stopped < 20:
        offers = [(u, m) for u in users if (m := private_turn_message(api, u))]
        if offers:
            user, message = offers[0]
            query = await user.press(message, choose(api, message))
            figures.presses.append(query)
            figures.outage_presses += 1
            try:
                answer = await api.wait_answer(query, timeout=10)
                figures.outage_answers += OUTAGE_TEXT in (answer.get("text") or "")
            except TimeoutError:
                pass
        await asyncio.sleep(2)
    await asyncio.to_thread(cluster.start)
    back = time.monotonic()
    for _ in range(600):
        offers = [(u, m) for u in users if (m := private_turn_message(api, u))]
        if offers:
            user, message = offers[0]
            query = await user.press(message, choose(api, message))
            figures.presses.append(query)
            try:
                answer = await api.wait_answer(query, timeout=10)
            except TimeoutError:
                continue
            if not answer.get("show_alert"):
                figures.recovery = time.monotonic() - back
                break
        await asyncio.sleep(0.2)
    deadline = asyncio.get_running_loop().time() + minutes * 60
    await play(api, group, users, figures, deadline, rng)
    await drain(api, figures)
    await bot.stop()


# --- checks ------------------------------------------------------------------------------------
BID = re.compile(r"^(?P<name>.+?) bids (?P<amount>\d+)\b")
TABLE = re.compile(r"Game #(?P<game>\d+) · round (?P<round>\d+)")
HEADING = re.compile(r"🔹 Round (?P<round>\d+)")


def told_twice(api: FakeBotAPI, shown: list[str] | None = None) -> int:
    """Bids told more than once in their group: each group message the bot sent, line by
    line in order, with the game and round of the last table (``🐺 Game #… · round …``) or
    round heading before the line; within a round bids only rise, so a player's bid of an
    amount is told once (the players' language is English). ``shown``: gets the first
    lines of the two messages of each repeat, to tell a repeat from a miscount."""
    where: dict[int, tuple[str, str]] = {}  # group -> (game, round) of the lines now
    seen: dict[tuple[int, str, str, str, str], str] = {}
    twice = 0
    for entry in api.log:
        if entry.kind not in ("send", "photo") or entry.chat_id is None or entry.chat_id >= 0:
            continue
        for line in (entry.text or "").splitlines():
            if table := TABLE.search(line):
                where[entry.chat_id] = (table["game"], table["round"])
            elif heading := HEADING.search(line):
                where[entry.chat_id] = (where.get(entry.chat_id, ("?", ""))[0],
                                        heading["round"])
            elif bid := BID.match(line.strip()):
                key = (entry.chat_id, *where.get(entry.chat_id, ("?", "?")), bid["name"],
                       bid["amount"])
                if key in seen:
                    twice += 1
                    if shown is not None:
                        shown.append(f"{key}: {seen[key]!r} / {(entry.text or '')[:160]!r}")
                seen[key] = (entry.text or "")[:160]
    return twice


def inconsistencies(url: str) -> list[str]:
    """What the stored state says is wrong: a gap or repeat in an event log, negative lives, a
    seat's ``playing`` that does not match the state (``Game.still_playing``), a finished
    game rated other than once per human player, an undone inbox row."""
    found = []
    with psycopg.connect(url) as conn:
        for game_id, n, low, high in conn.execute(
                "SELECT game_id, count(*), min(seq), max(seq) FROM game_events GROUP BY game_id"):
            if n != high - low + 1:
                found.append(f"game {game_id}: event log has gaps or repeats")
        for game_id, kind, status, state in conn.execute(
                "SELECT id, kind, status, state FROM games"):
            lives = (state or {}).get("lives", [])
            if any(v < 0 for v in lives):
                found.append(f"game {game_id}: negative lives")
            if not state:
                continue
            playing = set(GAMES[kind].still_playing(state))
            rows = conn.execute("SELECT seat, playing FROM game_players WHERE game_id = %s "
                                "AND seat IS NOT NULL", (game_id,)).fetchall()
            for seat, stored in rows:
                if stored != (seat in playing):
                    found.append(f"game {game_id}: seat {seat} playing {stored}, the state "
                                 f"says {seat in playing}")
            if status == "finished":
                rated = conn.execute("SELECT count(*) FROM rating_events WHERE game_id = %s",
                                     (game_id,)).fetchone()[0]
                humans = conn.execute("SELECT count(*) FROM game_players WHERE game_id = %s "
                                      "AND user_id IS NOT NULL", (game_id,)).fetchone()[0]
                if rated != humans:
                    found.append(f"game {game_id}: {rated} ratings for {humans} players")
        undone = conn.execute("SELECT count(*) FROM inbox WHERE done_at IS NULL").fetchone()[0]
        if undone:
            found.append(f"{undone} inbox rows never done")
    return found


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--minutes", type=float, default=15.0, help="per phase, at most")
    parser.add_argument("--phases", default="kills,fuzz,outage")
    parser.add_argument("--think", default="-".join(f"{t:g}" for t in KILL_THINK),
                        help="seconds the kill phase's players think a move: LOW-HIGH")
    args = parser.parse_args()
    low, _, high = args.think.partition("-")
    think = (float(low), float(high or low))
    rng = random.Random(args.seed)
    phases = set(args.phases.split(","))
    cluster = Cluster()
    figures = Figures()
    log = cluster.dir / "bot.log"
    started = time.monotonic()
    try:
        await asyncio.to_thread(cluster.init)
        await asyncio.to_thread(cluster.start)
        with psycopg.connect(cluster.url(), autocommit=True) as conn:
            conn.execute("CREATE DATABASE soak")
        url = cluster.url("soak")
        await asyncio.to_thread(upgrade, url)
        async with FakeBotAPI() as api:
            if "kills" in phases:
                await phase_kills(api, url, log, figures, rng, args.minutes, think)
                print(f"kills: done after {time.monotonic() - started:.0f} s", flush=True)
            if "outage" in phases:
                await phase_outage(api, url, log, figures, rng, cluster, args.minutes)
                print(f"outage: done after {time.monotonic() - started:.0f} s", flush=True)
            if "fuzz" in phases:
                await phase_fuzz(api, url, log, figures, rng, args.minutes)
                print(f"fuzz: done after {time.monotonic() - started:.0f} s", flush=True)
            await asyncio.sleep(3)  # late answers of the last presses
            unanswered = [q for q in figures.presses if api.callback_answer(q) is None]
            unanswered_forged = [q for q in figures.forged if api.callback_answer(q) is None]
            alerts: dict[str, int] = {}
            for query in figures.presses:
                answer = api.callback_answer(query) or {}
                if answer.get("show_alert"):
                    key = (answer.get("text") or "")[:60]
                    alerts[key] = alerts.get(key, 0) + 1
            repeats: list[str] = []
            twice = told_twice(api, repeats)
        problems = inconsistencies(url)
        text = log.read_text(errors="replace") if log.exists() else ""
        errors = [line for line in text.splitlines() if " ERROR " in line or " CRITICAL " in line]
    finally:
        if log.exists():
            shutil.copy(log, KEPT_LOG)
        await asyncio.to_thread(cluster.remove)
    print(f"\nsoak (seed {args.seed}, {time.monotonic() - started:.0f} s, "
          f"{figures.kills} kills, kill-phase players thinking {think[0]:g}–{think[1]:g} s)")
    print(f"games finished / stuck:       {figures.finished}/{figures.games - figures.finished}"
          f"  (stalls of {STALL:.0f} s: {figures.stalls})")
    print(f"presses unanswered:           {len(unanswered)} of {len(figures.presses)}")
    print(f"forged presses unanswered:    {len(unanswered_forged)} of {len(figures.forged)}"
          f"  (junk texts {figures.junk}, repeated updates {figures.repeats})")
    for text, count in sorted(alerts.items(), key=lambda a: -a[1])[:6]:
        print(f"  {count:5d} alerts {text!r}")
    print(f"bids told twice in the group: {twice}")
    for repeat in repeats[:5]:
        print(f"  {repeat}")
    print(f"outage answers:               {figures.outage_answers} of "
          f"{figures.outage_presses} presses; recovered after "
          f"{'-' if figures.recovery is None else f'{figures.recovery:.1f} s'}")
    print(f"inconsistencies:              {len(problems)}")
    for problem in problems[:20]:
        print(f"  {problem}")
    print(f"log lines at ERROR:           {len(errors)}  (the bot's log: {KEPT_LOG})")
    for line in errors[:20]:
        print(f"  {line[:200]}")
    ok = (figures.finished == figures.games and not unanswered and not unanswered_forged
          and not problems and not errors)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
