"""A randomized driver of whole games through the real bot (used by ``test_fuzz.py``): for a
seed, a whole game of Coyote (each edition, with and without specials) or Koira, 3–6 humans
(some without a private chat), mixing at random moves from the private chat, moves from the
group through 🎴's ephemeral message, typed moves, double taps, presses on stale messages, a
player who blocks the bot and later sends /start, a player without a private chat who starts
one, reminders and timeouts, and races (one tap on the private and the 🎴 message at once, a
tap beside a typed move, a timeout or a /start). After each step (the bot at rest) and at
the end the invariants hold: the game ends ("is over!"), no press is answered with an alert
other than a polite refusal (a live move: none at all), no private chat holds two live
keyboards of the game, a player with a private chat to act has its keyboard, one without is
named in the group, nobody is shown a card hidden from them (Coyote: their own; Koira:
another's hand; the group: any), every call fits Telegram's limits and none is refused but
the ordinary ways, no ERROR is logged."""

from __future__ import annotations

import logging
import os
import random
from datetime import UTC, datetime

from telegram_app.services import KEY
from tests.clock import Clock
from tests.e2e.fuzz_moves import FuzzMoves
from tests.e2e.fuzz_state import (
    FSI,
    GROUP,
    ORDINARY,
    PDI,
    game_buttons,
    koira_cards,
    version_on,
)
from tests.e2e.harness import BotRunner, wait_for
from tests.e2e.messy_telegram_helpers import plain
from tests.fakebot import FakeBotAPI, FakeUser, StoredMessage
from tests.fakebot.audit import Audit
from tests.fakebot.html_check import parse_html

NAMES = ["Ann", "Bob", "Cat", "Dan", "Eve", "Fay"]
KINDS = [("coyote", "classic", False), ("coyote", "classic", True),
         ("coyote", "feathers", False), ("coyote", "feathers", True),
         ("coyote", "poker-deck", False), ("koira", None, False)]


