"""Shared helpers of the league-screen tests (test_league_screens_*.py): the bot on a
controlled clock in a group, games opened and played through the bot's own match service,
and readers of what the bot sends (final messages, places, standings rows).

The games are played through the bot's own match service (the moves the buttons would make;
the presenter tells the group and the players as it does for a press); what is read is what
the bot sends to the chat in answer to the commands. The clock is the test's; seeds are
fixed. Where a test once failed, its docstring says what the bot did before the fix.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from contextlib import asynccontextmanager
from datetime import UTC, datetime

from engine import GAMES, Action
from league.service import MatchService
from league.store.snapshots import GameSnapshot, UserRef
from telegram_app.services import KEY
from tests.clock import Clock
from tests.e2e.harness import bot_table, wait_for
from tests.fakebot import FakeBotAPI, FakeUser

GROUP = -100515
OTHER = -100516
SUPER = -1005150001
TITLE = "Probes"
WEDNESDAY = datetime(2026, 3, 4, 9, 0, tzinfo=UTC)
COYOTE = GAMES["coyote"]
KOIRA = GAMES["koira"]
PLACE = re.compile(r"^(🥇|🥈|🥉|\d+\.) (\S+)(?: 🐕)?(?: · ([+−]\d+|±0) \(Elo (\d+)(\??)\))?$")


# --- the table, the players, the moves --------------------------------------------------------
def service(runner) -> MatchService:
    return runner.app.bot_data[KEY].service


def ref(user: FakeUser) -> UserRef:
    return UserRef(user.id, user.first_name, user.last_name, user.username)


@asynccontextmanager
async def league(pg_url: str, names: tuple[str, ...] = ("Ann", "Bob", "Cat", "Dan"), *,
                 start: datetime = WEDNESDAY, seed: int = 11):
    """The bot on a controlled clock in ``GROUP`` (Ann its admin), sweeping and looking for
    league posts every 50 ms; every game dealt from ``seed``."""
    clock = Clock(start)
    async with bot_table(pg_url, GROUP, TITLE, list(names), clock=clock, sweep_interval=0.05,
                         league_interval=0.05) as (api, players, runner):
        service(runner).new_seed = lambda: seed
        yield api, players, clock, runner


def coyote_choice(state: dict, seat: int) -> Action:
    """Bid the lowest bid up to 6, then call Coyote."""
    legal = COYOTE.legal_actions(state, seat)
    bids = state["bids"]
    if bids and bids[-1][1] >= 6 and Action("call") in legal:
        return Action("call")
    plain_bids = [a for a in legal if a.kind == "bid" and a.special is None]
    return min(plain_bids, key=lambda a: a.amount or 0) if plain_bids else Action("call")


def choice(game: GameSnapshot, seat: int) -> Action:
    if game.kind == "coyote":
        return coyote_choice(game.state or {}, seat)
    return KOIRA.ai_action(KOIRA.view(game.state or {}, seat), random.Random(game.version))


async def open_game(runner, players: list[FakeUser], kind: str = "coyote",
                    options: dict | None = None, chat: int = GROUP, *,
                    computers: int = 0) -> GameSnapshot:
    """Open a lobby in ``chat`` (the first player its host), seat the others (and
    ``computers`` computer players) and start it."""
    svc = service(runner)
    lobby = await svc.open_lobby(chat, TITLE, 0, ref(players[0]), kind, options or {})
    for user in players[1:]:
        await svc.join(lobby.id, ref(user))
    for _ in range(computers):
        await svc.add_ai(lobby.id, players[0].id)
    return (await svc.start(lobby.id, players[0].id)).game


async def step(runner, game_id: int,
               choose: Callable[[GameSnapshot, int], Action] = choice
               ) -> tuple[int, GameSnapshot]:
    """The human to act makes one move; returns their id and the game after it."""
    svc = service(runner)
    game = await svc.get(game_id)
    seat = GAMES[game.kind].current_seat(game.state or {})
    user_id = game.at_seat(seat).user_id
    assert user_id is not None, "a computer player is to act"
    return user_id, (await svc.act(game.id, user_id, game.version, choose(game, seat))).game


async def play_out(runner, game_id: int,
                   choose: Callable[[GameSnapshot, int], Action] = choice) -> GameSnapshot:
    game = await service(runner).get(game_id)
    for _ in range(3000):
        if game.status != "running":
            return game
        _user, game = await step(runner, game_id, choose)
    raise AssertionError("the game did not end")


async def until_all_moved(runner, game_id: int, who: set[int]) -> GameSnapshot:
    moved: set[int] = set()
    game = await service(runner).get(game_id)
    while not who <= moved:
        user_id, game = await step(runner, game_id)
        moved.add(user_id)
        assert game.status == "running", "the game ended before they all moved"
    return game


async def final_of(api: FakeBotAPI, game_id: int, chat: int = GROUP) -> str:
    """The group's "is over!" message of game ``game_id`` (plain text)."""
    def found() -> list:
        return [m for m in api.find_messages(chat, "is over!") if f"#{game_id} " in
                unmarked(m.text)]
    await wait_for(lambda: bool(found()), timeout=60)
    await api.settle(quiet=0.05)
    return unmarked(found()[-1].text)


