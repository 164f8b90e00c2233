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

import asyncio
import logging
import os
import random
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime

from sqlalchemy import text as sql_text

from engine import GAMES, Action
from telegram_app.services import KEY
from tests.clock import Clock
from tests.e2e.harness import BotRunner, current_of, wait_for
from tests.e2e.koira_play import carry_out, computer_choice
from tests.fakebot import FakeBotAPI, FakeUser, StoredMessage
from tests.fakebot.audit import Audit
from tests.fakebot.html_check import parse_html

GROUP = -100_990_001
NAMES = ["Ann", "Bob", "Cat", "Dan", "Eve", "Fay"]
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
KINDS = [("coyote", "classic", False), ("coyote", "classic", True),
         ("coyote", "feathers", False), ("coyote", "feathers", True),
         ("coyote", "poker-deck", False), ("koira", None, False)]


def plain(text: str | None) -> str:
    return (text or "").replace(FSI, "").replace(PDI, "")


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
class Fuzz:
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

    # --- Coyote moves ----------------------------------------------------------------------
    def coyote_pick(self, game, seat: int, buttons: list[tuple[str, str]], sensible: bool
                    ) -> str:
        """A button: ``sensible`` bids low until the bid looks high, then calls; else any."""
        if not sensible:
            return self.rng.choice(buttons)[1]
        view = GAMES["coyote"].view(game.state, seat)
        visible = sum(int(c) for c in view["cards"] if c and c.lstrip("-").isdigit())
        last = game.state["bids"][-1][1] if game.state["bids"] else 0
        bids = sorted((int(d.split(":")[3]), d) for _t, d in buttons if d.startswith("b:"))
        call = next((d for _t, d in buttons if d.split(":")[0] in ("c", "cc")), None)
        if call and (not bids or last > visible + 2 + self.rng.randint(0, 4)):
            return call
        if bids:
            return bids[0][1] if self.rng.random() < 0.8 else self.rng.choice(bids[:4])[1]
        return self.rng.choice(buttons)[1]

    async def coyote_turn(self, game, seat: int, user: FakeUser, message: StoredMessage,
                          double: bool) -> None:
        """Walk ``message``'s keyboards (second keyboards too) until a move is made."""
        for presses in range(8):
            current = current_of(self.api, message)
            buttons = game_buttons(self.api, current, COYOTE_VERBS)
            if current is None or not buttons:
                self.fault(f"{user.first_name}'s keyboard went without a move "
                           f"({'ephemeral' if message.is_ephemeral else 'private'})")
                return
            sensible = presses >= 3 or self.rng.random() < 0.6
            data = self.coyote_pick(game, seat, buttons, sensible)
            label = next(t for t, d in buttons if d == data)
            self.note(f"  press {label!r} {data}")
            if double and data.split(":")[0] in COYOTE_MOVES:
                await self.double_tap(user, current, data)
                return
            answer = await self.press(user, current, data, f"{user.first_name}'s {label!r}",
                                      live=True)
            if answer.get("show_alert"):
                return
            if data.split(":")[0] in COYOTE_MOVES:
                return
        self.fault("no move after 8 presses")

    # --- Koira moves -----------------------------------------------------------------------
    def koira_action(self, game, seat: int) -> Action:
        plays = [a for a in GAMES["koira"].legal_actions(game.state, seat) if a.kind != "pickup"]
        if self.rng.random() < 0.75 or not plays:
            return computer_choice(game, seat)
        return self.rng.choice(plays)  # (not a pick-up: the game must end)

    async def koira_turn(self, game, seat: int, user: FakeUser, message: StoredMessage,
                         double: bool) -> None:
        action = self.koira_action(game, seat)
        self.note(f"  {action}")
        if self.rng.random() < 0.15:  # a tap or two that select cards, then changing one's mind
            taps = [d for _t, d in game_buttons(self.api, message, ("kt",))]
            if taps:
                data = self.rng.choice(taps)
                self.note(f"  select {data}")
                await self.press(user, message, data, f"{user.first_name}'s select", live=True)
                message = current_of(self.api, message) or message
        clear = [d for t, d in game_buttons(self.api, message, ("kt",)) if t.startswith("✖")]
        if clear:  # (a selection left on the keyboard: start afresh)
            await self.press(user, message, clear[0], f"{user.first_name}'s clear", live=True)
            message = current_of(self.api, message) or message
        if double:
            full = game_buttons(self.api, message, ("ky", "kw", "kh"))
            if full:
                await self.double_tap(user, message, self.rng.choice(full)[1])
                return
        try:
            answer, data = await carry_out(self.api, user, message, game, action)
        except (AssertionError, LookupError) as exc:
            self.fault(f"{user.first_name} could not play {action}: {exc}")
            return
        self.check_answer(answer, f"{user.first_name}'s {data}", live=True)
        await self.settle()

    # --- steps -----------------------------------------------------------------------------
    async def double_tap(self, user: FakeUser, message: StoredMessage, data: str) -> None:
        before = (await self.game()).version
        self.note(f"  double tap {data}")
        queries = [await user.press_raw_on(message, data) for _ in range(2)]
        answers = [await self.api.wait_answer(q, timeout=30) for q in queries]
        await self.settle()
        for answer in answers:
            self.check_answer(answer, f"{user.first_name}'s double tap {data}")
        after = (await self.game()).version
        if after == before:
            self.fault(f"a double tap of {data} made no move: {answers}")

    async def move(self, route: str, double: bool = False) -> None:
        game, seat, user = await self.to_act()
        if user is None:
            return
        if route == "private" and not self.reachable(user):
            route = "group"
        self.note(f"{route}{' double' if double else ''}: {user.first_name} at "
                  f"v{game.version}")
        message = await self.turn_message(user, game.version, route)
        if message is None:
            return
        if self.kind == "koira":
            await self.koira_turn(game, seat, user, message, double)
        else:
            await self.coyote_turn(game, seat, user, message, double)
        after = await self.game()
        if after.version == game.version:
            self.fault(f"{user.first_name}'s move ({route}) changed nothing")

    async def typed(self) -> None:
        game, seat, user = await self.to_act()
        if user is None or not self.reachable(user):
            return
        if self.kind == "koira":
            plays = [a for a in GAMES["koira"].legal_actions(game.state, seat)
                     if a.kind == "play"]
            if not plays:
                return
            action = computer_choice(game, seat)
            if action.kind != "play":
                action = self.rng.choice(plays)
            words = []
            for card in action.cards:
                suit = card[-1]
                symbol = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}[suit]
                words.append(card[:-1] + self.rng.choice([suit, suit.lower(), symbol]))
            text = " ".join(words)
        else:
            low = GAMES["coyote"].view(game.state, seat)["min_bid"]
            text = str(low + self.rng.choice([0, 0, 0, 1, 2]))
        self.note(f"typed: {user.first_name} {text!r} at v{game.version}")
        await user.send(user.id, text)
        await self.settle()
        after = await self.game()
        if after.version == game.version:
            said = [(m.message_id, m.from_bot, plain(m.text)[-80:])
                    for m in self.api.messages(user.id)[-3:]]
            self.fault(f"{user.first_name}'s typed {text!r} changed nothing: {said}")

    async def stale(self) -> None:
        game = await self.game()
        candidates = []
        for user in self.players:
            for m in self.keyboards(user):
                if version_on(self.api, m, self.verbs) != game.version:
                    candidates.append((user, m))
            view = self.view(user)
            v = version_on(self.api, view, self.verbs)
            if v is not None and v != game.version:
                candidates.append((user, view))
        for m in self.api.bot_messages(GROUP):  # the lobby, old tables
            if self.api.buttons(m) and m is not self.table():
                for user in self.players:
                    candidates.append((user, m))
        if not candidates:
            return
        user, message = self.rng.choice(candidates)
        buttons = [d for _t, d in self.api.buttons(message) if d and ":" in d
                   and not d.startswith("http")]
        if not buttons:
            return
        data = self.rng.choice(buttons)
        self.note(f"stale: {user.first_name} presses {data} on an older message")
        await self.press(user, message, data, f"{user.first_name}'s stale {data}")
        after = await self.game()
        if after.version != game.version and data.split(":")[0] in self.verbs:
            self.fault(f"the stale press {data} changed the game")

    async def off_turn(self) -> None:
        """Someone not to act presses 🎴: a view of their cards without moves."""
        game, seat, actor = await self.to_act()
        others = [u for u in self.players if u is not actor and game.player(u.id) is not None]
        if not others:
            return
        user = self.rng.choice(others)
        self.note(f"off-turn 🎴: {user.first_name}")
        view = await self.open_view(user)
        if view is not None and game_buttons(self.api, view, self.verbs) and \
                (await self.game()).version == game.version:
            self.fault(f"{user.first_name}'s off-turn 🎴 view has move buttons")

    async def block(self) -> None:
        blocked = [u for u in self.players if u.blocked]
        if blocked and self.rng.random() < 0.6:
            user = self.rng.choice(blocked)
            self.note(f"/start again: {user.first_name}")
            await user.start_bot()
            await self.settle()
            return
        fresh = [u for u in self.players if not u.started]
        if fresh and self.rng.random() < 0.3:
            user = self.rng.choice(fresh)
            self.note(f"/start (first time): {user.first_name}")
            await user.start_bot()
            await self.settle()
            return
        started = [u for u in self.players if self.reachable(u)]
        if started:
            user = self.rng.choice(started)
            self.note(f"block: {user.first_name}")
            user.block_bot()

    async def tick(self, seconds: int) -> None:
        self.note(f"clock +{seconds}")
        self.clock.advance(seconds)
        await asyncio.sleep(0.12)  # a sweep or two
        await self.settle(quiet=0.1)

    def one_tap(self, message: StoredMessage) -> str | None:
        """A button of ``message`` that makes a move in one tap (a bid, a card)."""
        verbs = ("ky", "kw", "kh") if self.kind == "koira" else ("b", "c")
        found = [d for _t, d in game_buttons(self.api, message, verbs)]
        return self.rng.choice(found) if found else None

    async def race(self) -> None:
        """The player to act taps a move while something else lands: the same move on their
        other message (private and 🎴), a typed move, the clock running out, a /start."""
        game, seat, user = await self.to_act()
        if user is None or not self.reachable(user):
            return
        private = self.private_turn(user, game.version)
        if private is None:
            return
        data = self.one_tap(private)
        if data is None:
            return
        meanwhile = self.rng.choice(["view", "typed", "timeout", "start"])
        other = None
        if meanwhile == "view":
            other = await self.turn_message(user, game.version, "group")
            if other is None or data not in [d for _t, d in self.api.buttons(other)]:
                return
        self.note(f"race: {user.first_name} taps {data} at v{game.version}, meanwhile "
                  f"{meanwhile}")
        query = await user.press_raw_on(private, data)
        second = None
        if meanwhile == "view":
            second = await user.press_raw_on(other, data)
        elif meanwhile == "typed":
            if self.kind == "koira":
                action = computer_choice(game, seat)
                if action.kind != "play":
                    return
                await user.send(user.id, " ".join(action.cards))
            else:
                await user.send(user.id, str(GAMES["coyote"].view(game.state, seat)["min_bid"]
                                             + 1))
        elif meanwhile == "timeout":
            self.clock.advance(3601)
        else:
            await user.start_bot()
        answers = [await self.api.wait_answer(q, timeout=30) for q in (query, second) if q]
        await asyncio.sleep(0.15)
        await self.settle(quiet=0.1)
        for answer in answers:
            self.check_answer(answer, f"{user.first_name}'s raced {data}")
        if (await self.game()).version == game.version:
            self.fault(f"the raced tap {data} made no move: {answers}")

    async def step(self) -> None:
        kind = self.rng.choices(
            ["private", "group", "typed", "double", "stale", "off_turn", "block", "remind",
             "timeout", "race"],
            weights=[30, 25, 10, 5, 6, 4, 3, 2, 3, 4])[0]
        self.steps[kind] += 1
        if kind == "race":
            await self.race()
        elif kind in ("private", "group"):
            await self.move(kind)
        elif kind == "double":
            await self.move(self.rng.choice(["private", "group"]), double=True)
        elif kind == "typed":
            await self.typed()
        elif kind == "stale":
            await self.stale()
        elif kind == "off_turn":
            await self.off_turn()
        elif kind == "block":
            await self.block()
        elif kind == "remind":
            await self.tick(2701)
        else:
            await self.tick(3601)

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
