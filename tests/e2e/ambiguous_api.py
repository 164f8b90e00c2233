"""A fake Bot API that may act and lose its answer, a table on it, a watch over a game."""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from datetime import UTC, datetime

import pytest
from aiohttp import web

from engine import GAMES
from tests.clock import Clock
from tests.e2e.harness import BotRunner, choose, move_version, press_move, start_game
from tests.e2e.koira_play import carry_out, computer_choice, koira_version, service_of
from tests.fakebot import FakeBotAPI, FakeUser, StoredMessage
from tests.fakebot.models import ApiError

GROUP = -100955
NAMES = ["Ann", "Bob", "Cat", "Dan"]


class AmbiguousAPI(FakeBotAPI):
    """The fake Bot API, where a call may be carried out and then its answer lost:
    ``after(method, mode, when)`` makes the next matching call act, then ``"reset"`` the
    connection, answer ``"502"``/``"500"``, or answer only after the client's read timeout
    (``"timeout"``)."""

    def __init__(self) -> None:
        super().__init__()
        self.rules: list[dict] = []
        self.fired: list[tuple[str, str, dict]] = []

    def after(self, method: str, mode: str, when: Callable[[dict], bool] = lambda p: True,
              count: int = 1) -> None:
        self.rules.append({"method": method.lower(), "mode": mode, "when": when,
                           "count": count})

    async def _read_params(self, request: web.Request) -> dict:
        if "params" not in request:  # (read once: the body cannot be read twice)
            request["params"] = await super()._read_params(request)
        return request["params"]

    async def _handle(self, request: web.Request) -> web.Response:
        name = request.match_info["method"].lower()
        rule = None
        if self.rules and name != "getupdates":
            params = await self._read_params(request)
            rule = next((r for r in self.rules if r["method"] == name and r["count"] > 0
                         and r["when"](params)), None)
            if rule is not None:
                rule["count"] -= 1
                self.fired.append((name, rule["mode"], params))
        response = await super()._handle(request)  # (the call is carried out)
        if rule is None:
            return response
        if rule["mode"] == "reset":
            assert request.transport is not None
            request.transport.abort()
            return response
        if rule["mode"] == "timeout":
            await asyncio.sleep(READ_TIMEOUT * 3)
            return response
        code = int(rule["mode"])
        return web.json_response(ApiError(code, "Bad Gateway" if code == 502 else
                                          "Internal Server Error").to_json(), status=code)


READ_TIMEOUT = 0.4  # the bot's read timeout in these tests (5 s in production)


@asynccontextmanager
async def table(url: str, *, strangers: int = 0, sweep: float = 0.1
                ) -> AsyncIterator[tuple[AmbiguousAPI, list[FakeUser], BotRunner]]:
    clock = Clock(datetime(2026, 5, 4, 9, 0, tzinfo=UTC))
    async with AmbiguousAPI() as api:
        api.add_group(GROUP, "Ambiguous", admins=[1])
        players = [api.add_user(i, n) for i, n in enumerate(NAMES, start=1)]
        for user in players[:len(players) - strangers]:
            await user.start_bot()
        runner = BotRunner(api, url, clock=clock, sweep_interval=sweep)
        await runner.start()
        runner.app.bot._request[1]._read = READ_TIMEOUT  # (a short client read timeout)
        service_of(runner).new_seed = lambda: 7
        try:
            yield api, players, runner
        finally:
            await runner.stop()


def errors(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]


def shown_version(api: FakeBotAPI, message: StoredMessage) -> int | None:
    return move_version(api, message) or koira_version(api, message)


def keyboards(api: FakeBotAPI, user: FakeUser) -> list[StoredMessage]:
    """``user``'s private messages that show move buttons (of any version)."""
    return [m for m in api.bot_messages(user.id) if shown_version(api, m) is not None]


