"""Scripted players that play the real bot (:class:`tests.e2e.bot_runner.BotRunner`, re-exported
here) against the fake Bot API by pressing the buttons they see (used by the end-to-end tests and
by ``make demo``)."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from datetime import datetime

from league.store.orm import utcnow
from telegram_app.services import KEY
from tests.e2e.bot_runner import BotRunner
from tests.fakebot import FakeBotAPI, FakeUser, StoredMessage


def visible_sum(text: str) -> int:
    """Sum of the number cards a player's private message shows (specials count 0)."""
    total = 0
    for line in text.splitlines():
        if " · " not in line:
            continue
        for part in line.split(" · ", 1)[1].split(" + "):
            part = part.replace(" face up", "").strip()
            if re.fullmatch(r"[-−]?\d+", part):
                total += int(part.replace("−", "-"))
    return total


def move_version(api: FakeBotAPI, message: StoredMessage) -> int | None:
    """The game version the message's move buttons carry, or ``None`` without move buttons."""
    for _, data in api.buttons(message):
        if data and data.split(":")[0] in MOVE_VERBS:
            return int(data.split(":")[2])
    return None


MOVE_VERBS = ("b", "c", "cc", "m", "k", "x", "q", "g")
"""Coyote's verbs of a player's move keyboards (``telegram_app.games.coyote.keyboards``)."""


def private_turn_message(api: FakeBotAPI, user: FakeUser,
                         newer_than: int = 0) -> StoredMessage | None:
    """The user's newest private message if it carries move buttons (it is their turn) for a
    game version above ``newer_than``."""
    messages = api.bot_messages(user.id)
    if not messages:
        return None
    version = move_version(api, messages[-1])
    return messages[-1] if version is not None and version > newer_than else None


