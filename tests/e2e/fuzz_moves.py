"""The fuzzer's moves: Coyote's and Koira's turns, and the random steps between checks."""

from __future__ import annotations

import asyncio

from engine import GAMES, Action
from tests.e2e.fuzz_state import (
    COYOTE_MOVES,
    COYOTE_VERBS,
    GROUP,
    FuzzState,
    game_buttons,
    version_on,
)
from tests.e2e.harness import current_of
from tests.e2e.koira_play import carry_out, computer_choice
from tests.e2e.messy_telegram_helpers import plain
from tests.fakebot import FakeUser, StoredMessage


class FuzzMoves(FuzzState):
    """The moves a player makes, and the steps the fuzzer takes at random."""

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
        typed = ""  # (chosen before the tap: a race given up after it would leave it unsettled)
        if meanwhile == "typed" and self.kind == "koira":
            action = computer_choice(game, seat)
            if action.kind != "play":
                return
            typed = " ".join(action.cards)
        elif meanwhile == "typed":
            typed = str(GAMES["coyote"].view(game.state, seat)["min_bid"] + 1)
        self.note(f"race: {user.first_name} taps {data} at v{game.version}, meanwhile "
                  f"{meanwhile}")
        query = await user.press_raw_on(private, data)
        second = None
        if meanwhile == "view":
            second = await user.press_raw_on(other, data)
        elif meanwhile == "typed":
            await user.send(user.id, typed)
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
