"""One player (Ann, who reads Spanish) in several games at once — Coyote in a Korean group
whose title holds markup, Koira in a Japanese group with a right-to-left title, Coyote in a
Spanish forum's topic — with Bob and Cat: which game a private message, a typed bid or a
reply belongs to, /start and blocking the bot mid-games, reminders of one game while she
plays another from the group (🎴), /confirm off, and the headings that tell the games
apart. Where a test once failed, its docstring says what the bot did before the fix."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest
from sqlalchemy import select

from league.store.message_models import PrivateMessage
from league.store.snapshots import UserRef
from tests.clock import Clock
from tests.e2e.harness import BotRunner, wait_for
from tests.e2e.koira_play import carry_out, computer_choice, service_of
from tests.e2e.test_koira_with_coyote import _move, turn_message
from tests.e2e.test_many_games import (
    data_of,
    open_game,
    others_move_until,
    reply,
    to_act,
    version,
)
from tests.english_check import log_faults
from tests.fakebot import FakeBotAPI, FakeUser, StoredMessage

A, B, C = -100941, -100942, -1009430  # Korean group, Japanese group, Spanish forum
TITLES = {A: "<b>Ops & Co</b>", B: "מועדון הקלפים", C: "Foro <i>&amp;"}
LANGUAGES = {A: "ko", B: "ja", C: "es"}
TOPIC = "Noche & <Coyote>"
MOVE_VERBS = ("b", "c", "cc", "m", "k", "x", "q", "g", "ky", "kt", "kw", "kh")


NAMES = ("Ann", "Bob", "Cat", "Ops & Co", "Foro", "Noche & <Coyote>", "Coyote")


def assert_in_their_languages(api: FakeBotAPI, ann: FakeUser) -> None:
    """Each group's messages in its language, Ann's private chat and alerts in Spanish."""
    faults = log_faults(api.log, {A: "ko", B: "ja", C: "es", ann.id: "es"}, {ann.id: "es"},
                        NAMES)
    assert not faults, faults[:10]


def plain(text: str | None) -> str:
    return (text or "").replace("\u2068", "").replace("\u2069", "")


def heading(chat: int, topic: str | None = None) -> str:
    """The first line of a private message about a game in ``chat`` (as the reader sees
    it: markup shown as typed, bidi isolates dropped)."""
    return f"👥 {TITLES[chat]}" + (f" › {topic}" if topic else "")


def keyboards_of(api: FakeBotAPI, user: FakeUser, game_id: int) -> list[StoredMessage]:
    """``user``'s private messages that carry move buttons of ``game_id``."""
    return [m for m in api.bot_messages(user.id)
            if any(d and d.split(":")[0] in MOVE_VERBS and d.split(":")[1] == str(game_id)
                   for _, d in api.buttons(m))]


def ids_of(api: FakeBotAPI, user: FakeUser) -> set[int]:
    return {m.message_id for m in api.bot_messages(user.id)}


def new_messages(api: FakeBotAPI, user: FakeUser, seen: set[int]) -> list[StoredMessage]:
    """The bot's messages in ``user``'s private chat not among ``seen`` (ids)."""
    return [m for m in api.bot_messages(user.id) if m.message_id not in seen]


def lowest_bid(api: FakeBotAPI, message: StoredMessage) -> int:
    return min(int(d.split(":")[3]) for _, d in api.buttons(message)
               if d and d.startswith("b:") and d.count(":") == 3)


async def private_row(db, game_id: int, user_id: int) -> PrivateMessage | None:
    async with db.sessions() as session:
        return await session.scalar(select(PrivateMessage).where(
            PrivateMessage.game_id == game_id, PrivateMessage.user_id == user_id))


