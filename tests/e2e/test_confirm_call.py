"""🐺 Coyote! ends the round, so it asks once for confirmation on the same message ("🐺 Yes,
call Coyote!" / "↩️ Back"), in the private chat and on an ephemeral message in the group; a
player turns that off for themselves with ``/confirm off`` in the private chat. Through the
real Application, the fake Bot API and PostgreSQL."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from tests.e2e.harness import (
    BotRunner,
    bot_table,
    choose,
    labels,
    move_version,
    mover,
    opens_with_an_impossible_bid,
    private_turn_message,
    wait_for,
)
from tests.fakebot import FakeBotAPI, FakeUser, StoredMessage

GROUP = -100918
CALL = "🐺 Coyote!"
YES = "🐺 Yes, call Coyote!"
BACK = "↩️ Back"
CARDS = "🎴 My cards"
MOVED = "You already moved this turn."  # (a toast: a stale tap of a turn one played)


@pytest.fixture
async def table(pg_db, pg_url: str
                ) -> AsyncIterator[tuple[FakeBotAPI, list[FakeUser], BotRunner]]:
    async with bot_table(pg_url, GROUP, "Careful", ["Ann", "Bob", "Cat"]) as (
            api, players, runner):
        yield api, players, runner


def service(runner: BotRunner):
    from telegram_app.services import KEY

    assert runner.app is not None
    return runner.app.bot_data[KEY].service


def group_requests(api: FakeBotAPI, chat: int = GROUP) -> int:
    """How many requests the bot made about the group's messages (sends, edits, deletes;
    ephemeral messages are not the group's)."""
    return sum(1 for method in ("sendMessage", "editMessageText", "editMessageReplyMarkup",
                                "deleteMessage")
               for r in api.calls(method) if r.params.get("chat_id") == chat
               and r.params.get("receiver_user_id") is None)


def data_of(api: FakeBotAPI, message: StoredMessage, label: str) -> str:
    found = next((d for t, d in api.buttons(message) if t == label), None)
    assert found is not None, f"no {label!r}: {labels(api, message)}"
    return found


async def moved_on(runner: BotRunner, game_id: int, version: int) -> int:
    """Wait until the game's version is above ``version``; returns the new one."""
    for _ in range(1500):
        now = (await service(runner).get(game_id)).version
        if now > version:
            return now
        await asyncio.sleep(0.02)
    raise AssertionError("the game did not move on")


async def test_coyote_asks_back_restores_and_yes_calls(table) -> None:
    api, players, runner = table
    await opens_with_an_impossible_bid(api, players, GROUP)
    caller = await mover(api, players)
    message = private_turn_message(api, caller)
    moves = labels(api, message)
    assert CALL in moves and data_of(api, message, CALL).startswith("cc:")
    game = await service(runner).open_game(GROUP, 0)
    told, private = group_requests(api), len(api.bot_messages(caller.id))

    answer = await caller.press_and_settle(message, CALL, quiet=0.05)
    assert not answer.get("show_alert") and not answer.get("text"), answer
    assert labels(api, message) == [YES, BACK]  # the same message, its keyboard replaced
    assert data_of(api, message, YES) == f"c:{game.id}:{game.version}"
    assert api.calls("editMessageReplyMarkup")[-1].params["chat_id"] == caller.id
    assert (await service(runner).get(game.id)).version == game.version  # nothing changed
    assert group_requests(api) == told and len(api.bot_messages(caller.id)) == private
    assert not api.find_messages(GROUP, "calls Coyote!")

    await caller.press_and_settle(message, BACK, quiet=0.05)
    assert labels(api, message) == moves
    assert (await service(runner).get(game.id)).version == game.version
    assert group_requests(api) == told

    await caller.press_and_settle(message, CALL, quiet=0.05)
    answer = await caller.press_and_settle(message, YES)
    assert not answer.get("show_alert"), answer
    await wait_for(lambda: bool(api.find_messages(GROUP, "calls Coyote!")))
    assert (await service(runner).get(game.id)).version > game.version