async def wait_for(condition, timeout: float = 30) -> None:  # noqa: ASYNC109
    """Poll ``condition()`` until it is true; raise ``TimeoutError`` after ``timeout`` s."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        if loop.time() > deadline:
            raise TimeoutError("the bot did not get there in time")
        await asyncio.sleep(0.01)


def choose(api: FakeBotAPI, message: StoredMessage) -> str:
    """A simple rule: bid up to the visible sum plus 2, then call Coyote (its 🐺 Coyote!,
    which may ask for a confirmation first: on that keyboard, "Yes": see
    :func:`press_move`)."""
    target = visible_sum(message.text or "") + 2
    buttons = api.buttons(message)
    bids = [(int(d.split(":")[3]), d) for _, d in buttons
            if d and d.startswith("b:") and d.count(":") == 3]
    call = next((d for _, d in buttons if d and d.startswith(("c:", "cc:"))), None)
    if call and (not bids or min(bids)[0] > target):
        return call
    return min(bids)[1]


def confirms(data: str) -> bool:
    """Whether pressing ``data`` asks for a confirmation (🐺 Coyote!'s ``cc``) instead of
    moving."""
    return data.startswith("cc:")


def current_of(api: FakeBotAPI, message: StoredMessage) -> StoredMessage | None:
    """``message`` as the fake server holds it now (an ephemeral message by its own id: its
    ``message_id`` is 0)."""
    if message.is_ephemeral:
        return api.get_ephemeral(message.chat_id, message.ephemeral_id or 0)
    return api.get_message(message.chat_id, message.message_id)


async def confirm_call(api: FakeBotAPI, user: FakeUser, message: StoredMessage, *,
                       quiet: float = 0.02) -> dict:
    """After a press on 🐺 Coyote! that asked for a confirmation: wait for "🐺 Yes, call
    Coyote!" on ``message`` and press it; returns the answer to that press."""
    def yes() -> str | None:
        current = current_of(api, message)
        buttons = api.buttons(current) if current is not None else []
        return next((d for _, d in buttons if d and d.startswith("c:")), None)

    await wait_for(lambda: yes() is not None)
    return await user.press_and_settle(message, yes() or "", quiet=quiet)


async def press_move(api: FakeBotAPI, user: FakeUser, message: StoredMessage, data: str, *,
                     quiet: float = 0.02) -> dict:
    """Press ``data`` on ``message`` as a move; a 🐺 Coyote! that asks for a confirmation is
    confirmed (:func:`confirm_call`). Returns the answer to the last press."""
    answer = await user.press_and_settle(message, data, quiet=quiet)
    if confirms(data) and not answer.get("show_alert"):
        answer = await confirm_call(api, user, message, quiet=quiet)
    return answer


async def play_turn(api: FakeBotAPI, players: list[FakeUser], group_id: int) -> bool:
    """Let whichever player is to act press a button; ``False`` if nobody can act."""
    overs = len(api.find_messages(group_id, "is over!"))  # earlier games' ends do not count

    def ended() -> bool:
        return len(api.find_messages(group_id, "is over!")) > overs

    def offers() -> list[tuple[int, int, FakeUser, StoredMessage]]:
        return [(move_version(api, m) or 0, i, u, m) for i, u in enumerate(players)
                if (m := private_turn_message(api, u)) is not None]

    try:  # right after a start or a showdown the new keyboards may still be on their way
        await wait_for(lambda: bool(offers()) or ended(), timeout=15)
    except TimeoutError:
        return False
    if not offers():
        return False
    # The newest keyboard wins: the previous player's may not have been edited away yet.
    _, _, user, message = max(offers(), key=lambda offer: (offer[0], -offer[1]))
    pressed = move_version(api, message) or 0
    answer = await press_move(api, user, message, choose(api, message))
    assert not answer.get("show_alert"), answer
    # Wait until the next player's keyboard is out (or the game is over), not for a quiet
    # spell: a slow database write must not make the script press a stale button.
    await wait_for(lambda: any(private_turn_message(api, u, pressed) for u in players)
                   or ended())
    return True


async def play_game(api: FakeBotAPI, players: list[FakeUser], group_id: int) -> None:
    """Open a lobby, start it and play the game to its end by buttons (:func:`play_turn`)."""
    before = len(api.find_messages(group_id, "is over!"))
    lobby = await open_lobby(api, players, group_id)
    await players[0].press_and_settle(lobby, "▶️ Start")
    for _ in range(400):
        if len(api.find_messages(group_id, "is over!")) > before:
            return
        assert await play_turn(api, players, group_id)
    raise AssertionError("the game did not end")


async def mover(api: FakeBotAPI, players: list[FakeUser]) -> FakeUser:
    """The player whose private message now carries move buttons (waiting for the bot to
    have drawn exactly one such keyboard)."""
    def found() -> list[FakeUser]:
        # The newest keyboard: a player who moved keeps theirs (out of date) until their
        # next turn (the message economy, README "Playing").
        offers = {u.id: move_version(api, m) or 0 for u in players
                  if (m := private_turn_message(api, u)) is not None}
        return [u for u in players if offers and offers.get(u.id) == max(offers.values())]

    try:
        await wait_for(lambda: len(found()) == 1, timeout=15)
    except TimeoutError:
        raise AssertionError(f"expected one player to act, found {found()}") from None
    return found()[0]


def labels(api: FakeBotAPI, message: StoredMessage) -> list[str]:
    """The visible texts of a message's buttons (bidi isolation marks removed)."""
    return [text.strip("\u2068\u2069") for text, _ in api.buttons(message)]


async def press(api: FakeBotAPI, user: FakeUser, label: str, group_id: int) -> dict:
    """``user`` presses the button ``label`` on their current private message; waits for the
    answer and, for a move, for the next player's keyboard (or the end of the game). A
    🐺 Coyote! that asks for a confirmation is confirmed (:func:`press_move`)."""
    message = private_turn_message(api, user)
    assert message is not None, f"{user.first_name} has no move buttons"
    pressed = move_version(api, message) or 0
    overs = len(api.find_messages(group_id, "is over!"))
    data = next((d for t, d in api.buttons(message) if t.strip("\u2068\u2069") == label), None)
    assert data is not None, f"no button {label!r}: {labels(api, message)}"
    answer = await press_move(api, user, message, data)
    if data.split(":")[0] in ("b", "c", "cc", "x", "q"):
        await wait_for(lambda: any(private_turn_message(api, u, pressed)
                                   for u in api.users.values())
                       or len(api.find_messages(group_id, "is over!")) > overs)
    return answer


async def open_lobby(api: FakeBotAPI, players: list[FakeUser], group_id: int,
                     command: str = "/newgame") -> StoredMessage:
    """The first player opens a lobby and the others join; returns the lobby message."""
    await players[0].send(group_id, command)
    await wait_for(lambda: bool(api.find_messages(group_id, "new game #")))
    await api.settle(quiet=0.05)
    lobby = api.find_messages(group_id, "new game #")[-1]
    for user in players[1:]:
        await user.press_and_settle(lobby, "✋ Join", quiet=0.02)
    return lobby


async def start_game(api: FakeBotAPI, players: list[FakeUser], group_id: int,
                     command: str = "/newgame", *presses: str) -> StoredMessage:
    """Open a lobby (:func:`open_lobby`), press ``presses`` as its host (options such as
    "🪙 Coins: off" turn them on) and start the game; returns the lobby message."""
    lobby = await open_lobby(api, players, group_id, command)
    for label in (*presses, "▶️ Start"):
        await players[0].press_and_settle(api.get_message(group_id, lobby.message_id), label)
    return lobby


async def opens_with_an_impossible_bid(api: FakeBotAPI, players: list[FakeUser],
                                       group_id: int) -> None:
    """Start a game in ``group_id`` (the players join); its first player types a bid of 500,
    which the next one will call."""
    lobby = await open_lobby(api, players, group_id)
    await players[0].press_and_settle(lobby, "▶️ Start")
    first = await mover(api, players)
    await first.send(first.id, "500")
    await wait_for(lambda: bool(api.find_messages(group_id, "bids 500")))
    await api.settle()


def hold(api: FakeBotAPI, method: str, when: Callable[[dict], bool]
         ) -> tuple[asyncio.Event, asyncio.Event]:
    """Hold the first call of ``method`` whose parameters satisfy ``when`` at the fake server
    until the returned ``release`` is set; ``held`` is set once it arrived."""
    held, release = asyncio.Event(), asyncio.Event()
    name = method.lower()
    original = api._handlers[name]

    async def gated(params: dict):
        if not held.is_set() and when(params):
            held.set()
            await release.wait()
        result = original(params)
        if asyncio.iscoroutine(result):
            result = await result
        return result

    api._handlers[name] = gated
    return held, release


async def hold_timeout_note(api: FakeBotAPI, clock, group_id: int,
                            seconds: float = 3601) -> asyncio.Event:
    """Advance ``clock`` past the turn's deadline (standard pace) and wait until the sweep's
    group note of the timeout is held at the fake server; returns the event releasing it."""
    held, release = hold(api, "sendMessage", lambda p: p.get("chat_id") == group_id
                         and "ran out of time" in str(p.get("text")))
    clock.advance(seconds)
    await asyncio.wait_for(held.wait(), 30)
    return release


@asynccontextmanager
async def bot_table(database_url: str, group_id: int, title: str, names: list[str], *,
                    clock: Callable[[], datetime] = utcnow, sweep_interval: float = 5.0,
                    league_interval: float = 60.0, notes: str = "quiet", strangers: int = 0
                    ) -> AsyncIterator[tuple[FakeBotAPI, list[FakeUser], BotRunner]]:
    """A fake Bot API with a group (user 1 its admin) and players who started the bot
    (ids 1, 2, …) but the last ``strangers``, and the real bot running against it.
    ``notes``: the group's ``group_notes`` setting (``"every_move"``: a note per move)."""
    async with FakeBotAPI() as api:
        api.add_group(group_id, title, admins=[1])
        players = [api.add_user(i, name) for i, name in enumerate(names, start=1)]
        for user in players[:len(players) - strangers]:
            await user.start_bot()
        runner = BotRunner(api, database_url, clock=clock, sweep_interval=sweep_interval)
        runner.league_interval = league_interval
        await runner.start()
        # (each /start answered before the test goes on: a welcome sent late, on a slow
        # machine, would be read as the answer to the test's first private command)
        await wait_for(lambda: all(api.bot_messages(u.id)
                                   for u in players[:len(players) - strangers]))
        if notes != "quiet":
            await runner.app.bot_data[KEY].service.set_chat_setting(
                group_id, title, "group_notes", notes)
        try:
            yield api, players, runner
        finally:
            await runner.stop()


TABLE_HEADING = re.compile(r"(🐺 Game #\d+ · round \d+|🐕 Koira #\d+ · )")


def notes(api, group: int, contains: str) -> list[StoredMessage]:
    """The group's messages with ``contains`` that are no table (English headings): a
    quiet group's table, live or closed, lists its hand's moves, so a move is counted in
    the notes that tell it."""
    return [m for m in api.find_messages(group, contains)
            if not TABLE_HEADING.match((m.text or "").replace("\u2068", "").replace("\u2069", ""))]


def assert_no_old_table_live(api, group: int) -> None:
    """After the game no table in the group looks live: no 🎴, no turn, no clock."""
    for message in api.bot_messages(group):
        assert not api.buttons(message) or "is over!" in (message.text or ""), message.text
        assert "Waiting for" not in (message.text or ""), message.text
        assert "Turn ends" not in (message.text or ""), message.text