async def until(condition, timeout: float = 30) -> None:  # noqa: ASYNC109
    """Poll the coroutine function ``condition`` until it is true."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not await condition():
        if loop.time() > deadline:
            raise TimeoutError("the bot did not get there in time")
        await asyncio.sleep(0.02)


def answered_or_moved(api: FakeBotAPI, user: FakeUser, seen: int, runner: BotRunner,
                      game_id: int, before: int):
    """A condition for :func:`until`: ``user`` got a new private message, or the game
    moved past ``before``."""
    async def check() -> bool:
        return len(api.bot_messages(user.id)) > seen or \
            await version(runner, game_id) != before
    return check


@pytest.fixture
async def world(pg_db, pg_url):
    """Three groups (Ann admin of each) in three languages, titles with markup and
    right-to-left text; Ann (es), Bob (en), Cat (ko) started the bot; a controlled clock,
    a sweep every 50 ms, fixed seeds."""
    clock = Clock(datetime(2026, 5, 4, 9, 0, tzinfo=UTC))
    async with FakeBotAPI() as api:
        for chat, title in TITLES.items():
            api.add_group(chat, title, type="supergroup" if chat == C else "group",
                          is_forum=chat == C, admins=[1])
        ann = api.add_user(1, "Ann", language_code="es")
        bob = api.add_user(2, "Bob", language_code="en")
        cat = api.add_user(3, "Cat", language_code="ko")
        for user in (ann, bob, cat):
            await user.start_bot()
        runner = BotRunner(api, pg_url, clock=clock, sweep_interval=0.05)
        await runner.start()
        service = service_of(runner)
        service.new_seed = lambda: 5
        for chat, title in TITLES.items():
            await service.set_chat_setting(chat, title, "language", LANGUAGES[chat])
        try:
            yield api, (ann, bob, cat), clock, runner, pg_db
        finally:
            await runner.stop()


# --- a reply to an old message of a closed game ---------------------------------------------
async def test_a_reply_to_an_old_message_of_a_closed_game_moves_no_other_game(world) -> None:
    """Ann played Coyote game #1 in the group "<b>Ops & Co</b>" for a while, so her private
    chat holds older messages of it (an earlier round's, above its latest). Game #1 is
    closed (an admin cancelled it; a game that ends leaves the same messages). It is now her
    turn in game #2, in another group. She answers one of game #1's older messages, headed
    by game #1's group, with a number: she means game #1 (README: "reply to that game's
    latest message"), which is over. Expected: nothing moves, and she is told game #1 is
    not running. Before the fix the number was bid in game #2, a game of another group she
    did not reply to; now, as the league records only each game's latest private message
    and its hand's first (game #1 cannot be named), she is asked to reply to the game's
    latest message."""
    api, (ann, bob, cat), clock, runner, db = world
    users = {u.id: u for u in (ann, bob, cat)}
    service = service_of(runner)
    g1 = await open_game(api, ann, [bob, cat], A, "/newgame")
    g2 = await open_game(api, bob, [ann, cat], B, "/newgame")

    def old_messages(row: PrivateMessage | None) -> list[StoredMessage]:
        kept = {row.message_id, row.hand_first_id} if row is not None else set()
        return [m for m in api.bot_messages(ann.id) if m.message_id not in kept
                and plain(m.text).startswith(heading(A) + "\n")]

    for _ in range(300):  # game #1 only, until Ann has an older message of it
        await api.settle(quiet=0.05)
        if old_messages(await private_row(db, g1, ann.id)):
            break
        assert await to_act(runner, g1) is not None, "game #1 ended first"
        await _move(api, runner, users, g1)
    else:
        raise AssertionError("Ann never had an older message of game #1")
    old = old_messages(await private_row(db, g1, ann.id))[0]
    assert f"#{g1}" in plain(old.text) and not api.buttons(old), old.text

    await ann.send(A, "/cancel")  # (Ann administers the group)
    await wait_for(lambda: bool([m for m in api.bot_messages(A) if f"#{g1}" in plain(m.text)
                                 and ("취소" in plain(m.text))]))
    assert (await service.get(g1)).status == "cancelled"
    await others_move_until(api, runner, [ann, bob, cat], (g2,), {g2: True})
    game = await service.get(g2)
    mine = turn_message(api, ann, g2, game.version)
    assert mine is not None
    bid = lowest_bid(api, mine)
    seen = len(api.bot_messages(ann.id))
    reply(api, ann, old, str(bid))
    await until(answered_or_moved(api, ann, seen, runner, g2, game.version))
    await api.settle(quiet=0.3)
    after = await service.get(g2)
    answers = [plain(m.text) for m in api.bot_messages(ann.id)[seen:]]
    assert after.version == game.version, (
        f"a reply to an old message of closed game #{g1} was bid in game #{g2}", answers)
    assert answers and "No sé de qué partida" in answers[-1], answers


# --- blocking the bot mid-games, then /start ------------------------------------------------
@pytest.mark.parametrize("how", ["cancelled", "removed"])
async def test_back_after_blocking_no_keyboard_of_a_closed_game_is_left(world, how) -> None:
    """Ann plays Coyote #1 (group "<b>Ops & Co</b>") and Koira #2 (a right-to-left group).
    On her turn in #1, her private message carries its buttons; she blocks the bot. Its
    reminder to her is refused, so the bot knows; then game #1 is cancelled by an admin
    (``cancelled``), or its clock runs out and, by the group's "remove" timeout policy, she
    is removed while Bob and Cat play on (``removed``). She sends /start: Koira #2's view
    comes back (README: "/start mid-game sends the message again"), and no message of her
    chat may still offer game #1's move buttons (README: a chat never holds a keyboard of a
    game that is over for her; a removed player "is told so in their private message").
    Before the fix game #1's old turn keyboard was still live in her chat after /start, under a
    text that says it is her turn. (Before the fix every closing path skipped her, the bot
    being unable to write to her, and /start re-sent only the games she still plays.)"""
    api, (ann, bob, cat), clock, runner, db = world
    service = service_of(runner)
    if how == "removed":
        await service.set_chat_setting(A, TITLES[A], "timeout_policy", "remove")
    g1 = await open_game(api, ann, [bob, cat], A, "/newgame")
    g2 = await open_game(api, bob, [ann, cat], B, "/newgame koira")
    await others_move_until(api, runner, [ann, bob, cat], (g1, g2), {g1: True, g2: False})
    assert len(keyboards_of(api, ann, g1)) == 1
    ann.block_bot()
    clock.advance(46 * 60)  # game #1's reminder: refused, so the bot learns she blocked it
    await until(_unreachable(service, ann.id))
    if how == "cancelled":
        await ann.send(A, "/cancel")
        await until(_status_is(service, g1, "cancelled"))
    else:
        clock.advance(15 * 60)
        await until(_out_of_one(service, ann.id, (g1,)))
        assert (await service.get(g1)).status == "running"
    await api.settle(quiet=0.2)
    seen = ids_of(api, ann)
    await ann.start_bot()
    await wait_for(lambda: any(plain(m.text).startswith(heading(B))
                               for m in new_messages(api, ann, seen)))
    await api.settle(quiet=0.3)
    back = [plain(m.text) for m in new_messages(api, ann, seen)]
    assert not any(t.startswith(heading(A)) for t in back), back  # (#1 is not shown again)
    left = keyboards_of(api, ann, g1)
    assert not left, (f"game #{g1} is {how} for her, yet Ann's chat still offers its move "
                      f"buttons after /start", [plain(m.text)[:80] for m in left])


def _unreachable(service, user_id: int):
    async def check() -> bool:
        return user_id not in await service.reachable([user_id])
    return check


def _status_is(service, game_id: int, status: str):
    async def check() -> bool:
        return (await service.get(game_id)).status == status
    return check


async def test_back_after_blocking_both_views_come_back_with_one_keyboard_each(world) -> None:
    """What held: Ann blocks the bot while it is Bob's turn in Coyote #1 and Koira #2; both
    turns pass to her while she is away (refused). /start brings back both views, each
    headed by its own group (markup as typed, the right-to-left title isolated), one live
    keyboard of each game, none of them twice; her own Coyote card is not shown."""
    api, (ann, bob, cat), clock, runner, db = world
    service = service_of(runner)
    users = {u.id: u for u in (ann, bob, cat)}
    g1 = await open_game(api, ann, [bob, cat], A, "/newgame")
    g2 = await open_game(api, bob, [ann, cat], B, "/newgame koira")
    await others_move_until(api, runner, [ann, bob, cat], (g1, g2), {g1: True, g2: True})
    # Ann moves in both; then she blocks the bot, and the others move until it is her turn.
    for g in (g1, g2):
        await _move(api, runner, users, g)
    ann.block_bot()
    for g in (g1, g2):
        for _ in range(20):
            if await to_act(runner, g) in (None, ann.id):
                break
            await _move(api, runner, users, g)
    assert await to_act(runner, g1) == ann.id and await to_act(runner, g2) == ann.id
    await until(_unreachable(service, ann.id))
    await api.settle(quiet=0.2)
    seen = ids_of(api, ann)
    await ann.start_bot()
    await wait_for(lambda: len(new_messages(api, ann, seen)) >= 2)
    await api.settle(quiet=0.3)
    for g, chat in ((g1, A), (g2, B)):
        game = await service.get(g)
        live = keyboards_of(api, ann, g)
        assert len(live) == 1, (g, [plain(m.text)[:60] for m in live])
        assert move_version_of(api, live[0]) == game.version, g
        assert plain(live[0].text).startswith(heading(chat) + "\n"), live[0].text
    view = plain(keyboards_of(api, ann, g1)[0].text)
    own = [line for line in view.splitlines() if "Ann" in line and "·" in line]
    assert own and all("❓" in line for line in own), view  # (her own card stays hidden)
    assert_in_their_languages(api, ann)


def move_version_of(api: FakeBotAPI, message: StoredMessage) -> int | None:
    for _, d in api.buttons(message):
        parts = (d or "").split(":")
        if parts[0] in MOVE_VERBS and len(parts) > 2 and parts[2].isdigit():
            return int(parts[2])
    return None


# --- a reminder of one game while she plays the other from the group -----------------------
async def test_reminder_of_one_game_while_she_plays_the_other_with_my_cards(world) -> None:
    """What held: it is Ann's turn in Coyote #1 and Koira #2; both reminders come (group and
    private, her ⏳ in Spanish). She plays Koira #2 from its group with 🎴 (an ephemeral
    message): #2's private ⏳ goes with her turn, #1's stays with its buttons. Her number
    replying to #1's reminder is bid in #1 only."""
    api, (ann, bob, cat), clock, runner, db = world
    service = service_of(runner)
    g1 = await open_game(api, ann, [bob, cat], A, "/newgame")
    g2 = await open_game(api, bob, [ann, cat], B, "/newgame koira")
    await others_move_until(api, runner, [ann, bob, cat], (g1, g2), {g1: True, g2: True})
    clock.advance(46 * 60)
    await wait_for(lambda: len([m for m in api.bot_messages(ann.id)
                                if "⏳" in plain(m.text)]) == 2)
    await api.settle(quiet=0.2)
    reminders = {g: [m for m in keyboards_of(api, ann, g) if "⏳" in plain(m.text)]
                 for g in (g1, g2)}
    assert all(len(r) == 1 for r in reminders.values()), reminders
    assert plain(reminders[g1][0].text).startswith(heading(A) + "\n⏳")
    assert plain(reminders[g2][0].text).startswith(heading(B) + "\n⏳")

    table = next(m for m in reversed(api.bot_messages(B)) if data_of(api, m, "p"))
    query = await ann.press(table, data_of(api, table, "p") or "")
    await api.wait_answer(query)
    await wait_for(lambda: bool(api.ephemeral_messages(B, ann.id)))
    await api.settle(quiet=0.1)
    mine = api.ephemeral_messages(B, ann.id)[-1]
    assert "Koira #2 · fase" in plain(mine.text), mine.text  # (hers: in Spanish)
    game = await service.get(g2)
    seat = game.player(ann.id).seat
    answer, _ = await carry_out(api, ann, mine, game, computer_choice(game, seat))
    assert not answer.get("show_alert"), answer
    await api.settle(quiet=0.3)
    assert await version(runner, g2) > game.version
    if await to_act(runner, g2) != ann.id:
        assert not keyboards_of(api, ann, g2), "Koira #2's private keyboard outlived her turn"
        assert not any("⏳" in plain(m.text) and plain(m.text).startswith(heading(B))
                       for m in api.bot_messages(ann.id)), "#2's reminder outlived her turn"
    still = keyboards_of(api, ann, g1)
    assert len(still) == 1 and "⏳" in plain(still[0].text), [plain(m.text) for m in still]

    before1, before2 = await version(runner, g1), await version(runner, g2)
    reply(api, ann, still[0], str(lowest_bid(api, still[0])))
    await until(_moved(runner, g1, before1))
    await api.settle(quiet=0.2)
    assert await version(runner, g2) == before2
    assert not any("⏳" in plain(m.text) and plain(m.text).startswith(heading(A))
                   for m in api.bot_messages(ann.id)), "#1's reminder outlived her turn"
    assert_in_their_languages(api, ann)