class Fuzz(FuzzMoves):
    """A seed's game under way, with the invariants checked after each step."""

    # --- invariants ------------------------------------------------------------------------
    async def check(self) -> None:
        game = await self.game()
        api = self.api
        if self.kind == "koira":
            for p in game.players:
                if p.user_id is not None and p.seat is not None:
                    self.held.setdefault(p.user_id, set()).update(game.state["hands"][p.seat])
        for user in self.players:
            live = self.keyboards(user)
            if len(live) > 1:
                self.fault(f"{user.first_name}'s private chat holds {len(live)} keyboards: "
                           f"versions {[version_on(api, m, self.verbs) for m in live]}")
            views = api.ephemeral_messages(GROUP, user.id)
            if len(views) > 1:
                self.fault(f"{user.first_name} has {len(views)} ephemeral views")
        game_, seat, user = await self.to_act()
        if user is not None and self.reachable(user) and \
                self.private_turn(user, game.version) is None:
            newest = [version_on(api, m, self.verbs) for m in self.keyboards(user)]
            self.fault(f"{user.first_name} (private chat) is to act at v{game.version} and "
                       f"has no keyboard for it (has {newest})")
        if user is not None and not user.started and not self.named(user):
            self.fault(f"{user.first_name} (no private chat) is to act at v{game.version} and "
                       f"is named nowhere in the group")
        self.check_texts(game)
        self.check_requests()

    def named(self, user: FakeUser) -> bool:
        """Whether a live group message tells ``user`` it is their turn: a ping or reminder,
        or a mention (the table's, a note's)."""
        for m in self.api.bot_messages(GROUP)[-4:]:
            if any(e.get("type") == "text_mention" and (e.get("user") or {}).get("id") == user.id
                   for e in m.entities):
                return True
            if plain(m.text).startswith(user.first_name) and "your turn" in (m.text or ""):
                return True
        return False

    def check_texts(self, game) -> None:
        """What each reader was shown since the last check hides what it must."""
        names = {p.user_id: p.name for p in game.players if p.user_id is not None}
        for entry in self.api.log[self.log_seen:]:
            if entry.kind not in ("send", "edit") or not entry.text:
                continue
            reader = entry.receiver if entry.chat_id == GROUP else entry.chat_id
            text = entry.text
            if self.kind == "koira":
                for line in text.splitlines():
                    if not line.startswith("Your hand:"):
                        continue
                    if reader is None:
                        self.fault(f"a hand in the group: {line}")
                        continue
                    self.steps["hands checked"] += 1
                    foreign = set(koira_cards(line[len("Your hand:"):])) - \
                        self.held.get(reader, set())
                    if foreign:
                        self.fault(f"{names.get(reader)} is shown {sorted(foreign)} as their "
                                   f"hand: {line}")
            elif f"Game #{game.id} · round" in text and "is over" not in text:
                if reader is None:
                    self.check_group_table(game, text)
                    continue
                own = f"{FSI}{' '.join(names.get(reader, '?').split())}{PDI}"
                for line in text.splitlines():
                    line = line.removeprefix("👉 ")
                    if line.startswith(own):
                        self.steps["own lines checked"] += 1
                    if line.startswith(own) and " · " in line and "❓ (yours)" not in line \
                            and "(safe)" not in line:
                        self.fault(f"{names.get(reader)} sees their own card: {line!r}")
        self.log_seen = len(self.api.log)

    def check_group_table(self, game, text: str) -> None:
        """The group's table of a round shows no card but the face-up ones."""
        for line in plain(text).splitlines():
            if any(p.name in line for p in game.players) and "·" in line and \
                    ("❤" in line or "🂠" in line) and "face up" not in line and \
                    "(safe)" not in line and line.split("·", 1)[1].strip().strip("❓+ "):
                self.fault(f"the group's table shows a card: {line!r}")

    def check_requests(self) -> None:
        for request in self.api.requests[self.requests_seen:]:
            p, method = request.params, request.method.lower()
            if method == "answercallbackquery" and len(str(p.get("text") or "")) > 200:
                self.fault(f"an answer over 200 characters: {p.get('text')!r}")
            for key, limit in (("text", 4096), ("caption", 1024)):
                if p.get(key) and method != "answercallbackquery":
                    size = len(parse_html(str(p[key]), strict_amp=False)[0])
                    if size > limit:
                        self.fault(f"{method} of {size} characters to {p.get('chat_id')}")
        self.requests_seen = len(self.api.requests)
        for refusal in self.audit.refused[self.refused_seen:]:
            if not any(o in refusal for o in ORDINARY):
                self.fault(f"Telegram refused {refusal}")
        self.refused_seen = len(self.audit.refused)

    async def end_checks(self, caplog) -> None:
        api = self.api
        game = await self.game()
        if game.status != "finished":
            self.fault(f"the game is {game.status}, not finished")
        if not api.find_messages(GROUP, "is over!"):
            self.fault("no 'is over!' in the group")
        left = [m for m in api.ephemeral_messages(GROUP) if game_buttons(api, m, self.verbs)]
        if left:
            self.fault(f"ephemeral views keep move buttons after the end: {len(left)}")
        for user in self.players:
            if self.reachable(user) and self.keyboards(user):
                self.fault(f"{user.first_name} keeps a keyboard after the end")
        quiet = plan(self.seed)["notes"] == "quiet"
        for m in api.bot_messages(GROUP):
            if any(d and d.startswith("p:") for _t, d in api.buttons(m)) and \
                    (quiet or m is api.bot_messages(GROUP)[-1]):
                self.fault(f"a table keeps 🎴 after the end (#{m.message_id} of "
                           f"{len(api.bot_messages(GROUP))}, {m.edits} edits): "
                           f"{plain(m.text)[:300]!r}")
        for record in caplog.records:
            if record.levelno >= logging.ERROR or record.exc_info:
                self.faults.append(f"logged: {record.name}: {record.getMessage()[:300]} "
                                   f"{record.exc_info and record.exc_info[1]!r}")


# ------------------------------------------------------------------------------ setting up

def plan(seed: int) -> dict:
    """What the seed plays: the game, players (and who started the bot), options."""
    rng = random.Random(f"plan{seed}")
    kind, edition, specials = KINDS[seed % len(KINDS)]
    humans = rng.randint(3, 6)
    ai = rng.choice([0, 0, 0, 1, 2]) if kind == "koira" else rng.choice([0, 0, 0, 1])
    if kind == "koira":
        ai = min(ai, 8 - humans)
    started = [rng.random() < 0.7 for _ in range(humans)]
    options = []
    if kind == "koira":
        options = [o for o in ("tie_split", "trump_ends_trick", "pickup_single")
                   if rng.random() < 0.4]
        if rng.random() < 0.3:
            options.append("3")
    return {"kind": kind, "edition": edition, "specials": specials, "humans": humans,
            "ai": ai, "started": started, "options": options,
            "notes": rng.choice(["quiet", "quiet", "every_move"])}


