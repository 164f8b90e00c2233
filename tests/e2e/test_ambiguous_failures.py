"""Ambiguous Bot API failures in whole games (a review): Telegram carried a call out but its
answer never came (a reset connection, a client timeout, a 5xx after acting), 429s on the
group's edits, a table an admin deleted ("message to edit not found"), a ping Telegram will
not delete, a player who blocks the bot and /starts it again. What the four players of a
quiet group would see: one table, one keyboard each, one ping a turn, no ERROR. A review's
findings: fixed, or (``xfail``) left, for a send whose answer was lost may or may not have
arrived, and the bot cannot tell (README, Known limits)."""

from __future__ import annotations

import asyncio
import json
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


def pings(api: FakeBotAPI, user: FakeUser, version: int) -> int:
    """Private messages sent to ``user`` with move buttons of ``version`` (its turn's pings)."""
    return sum(r.method.lower() == "sendmessage" and r.params.get("chat_id") == user.id
               and re.search(rf'"callback_data": "[a-z]+:\d+:{version}\b',
                             json.dumps(r.params.get("reply_markup") or {})) is not None
               for r in api.requests)


CARDS = "🎴 My cards"
TABLE_POST = ("sendMessage", lambda p: p.get("chat_id") == GROUP and CARDS in str(
    p.get("reply_markup")))


def nth(n: int, when: Callable[[dict], bool]) -> Callable[[dict], bool]:
    """The ``n``-th call satisfying ``when`` (counted from when the rule is set)."""
    seen = [0]

    def match(params: dict) -> bool:
        if when(params):
            seen[0] += 1
            return seen[0] == n
        return False
    return match


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


def private_move(params: dict) -> bool:
    return (params.get("chat_id") or 0) > 0 and re.search(
        r'"callback_data": "(b|c|cc|ky|kw|kh|kt):', json.dumps(params.get("reply_markup") or {})
    ) is not None


# ------------------------------------------------------------------ findings

LOST_SEND = "a send whose answer was lost may have arrived: the bot cannot tell (Known limits)"


@pytest.mark.xfail(strict=True, reason=LOST_SEND)
@pytest.mark.parametrize("kind,mode", [("coyote", "timeout")])
async def test_a_table_whose_answer_was_lost_is_posted_once(pg_db, pg_url, caplog, kind,
                                                            mode) -> None:
    """The game's first table reaches the group but its answer does not: the group gets a
    second table, and the first keeps its turn and 🎴 for the rest of the game."""
    command, first, _ = KINDS[kind]
    async with table(pg_url) as (api, players, runner):
        api.after(TABLE_POST[0], mode, nth(1, TABLE_POST[1]))
        watch = Watch(api, players, runner, await start(api, players, runner, command))
        await watch.play()
        assert api.fired and (await watch.game()).status == "finished"
        assert len(headed(api, first)) == 1, [m.text for m in headed(api, first)]
        assert not [f for f in watch.faults if "table" in f], watch.faults
        assert errors(caplog) == []


@pytest.mark.parametrize("kind,mode", [("coyote", "timeout"), ("koira", "timeout")])
async def test_a_lost_answer_to_the_next_hands_table_leaves_the_hand_before_closed(
        pg_db, pg_url, kind, mode) -> None:
    """Round 2's (phase 2's) table is posted but its answer is lost: round 1's closed table
    stays closed, with its moves (the bot edited it into round 2's, once), and round 2's
    table comes back with the next move (the one whose answer was lost stays as it was: a
    known limit)."""
    command, first, second = KINDS[kind]
    async with table(pg_url) as (api, players, runner):
        api.after(TABLE_POST[0], mode, nth(2, TABLE_POST[1]))
        watch = Watch(api, players, runner, await start(api, players, runner, command))
        await watch.play()
        assert api.fired and (await watch.game()).status == "finished"
        closed = headed(api, first)
        assert len(closed) == 1 and not api.buttons(closed[0]), [m.text for m in closed]
        assert headed(api, second), [m.text for m in api.bot_messages(GROUP)]


@pytest.mark.parametrize("kind,mode", [("coyote", "timeout"), ("koira", "reset")])
async def test_a_ping_whose_answer_was_lost_leaves_one_keyboard(pg_db, pg_url, kind,
                                                                mode) -> None:
    """A turn's new private message arrives, its answer does not: the player plays on it,
    and its buttons go with the move (it kept them for the whole game, beside each later
    turn's message). A 502 on that send is still sent again (Known limits)."""
    async with table(pg_url) as (api, players, runner):
        game_id = await start(api, players, runner, KINDS[kind][0])
        api.after("sendMessage", mode, nth(2, private_move))
        watch = Watch(api, players, runner, game_id)
        await watch.play()
        assert api.fired and (await watch.game()).status == "finished"
        assert not [f for f in watch.faults if "keyboard" in f], watch.faults