def unmarked(text: str | None) -> str:
    """A message's plain text without the bidi isolation marks around names."""
    return (text or "").replace("\u2068", "").replace("\u2069", "")


def places_of(final: str) -> dict[str, tuple[int, str | None, int | None, bool]]:
    """``{name: (place, change, Elo after, provisional)}`` of a final message."""
    medals = {"🥇": 1, "🥈": 2, "🥉": 3}
    found = {}
    for line in final.splitlines():
        match = PLACE.match(line)
        if match:
            mark, name, change, elo, mark_q = match.groups()
            place = medals.get(mark) or int(mark.rstrip("."))
            found[name] = (place, change, int(elo) if elo else None, mark_q == "?")
    return found


async def ask(api: FakeBotAPI, user: FakeUser, command: str, expect: str,
              chat: int = GROUP) -> str:
    before = len(api.find_messages(chat, expect))
    await user.send(chat, command)
    await wait_for(lambda: len(api.find_messages(chat, expect)) > before)
    await api.settle(quiet=0.05)
    return unmarked(api.find_messages(chat, expect)[-1].text)


async def answer_to(api: FakeBotAPI, user: FakeUser, command: str, chat: int = GROUP) -> str:
    """Whatever the bot says next in ``chat`` after ``user`` sends ``command``."""
    before = len(api.bot_messages(chat))
    await user.send(chat, command)
    await wait_for(lambda: len(api.bot_messages(chat)) > before)
    await api.settle(quiet=0.05)
    return api.bot_messages(chat)[-1].text or ""


async def leave(api: FakeBotAPI, user: FakeUser, chat: int = GROUP) -> None:
    before = len(api.find_messages(chat, "leaves the game"))
    await user.send(chat, "/leave")
    await wait_for(lambda: len(api.find_messages(chat, "leaves the game")) > before)
    await api.settle(quiet=0.05)


async def time_out(api: FakeBotAPI, clock: Clock, chat: int = GROUP) -> None:
    """The turn runs out (standard pace) and its player is removed (policy "remove")."""
    before = len(api.find_messages(chat, "is removed from the game"))
    clock.advance(3601)
    await wait_for(lambda: len(api.find_messages(chat, "is removed from the game")) > before)
    await api.settle(quiet=0.05)


def table_rows(text: str) -> dict[str, tuple[int, str, int, int, str, str]]:
    """``{name: (rank, points, games, wins, Elo, change)}`` of a standings text."""
    rows = {}
    for line in text.splitlines():
        match = re.match(r"^(\d+)\. (.+?) · (\S+) · (\d+) · (\d+) · (\d+\??) \((\S+)\)$", line)
        if match:
            rank, name, points, games, wins, elo, change = match.groups()
            rows[name] = (int(rank), points, int(games), int(wins), elo, change)
    return rows


async def remove_on_timeout(runner, chat: int = GROUP) -> None:
    await service(runner).set_chat_setting(chat, TITLE, "timeout_policy", "remove")
