"""The fuzzer's constants, how it reads buttons and hands, and its state: reading, pressing."""

from __future__ import annotations

import asyncio
import os
import random
from collections import Counter
from dataclasses import dataclass, field

from sqlalchemy import text as sql_text

from engine import GAMES
from telegram_app.services import KEY
from tests.clock import Clock
from tests.e2e.harness import BotRunner, wait_for
from tests.e2e.messy_telegram_helpers import plain
from tests.fakebot import FakeBotAPI, FakeUser, StoredMessage
from tests.fakebot.audit import Audit

GROUP = -100_990_001
FSI, PDI = "\u2068", "\u2069"
COYOTE_VERBS = ("b", "c", "cc", "m", "k", "x", "q", "g")
COYOTE_MOVES = ("b", "c", "x", "q")  # (the others draw a second keyboard)
KOIRA_VERBS = ("ky", "kt", "kw", "kh")
POLITE = (
    "That button is out of date", "That was done already", "It is not your turn",
    "This game has changed since", "This game is over", "This game is not running",
    "You are out of this game", "This game has already started or ended",
    "You have already joined", "You are not in this lobby", "Only the host",
    "You already moved", "You are not playing in this game", "You are out of cards",
)
"""Alerts that politely refuse a stale, repeated or wrong press."""
ORDINARY = ("not modified", "not found", "query is too old", "blocked by the user",
            "can't initiate")
"""The fake's refusals the bot expects (an edit that changes nothing, a blocked player…)."""


def game_buttons(api: FakeBotAPI, message: StoredMessage | None, verbs) -> list[tuple[str, str]]:
    if message is None:
        return []
    return [(t.strip(FSI + PDI), d) for t, d in api.buttons(message)
            if d and d.split(":")[0] in verbs]


def version_on(api: FakeBotAPI, message: StoredMessage | None, verbs) -> int | None:
    found = game_buttons(api, message, verbs)
    return int(found[0][1].split(":")[2]) if found else None


KOIRA_SUITS = {"♠": "S", "♥": "H", "♦": "D", "♣": "C"}


def koira_cards(label: str) -> list[str]:
    """The cards of a hand as Koira's texts show it (``3♠️ 9♠️ · 5♥️``)."""
    cards = []
    for word in label.replace("·", " ").replace("\ufe0f", "").split():
        if word[-1:] in KOIRA_SUITS:
            cards.append(word[:-1] + KOIRA_SUITS[word[-1]])
    return cards