async def test_a_yes_left_on_screen_goes_stale_with_the_game(table) -> None:
    """The caller asks, then types a bid instead (typed input needs no confirmation): the
    "Yes" a client still shows is refused (they moved this turn already) and calls nothing."""
    api, players, runner = table
    await opens_with_an_impossible_bid(api, players, GROUP)
    caller = await mover(api, players)
    message = private_turn_message(api, caller)
    game = await service(runner).open_game(GROUP, 0)
    await caller.press_and_settle(message, CALL, quiet=0.05)
    yes = data_of(api, message, YES)
    await caller.send(caller.id, "600")
    after = await moved_on(runner, game.id, game.version)
    await wait_for(lambda: bool(api.find_messages(GROUP, "bids 600")))
    await api.settle()
    stale = await caller.press_raw_on(message, yes)  # (a client that kept the old keyboard)
    answer = await api.wait_answer(stale)
    assert not answer["show_alert"] and answer["text"] == MOVED, answer
    await api.settle()
    assert (await service(runner).get(game.id)).version == after
    assert not api.find_messages(GROUP, "calls Coyote!")


async def _bid_until_their_turn(api: FakeBotAPI, runner: BotRunner, game_id: int,
                                players: list[FakeUser], who: FakeUser) -> StoredMessage:
    """Typed bids (one above the last) by whoever is to act until it is ``who``'s turn with
    a bid to call; returns ``who``'s private message with their move buttons."""
    users = {u.id: u for u in players}
    for _ in range(12):
        game = await service(runner).get(game_id)
        state = game.state or {}
        user = users[game.at_seat(state["turn"]).user_id]
        if user is who and state["bids"]:
            await wait_for(lambda g=game: (m := private_turn_message(api, who)) is not None
                           and move_version(api, m) == g.version)
            message = private_turn_message(api, who)
            assert message is not None
            return message
        last = state["bids"][-1][1] if state["bids"] else 0
        await user.send(user.id, str(last + 1))
        await moved_on(runner, game_id, game.version)
        await api.settle(quiet=0.05)
    raise AssertionError(f"{who.first_name}'s turn never came")


async def test_turned_off_coyote_calls_at_once_in_this_game_and_the_next(table) -> None:
    api, players, runner = table
    await opens_with_an_impossible_bid(api, players, GROUP)
    caller = await mover(api, players)
    message = private_turn_message(api, caller)
    assert data_of(api, message, CALL).startswith("cc:")  # (on by default)
    await caller.send(caller.id, "/confirm off")
    await wait_for(lambda: "calls at once" in (api.bot_messages(caller.id)[-1].text or ""))
    # The button drawn before the change: one press calls.
    answer = await caller.press_and_settle(message, CALL)
    assert not answer.get("show_alert"), answer
    await wait_for(lambda: bool(api.find_messages(GROUP, "calls Coyote!")))
    calls = len(api.find_messages(GROUP, "calls Coyote!"))
    # Its next keyboards carry the call itself; the others' still ask.
    ann = players[0]
    await ann.send(GROUP, "/cancel")
    await wait_for(lambda: bool(api.find_messages(GROUP, "was cancelled")))
    await api.settle()
    seen = {m.message_id for m in api.bot_messages(GROUP)}
    await ann.send(GROUP, "/newgame")
    await wait_for(lambda: any(m.message_id not in seen
                               for m in api.find_messages(GROUP, "new game #")))
    await api.settle(quiet=0.05)
    lobby = api.find_messages(GROUP, "new game #")[-1]
    for user in players[1:]:
        await user.press_and_settle(lobby, "✋ Join", quiet=0.02)
    await ann.press_and_settle(api.get_message(GROUP, lobby.message_id), "▶️ Start")
    game = await service(runner).open_game(GROUP, 0)
    message = await _bid_until_their_turn(api, runner, game.id, players, caller)
    assert data_of(api, message, CALL) == f"c:{game.id}:{move_version(api, message)}"
    answer = await caller.press_and_settle(message, CALL)
    assert not answer.get("show_alert"), answer
    await wait_for(lambda: len(api.find_messages(GROUP, "calls Coyote!")) > calls)
    for other in players:  # (each their own: the others kept the default)
        assert await service(runner).confirms_ending(other.id) is (other is not caller)
    # /confirm alone says how it is set; /confirm on brings the question back.
    asked = await caller.send(caller.id, "/confirm")
    await wait_for(lambda: api.bot_messages(caller.id)[-1].reply_to == asked.message_id)
    assert "calls at once" in (api.bot_messages(caller.id)[-1].text or "")
    await caller.send(caller.id, "/confirm on")
    await wait_for(lambda: "asks you to confirm" in (api.bot_messages(caller.id)[-1].text
                                                     or ""))
    assert await service(runner).confirms_ending(caller.id)
    assert await service(runner).confirms_ending(999)  # (someone unknown: the default)