async def test_a_deleted_table_is_posted_again(pg_db, pg_url) -> None:
    """An admin deletes the live table (its edits: "message to edit not found"): the next
    move posts it again, so Dan, who plays from the group, has a table to press 🎴 on (none
    came back until the next round)."""
    async with table(pg_url, strangers=1) as (api, players, runner):
        watch = Watch(api, players, runner, await start(api, players, runner))
        game = await watch.game()
        api.get_message(GROUP, game.table_message_id).deleted = True
        dan = players[3]
        for _ in range(3):
            if await watch.to_act() is dan:
                break
            await watch.step()
        assert await watch.to_act() is dan and not headed(api, KINDS["coyote"][2])
        assert [m for m in api.bot_messages(GROUP) if "your turn" in (m.text or "")]
        assert live_tables(api), [m.text for m in api.bot_messages(GROUP)]


async def test_a_table_edit_whose_answer_timed_out_pings_the_turn_once(pg_db, pg_url) -> None:
    """A move's table edit is carried out, its answer times out: the edit is tried again
    (an edit may be: "not modified" is done), so the move is told and the next player is
    pinged once (the sweep used to ping them a second time)."""
    async with table(pg_url) as (api, players, runner):
        watch = Watch(api, players, runner, await start(api, players, runner))
        await watch.step()
        api.after("editMessageText", "timeout", lambda p: p.get("chat_id") == GROUP
                  and CARDS in str(p.get("reply_markup")))
        await watch.step()
        game, user = await watch.game(), await watch.to_act()
        assert api.fired and user is not None
        await wait(lambda: pings(api, user, game.version) > 1, 5)  # (past delivery.GRACE)
        await api.settle()
        assert pings(api, user, game.version) == 1


async def test_a_ping_that_cannot_be_deleted_does_not_outlive_its_turn(pg_db, pg_url) -> None:
    """Dan (no private chat) is pinged in the group; Telegram refuses to delete the ping
    ("message can't be deleted": older than 48 hours, a paused relaxed game): it is edited
    to say the turn is over (it named Dan to act long after his turn)."""
    async with table(pg_url, strangers=1) as (api, players, runner):
        watch = Watch(api, players, runner, await start(api, players, runner))
        dan = players[3]
        for _ in range(8):
            if await watch.to_act() is dan:
                break
            await watch.step()
        assert await watch.to_act() is dan
        api.fail_next("deleteMessage", 400, "Bad Request: message can't be deleted",
                      chat_id=GROUP, count=3)
        await watch.step()
        assert await watch.to_act() is not dan
        named = [m.text for m in api.bot_messages(GROUP)
                 if "Dan" in (m.text or "") and "your turn" in (m.text or "")]
        assert named == []


# ------------------------------------------------------------------ checked, found right

async def test_edits_and_deletes_whose_answers_were_lost_and_429s_are_harmless(
        pg_db, pg_url, caplog) -> None:
    """Edits and deletes are tried again after a reset or a 502 (Telegram had acted: "not
    modified" / "not found" count as done); a burst of 429s on the table's edits waits.
    Dan plays from the group (his pings are deleted)."""
    async with table(pg_url, strangers=1) as (api, players, runner):
        watch = Watch(api, players, runner, await start(api, players, runner))
        group_edit = TABLE_POST[1]
        for mode in ("reset", "502"):
            api.after("editMessageText", mode, group_edit, count=2)
            api.after("editMessageText", mode, lambda p: (p.get("chat_id") or 0) > 0)
            api.after("deleteMessage", mode, lambda p: p.get("chat_id") == GROUP)
        api.fail_next("editMessageText", chat_id=GROUP, count=3)  # (429, retry after 1)
        await watch.play()
        assert len(api.fired) >= 6 and (await watch.game()).status == "finished"
        assert watch.faults == [] and errors(caplog) == []


async def test_a_player_who_blocks_then_starts_the_bot_again(pg_db, pg_url, caplog) -> None:
    async with table(pg_url) as (api, players, runner):
        watch = Watch(api, players, runner, await start(api, players, runner))
        cat = players[2]
        cat.block_bot()
        for _ in range(4):
            if await watch.to_act() is cat:
                break
            await watch.step()
        assert await watch.to_act() is cat
        assert [m for m in api.bot_messages(GROUP) if "Cat" in (m.text or "")
                and "your turn" in (m.text or "")]
        await cat.start_bot()
        game = await watch.game()
        assert await wait(lambda: [shown_version(api, m) for m in keyboards(api, cat)]
                          == [game.version])
        await watch.play()
        assert watch.faults == [] and errors(caplog) == []
