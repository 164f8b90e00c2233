"""The soak's scripted players: four to a group, they open a game and press for whoever has
the newest keyboard until it ends, counting what they do (and what stalls) in
:class:`Figures`, the figures the soak reports."""

from __future__ import annotations

import asyncio
import random
from dataclasses import dataclass, field

from tests.e2e.harness import choose, confirms, move_version, wait_for
from tests.fakebot import FakeBotAPI, FakeUser

STALL = 20.0  # seconds without a new keyboard before a player presses the same one again


@dataclass
class Figures:
    games: int = 0
    finished: int = 0
    stalls: int = 0
    presses: list[str] = field(default_factory=list)
    kills: int = 0
    forged: list[str] = field(default_factory=list)
    junk: int = 0
    repeats: int = 0
    outage_answers: int = 0
    outage_presses: int = 0
    recovery: float | None = None


async def drain(api: FakeBotAPI, figures: Figures, seconds: float = 60) -> None:
    """Give the bot time to answer every press made so far (before it stops): as long as
    the answers still come (at least one in every ``seconds``), up to 10 minutes. The fuzz
    phase's 5,000 forged presses arrive in a burst, faster than a shared machine handles
    them: when the games end, some 1,700 may wait in the inbox (seed 11, 2026-12-02), which
    the bot works through at some 30 a second. A fixed minute counted the tail of that
    backlog as unanswered (72 of 5,000) although nothing was lost."""
    queries = [*figures.presses, *figures.forged]
    loop = asyncio.get_running_loop()
    give_up = loop.time() + 600
    while loop.time() < give_up:
        left = sum(api.callback_answer(q) is None for q in queries)
        if not left:
            return
        try:
            await wait_for(lambda n=left: sum(api.callback_answer(q) is None
                                              for q in queries) < n, timeout=seconds)
        except TimeoutError:
            return  # no progress for a while: the rest is counted as unanswered


def turn_message(api: FakeBotAPI, user: FakeUser, newer_than: int = 0):  # noqa: ANN201
    """The user's newest private message with move buttons, if for a version above
    ``newer_than``, however many messages follow it: the bot's answers to the junk a player
    sends in the fuzz phase may bury it (a person scrolls up). Looking only among the last
    six stalled a game for good once a dozen replies to junk followed the keyboard (seed 11:
    1 of the 2 fuzz games stuck; the fuzz phase alone: both); the bot closes an old
    keyboard when it sends a new one, so the newest with buttons is the current one."""
    for message in reversed(api.bot_messages(user.id)):
        version = move_version(api, message)
        if version is not None:
            return message if version > newer_than else None
    return None


def over(api: FakeBotAPI, group: int) -> bool:
    return bool(api.find_messages(group, "is over!"))


async def play(api: FakeBotAPI, group: int, players: list[FakeUser], figures: Figures,
               deadline: float, rng: random.Random,
               think: tuple[float, float] = (0.0, 0.05)) -> None:
    """Press for whoever has the newest keyboard, ``think`` seconds (drawn uniformly between
    the two) after it appears, until the game ends."""
    loop = asyncio.get_running_loop()
    pressed, since = 0, loop.time()
    while loop.time() < deadline:
        if over(api, group):
            figures.finished += 1
            return
        offers = [(move_version(api, m) or 0, i, u, m) for i, u in enumerate(players)
                  if (m := turn_message(api, u, pressed)) is not None]
        if not offers:
            if loop.time() - since > STALL:  # a lost move, or one never shown: press again
                figures.stalls += 1
                pressed, since = 0, loop.time()
            await asyncio.sleep(0.05)
            continue
        version, _, user, message = max(offers, key=lambda o: (o[0], -o[1]))
        await asyncio.sleep(rng.uniform(*think))
        # (the keyboard as it is after the thought: a restart may have redrawn it)
        message = turn_message(api, user, pressed) or message
        try:
            data = choose(api, message)
            figures.presses.append(await user.press(message, data))
        except (LookupError, ValueError):
            await asyncio.sleep(0.05)
            continue
        if confirms(data):  # 🐺 Coyote! asks first: "Yes" on the same message, pressed next
            try:
                await wait_for(lambda m=message: any(
                    d and d.startswith("c:") for _, d in api.buttons(m)), timeout=STALL)
            except TimeoutError:
                pass  # (lost to a kill, say: the same keyboard is pressed again)
            continue
        pressed, since = version, loop.time()


async def open_game(api: FakeBotAPI, group: int, players: list[FakeUser]) -> None:
    """The first player opens a lobby, the others join, the first starts it."""
    await players[0].send(group, "/newgame")
    await wait_for(lambda: bool(api.find_messages(group, "new game #")), timeout=120)
    lobby = api.find_messages(group, "new game #")[-1]
    for user in players[1:]:
        await wait_for(lambda: bool(api.buttons(api.get_message(group, lobby.message_id))),
                       timeout=120)
        query = await user.press(api.get_message(group, lobby.message_id), "✋ Join")
        await api.wait_answer(query, timeout=120)
    await wait_for(lambda: all(p.first_name in (api.get_message(group, lobby.message_id).text
                                                or "") for p in players), timeout=120)
    query = await players[0].press(api.get_message(group, lobby.message_id), "▶️ Start")
    await api.wait_answer(query, timeout=120)


def groups_of(api: FakeBotAPI, count: int, first_user: int, base: int) -> list[
        tuple[int, list[FakeUser]]]:
    made = []
    for g in range(count):
        group = base - g
        users = [api.add_user(first_user + 4 * g + i, f"P{g}x{i}") for i in range(4)]
        api.add_group(group, f"Soak {g}", admins=[users[0].id])
        made.append((group, users))
    return made