def _moved(runner: BotRunner, game_id: int, before: int):
    async def check() -> bool:
        return await version(runner, game_id) > before
    return check


# --- /confirm off, for both games -------------------------------------------------------------
async def _to_a_callable_turn(api: FakeBotAPI, runner: BotRunner, users: dict[int, FakeUser],
                              ann: FakeUser, game_id: int) -> StoredMessage:
    """Moves in game ``game_id`` until it is Ann's turn with 🐺 Coyote! on her keyboard."""
    service = service_of(runner)
    for _ in range(30):
        await others_move_until(api, runner, list(users.values()), (game_id,),
                                {game_id: True})
        game = await service.get(game_id)
        await wait_for(lambda v=game.version: turn_message(api, ann, game_id, v) is not None)
        message = turn_message(api, ann, game_id, game.version)
        assert message is not None
        if any(d and d.split(":")[0] in ("c", "cc") for _, d in api.buttons(message)):
            return message
        data = next(d for _, d in api.buttons(message) if d and d.startswith("b:"))
        assert not (await ann.press_and_settle(message, data, quiet=0.05)).get("show_alert")
    raise AssertionError("no callable turn")


async def test_confirm_off_applies_to_both_games(world) -> None:
    """What held: Ann is to act in Coyote #1 (Korean group) and Coyote #2 (a topic of the
    Spanish forum), each keyboard's 🐺 asking "Yes" first. /confirm off in the private chat:
    the 🐺 drawn before calls at once in #1; /start redraws #2, whose 🐺 now calls at once
    too."""
    api, (ann, bob, cat), clock, runner, db = world
    service = service_of(runner)
    users = {u.id: u for u in (ann, bob, cat)}
    topic = api.create_topic(C, TOPIC, ann)
    await api.settle(quiet=0.05)
    g1 = await open_game(api, ann, [bob, cat], A, "/newgame")
    g2 = await open_game(api, bob, [ann, cat], C, "/newgame", thread=topic)
    first = await _to_a_callable_turn(api, runner, users, ann, g1)
    second = await _to_a_callable_turn(api, runner, users, ann, g2)
    first = api.get_message(ann.id, first.message_id)
    assert first is not None and data_of(api, first, "cc") and data_of(api, second, "cc")
    assert plain(second.text).startswith(heading(C, TOPIC) + "\n"), second.text
    seen = len(api.bot_messages(ann.id))
    await ann.send(ann.id, "/confirm off")
    await wait_for(lambda: len(api.bot_messages(ann.id)) > seen)
    assert "/confirm on" in plain(api.bot_messages(ann.id)[-1].text)
    before = await version(runner, g1)
    answer = await ann.press_and_settle(first, data_of(api, first, "cc") or "", quiet=0.1)
    assert not answer.get("show_alert"), answer
    await until(_moved(runner, g1, before))
    seen = ids_of(api, ann)
    await ann.start_bot()
    game = await service.get(g2)
    await wait_for(lambda: any(data_of(api, m, "c") for m in new_messages(api, ann, seen)))
    await api.settle(quiet=0.2)
    fresh = [m for m in keyboards_of(api, ann, g2)]
    assert len(fresh) == 1 and data_of(api, fresh[0], "c") and not data_of(api, fresh[0], "cc")
    answer = await ann.press_and_settle(fresh[0], data_of(api, fresh[0], "c") or "",
                                        quiet=0.1)
    assert not answer.get("show_alert"), answer
    await until(_moved(runner, g2, game.version))
    await api.settle(quiet=0.1)
    assert_in_their_languages(api, ann)