def live_tables(api: FakeBotAPI) -> list[StoredMessage]:
    """Group messages that look like a live table: they carry 🎴 My cards."""
    return [m for m in api.bot_messages(GROUP) if CARDS in [t for t, _ in api.buttons(m)]]


CARDS = "🎴 My cards"


async def wait(condition, timeout: float = 15) -> bool:  # noqa: ASYNC109
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        if loop.time() > deadline:
            return False
        await asyncio.sleep(0.02)
    return True


async def start(api: AmbiguousAPI, players: list[FakeUser], runner: BotRunner,
                command: str = "/newgame") -> int:
    await start_game(api, players, GROUP, command)
    await api.settle(quiet=0.2)
    return (await service_of(runner).open_games_in(GROUP))[0].id


class Watch:
    """Plays a game by the buttons the players see (a player without a private chat by 🎴 on
    the table), noting after each move what players should never see: two keyboards in
    one chat, two live tables, a turn shown to no one."""

    def __init__(self, api: AmbiguousAPI, players: list[FakeUser], runner: BotRunner,
                 game_id: int) -> None:
        self.api, self.players, self.runner, self.game_id = api, players, runner, game_id
        self.faults: list[str] = []

    def note(self, fault: str) -> None:
        if fault not in self.faults:
            self.faults.append(fault)

    async def game(self):
        return await service_of(self.runner).get(self.game_id)

    async def to_act(self) -> FakeUser | None:
        game = await self.game()
        if game.status != "running":
            return None
        seat = GAMES[game.kind].current_seat(game.state)
        return next(u for u in self.players if u.id == game.at_seat(seat).user_id)

    async def step(self) -> bool:
        """One move by the player to act; ``False`` once the game is over."""
        game = await self.game()
        user = await self.to_act()
        if user is None:
            return False
        if not user.started:  # (from the group: 🎴 on the table, then the view's buttons)
            tables = live_tables(self.api)
            if not tables:
                self.note(f"no table for {user.first_name} at v{game.version}")
                return False
            await user.press_and_settle(tables[-1], CARDS, quiet=0.05)
            views = self.api.ephemeral_messages(GROUP, user.id)
            message = views[-1] if views else None
        else:
            def offer() -> StoredMessage | None:
                return next((m for m in reversed(keyboards(self.api, user))
                             if shown_version(self.api, m) == game.version), None)
            if not await wait(lambda: offer() is not None, 8):
                self.note(f"{user.first_name} was never shown their turn at v{game.version}")
                return False
            message = offer()
        assert message is not None
        if game.kind == "koira":
            seat = game.player(user.id).seat
            answer, _ = await carry_out(self.api, user, message, game,
                                        computer_choice(game, seat))
        else:
            answer = await press_move(self.api, user, message, choose(self.api, message))
        assert not answer.get("show_alert"), answer
        await self.api.settle(quiet=0.25)
        for each in self.players:
            if len(keyboards(self.api, each)) > 1:
                self.note(f"{each.first_name} has two keyboards")
        if len(live_tables(self.api)) > 1:
            self.note("two live tables")
        return (await self.game()).status == "running"

    async def play(self) -> None:
        for _ in range(300):
            if not await self.step():
                break
        await self.api.settle(quiet=0.4)
        if (await self.game()).status == "finished":
            for user in self.players:
                if keyboards(self.api, user):
                    self.note(f"{user.first_name} keeps a keyboard after the end")
            if live_tables(self.api):
                self.note("a table looks live after the end")


KINDS = {"coyote": ("/newgame", r"· round 1$", r"· round 2$"),
         "koira": ("/newgame koira", r"· phase 1 \(collecting\)", r"· phase 2 \(shedding\)")}


def headed(api: FakeBotAPI, heading: str) -> list[StoredMessage]:
    """The group's messages with a line matching ``heading`` (a table's heading)."""
    return [m for m in api.bot_messages(GROUP)
            if any(re.search(heading, line.replace("\u2068", "").replace("\u2069", ""))
                   for line in (m.text or "").splitlines())]