@dataclass
class FuzzState:
    """A seed's game under way: what the fuzzer knows, reads and presses."""

    seed: int
    rng: random.Random
    api: FakeBotAPI
    runner: BotRunner
    clock: Clock
    players: list[FakeUser]
    kind: str
    edition: str | None
    specials: bool
    audit: Audit
    game_id: int = 0
    faults: list[str] = field(default_factory=list)
    trace: list[str] = field(default_factory=list)
    steps: Counter = field(default_factory=Counter)
    held: dict[int, set[str]] = field(default_factory=dict)  # Koira: cards each user held
    log_seen: int = 0
    requests_seen: int = 0
    refused_seen: int = 0

    # --- reading ---------------------------------------------------------------------------
    @property
    def service(self):
        return self.runner.app.bot_data[KEY].service

    @property
    def verbs(self):
        return KOIRA_VERBS if self.kind == "koira" else COYOTE_VERBS

    def note(self, text: str) -> None:
        self.trace.append(text)
        if os.environ.get("FUZZ_TRACE"):
            print(f"[{self.seed}] {text}")

    def fault(self, text: str) -> None:
        self.faults.append(f"step {len(self.trace)} ({self.trace[-1] if self.trace else ''})"
                           f": {text}")

    async def settle(self, quiet: float = 0.03) -> None:
        """The bot at rest: the fake's settle, and every update sent so far stored in the
        inbox and done (the fake's settle alone returns while an update fetched is still
        being stored: :func:`test_settle_waits_for_an_update_being_stored`)."""
        for _ in range(500):
            await self.api.settle(quiet=quiet, timeout=60)
            async with self.runner.app.bot_data[KEY].db.sessions() as session:
                stored, undone = (await session.execute(sql_text(
                    "SELECT coalesce(max(id), 0), count(done_at IS NULL OR NULL) "
                    "FROM inbox"))).one()
            if stored >= self.api._next_update_id - 1 and not undone:
                return
            await asyncio.sleep(0.02)
        raise AssertionError("the bot did not come to rest")

    async def game(self):
        return await self.service.get(self.game_id)

    def user(self, user_id: int | None) -> FakeUser | None:
        return next((u for u in self.players if u.id == user_id), None)

    def reachable(self, user: FakeUser) -> bool:
        return user.started and not user.blocked

    async def to_act(self):
        """(game, seat, user): the player to act (``user`` None: none, or a computer)."""
        game = await self.game()
        if game.status != "running":
            return game, None, None
        seat = GAMES[game.kind].current_seat(game.state)
        if seat is None:
            return game, None, None
        return game, seat, self.user(game.at_seat(seat).user_id)

    def keyboards(self, user: FakeUser) -> list[StoredMessage]:
        """The user's private messages carrying move buttons of this game."""
        return [m for m in self.api.bot_messages(user.id)
                if any(d.split(":")[1] == str(self.game_id)
                       for _t, d in game_buttons(self.api, m, self.verbs))]

    def private_turn(self, user: FakeUser, version: int) -> StoredMessage | None:
        found = [m for m in self.keyboards(user) if version_on(self.api, m, self.verbs) == version]
        return found[-1] if found else None

    def view(self, user: FakeUser) -> StoredMessage | None:
        found = self.api.ephemeral_messages(GROUP, user.id)
        return found[-1] if found else None

    def table(self) -> StoredMessage | None:
        tables = [m for m in self.api.bot_messages(GROUP)
                  if any(d and d.startswith("p:") for _t, d in self.api.buttons(m))]
        return tables[-1] if tables else None

    # --- pressing --------------------------------------------------------------------------
    async def press(self, user: FakeUser, message: StoredMessage, data: str, what: str,
                    *, live: bool = False) -> dict:
        """Press and check the answer: a polite one; ``live``: the press is a legal move on
        the player's current keyboard, so it must not be refused at all."""
        try:
            query = await user.press_raw_on(message, data)
        except LookupError as exc:
            self.fault(f"{what}: the message to press is gone ({exc})")
            return {}
        answer = await self.api.wait_answer(query, timeout=30)
        await self.settle()
        self.check_answer(answer, what, live=live)
        return answer

    def check_answer(self, answer: dict, what: str, *, live: bool = False) -> None:
        text = answer.get("text") or ""
        if answer.get("show_alert") and not text.startswith(POLITE):
            self.fault(f"{what} answered with the alert {text!r}")
        elif live and answer.get("show_alert"):
            self.fault(f"{what} (a live move) refused: {text!r}")

    async def open_view(self, user: FakeUser) -> StoredMessage | None:
        """``user`` presses 🎴 on the table: their ephemeral view."""
        table = self.table()
        if table is None:
            return None
        data = next(d for _t, d in self.api.buttons(table) if d.startswith("p:"))
        before = self.view(user)
        answer = await self.press(user, table, data, f"🎴 by {user.first_name}")
        if answer.get("show_alert"):
            return None
        try:
            await wait_for(lambda: self.view(user) is not None
                           and (before is None or self.view(user) is not before
                                or self.view(user).edits > 0), timeout=10)
        except TimeoutError:
            self.fault(f"🎴 by {user.first_name} showed nothing")
        return self.view(user)

    async def turn_message(self, user: FakeUser, version: int, route: str
                           ) -> StoredMessage | None:
        """The message with ``user``'s move buttons at ``version``: their private one
        (``route`` "private"), else 🎴's ephemeral one."""
        if route == "private":
            return self.private_turn(user, version)
        view = self.view(user)
        if version_on(self.api, view, self.verbs) != version:
            view = await self.open_view(user)
        if version_on(self.api, view, self.verbs) != version:
            self.fault(f"🎴 by {user.first_name} (to act at v{version}) shows no moves: "
                       f"{plain(view and view.text)[-120:]!r}")
            return None
        return view
