"""The throughput bench's scripted players: four to a group, they open, join and start a
game, then press each keyboard as it appears, timing each press to the next keyboard in a
:class:`Tally`. They wait on the fake Bot API's changes rather than poll it: the CPU that
polling spends is taken from the bot, on a shared machine, and lengthens what is measured."""

from __future__ import annotations

import asyncio
import contextlib
import re
import time
from dataclasses import dataclass, field

from tests.e2e.harness import MOVE_VERBS, choose, confirms, move_version
from tests.fakebot import FakeBotAPI, FakeUser, StoredMessage

POLL = 0.01


@dataclass
class Tally:
    presses: int = 0
    confirms: int = 0  # 🐺 Coyote!'s first presses (a press, no move: "Yes" is the move)
    latencies: list[float] = field(default_factory=list)  # press -> next keyboard, seconds
    pressed: list[tuple[str, int, float]] = field(default_factory=list)
    """The measured presses: (callback query id, update id, monotonic time of the press)."""
    measuring: bool = False
    playing: set[int] = field(default_factory=set)  # groups that have pressed once


async def wait_until(api: FakeBotAPI, condition, timeout: float = 120) -> bool:  # noqa: ASYNC109
    """Wait for ``condition``, looked at again whenever the fake's state may have changed
    (a request started or ended): no polling, whose CPU the bot would share."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        await api.next_activity(POLL)
    return True


class Changes:
    """Wakes whoever waits on a chat when the fake Bot API's log shows a change in it.

    Every message the bot sends, edits or deletes, and every answer to a press, is an entry
    of ``api.log`` with its chat, made before the request ends; so a group, whose conditions
    read only its own chat and its players' private chats, is woken a few times a move
    rather than at each request of the fake (each of the fifty groups then re-reading its
    players' messages was most of this process's CPU, which the bot shares)."""

    def __init__(self, api: FakeBotAPI) -> None:
        self.api = api
        self.seen = len(api.log)
        self.waiting: dict[int, set[asyncio.Event]] = {}

    async def run(self) -> None:
        """Read the log's new entries whenever a request of the fake starts or ends."""
        while True:
            await self.api.next_activity(1.0)
            log = self.api.log
            if len(log) == self.seen:
                continue
            chats = {entry.chat_id for entry in log[self.seen:]}
            self.seen = len(log)
            for chat in chats:
                for event in self.waiting.get(chat, ()) if chat is not None else ():
                    event.set()

    async def until(self, chats: list[int], condition,
                    timeout: float = 120) -> bool:  # noqa: ASYNC109
        """Wait for ``condition``, which reads only ``chats``: looked at again when one of
        them changes (and each second, should a change escape the log)."""
        deadline = time.monotonic() + timeout
        while not condition():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            event = asyncio.Event()
            for chat in chats:
                self.waiting.setdefault(chat, set()).add(event)
            try:
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(min(remaining, 1.0)):
                        await event.wait()
            finally:
                for chat in chats:
                    self.waiting[chat].discard(event)
        return True


def _keyboard(api: FakeBotAPI, players: list[FakeUser], above: int, game: int):
    """The newest private message of game ``game`` with move buttons above version
    ``above``, if any. (Of that game: a player knocked out of the last game kept its last
    message with buttons, and the bench pressed it at the next game's start, as the first
    move; each group then stalled until the end of the window: about half of the no-delay
    setting's time, the "unexplained gap" of earlier figures.)"""
    best = None
    for user in players:
        messages = api.bot_messages(user.id)
        if messages and (version := move_version(api, messages[-1])) is not None \
                and version > above and (best is None or version > best[0]) \
                and _game_of(api, messages[-1]) == game:
            best = (version, user, messages[-1])
    return best


def _game_of(api: FakeBotAPI, message: StoredMessage) -> int | None:
    """The game id a message's move buttons carry (``verb:game:version:…``)."""
    for _, data in api.buttons(message):
        if data and data.split(":")[0] in MOVE_VERBS:
            return int(data.split(":")[1])
    return None


async def play_group(api: FakeBotAPI, changes: Changes, group: int, players: list[FakeUser],
                     think: float, tally: Tally, stop: asyncio.Event) -> None:
    """Play games in ``group`` until ``stop``: open, join, start, then press each keyboard
    as it appears (after ``think`` seconds)."""
    everyone = [group, *(user.id for user in players)]  # the chats the conditions read
    while not stop.is_set():
        lobbies = len(api.find_messages(group, "new game #"))
        await players[0].send(group, "/newgame")
        if not await changes.until(
                [group], lambda n=lobbies: len(api.find_messages(group, "new game #")) > n):
            return
        lobby = api.find_messages(group, "new game #")[-1]
        found_id = re.search(r"new game #(\d+)", lobby.text or "")
        if found_id is None:
            return
        game = int(found_id.group(1))
        for user, label in [*((user, "✋ Join") for user in players[1:]),
                            (players[0], "▶️ Start")]:
            query = await user.press(lobby, label)
            if not await changes.until([group], lambda q=query: api.callback_answer(q)
                                       is not None):
                return
        overs = len(api.find_messages(group, "is over!"))
        pressed = 0

        def over(overs: int = overs) -> bool:
            return any("is over!" in (m.text or "") for m in api.bot_messages(group)[-3:]) \
                and len(api.find_messages(group, "is over!")) > overs

        while not stop.is_set():
            if not await changes.until(everyone, lambda v=pressed, g=game:
                                       _keyboard(api, players, v, g) or over()):
                return
            found = _keyboard(api, players, pressed, game)
            if found is None:
                break  # the game is over: the next one
            if think:
                await asyncio.sleep(think)
            version, user, message = found
            data = choose(api, message)
            start = time.monotonic()
            try:
                query = await user.press(message, data)
            except LookupError:
                continue
            if confirms(data):  # 🐺 Coyote! asks first: no move, "Yes" on the same message
                tally.playing.add(group)  # (pressed next, as the move: choose picks it)
                if tally.measuring:
                    tally.confirms += 1
                if not await changes.until([message.chat_id, group], lambda m=message: any(
                        d and d.startswith("c:") for _, d in api.buttons(m)) or over()):
                    return
                continue
            pressed = version
            tally.playing.add(group)
            if tally.measuring:
                tally.presses += 1
                # (press enqueues its update at once, awaiting nothing: the newest id is its)
                tally.pressed.append((query, api._next_update_id - 1, start))
            if not await changes.until(everyone, lambda v=pressed, g=game:
                                       _keyboard(api, players, v, g) or over()):
                return
            if tally.measuring:
                tally.latencies.append(time.monotonic() - start)