# --- headings of two topics of one forum ------------------------------------------------------
LONG_FORUM = -1009440


async def test_two_topics_with_long_names_have_headings_that_tell_them_apart(world) -> None:
    """Ann plays Coyote in two topics of one forum, "Coyote table one" and "Coyote table
    two", in a forum titled "Friday night card players club". Every private message is
    headed by the group and topic so that "a player seated in games of several groups must
    tell at a glance which buttons act where" (telegram_app/render/place.py). Before the
    fix both headings read "👥 Friday night card … › Coyote tabl…": the topic's name was cut
    to 12 characters while the group's title kept 19, so the part that tells the games apart
    was cut off (only the game number in the next line differed)."""
    api, (ann, bob, cat), clock, runner, db = world
    api.add_group(LONG_FORUM, "Friday night card players club", type="supergroup",
                  is_forum=True, admins=[1])
    one = api.create_topic(LONG_FORUM, "Coyote table one", ann)
    two = api.create_topic(LONG_FORUM, "Coyote table two", ann)
    await api.settle(quiet=0.05)
    g1 = await open_game(api, ann, [bob, cat], LONG_FORUM, "/newgame", thread=one)
    g2 = await open_game(api, bob, [ann, cat], LONG_FORUM, "/newgame", thread=two)
    await wait_for(lambda: all(_about(api, ann, g) for g in (g1, g2)))
    await api.settle(quiet=0.1)
    lines = {g: plain(_about(api, ann, g)[-1].text).splitlines()[0] for g in (g1, g2)}
    assert lines[g1] != lines[g2], (
        "two games' private messages carry the same heading", lines)