async def open_game(api: FakeBotAPI, url: str, seed: int) -> Fuzz:
    p = plan(seed)
    api.add_group(GROUP, "Fuzz", admins=[1])
    players = [api.add_user(i, NAMES[i - 1]) for i in range(1, p["humans"] + 1)]
    for user, started in zip(players, p["started"], strict=True):
        if started:
            await user.start_bot()
    clock = Clock(datetime(2026, 5, 4, 9, 0, tzinfo=UTC))
    runner = BotRunner(api, url, clock=clock, sweep_interval=0.05)
    audit = Audit(api)
    await runner.start()
    runner.app.bot_data[KEY].service.new_seed = lambda: seed
    if p["notes"] != "quiet":
        await runner.app.bot_data[KEY].service.set_chat_setting(GROUP, "Fuzz", "group_notes",
                                                                p["notes"])
    fuzz = Fuzz(seed, random.Random(seed), api, runner, clock, players, p["kind"],
                p["edition"], p["specials"], audit)
    command = " ".join(["/newgame", p["kind"] if p["kind"] == "koira" else p["edition"],
                        *p["options"]])
    fuzz.note(f"plan {p}")
    host = players[0]
    await host.send(GROUP, command)

    def lobby() -> StoredMessage | None:
        found = [m for m in api.bot_messages(GROUP)
                 if any(d and d.startswith("j:") for _t, d in api.buttons(m))]
        return found[-1] if found else None

    await wait_for(lambda: lobby() is not None)
    await fuzz.settle()
    join = next(d for _t, d in api.buttons(lobby()) if d.startswith("j:"))
    for user in players[1:]:
        answer = await user.press_and_settle(lobby(), join, quiet=0.02)
        assert not answer.get("show_alert"), answer
    if p["specials"]:
        data = next(d for t, d in api.buttons(lobby()) if "🎭" in t or "🪙" in t)
        await host.press_and_settle(lobby(), data, quiet=0.02)
    for _n in range(p["ai"]):
        data = next(d for _t, d in api.buttons(lobby()) if d and d.startswith("a:"))
        await host.press_and_settle(lobby(), data, quiet=0.02)
    start = next(d for _t, d in api.buttons(lobby()) if d and d.startswith("s:"))
    answer = await host.press_and_settle(lobby(), start, quiet=0.05)
    assert not answer.get("show_alert"), answer
    await wait_for(lambda: fuzz.table() is not None)
    await fuzz.settle()
    fuzz.game_id = int(next(d for _t, d in api.buttons(fuzz.table())
                            if d.startswith("p:")).split(":")[1])
    return fuzz


async def play(url: str, seed: int, caplog, max_steps: int = 1500) -> Fuzz:
    """Play the seed's game to its end; the faults found are in ``.faults``."""
    caplog.set_level(logging.INFO)
    async with FakeBotAPI() as api:
        fuzz = await open_game(api, url, seed)
        try:
            await fuzz.check()
            for _ in range(max_steps):
                if (await fuzz.game()).status != "running":
                    break
                await fuzz.step()
                await fuzz.check()
            else:
                fuzz.fault(f"the game did not end in {max_steps} steps")
            await fuzz.settle(quiet=0.1)
            await fuzz.check()
            await fuzz.end_checks(caplog)
        finally:
            await fuzz.runner.stop()
    return fuzz


QUICK_SEEDS = [445, 342, 429, 404, 418, 443]
"""Seeds whose games are short, one of each kind: classic with masks, classic (with a
computer player), feathers with and without coins, poker-deck, Koira (3 humans, 2 computer
players)."""


def sweep_seeds() -> list[int]:
    """``FUZZ_SEEDS`` (``1,5,9`` or ``100-199``), else :data:`QUICK_SEEDS`."""
    spec = os.environ.get("FUZZ_SEEDS")
    if not spec:
        return QUICK_SEEDS
    if "-" in spec:
        first, last = spec.split("-")
        return list(range(int(first), int(last) + 1))
    return [int(s) for s in spec.split(",")]
