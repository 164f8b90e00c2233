"""One keen player (Ann, who reads Spanish) seated in several games at once — Coyote in a
Korean group, Koira in a Japanese group, Coyote in an English forum's topic — with Bob and
Cat (English): typed bids and replies in the private chat, reminders and timeouts of one
game while she plays another, /language, /leave of one game. The first two tests are a
review's findings, fixed: a reply to a closed game's message moved another game, and a
typed move's hint did not say which game it was read for."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime

import pytest

from engine import GAMES
from tests.clock import Clock
from tests.e2e.harness import BotRunner, wait_for
from tests.e2e.koira_play import service_of
from tests.e2e.test_koira_with_coyote import _move, turn_message
from tests.english_check import log_faults
from tests.fakebot import FakeBotAPI, FakeUser, StoredMessage

A, B, C = -100771, -100772, -1007730  # Korean group, Japanese group, English forum
LANGUAGES = {A: "ko", B: "ja", C: "en"}
TITLES = {A: "알파", B: "ベータ", C: "Gamma"}
NAMES = ("Ann", "Bob", "Cat", "Coyote night", "Gamma")


def plain(text: str | None) -> str:
    return (text or "").replace("\u2068", "").replace("\u2069", "")


def data_of(api: FakeBotAPI, message: StoredMessage, verb: str) -> str | None:
    return next((d for _, d in api.buttons(message) if d and d.split(":")[0] == verb), None)


async def tap(api: FakeBotAPI, user: FakeUser, message: StoredMessage, verb: str) -> dict:
    """``user`` presses the button of ``verb`` on ``message`` (whatever its language)."""
    current = api.get_message(message.chat_id, message.message_id)
    data = data_of(api, current, verb)
    assert data is not None, (verb, api.buttons(current))
    return await user.press_and_settle(current, data, quiet=0.03)


async def open_game(api: FakeBotAPI, host: FakeUser, others: list[FakeUser], chat: int,
                    command: str, thread: int | None = None, ais: int = 0) -> int:
    """``host`` opens a lobby with ``command``, ``others`` join, ``ais`` computers are
    added, ``host`` starts it: its id."""
    before = {m.message_id for m in api.bot_messages(chat)}
    await host.send(chat, command, thread_id=thread)

    def lobby() -> StoredMessage | None:
        return next((m for m in api.bot_messages(chat) if m.message_id not in before
                     and data_of(api, m, "j")), None)
    await wait_for(lambda: lobby() is not None)
    message = lobby()
    assert message is not None
    game_id = int((data_of(api, message, "j") or "").split(":")[1])
    for user in others:
        await tap(api, user, message, "j")
    for _ in range(ais):
        await tap(api, host, message, "a")
    await tap(api, host, message, "s")
    return game_id


async def to_act(runner: BotRunner, game_id: int) -> int | None:
    game = await service_of(runner).get(game_id)
    seat = GAMES[game.kind].current_seat(game.state)
    return None if seat is None else game.at_seat(seat).user_id


async def version(runner: BotRunner, game_id: int) -> int:
    return (await service_of(runner).get(game_id)).version


async def others_move_until(api: FakeBotAPI, runner: BotRunner, users: list[FakeUser],
                            games: tuple[int, ...], wanted: dict[int, bool]) -> None:
    """The players move (by their buttons) until it is Ann's turn exactly in the games
    ``wanted`` maps to ``True`` (Ann moves only where she must not be on turn)."""
    people = {u.id: u for u in users}
    for _ in range(150):
        turns = {g: await to_act(runner, g) for g in games}
        if all((turns[g] == 1) == on for g, on in wanted.items()):
            await api.settle(quiet=0.1)
            return
        # Ann moves where she must not be on turn; else the others move where they are
        order = [g for g in games if turns[g] == 1 and not wanted.get(g, True)] + \
            [g for g in games if turns[g] not in (None, 1)]
        if not order:
            raise AssertionError(f"stuck: {turns}")
        await _move(api, runner, people, order[0])
    raise AssertionError("never reached")


def reply(api: FakeBotAPI, user: FakeUser, to: StoredMessage, text: str) -> None:
    """``user`` answers ``to`` (a message of their private chat) with ``text``."""
    message = api.store_message(api.private_chat(user), from_bot=False, sender_id=user.id,
                                text=text, entities=[], reply_to=to.message_id)
    api.enqueue_update({"message": api.message_dict(message)})


def found(api: FakeBotAPI, chat: int, text: str) -> list[StoredMessage]:
    """The bot's messages in ``chat`` holding ``text`` (bidi marks around names ignored)."""
    return [m for m in api.bot_messages(chat) if text in plain(m.text)]


def answers_after(api: FakeBotAPI, user: FakeUser, count: int) -> list[str]:
    return [plain(m.text) for m in api.bot_messages(user.id)[count:]]