async def test_confirm_in_a_group_is_a_hint(table) -> None:
    api, players, runner = table
    await players[1].send(GROUP, "/confirm off")
    await wait_for(lambda: bool(api.find_messages(GROUP, "in a private chat")))
    assert await service(runner).confirms_ending(players[1].id)  # unchanged


# --- from the group: an ephemeral message -------------------------------------------------
@pytest.fixture
async def group_table(pg_db, pg_url: str
                      ) -> AsyncIterator[tuple[FakeBotAPI, list[FakeUser], BotRunner]]:
    """Ann and Bob started the bot; Dan never did: he plays through 🎴."""
    async with FakeBotAPI() as api:
        api.add_group(GROUP, "Group night", admins=[1])
        players = [api.add_user(i, name) for i, name in enumerate(["Ann", "Bob", "Dan"], 1)]
        for user in players[:2]:
            await user.start_bot()
        runner = BotRunner(api, pg_url)
        await runner.start()
        try:
            yield api, players, runner
        finally:
            await runner.stop()


def live(api: FakeBotAPI, user: FakeUser) -> StoredMessage | None:
    found = api.ephemeral_messages(GROUP, user.id)
    return found[-1] if found else None


def table_message(api: FakeBotAPI) -> StoredMessage:
    return [m for m in api.bot_messages(GROUP) if any(t == CARDS for t, _ in api.buttons(m))][-1]


async def dan_turn(api: FakeBotAPI, dan: FakeUser, version: int) -> StoredMessage:
    """Dan's ephemeral message with his move buttons at ``version`` (🎴 for a new one)."""
    def ready() -> StoredMessage | None:
        message = live(api, dan)
        return message if message is not None and move_version(api, message) == version \
            else None

    await api.settle(quiet=0.05)
    if ready() is None:
        answer = await dan.press_and_settle(table_message(api), CARDS, quiet=0.05)
        assert not answer.get("show_alert"), answer
        await wait_for(lambda: ready() is not None)
    found = ready()
    assert found is not None
    return found


async def test_on_an_ephemeral_message_in_the_group(group_table) -> None:
    api, players, runner = group_table
    ann, bob, dan = players
    await ann.send(GROUP, "/newgame")
    await wait_for(lambda: bool(api.find_messages(GROUP, "new game #")))
    await api.settle(quiet=0.05)
    lobby = api.find_messages(GROUP, "new game #")[-1]
    for user in (bob, dan):
        await user.press_and_settle(lobby, "✋ Join", quiet=0.02)
    await ann.press_and_settle(api.get_message(GROUP, lobby.message_id), "▶️ Start")
    game = await service(runner).open_game(GROUP, 0)
    users = {u.id: u for u in players}
    for _ in range(12):  # bids until Dan is to act with a bid to call
        game = await service(runner).get(game.id)
        state = game.state or {}
        user = users[game.at_seat(state["turn"]).user_id]
        if user is dan and state["bids"]:
            break
        if user is dan:
            message = await dan_turn(api, dan, game.version)
            await dan.press_and_settle(message, choose(api, message), quiet=0.05)
        else:
            await user.send(user.id, str((state["bids"][-1][1] if state["bids"] else 0) + 1))
        await moved_on(runner, game.id, game.version)
    else:
        raise AssertionError("Dan's turn with a bid never came")
    message = await dan_turn(api, dan, game.version)
    moves = labels(api, message)
    told = group_requests(api)

    answer = await dan.press_and_settle(message, CALL, quiet=0.05)
    assert not answer.get("show_alert"), answer
    assert live(api, dan) is message and labels(api, message) == [YES, BACK]
    assert api.calls("editEphemeralMessageReplyMarkup")
    assert (await service(runner).get(game.id)).version == game.version
    assert group_requests(api) == told  # nobody else saw anything

    await dan.press_and_settle(message, BACK, quiet=0.05)
    assert labels(api, message) == moves
    await dan.press_and_settle(message, CALL, quiet=0.05)
    answer = await dan.press_and_settle(message, YES)
    assert not answer.get("show_alert"), answer
    await wait_for(lambda: bool(api.find_messages(GROUP, "calls Coyote!")))
    assert not api.bot_messages(dan.id)  # never his private chat
