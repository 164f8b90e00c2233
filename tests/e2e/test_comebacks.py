"""Players who come back (by /start, or by typing to the bot) while the game moves on, in
Coyote: the game's delivery lock is held from another connection (``game_lock_held``: a
slow delivery of another process) so that /start's view and a move's delivery meet in a
chosen order. A chat never holds two live keyboards of a game, and her latest message shows
the current hand: a delivery that finds her reachable before /start's own closes her
earlier round's message; two workers handling her texts at once send her views once; a view
drawn just as the turn passed to her, by this process or another, is retired by the turn's
ping (``private_messages.acting``). (Found by second looks at the refusals' changes and at
a first fix of the last: the tests named for a fault failed before its fix; the others
guard what held up.)"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest
from sqlalchemy import text

from engine.core import Action
from league.service import MatchService
from telegram_app.presenter.presenter import Presenter
from telegram_app.services import KEY
from telegram_app.transport.messenger import Messenger
from tests.clock import Clock
from tests.e2e.harness import (
    bot_table,
    current_of,
    press_move,
    private_turn_message,
    wait_for,
)
from tests.e2e.unreachable import (
    advisory_waiters,
    blocked_through_round_one,
    call_of,
    game_lock_held,
    live,
    lowest_bid,
    move_keyboards,
    peek,
    plain,
    press_now,
    reachable,
    sent_to,
    to_bobs_turn,
    to_cats_turn,
    until,
)
from tests.fakebot import FakeBotAPI, FakeUser, StoredMessage

GROUP = -100828
OTHER_GROUP = -100839


@pytest.fixture
async def table(pg_db, pg_url):
    clock = Clock(datetime(2026, 3, 4, 9, 0, tzinfo=UTC))
    async with bot_table(pg_url, GROUP, "Second look", ["Ann", "Bob", "Cat", "Dan"],
                         clock=clock, sweep_interval=5.0) as (api, players, runner):
        yield api, players, clock, runner, pg_db


async def test_back_while_a_move_is_delivered_leaves_no_round_one_keyboard(table) -> None:
    """As in test_unreachable_players' "back with /start after a round ended", but a move
    of round 2 is being delivered when Cat comes back (it waits for the game's lock, held
    by a slow delivery, say of another process). That delivery reads her reachable and
    sends her the round's message (``_refresh``: "missing"); /start's ``send_private``
    then finds her latest message of round 2 and only retires that one. Her round-1
    message, never closed, keeps its bid buttons beside the new one: two keyboards of one
    game in her chat (README: "/start mid-game sends the message again and deletes the
    old one")."""
    api, players, _clock, runner, db = table
    ann, bob, cat = players[:3]
    await blocked_through_round_one(api, players, runner, GROUP)
    service = runner.app.bot_data[KEY].service
    game = (await service.open_games_in(GROUP))[0]
    actor = next(u for u in (ann, bob) if private_turn_message(api, u) is not None)
    message = private_turn_message(api, actor)
    async with game_lock_held(db, game.id) as waiting:
        # The move commits; its delivery waits for the game's lock.
        query = await actor.press(message, lowest_bid(api, message))
        await api.wait_answer(query)
        await until(waiting, "the move's delivery never waited for the lock")
        before = len(sent_to(api, cat))
        await cat.start_bot()  # (she comes back: /start)
        await until(lambda: reachable(service, cat), "/start never recorded her")
        await asyncio.sleep(0.3)  # (/start's send_private queues behind the move's)
    await wait_for(lambda: len(sent_to(api, cat)) > before)
    await api.settle(quiet=0.5)
    assert "round 2" in plain(api.bot_messages(cat.id)[-1].text)  # (her view came back)
    stale = [m for m in move_keyboards(api, cat) if "round 1" in plain(m.text)]
    assert not stale, [(plain(m.text)[:60], api.buttons(m)[:3]) for m in stale]


async def test_two_workers_see_one_comeback_once(pg_db) -> None:
    """Two texts of a player coming back (a double /start, or two numbers typed at once)
    reach two webhook workers (their lanes are per process). Each handler asks
    ``touch_user`` whether private messages reached her before, and each that hears "no"
    sends her every running game's view (``_send_views``): the answer must be "no" once.
    ``upsert_user`` reads the row without a lock, so both read ``can_message`` false before
    either commits (here the row is held a moment, as a third transaction would; both
    reads come first) and both send the views: every view twice, each a notification."""
    from league.service import MatchService
    from league.store.snapshots import UserRef

    cat = UserRef(3, "Cat", language="en")
    workers = [MatchService(pg_db), MatchService(pg_db)]
    await workers[0].touch_user(cat, can_message=False)  # (she blocked the bot)
    async with pg_db.engine.connect() as holder:
        await holder.execute(text("SELECT id FROM users WHERE id = 3 FOR UPDATE"))
        both = [asyncio.create_task(w.touch_user(cat, can_message=True)) for w in workers]

        async def blocked() -> bool:
            async with pg_db.engine.connect() as conn:
                return (await conn.scalar(text(
                    "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                    "AND datname = current_database()")) or 0) >= 2

        await until(blocked, "the two comebacks never both waited for the row")
        await holder.commit()
        before = await asyncio.gather(*both)
    assert sorted(before) == [False, True], before  # (one comeback, told once)


async def test_start_just_before_the_turn_passes_to_her_leaves_one_keyboard(table) -> None:
    """Cat sends /start while Bob is to act, and her view waits for the game's lock (a slow
    delivery, say of another process, holds it); Bob's bid commits meanwhile, its delivery
    queued behind her view. The view is drawn as the game is then, her turn: its bids; the
    bid's delivery then pings her with a new message, which retires the view. Once, the
    view's keyboard stayed beside it: two live keyboards of one game in her chat."""
    api, players, _clock, runner, db = table
    bob, cat = players[1:3]
    message = await to_bobs_turn(api, players, runner, GROUP)
    game = (await runner.app.bot_data[KEY].service.open_games_in(GROUP))[0]
    before = len(sent_to(api, cat))
    async with game_lock_held(db, game.id) as waiting:
        await cat.start_bot()  # (her view waits for the lock)
        await until(waiting, "/start's view never waited for the lock")
        query = await bob.press(message, lowest_bid(api, message))
        await api.wait_answer(query)  # (committed: her turn; its delivery waits too)
        await asyncio.sleep(0.3)
    await wait_for(lambda: len(sent_to(api, cat)) > before)
    await api.settle(quiet=0.5)
    assert len(move_keyboards(api, cat)) == 1, live(api, cat)
    assert move_keyboards(api, cat)[0] is api.bot_messages(cat.id)[-1]


async def cat_overbids_blocked(api: FakeBotAPI, players: list[FakeUser], runner) -> None:
    """Seed 3: Ann and Bob bid; Cat blocks the bot on her turn (her private message carries
    its bids) and bids 16 from the group (🎴; the total is 15): refused, the bot learns she
    blocked it. Ann's turn: a call would end the round, Cat losing it (she opens round 2)."""
    ann, _bob, cat = players[:3]
    await to_cats_turn(api, players, runner, GROUP)
    cat.block_bot()
    mine = await peek(api, cat, GROUP)
    higher = next(d for _, d in api.buttons(mine) if d and d.startswith("m:"))
    await cat.press_and_settle(mine, higher, quiet=0.05)
    await wait_for(lambda: any(d and d.endswith(":16") for _, d in
                               api.buttons(current_of(api, mine))))
    mine = current_of(api, mine)
    bid = next(d for _, d in api.buttons(mine) if d and d.startswith("b:") and d.endswith(":16"))
    await press_move(api, cat, mine, bid)
    await wait_for(lambda: private_turn_message(api, ann) is not None)
    await api.settle(quiet=0.2)
    assert [m for m in move_keyboards(api, cat) if "round 1" in plain(m.text)]
    assert not await reachable(runner.app.bot_data[KEY].service, cat)


async def test_start_while_the_call_that_deals_her_turn_is_pending_closes_round_one(
        table) -> None:
    """Cat blocked the bot on her turn of round 1 (that message keeps its bids: the
    bot could not close it) and played from the group. She comes back with /start while
    Ann's call, which ends the round and makes Cat open round 2, is about to be delivered
    (her view waits for the game's lock; the call's delivery queues behind it). Her
    round-1 message, drawn with her turn's buttons, must go out of play whichever message
    of round 2 reaches her last: once, it kept its bids beside round 2's (the new table
    sent her round 2's message without closing it)."""
    api, players, _clock, runner, db = table
    ann, _bob, cat = players[:3]
    service = runner.app.bot_data[KEY].service
    await cat_overbids_blocked(api, players, runner)
    game = (await service.open_games_in(GROUP))[0]
    message = private_turn_message(api, ann)
    group_before = len(api.bot_messages(GROUP))
    async with game_lock_held(db, game.id) as waiting:
        await cat.start_bot()  # (her view waits for the lock)
        await until(waiting, "/start's view never waited for the lock")
        await press_now(api, ann, message, call_of(api, message))  # (its delivery waits)
        await asyncio.sleep(0.3)
    await wait_for(lambda: bool(api.find_messages(GROUP, "round 2")))
    await api.settle(quiet=0.5)
    table_text = plain(api.find_messages(GROUP, "round 2")[-1].text)
    assert "👉 Cat" in table_text, table_text  # (she lost: she opens round 2)
    assert len(api.bot_messages(GROUP)) == group_before + 1  # (the new table only)
    last = api.bot_messages(cat.id)[-1]
    assert "round 2" in plain(last.text) and move_keyboards(api, cat)[-1] is last
    assert len(move_keyboards(api, cat)) == 1, live(api, cat)


async def test_start_while_another_process_delivers_the_turn_passing_to_her(table) -> None:
    """As test_start_just_before_the_turn_passes_to_her_leaves_one_keyboard, but Bob's
    bid is handled by another bot process (webhook workers: each update may reach another
    one): this process draws Cat's view as the game is now (her turn: its bids), and the
    other process's delivery, next on the lock, pings her with a new message. The view
    was recorded as drawn with her turn's buttons (``private_messages.acting``), so the
    ping retires it; once, it stayed live beside the ping."""
    api, players, clock, runner, db = table
    _ann, bob, cat = players[:3]
    service = runner.app.bot_data[KEY].service
    message = await to_bobs_turn(api, players, runner, GROUP)
    amount = int(lowest_bid(api, message).split(":")[3])
    game = (await service.open_games_in(GROUP))[0]
    other = MatchService(db, clock=clock)  # (another bot process, on the same database)
    elsewhere = Presenter(Messenger(runner.app.bot, other), other)
    before = len(sent_to(api, cat))
    async with game_lock_held(db, game.id) as waiting:
        await cat.start_bot()  # (her view waits for the lock)
        await until(waiting, "/start's view never waited for the lock")
        await other.act(game.id, bob.id, game.version, Action("bid", amount))
        for _ in range(500):  # (the other process's delivery waits behind it)
            if await advisory_waiters(db) >= 2:
                break
            await asyncio.sleep(0.01)
        else:
            pytest.fail("the other process's delivery never waited for the lock")
    await wait_for(lambda: len(sent_to(api, cat)) > before)
    await elsewhere.drain(20)
    await api.settle(quiet=0.5)
    assert len(move_keyboards(api, cat)) == 1, live(api, cat)
    assert move_keyboards(api, cat)[0] is api.bot_messages(cat.id)[-1]


async def test_a_double_start_while_the_turn_passes_to_her_leaves_one_keyboard(table) -> None:
    """Cat sends /start twice (two updates) while Bob's bid, which passes the turn to her,
    is about to be delivered (each view, and the bid's ping, a new message retiring the
    one before). One live keyboard, her latest message; the group gets the bid's table
    edit only. (Failed before ``private_messages.acting``.)"""
    api, players, _clock, runner, db = table
    _ann, bob, cat = players[:3]
    service = runner.app.bot_data[KEY].service
    message = await to_bobs_turn(api, players, runner, GROUP)
    game = (await service.open_games_in(GROUP))[0]
    group_before = len(api.bot_messages(GROUP))
    before = len(sent_to(api, cat))
    async with game_lock_held(db, game.id) as waiting:
        await cat.start_bot()
        await cat.start_bot()
        await until(waiting, "/start's view never waited for the lock")
        await press_now(api, bob, message, lowest_bid(api, message))
        await asyncio.sleep(0.3)
    await wait_for(lambda: len(sent_to(api, cat)) > before)
    await api.settle(quiet=0.5)
    assert len(move_keyboards(api, cat)) == 1, live(api, cat)
    assert move_keyboards(api, cat)[0] is api.bot_messages(cat.id)[-1]
    assert private_turn_message(api, bob) is None and not move_keyboards(api, bob)
    assert len(api.bot_messages(GROUP)) == group_before


async def test_a_stranger_starting_the_bot_while_a_move_is_pending_changes_nothing(
        table) -> None:
    """Dan, seated nowhere, sends /start while Bob's bid is about to be delivered: he gets
    the welcome only; the bid's delivery pings Cat once; the group gets nothing extra."""
    api, players, _clock, runner, db = table
    _ann, bob, cat, dan = players
    service = runner.app.bot_data[KEY].service
    message = await to_bobs_turn(api, players, runner, GROUP)
    game = (await service.open_games_in(GROUP))[0]
    group_before = len(api.bot_messages(GROUP))
    cat_before, dan_before = len(sent_to(api, cat)), len(sent_to(api, dan))
    async with game_lock_held(db, game.id):
        await dan.start_bot()
        await wait_for(lambda: len(sent_to(api, dan)) > dan_before)
        await press_now(api, bob, message, lowest_bid(api, message))
        await asyncio.sleep(0.3)
    await wait_for(lambda: private_turn_message(api, cat) is not None)
    await api.settle(quiet=0.5)
    assert len(sent_to(api, dan)) == dan_before + 1 and not move_keyboards(api, dan)
    assert len(sent_to(api, cat)) == cat_before + 1  # (the ping)
    assert len(move_keyboards(api, cat)) == 1, live(api, cat)
    assert len(api.bot_messages(GROUP)) == group_before


async def test_back_by_typing_her_bid_while_blocked_leaves_no_keyboard(table) -> None:
    """Cat blocked the bot on her turn (her message carries its bids); she comes back by
    typing her bid while the game's lock is held: her comeback's view waits, her bid
    commits behind it. No keyboard is left in Cat's chat, one in Ann's (to act)."""
    api, players, _clock, runner, db = table
    ann, _bob, cat = players[:3]
    service = runner.app.bot_data[KEY].service
    await to_cats_turn(api, players, runner, GROUP)
    amount = lowest_bid(api, private_turn_message(api, cat)).split(":")[3]
    cat.block_bot()
    game = (await service.open_games_in(GROUP))[0]
    async with game_lock_held(db, game.id) as waiting:
        cat.blocked = False  # (typing to the bot unblocks it)
        await cat.send(cat.id, amount)
        await until(waiting, "the comeback's view never waited for the lock")
        for _ in range(500):
            if (await service.get(game.id)).version > game.version:
                break
            await asyncio.sleep(0.01)
        else:
            pytest.fail("the typed bid never committed")
        await asyncio.sleep(0.3)
    await wait_for(lambda: private_turn_message(api, ann) is not None)
    await api.settle(quiet=0.5)
    assert not move_keyboards(api, cat), live(api, cat)
    assert len(move_keyboards(api, ann)) == 1, live(api, ann)
    views = [m for m in api.bot_messages(cat.id) if "round 1" in plain(m.text)]
    assert views and "👉 Ann" in plain(views[-1].text), [plain(m.text)[-80:] for m in views]


async def test_start_while_a_call_deals_the_next_round_to_others_redraws_hers(table) -> None:
    """Cat (reachable) sends /start while Ann's call, which ends round 1 (Cat does not open
    round 2), is about to be delivered: one message of round 2 in her chat, her latest,
    with no keyboard; the group gets the new table only."""
    api, players, _clock, runner, db = table
    ann, bob, cat = players[:3]
    service = runner.app.bot_data[KEY].service
    await to_cats_turn(api, players, runner, GROUP)
    message = private_turn_message(api, cat)
    await press_move(api, cat, message, lowest_bid(api, message))
    await wait_for(lambda: private_turn_message(api, ann) is not None)
    await api.settle(quiet=0.2)
    game = (await service.open_games_in(GROUP))[0]
    message = private_turn_message(api, ann)
    group_before = len(api.bot_messages(GROUP))
    async with game_lock_held(db, game.id) as waiting:
        await cat.start_bot()
        await until(waiting, "/start's view never waited for the lock")
        await press_now(api, ann, message, call_of(api, message))
        await asyncio.sleep(0.3)
    await wait_for(lambda: bool(api.find_messages(GROUP, "round 2")))
    await api.settle(quiet=0.5)
    assert "👉 Cat" not in plain(api.find_messages(GROUP, "round 2")[-1].text)
    assert len(api.bot_messages(GROUP)) == group_before + 1
    assert not move_keyboards(api, cat), live(api, cat)
    assert "round 2" in plain(api.bot_messages(cat.id)[-1].text)
    assert [m for m in api.bot_messages(cat.id) if "round 2" in plain(m.text)] == \
        [api.bot_messages(cat.id)[-1]]
    mover = next(u for u in (ann, bob) if private_turn_message(api, u) is not None)
    assert len(move_keyboards(api, mover)) == 1


def keyboards_of_game(api: FakeBotAPI, user: FakeUser, game_id: int) -> list[StoredMessage]:
    return [m for m in move_keyboards(api, user)
            if any(d and d.split(":")[1] == str(game_id) for _, d in api.buttons(m))]


async def test_start_in_two_games_while_both_turns_pass_to_her(table) -> None:
    """Cat plays in two groups' games; in each Bob is to act, his bid passing the turn to
    her. She sends /start while both games' locks are held and both bids commit. One live
    keyboard of each game in her chat, none left in Bob's. (Failed before
    ``private_messages.acting``.)"""
    api, players, _clock, runner, db = table
    _ann, bob, cat = players[:3]
    service = runner.app.bot_data[KEY].service
    api.add_group(OTHER_GROUP, "Second", admins=[1])
    first = await to_bobs_turn(api, players, runner, GROUP)
    second = await to_bobs_turn(api, players, runner, OTHER_GROUP)
    games = [(await service.open_games_in(g))[0] for g in (GROUP, OTHER_GROUP)]
    before = len(sent_to(api, cat))
    async with game_lock_held(db, games[0].id), game_lock_held(db, games[1].id):
        await cat.start_bot()
        for _ in range(500):
            if await advisory_waiters(db) >= 2:
                break
            await asyncio.sleep(0.01)
        else:
            pytest.fail("the two views never waited for their locks")
        for message in (first, second):
            await press_now(api, bob, message, lowest_bid(api, message))
        await asyncio.sleep(0.3)
    await wait_for(lambda: len(sent_to(api, cat)) >= before + 2)
    await api.settle(quiet=0.5)
    for game in games:
        mine = keyboards_of_game(api, cat, game.id)
        assert len(mine) == 1, (game.id, live(api, cat))
        assert not keyboards_of_game(api, bob, game.id)
