"""Players whom private messages do not reach (never started the bot, blocked it before or
during a game, came back): after one refusal a delivery tries nothing private again (a
round's end, a sweep's catch-up, a Koira trick), and the league notes it until they start
the bot or type to it; when they come back, by /start, another lobby's link or a typed
text, their current view arrives and no older keyboard stays live. (Found by a review;
each failed before its fix.)"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest

from engine.core import Action
from league.service import MatchService
from telegram_app.services import KEY
from tests.clock import Clock
from tests.e2e.harness import (
    bot_table,
    open_lobby,
    press_move,
    private_turn_message,
    wait_for,
)
from tests.e2e.koira_play import KOIRA, computer_choice
from tests.e2e.unreachable import (
    blocked_through_round_one,
    call_of,
    lowest_bid,
    move_keyboards,
    peek,
    plain,
    sent_to,
    table_message,
    to_cats_turn,
)
from tests.fakebot import FakeBotAPI, FakeUser

GROUP = -100818


@pytest.fixture
async def table(pg_db, pg_url):
    clock = Clock(datetime(2026, 3, 4, 9, 0, tzinfo=UTC))
    async with bot_table(pg_url, GROUP, "Unreachable", ["Ann", "Bob", "Cat", "Dan"],
                         clock=clock, sweep_interval=0.05) as (api, players, runner):
        yield api, players, clock, runner, pg_db


def to(api: FakeBotAPI, user: FakeUser, since: int = 0) -> list:
    """The bot's calls to ``user``'s private chat (from the ``since``-th)."""
    return [r for r in api.requests if r.params.get("chat_id") == user.id][since:]


async def test_a_blocked_mover_who_starts_the_next_round_is_tried_once(table) -> None:
    """Cat got her turn's message, then blocked the bot; she plays her turn from the group
    (🎴) and calls Coyote wrongly: she lost the round and starts the next. Her turn's
    message is closed (refused: the bot learns she blocked it), and the new round's first
    message to her must not be tried after that refusal."""
    api, players, _clock, runner, _db = table
    cat = players[2]
    await to_cats_turn(api, players, runner, GROUP)
    cat.block_bot()
    tried = len(to(api, cat))
    mine = await peek(api, cat, GROUP)
    await press_move(api, cat, mine, call_of(api, mine))
    await wait_for(lambda: bool(api.find_messages(GROUP, "round 2")))
    await api.settle(quiet=0.3)
    assert "👉 Cat" in plain(table_message(api, GROUP).text)  # (she lost: she starts round 2)
    refused = to(api, cat, tried)
    assert len(refused) == 1, [r.method for r in refused]


async def test_a_new_round_the_sweep_tells_tries_a_blocked_player_once(table) -> None:
    """Cat blocked the bot once she had her cards. Another process (a second service on the
    same database) commits Bob's call, which ends the round, and dies before delivering it:
    the sweep tells it (``Reports._represent``). The new hand, drawn on Cat's message, is
    refused (the bot learns she blocked it); nothing more may be tried privately to her."""
    api, players, clock, runner, db = table
    ann, bob, cat = players[:3]
    runner.app.bot_data[KEY].service.new_seed = lambda: 3  # (Ann, Bob, Cat in turn)
    lobby = await open_lobby(api, [ann, bob, cat], GROUP)
    await ann.press_and_settle(lobby, "▶️ Start")
    await wait_for(lambda: private_turn_message(api, ann) is not None
                   and bool(api.bot_messages(cat.id)))
    message = private_turn_message(api, ann)
    await press_move(api, ann, message, lowest_bid(api, message))
    await wait_for(lambda: private_turn_message(api, bob) is not None)
    await api.settle(quiet=0.2)
    cat.block_bot()
    tried = len(to(api, cat))
    other = MatchService(db, clock=clock)  # (another bot process)
    game = (await other.open_games_in(GROUP))[0]
    await other.act(game.id, bob.id, game.version, Action("call"))
    clock.advance(5)  # (past the committer's grace: the sweep delivers it)
    await wait_for(lambda: bool(api.find_messages(GROUP, "round 2")))
    await api.settle(quiet=0.3)
    assert "👉 Bob" in plain(table_message(api, GROUP).text)  # (Cat is not to act)
    refused = to(api, cat, tried)
    assert len(refused) == 1, [r.method for r in refused]


async def test_back_with_start_after_a_round_ended_leaves_one_keyboard(table) -> None:
    """Cat blocks the bot on her turn (her private message carries its bids), plays it from
    the group (🎴), and the round ends while the bot cannot write to her (its closing edit
    of her message is skipped). She starts the bot again: the new round's view arrives,
    and the old round's turn message, never closed, must not keep its bid buttons beside
    it (README: "/start mid-game sends the message again and deletes the old one"; a chat
    never holds two keyboards of one game)."""
    api, players, _clock, runner, _db = table
    cat = players[2]
    await blocked_through_round_one(api, players, runner, GROUP)
    before = len(sent_to(api, cat))
    await cat.start_bot()
    await wait_for(lambda: len(sent_to(api, cat)) > before)
    await api.settle(quiet=0.3)
    assert "round 2" in plain(api.bot_messages(cat.id)[-1].text)  # (her view came back)
    stale = [m for m in move_keyboards(api, cat) if "round 1" in plain(m.text)]
    assert not stale, [(plain(m.text)[:60], api.buttons(m)[:3]) for m in stale]


async def test_back_by_typing_off_turn_brings_the_view(table) -> None:
    """Cat blocked the bot before the game: the deal's message to her is refused. She
    unblocks it by typing in the private chat while another player acts; the bot's answer
    reaches her there. She is reachable again (the brief's "or types to it"; the
    typed-move handler itself says an unblocked player may be written to again): her
    current view must arrive, as after /start, not only a group ping on her turn."""
    api, players, _clock, runner, _db = table
    ann, bob, cat = players[:3]
    runner.app.bot_data[KEY].service.new_seed = lambda: 3  # (Ann, Bob, Cat in turn)
    lobby = await open_lobby(api, [ann, bob, cat], GROUP)
    cat.block_bot()
    await ann.press_and_settle(lobby, "▶️ Start")
    await wait_for(lambda: private_turn_message(api, ann) is not None)
    await api.settle(quiet=0.2)
    assert len(to(api, cat)) >= 1 and not api.find_messages(cat.id, "round 1")
    await cat.send(cat.id, "hi")
    await wait_for(lambda: bool(api.find_messages(cat.id, "not your turn")))
    try:
        await wait_for(lambda: bool(api.find_messages(cat.id, "round 1")), timeout=5)
    except TimeoutError:
        service = runner.app.bot_data[KEY].service
        pytest.fail(f"no view after she typed; reachable now: "
                    f"{bool(await service.reachable([cat.id]))}")


async def test_a_koira_trick_the_sweep_tells_tries_a_blocked_player_once(
        pg_db, pg_url) -> None:
    """Koira with a note per move (a new table at each trick). Cat blocked the bot once she
    had her hand. Another process commits the moves up to the start of a new trick and
    dies before delivering them: the sweep tells them (``_represent``: the new table, then
    every private message drawn again). Cat's message is drawn twice in that one delivery,
    and refused twice: after the first refusal nothing more may be tried."""
    clock = Clock(datetime(2026, 3, 4, 9, 0, tzinfo=UTC))
    async with bot_table(pg_url, GROUP, "Koira", ["Ann", "Bob", "Cat"], clock=clock,
                         sweep_interval=0.05, notes="every_move") as (api, players, runner):
        ann, bob, cat = players
        runner.app.bot_data[KEY].service.new_seed = lambda: 5
        lobby = await open_lobby(api, players, GROUP, "/newgame koira")
        await ann.press_and_settle(lobby, "▶️ Start")
        await wait_for(lambda: all(api.bot_messages(u.id) for u in players))
        await api.settle(quiet=0.3)
        cat.block_bot()
        tried = len(to(api, cat))
        other = MatchService(pg_db, clock=clock)  # (another bot process)
        game = (await other.open_games_in(GROUP))[0]
        for _ in range(60):  # (the moves up to a new trick, each committed there)
            seat = game.state and KOIRA.current_seat(game.state)
            user = game.at_seat(seat).user_id
            outcome = await other.act(game.id, user, game.version,
                                      computer_choice(game, seat))
            game = outcome.game
            if any(e.get("type") == "trick_started" for e in outcome.events):
                break
        else:
            pytest.fail("no new trick")
        assert not KOIRA.is_over(game.state)
        clock.advance(5)  # (past the committer's grace: the sweep delivers it)
        for _ in range(100):
            now = await other.get(game.id)
            if now.told_version is not None and now.told_version >= now.version:
                break
            await asyncio.sleep(0.05)
        await api.settle(quiet=0.3)
        refused = to(api, cat, tried)
        assert len(refused) == 1, [r.method for r in refused]


async def test_back_by_another_lobbys_link_on_her_turn_brings_the_view(table) -> None:
    """Cat blocked the bot once she had her cards; her turn came (the private ping was
    refused: she is pinged in the group). She joins a lobby in another group and comes
    back through its 💬 Private chat link (``/start g<id>``): the bot may write to her
    again, and it is her turn in the first game, yet only the lobby's answer comes; the
    first game's view (her turn's buttons) must arrive as after a plain /start."""
    api, players, _clock, runner, _db = table
    ann, bob, cat, dan = players
    runner.app.bot_data[KEY].service.new_seed = lambda: 3  # (Ann, Bob, Cat in turn)
    lobby = await open_lobby(api, [ann, bob, cat], GROUP)
    await ann.press_and_settle(lobby, "▶️ Start")
    await wait_for(lambda: private_turn_message(api, ann) is not None
                   and bool(api.bot_messages(cat.id)))
    await api.settle(quiet=0.2)
    cat.block_bot()
    for user in (ann, bob):
        await wait_for(lambda user=user: private_turn_message(api, user) is not None)
        message = private_turn_message(api, user)
        await press_move(api, user, message, lowest_bid(api, message))
    await wait_for(lambda: bool(api.find_messages(GROUP, "your turn: 🎴")))
    await api.settle(quiet=0.2)
    other = -100819
    api.add_group(other, "Elsewhere", admins=[dan.id])
    second = await open_lobby(api, [dan, cat], other)
    had = {m.message_id for m in api.bot_messages(cat.id)}
    await cat.start_bot(f"g{int(plain(second.text).split('new game #')[1].split()[0])}")
    await wait_for(lambda: bool(api.find_messages(cat.id, "You are all set")))
    try:
        await wait_for(lambda: any(m.message_id not in had for m in move_keyboards(api, cat)),
                       timeout=5)
    except TimeoutError:
        pytest.fail("her turn's view in the first game never came")