@asynccontextmanager
async def three_groups(url: str, titles: dict[int, str], languages: dict[int, str],
                       forum: int, cat_language: str
                       ) -> AsyncIterator[tuple[FakeBotAPI, tuple[FakeUser, ...], Clock,
                                                BotRunner]]:
    """Three groups (``forum`` a forum supergroup; Ann admin of each) set to ``languages``;
    Ann (es), Bob (en) and Cat (``cat_language``) started the bot; the bot on a controlled
    clock sweeping every 50 ms, with fixed seeds."""
    clock = Clock(datetime(2026, 5, 4, 9, 0, tzinfo=UTC))
    async with FakeBotAPI() as api:
        for chat, title in titles.items():
            api.add_group(chat, title, type="supergroup" if chat == forum else "group",
                          is_forum=chat == forum, admins=[1])
        ann = api.add_user(1, "Ann", language_code="es")
        bob = api.add_user(2, "Bob", language_code="en")
        cat = api.add_user(3, "Cat", language_code=cat_language)
        for user in (ann, bob, cat):
            await user.start_bot()
        runner = BotRunner(api, url, clock=clock, sweep_interval=0.05)
        await runner.start()
        service = service_of(runner)
        service.new_seed = lambda: 5
        for chat, title in titles.items():
            await service.set_chat_setting(chat, title, "language", languages[chat])
        try:
            yield api, (ann, bob, cat), clock, runner
        finally:
            await runner.stop()


@pytest.fixture
async def world(pg_db, pg_url):
    """Three groups in three languages (Ann admin of each), Ann (es), Bob and Cat (en)."""
    async with three_groups(pg_url, TITLES, LANGUAGES, C, "en") as world:
        yield world


async def test_a_reply_to_a_closed_games_message_moves_no_other_game(world) -> None:
    """Ann answers game #2's message with "9" (as README says: reply to that game's
    message); game #2 was just closed (here cancelled; a timeout's computer move that ends
    it does the same). It was bid in game #1, in another group, where it was her turn; now
    it moves nothing, and her answer says game #2 is over."""
    api, (ann, bob, cat), clock, runner = world
    topic = api.create_topic(C, "Coyote night", ann)
    await api.settle(quiet=0.05)
    g1 = await open_game(api, ann, [bob, cat], A, "/newgame")
    g2 = await open_game(api, bob, [ann, cat], C, "/newgame", thread=topic)
    await others_move_until(api, runner, [ann, bob, cat], (g1, g2), {g1: True, g2: False})
    mine = (await service_of(runner).get(g2)).player(ann.id).private_message_id
    await ann.send(C, "/cancel", thread_id=topic)  # (an admin ends game #2)
    await wait_for(lambda: "#2" in plain(api.get_message(ann.id, mine).text)
                   and not api.buttons(api.get_message(ann.id, mine)))
    await api.settle(quiet=0.1)
    before, seen = await version(runner, g1), len(api.bot_messages(ann.id))
    reply(api, ann, api.get_message(ann.id, mine), "9")
    await api.settle(quiet=0.3)
    bids = [m for m in api.bot_messages(A) if "9" in plain(m.text) and "Ann" in plain(m.text)]
    assert await version(runner, g1) == before and not bids, (
        "a reply to game #2's message was played as a bid in game #1",
        answers_after(api, ann, seen), [plain(m.text) for m in bids])
    answer = answers_after(api, ann, seen)
    assert answer and answer[-1].startswith("👥 Gamma › Coyote night") and \
        "no está en curso" in answer[-1], answer


async def test_a_typed_hint_names_the_game_it_was_read_for(world) -> None:
    """Ann's turn is in Koira #2 only; she types "12", meaning a Coyote bid in game #1
    (where it is Bob's turn). The text is read for Koira #2, so its hint (tap a card, type
    7H) is headed by that game's group: she can tell it is about another game than the one
    she had in mind."""
    api, (ann, bob, cat), clock, runner = world
    g1 = await open_game(api, ann, [bob, cat], A, "/newgame")
    g2 = await open_game(api, ann, [bob, cat], B, "/newgame koira")
    await others_move_until(api, runner, [ann, bob, cat], (g1, g2), {g1: False, g2: True})
    seen = len(api.bot_messages(ann.id))
    await ann.send(ann.id, "12")
    await wait_for(lambda: len(api.bot_messages(ann.id)) > seen)
    hint = plain(api.bot_messages(ann.id)[-1].text)
    assert "7H" in hint  # Koira's hint, in Spanish
    assert f"#{g2}" in hint or "Koira" in hint or TITLES[B] in hint, hint