def _about(api: FakeBotAPI, user: FakeUser, game_id: int) -> list[StoredMessage]:
    return [m for m in api.bot_messages(user.id) if f"#{game_id} ·" in plain(m.text)]


# --- /start with a closed game among running ones ---------------------------------------------
async def test_start_brings_each_running_games_view_and_none_of_a_cancelled_one(world) -> None:
    """What held: Ann plays Coyote #1 (Korean group), Koira #2 (right-to-left group) and
    Coyote #3 (a topic "Noche & <Coyote>" of the forum "Foro <i>&amp;"), her turn in #1 and
    #2; #3 is cancelled. /start: a view of #1 and of #2 each, in place of the one before,
    each headed by its own group (markup shown as typed); #3 is not sent again, and its
    last message says it was cancelled, without buttons. One live keyboard a game."""
    api, (ann, bob, cat), clock, runner, db = world
    service = service_of(runner)
    topic = api.create_topic(C, TOPIC, ann)
    await api.settle(quiet=0.05)
    g1 = await open_game(api, ann, [bob, cat], A, "/newgame")
    g2 = await open_game(api, bob, [ann, cat], B, "/newgame koira")
    g3 = await open_game(api, cat, [ann, bob], C, "/newgame", thread=topic)
    await others_move_until(api, runner, [ann, bob, cat], (g1, g2, g3),
                            {g1: True, g2: True, g3: False})
    await ann.send(C, "/cancel", thread_id=topic)
    await until(_status_is(service, g3, "cancelled"))
    await api.settle(quiet=0.2)
    third = (await service.get(g3)).player(ann.id).private_message_id
    seen = ids_of(api, ann)
    await ann.start_bot()
    await wait_for(lambda: len(new_messages(api, ann, seen)) >= 2)
    await api.settle(quiet=0.3)
    fresh = new_messages(api, ann, seen)
    assert sorted(plain(m.text).splitlines()[0] for m in fresh) == \
        sorted([heading(A), heading(B)]), [plain(m.text)[:60] for m in fresh]
    for g in (g1, g2):
        assert len(keyboards_of(api, ann, g)) == 1, g
    assert not keyboards_of(api, ann, g3)
    last = api.get_message(ann.id, third)
    assert last is not None and not last.deleted and not api.buttons(last)
    assert plain(last.text).startswith(heading(C, TOPIC) + "\n"), last.text
    assert "cancel" in plain(last.text).lower(), last.text
    assert_in_their_languages(api, ann)


