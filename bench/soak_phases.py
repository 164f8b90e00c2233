"""The soak's three phases against the real bot process (``bench/soak.py`` describes each):
kills, fuzz through webhooks, and a database outage. Each starts its own bot and its own
groups of players, and adds to the same :class:`~bench.soak_players.Figures`."""

from __future__ import annotations

import asyncio
import random
import signal
import time
from pathlib import Path

from bench.soak_cluster import Cluster
from bench.soak_players import Figures, drain, groups_of, open_game, play
from tests.e2e.harness import choose, private_turn_message, wait_for
from tests.e2e.processes import free_port, kill, spawn
from tests.fakebot import FakeBotAPI

OUTAGE_TEXT = "I can't reach my records right now"


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