async def test_three_games_each_message_in_its_readers_language(world) -> None:
    """What was found right: each private message is headed by its group (and topic) and
    game; a number typed while three games wait asks which; the clock's reminders and
    timeouts go to each group in its language and privately in Ann's; /language switches
    her private messages at once; /leave in one topic ends only that game; buttons act on
    their own game; a typed number with no turn anywhere says so; a reply to an answer of
    the bot, no game's message, is read in no game while she plays several."""
    api, (ann, bob, cat), clock, runner = world
    topic = api.create_topic(C, "Coyote night", ann)
    await api.settle(quiet=0.05)
    g1 = await open_game(api, ann, [bob, cat], A, "/newgame")
    g2 = await open_game(api, ann, [bob, cat], B, "/newgame koira")
    g3 = await open_game(api, bob, [ann, cat], C, "/newgame", thread=topic)
    games = (g1, g2, g3)
    await others_move_until(api, runner, [ann, bob, cat], games, dict.fromkeys(games, True))
    service = service_of(runner)
    heads = {g1: "👥 알파\n🐺 Partida #1", g2: "👥 ベータ\n🐕 Koira #2",
             g3: "👥 Gamma › Coyote night\n🐺 Partida #3"}
    for g in games:
        game = await service.get(g)
        message = turn_message(api, ann, g, game.version)
        assert message is not None and plain(message.text).startswith(heads[g]), g
    versions = {g: await version(runner, g) for g in games}
    seen = len(api.bot_messages(ann.id))
    await ann.send(ann.id, "7")
    await wait_for(lambda: len(api.bot_messages(ann.id)) > seen)
    assert "#1, #2, #3" in plain(api.bot_messages(ann.id)[-1].text)
    assert {g: await version(runner, g) for g in games} == versions
    seen = len(api.bot_messages(ann.id))  # a reply to that answer (no game's message)
    reply(api, ann, api.bot_messages(ann.id)[-1], "7")
    await wait_for(lambda: len(api.bot_messages(ann.id)) > seen)
    assert "No sé de qué partida" in plain(api.bot_messages(ann.id)[-1].text)
    assert {g: await version(runner, g) for g in games} == versions

    clock.advance(46 * 60)  # the reminders, in each group and privately
    await wait_for(lambda: all(api.find_messages(chat, "⏳") for chat in (A, B, C)))
    await wait_for(lambda: len(found(api, ann.id, "⏳ Ann, es tu turno en la partida #")) == 3)
    assert found(api, A, "⏳ Ann님, 게임 #1") and found(api, B, "⏳ Annさん、ゲーム #2")
    assert found(api, C, "⏳ Ann, it is your turn in game #3")
    clock.advance(15 * 60)  # the computer plays her three turns
    await wait_for(lambda: all(api.find_messages(chat, "⏰") for chat in (A, B, C)))
    await api.settle(quiet=0.2)
    assert not api.find_messages(ann.id, "⏳")  # (no reminder outlives its turn)

    # Until now all of Ann's private chat is Spanish, each group in its own language.
    faults = log_faults(api.log, {A: "ko", B: "ja", ann.id: "es"}, {ann.id: "es"}, NAMES)
    assert not faults, faults[:10]
    # /language ja: her next private messages are Japanese; the groups keep theirs.
    await ann.send(ann.id, "/language")
    await wait_for(lambda: any(data_of(api, m, "u") for m in api.bot_messages(ann.id)))
    chooser = [m for m in api.bot_messages(ann.id) if data_of(api, m, "u")][-1]
    await ann.press_and_settle(chooser, "u:0:2", quiet=0.1)
    await ann.send(C, "/leave", thread_id=topic)
    await wait_for(lambda: bool(api.find_messages(ann.id, "ゲーム #3 から外れました")))
    await api.settle(quiet=0.1)
    assert (await service.get(g1)).status == (await service.get(g2)).status == "running"
    await others_move_until(api, runner, [ann, bob, cat], (g1, g2), {g1: True, g2: False})
    game = await service.get(g1)
    message = turn_message(api, ann, g1, game.version)
    assert message is not None and "ゲーム #1" in plain(message.text)
    other = await version(runner, g2)
    bid = next(d for _, d in api.buttons(message) if d.startswith("b:"))
    assert not (await ann.press_and_settle(message, bid, quiet=0.1)).get("show_alert")
    assert await version(runner, g1) > game.version and await version(runner, g2) == other
    if await to_act(runner, g2) != ann.id:
        seen = len(api.bot_messages(ann.id))
        await ann.send(ann.id, "8")
        await wait_for(lambda: len(api.bot_messages(ann.id)) > seen)
        assert "/help" in plain(api.bot_messages(ann.id)[-1].text)  # (not your turn anywhere)
    faults = log_faults(api.log, {A: "ko", B: "ja"}, {}, NAMES)
    assert not faults, faults[:10]