# --- /leave in a plain group during a tournament ----------------------------------------------
async def test_leave_during_a_tournament_with_a_game_beside_the_table(world) -> None:
    """Ann sits at a Coyote tournament table in the plain group "<b>Ops & Co</b>" and plays
    an ordinary Coyote game there too (the tables run beside the group's game). README's
    commands table: /leave quits "during a tournament, your table (if you also play the
    topic's own game, that game first: send it again for the table)". Her first /leave
    quits the ordinary game, her second the table. (The review found the first /leave
    quitting the ordinary game while README named only the table: README now says so.)"""
    api, (ann, bob, cat), clock, runner, db = world
    service = service_of(runner)
    people = [UserRef(u.id, u.first_name, language=u.language_code) for u in (ann, bob, cat)]
    cup = await service.open_tournament(A, TITLES[A], 0, people[0], "coyote")
    for person in people[1:]:
        cup = await service.join_tournament(cup.id, person)
    cup = await service.start_tournament(cup.id, ann.id, is_admin=True, version=cup.version)
    table = cup.tables_of(1)[0].game_id
    await wait_for(lambda: any(f"#{table}" in plain(m.text) for m in api.bot_messages(ann.id)))
    await api.settle(quiet=0.2)
    game = await open_game(api, ann, [bob, cat], A, "/newgame")
    assert (await service.get(table)).status == (await service.get(game)).status == "running"
    await ann.send(A, "/leave")
    await until(_out_of_one(service, ann.id, (table, game)))
    await api.settle(quiet=0.2)
    left = {g: not (await service.get(g)).player(ann.id).playing for g in (table, game)}
    assert left == {table: False, game: True}, (
        f"the first /leave in tournament #{cup.id} should quit game #{game} first", left)
    await ann.send(A, "/leave")

    async def out_of_both() -> bool:
        return all([not (await service.get(g)).player(ann.id).playing for g in (table, game)])
    await until(out_of_both)


def _out_of_one(service, user_id: int, games: tuple[int, ...]):
    async def check() -> bool:
        for g in games:
            if not (await service.get(g)).player(user_id).playing:
                return True
        return False
    return check
