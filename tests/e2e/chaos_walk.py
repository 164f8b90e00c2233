"""The random walk of the chaos test (``test_chaos.py``): the steps a game may take."""

from __future__ import annotations

import asyncio
import os
import random
from collections import Counter
from dataclasses import dataclass, field

from engine import GAMES
from engine.coyote.editions import MAX_BID
from telegram_app.services import KEY
from tests.clock import Clock
from tests.e2e.harness import choose, hold, move_version
from tests.fakebot import FakeBotAPI, FakeUser

GROUP = -100321
NAMES = ["Ann", "Bo<b>b", "Cat & Co", "دانا", "Eve", "Fay"]
FSI, PDI = "\u2068", "\u2069"


def seeds() -> list[int]:
    """The seeds to play: ``CHAOS_SEEDS`` (comma-separated), else 0 .. ``CHAOS_GAMES`` - 1."""
    if os.environ.get("CHAOS_SEEDS"):
        return [int(s) for s in os.environ["CHAOS_SEEDS"].split(",")]
    return list(range(int(os.environ.get("CHAOS_GAMES", "6"))))


@dataclass
class Chaos:
    seed: int
    api: FakeBotAPI
    players: list[FakeUser]
    runner: object
    clock: Clock
    rng: random.Random
    game_id: int = 0
    trace: list[str] = field(default_factory=list)
    fired: list[tuple[str, int, int, str]] = field(default_factory=list)  # method, code, chat
    incidents: list[str] = field(default_factory=list)
    paused: bool = False
    kinds: Counter = field(default_factory=Counter)

    # --- helpers ---------------------------------------------------------------------------
    @property
    def service(self):
        return self.runner.app.bot_data[KEY].service

    def note(self, text: str) -> None:
        self.trace.append(text)

    async def settle(self, quiet: float = 0.03) -> None:
        await self.api.settle(quiet=quiet, timeout=60)

    async def game(self):
        return await self.service.get(self.game_id)

    def user(self, user_id: int | None) -> FakeUser | None:
        return next((u for u in self.players if u.id == user_id), None)

    def keyboard(self, user: FakeUser, version: int | None = None):
        """The user's newest private message with move buttons (for ``version``)."""
        for m in reversed(self.api.bot_messages(user.id)):
            v = move_version(self.api, m)
            if v is not None and (version is None or v == version):
                return m
        return None

    def inject(self) -> None:
        method = self.rng.choice(["sendMessage", "sendMessage", "editMessageText"])
        if self.rng.random() < 0.7:
            chat = GROUP
        else:
            chat = self.rng.choice(self.players).id
        kind = self.rng.choices(["502x2", "502x1", "400", "429x1", "429x4"],
                                weights=[4, 2, 3, 1, 0.3])[0]
        code = int(kind[:3])
        count = int(kind[4:]) if "x" in kind else 1
        description = {502: "Bad Gateway", 400: "Bad Request: can't parse entities",
                       429: "Too Many Requests: retry after 1"}[code]

        def when(params: dict, method=method, code=code, chat=chat) -> bool:
            self.fired.append((method, code, chat, str(params.get("text"))[:50]))
            return True

        self.api.fail_next(method, code, description, count=count, chat_id=chat, when=when)
        self.note(f"inject {method} {kind} chat={chat}")

    # --- steps ----------------------------------------------------------------------------
    async def to_act(self):
        """(game, seat, user) of the player to act, ``user`` None for a computer seat."""
        game = await self.game()
        state = game.state or {}
        seat = state.get("turn")
        if game.status != "running" or state.get("over") or seat is None:
            return game, None, None
        return game, seat, self.user(game.at_seat(seat).user_id)

    async def press(self, user: FakeUser, message, data: str, label: str) -> dict:
        qid = await user.press(message, data)
        answer = await self.api.wait_answer(qid, timeout=30)
        await self.settle()
        if "went wrong" in (answer.get("text") or ""):
            self.incidents.append(f"'went wrong' alert after pressing {label!r} ({data})")
        return answer

    async def move_press(self, sensible: bool) -> None:
        game, seat, user = await self.to_act()
        if user is None:
            return
        message = self.keyboard(user, game.version)
        if message is None:
            await self.no_keyboard(game, user)
            return
        current = self.api.get_message(user.id, message.message_id)
        buttons = [(t, d) for t, d in self.api.buttons(current) if d and ":" in d
                   and not d.startswith("http")]
        if not buttons:
            return
        if sensible and any(d.startswith("b:") and d.count(":") == 3 for _, d in buttons):
            data = choose(self.api, current)
            label = next(t for t, d in buttons if d == data)
        else:
            label, data = self.rng.choice(buttons)
        self.note(f"press {user.first_name} {label!r} {data}")
        answer = await self.press(user, current, data, label)
        if answer.get("show_alert"):
            self.note(f"  alert: {answer.get('text')!r}")

    async def typed(self) -> None:
        game, seat, user = await self.to_act()
        if user is None:
            return
        view = GAMES[game.kind].view(game.state, seat)
        low = view["min_bid"]
        amount = low + self.rng.randint(0, 3) if low <= MAX_BID else 5
        if self.rng.random() < 0.1:  # a bid too low
            amount = max(1, low - 1)
        self.note(f"type {user.first_name} {amount} (min {low})")
        await user.send(user.id, str(amount))
        await self.settle()

    async def no_keyboard(self, game, user: FakeUser) -> None:
        """The player to act has no keyboard for the current version: press their newest
        (stale) one, which redraws it, or type a bid."""
        old = self.keyboard(user)
        private_failures = [f for f in self.fired if f[2] == user.id]
        self.incidents.append(
            f"no keyboard for v{game.version} of {user.first_name} (newest: "
            f"{old and move_version(self.api, old)}; private failures fired: "
            f"{len(private_failures)}; step {len(self.trace)})")
        if old is not None and self.rng.random() < 0.5:
            data = next(d for _, d in self.api.buttons(old) if d and ":" in d)
            self.note(f"press stale keyboard of {user.first_name} {data}")
            await self.press(user, old, data, data)
        else:
            await self.typed()

    async def stale_press(self) -> None:
        candidates = []
        game = await self.game()
        for user in self.players:
            for m in self.api.bot_messages(user.id):
                v = move_version(self.api, m)
                if v is not None and v != game.version:
                    candidates.append((user, m))
        if not candidates:
            return
        user, m = self.rng.choice(candidates)
        buttons = [(t, d) for t, d in self.api.buttons(m) if d and ":" in d]
        if not buttons:
            return
        label, data = self.rng.choice(buttons)
        self.note(f"stale press {user.first_name} {label!r} {data}")
        await self.press(user, m, data, label)
        after = await self.game()
        if after.version != game.version and data[0] in "bcxq":
            self.incidents.append(f"a stale press {data} changed the game "
                                  f"(v{game.version} -> v{after.version})")

    async def double_press(self) -> None:
        picked = await self.pick("bc")
        if picked is None:
            return
        game, user, message, data = picked
        self.note(f"double press {user.first_name} {data}")
        one = await user.press(message, data)
        two = await user.press(message, data)
        answers = [await self.api.wait_answer(q, timeout=30) for q in (one, two)]
        await self.settle()
        # (the second tap of a move that was applied: refused, with a toast saying so)
        applied = [a for a in answers if not a.get("show_alert")
                   and a.get("text") != "You already moved this turn."]
        if len(applied) > 1:
            self.incidents.append(f"double press {data} applied twice? {answers}")

    async def leave(self) -> None:
        user = self.rng.choice(self.players)
        self.note(f"/leave {user.first_name}")
        await user.send(GROUP, "/leave")
        await self.settle()

    async def tick(self, seconds: int) -> None:
        self.note(f"clock +{seconds}")
        self.clock.advance(seconds)
        await asyncio.sleep(0.12)  # a sweep tick or two
        await self.settle(quiet=0.15)

    async def restart(self, pressing: bool) -> None:
        if pressing:
            game, seat, user = await self.to_act()
            message = user and self.keyboard(user, game.version)
            if message is not None:
                data = self.rng.choice([d for _, d in self.api.buttons(message)
                                        if d and d[0] in "bc"] or [None])
                if data:
                    self.note(f"press {user.first_name} {data} and restart at once")
                    await user.press(message, data)
        self.note("restart")
        await self.runner.stop()
        await self.runner.start()
        self.runner.app.bot_data[KEY].service.new_seed = lambda: self.seed
        await self.settle(quiet=0.1)

    async def pause_resume(self) -> None:
        admin = self.players[0]
        command = "/resume" if self.paused else "/pause"
        self.note(f"{command}")
        await admin.send(GROUP, command)
        await self.settle()
        self.paused = not self.paused

    async def pick(self, verbs: str):
        """``(game, user, message, data)``: a random button of the player to act whose verb
        is in ``verbs``, on their keyboard for the current version; ``None`` if there is none."""
        game, _seat, user = await self.to_act()
        message = user and self.keyboard(user, game.version)
        if message is None:
            return None
        buttons = [d for _, d in self.api.buttons(message) if d and d[0] in verbs]
        return (game, user, message, self.rng.choice(buttons)) if buttons else None

    def hold_next(self, method: str, when):
        """Hold the next ``method`` call that satisfies ``when`` at the fake server until
        ``release`` is set (then the original handler answers); ``restore`` ends the hold."""
        name = method.lower()
        original = self.api._handlers[name]
        held, release = hold(self.api, method, when)

        def restore() -> None:
            self.api._handlers[name] = original

        return held, release, restore

    async def race(self, holding: bool) -> None:
        """A move whose group note is held at the fake server (``holding``) or not, while
        something else lands: the sweep's timeout or reminder, a /leave, a typed bid, a
        stale press, a restart."""
        picked = await self.pick("bcxq")
        if picked is None:
            return
        game, user, message, data = picked
        meanwhile = self.rng.choice(["timeout", "timeout", "remind", "leave", "typed",
                                     "restart", "pause"])
        self.note(f"race{' (held note)' if holding else ''}: {user.first_name} {data}, "
                  f"meanwhile {meanwhile}")
        if holding:
            held, release, restore = self.hold_next(
                "sendMessage", lambda p: p.get("chat_id") == GROUP)
        qid = await user.press(message, data)
        if holding:
            try:
                await asyncio.wait_for(held.wait(), 2)
            except TimeoutError:
                self.note("  (no group note was sent)")
        stopping = None
        if meanwhile == "timeout":
            self.clock.advance(3601)
        elif meanwhile == "remind":
            self.clock.advance(2701)
        elif meanwhile == "leave":
            other = self.rng.choice(self.players)
            self.note(f"  /leave {other.first_name}")
            await other.send(GROUP, "/leave")
        elif meanwhile == "typed":
            other = self.rng.choice(self.players)
            amount = self.rng.randint(1, 30)
            self.note(f"  type {other.first_name} {amount}")
            await other.send(other.id, str(amount))
        elif meanwhile == "pause":
            command = "/resume" if self.paused else "/pause"
            self.paused = not self.paused
            self.note(f"  {command}")
            await self.players[0].send(GROUP, command)
        else:
            stopping = asyncio.create_task(self.runner.stop())
        await asyncio.sleep(0.25)
        if holding:
            release.set()
            restore()
        if stopping is not None:
            await stopping
            await self.runner.start()
            self.runner.app.bot_data[KEY].service.new_seed = lambda: self.seed
        await self.api.wait_answer(qid, timeout=30)
        await self.settle(quiet=0.15)

    async def overtake(self) -> None:
        """A press whose answer (and so its report) is held at the fake server while the
        clock runs out the turn it created: the sweep's report goes first."""
        picked = await self.pick("bcxq")
        if picked is None:
            return
        game, user, message, data = picked
        self.note(f"overtake: {user.first_name} {data}, its answer held; clock +3601")
        held, release, restore = self.hold_next("answerCallbackQuery", lambda p: True)
        qid = await user.press(message, data)
        try:
            await asyncio.wait_for(held.wait(), 5)
        except TimeoutError:
            self.note("  (no answer?)")
        self.clock.advance(3601)
        await asyncio.sleep(0.4)
        release.set()
        restore()
        await self.api.wait_answer(qid, timeout=30)
        await self.settle(quiet=0.15)

    async def step(self) -> None:
        kind = self.rng.choices(
            ["press", "sensible", "typed", "stale", "double", "leave", "remind", "timeout",
             "restart", "restart_press", "inject", "pause", "race", "held_race", "overtake"],
            weights=[30, 25, 8, 5, 4, 1.5, 3, 5, 1.5, 1, 8, 1.5, 4, 4,
                     float(os.environ.get("CHAOS_OVERTAKE", "0"))])[0]
        self.kinds[kind] += 1
        if kind == "overtake":
            await self.overtake()
        elif kind in ("race", "held_race"):
            await self.race(kind == "held_race")
        elif kind == "press":
            await self.move_press(sensible=False)
        elif kind == "sensible":
            await self.move_press(sensible=True)
        elif kind == "typed":
            await self.typed()
        elif kind == "stale":
            await self.stale_press()
        elif kind == "double":
            await self.double_press()
        elif kind == "leave":
            await self.leave()
        elif kind == "remind":
            await self.tick(2701)
        elif kind == "timeout":
            await self.tick(3601)
        elif kind in ("restart", "restart_press"):
            await self.restart(kind == "restart_press")
        elif kind == "inject":
            self.inject()
        else:
            await self.pause_resume()

    async def check_can_act(self) -> None:
        """The player to act has a keyboard for the current version (incidents otherwise)."""
        game, seat, user = await self.to_act()
        if game.status == "running" and seat is not None and user is None and \
                game.at_seat(seat).user_id is None:
            self.incidents.append(f"a computer seat {seat} is to act at rest (v{game.version})")
        if user is not None and self.keyboard(user, game.version) is None:
            private_failures = [f for f in self.fired if f[2] == user.id]
            if not private_failures:
                self.incidents.append(
                    f"STRICT: no keyboard for v{game.version} of {user.first_name} with no "
                    f"private failure (step {len(self.trace)}: {self.trace[-1:]})")
