"""Helpers of the tournament edge tests (places, byes, renames, leaving, two tables; admin
commands, a table's topic, languages): a tournament's sign-up opened as a group would, waiting
for its announcements, a round played, a forum with a topic, a button's callback data."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from league.service import MatchService
from tests.clock import Clock
from tests.e2e.harness import (
    BotRunner,
    choose,
    move_version,
    mover,
    press_move,
    private_turn_message,
    wait_for,
)
from tests.e2e.koira_play import service_of
from tests.e2e.messy_telegram_helpers import plain
from tests.e2e.settings_edges_helpers import now, said
from tests.e2e.test_tournaments import coyote_moves
from tests.fakebot import FakeBotAPI, FakeUser, StoredMessage

__all__ = ["plain", "said", "now", "service_of"]

GROUP = -100370001
DAY = 86400


async def open_signup(api: FakeBotAPI, admin: FakeUser, command: str, presses: list[str],
                      thread_id: int | None = None) -> StoredMessage:
    """``admin`` sends ``command`` and presses ``presses`` on the sign-up message."""
    before = len(said(api, GROUP, "sign-up is open"))
    await admin.send(GROUP, command, thread_id)
    await wait_for(lambda: len(said(api, GROUP, "sign-up is open")) > before)
    await api.settle(quiet=0.05)
    signup = said(api, GROUP, "sign-up is open")[-1]
    for label in presses:
        answer = await admin.press_and_settle(now(api, signup), label, quiet=0.05)
        assert not answer.get("show_alert"), (label, answer)
    return signup


async def told(service: MatchService, cup_id: int, target: int,
               timeout: float = 30) -> None:  # noqa: ASYNC109
    """Wait until tournament ``cup_id`` told the group announcement ``target`` (a round's,
    or ``rounds + 1``: the final one) or later."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while (await service.tournament(cup_id)).told_round < target:
        if loop.time() > deadline:
            raise TimeoutError(f"tournament {cup_id} did not tell announcement {target}")
        await asyncio.sleep(0.02)


def round_news(api: FakeBotAPI, cup_id: int, round_: int, rounds: int) -> list[StoredMessage]:
    return said(api, GROUP, f"tournament #{cup_id}: round {round_} of {rounds}")


async def each_moves_once(api: FakeBotAPI, players: list[FakeUser]) -> None:
    """In a casual game of the group: whoever is to act presses a move, until every one of
    ``players`` moved at least once."""
    moved: set[int] = set()
    for _ in range(40):
        if len(moved) == len(players):
            return
        user = await mover(api, players)
        message = private_turn_message(api, user)
        assert message is not None
        pressed = move_version(api, message) or 0
        answer = await press_move(api, user, message, choose(api, message))
        assert not answer.get("show_alert"), answer
        moved.add(user.id)
        await wait_for(lambda p=pressed: any(private_turn_message(api, u, p) for u in players))
    raise AssertionError("not everyone got a turn")


async def play_round(api: FakeBotAPI, service: MatchService, clock: Clock,
                     humans: list[FakeUser], round_: int) -> None:
    """The humans seated in round ``round_`` of tournament 1 move once each at their tables,
    then the round's deadline passes (the computer finishes the tables)."""
    await told(service, 1, round_)
    await api.settle(quiet=0.05)
    cup = await service.tournament(1)
    seated = {e for t in cup.tables_of(round_) for e in t.entries}
    playing = [u for u in humans if (entry := cup.entry_of(u.id)) is not None
               and entry.id in seated]
    if playing:
        await coyote_moves(api, service, playing, 1, round_, each=1)
    await api.settle(quiet=0.05)
    clock.advance(DAY + 1)


@asynccontextmanager
async def forum(pg_url: str, names: list[str], clock: Clock | None = None
                ) -> AsyncIterator[tuple[FakeBotAPI, list[FakeUser], BotRunner, int]]:
    """A forum supergroup the bot administers (user 1 its admin), players who started the
    bot, the bot, and a topic "Cup" opened by the admin: ``(api, players, runner, topic)``."""
    async with FakeBotAPI() as api:
        api.add_group(GROUP, "Club", type="supergroup", is_forum=True, admins=[1],
                      bot_admin=True)
        players = [api.add_user(i, name) for i, name in enumerate(names, start=1)]
        for user in players:
            await user.start_bot()
        runner = BotRunner(api, pg_url, sweep_interval=0.1,
                           **({"clock": clock} if clock is not None else {}))
        await runner.start()
        try:
            home = api.create_topic(GROUP, "Cup", by=players[0])
            await api.settle(quiet=0.05)
            yield api, players, runner, home
        finally:
            await runner.stop()


async def koira_tables_in_topics(api: FakeBotAPI, players: list[FakeUser], runner: BotRunner,
                                 home: int) -> int:
    """Ann opens a Koira tournament in the topic, the others join, she starts it; returns the
    forum topic of round 1's table 1 once its table is posted there."""
    ann = players[0]
    signup = await open_signup(api, ann, "/tournament koira", [], thread_id=home)
    for user in players[1:]:
        await user.press_and_settle(now(api, signup), "✋ Join", quiet=0.05)
    await ann.press_and_settle(now(api, signup), "▶️ Start", quiet=0.05)
    await wait_for(lambda: bool(said(api, GROUP, "🏆 Tournament #1 · Round 1 · Table 1")))
    await api.settle(quiet=0.05)
    cup = await service_of(runner).tournament(1)
    thread = cup.tables_of(1)[0].thread_id
    assert thread != home and api.chats[GROUP].topics[thread].endswith("Round 1 · Table 1")
    return thread


def data_like(api: FakeBotAPI, message: StoredMessage, pattern: str) -> str:
    """The callback data of ``message``'s first button matching ``pattern`` (a regex)."""
    found = [d for _, d in api.buttons(message) if d and re.fullmatch(pattern, d)]
    assert found, (pattern, api.buttons(message))
    return found[0]


def signup_of(api: FakeBotAPI) -> StoredMessage | None:
    """The group's latest message with a tournament's ✋ Join."""
    return next((m for m in reversed(api.bot_messages(GROUP))
                 if any(d and d.startswith("tj:") for _, d in api.buttons(m))), None)
