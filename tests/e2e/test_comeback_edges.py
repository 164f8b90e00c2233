"""Players who come back with /start just as a change of the game is delivered, beyond
Coyote's turns: a Koira turn passing to them (a quiet group, and one with a note per move),
the timeout that removes them, the move that ends the game. Her chat holds at most one live
keyboard of the game, her latest message shows where the game is, and the group gets
nothing extra. (Found by a review of /start's view order; these held up.)"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from datetime import UTC, datetime

import pytest

from engine.core import Action
from league.store.snapshots import GameSnapshot
from telegram_app.games.koira.keyboards import mask_of
from telegram_app.services import KEY
from tests.clock import Clock
from tests.e2e.harness import (
    BotRunner,
    bot_table,
    open_lobby,
    private_turn_message,
    wait_for,
)
from tests.e2e.koira_play import (
    KOIRA,
    _button,
    carry_out,
    computer_choice,
    koira_mover,
    koira_turn,
    koira_version,
)
from tests.e2e.unreachable import (
    game_lock_held,
    live,
    move_keyboards,
    plain,
    sent_to,
    to_cats_turn,
    until,
)
from tests.fakebot import FakeBotAPI, FakeUser, StoredMessage

GROUP = -100838


def one_tap(api: FakeBotAPI, message: StoredMessage, game, seat: int, action: Action
            ) -> str | None:
    """The one button of ``message`` that makes ``action`` (``None``: it takes taps)."""
    if action.kind == "stock":
        return _button(api, message, "kw")
    if action.kind == "pickup":
        return _button(api, message, "kh")
    hand = list(KOIRA.view(game.state, seat)["hand"])
    return _button(api, message, "ky", mask_of(hand, action.cards))


def koira_keyboards(api: FakeBotAPI, user: FakeUser) -> list[StoredMessage]:
    return [m for m in api.bot_messages(user.id) if koira_version(api, m) is not None]


@pytest.mark.parametrize("notes", ["quiet", "every_move"])
async def test_koira_start_just_before_the_turn_passes_to_her(pg_db, pg_url, notes) -> None:
    """Koira (a quiet group, and one with a note per move: a new table each trick): Cat
    sends /start while another player's move, which passes the turn to her, is about to
    be delivered: one live keyboard in her chat, her latest."""
    clock = Clock(datetime(2026, 3, 4, 9, 0, tzinfo=UTC))
    async with bot_table(pg_url, GROUP, "Koira", ["Ann", "Bob", "Cat"], clock=clock,
                         notes=notes) as (api, players, runner):
        ann, _bob, cat = players
        service = runner.app.bot_data[KEY].service
        service.new_seed = lambda: 5
        lobby = await open_lobby(api, players, GROUP, "/newgame koira")
        await ann.press_and_settle(lobby, "▶️ Start")
        await wait_for(lambda: all(api.bot_messages(u.id) for u in players))
        await api.settle(quiet=0.3)
        for _ in range(80):
            user, message = await koira_mover(api, players)
            pressed = koira_version(api, message) or 0
            game = await service.get(int(api.buttons(message)[0][1].split(":")[1]))
            seat = game.player(user.id).seat
            action = computer_choice(game, seat)
            state, _events = KOIRA.apply(game.state, seat, action)
            data = one_tap(api, message, game, seat, action)
            to_her = user is not cat and not KOIRA.is_over(state) and \
                KOIRA.current_seat(state) == game.player(cat.id).seat
            if to_her and data is not None:
                break
            await carry_out(api, user, message, game, action)
            await wait_for(lambda p=pressed: any(koira_turn(api, u, p) for u in players))
            await api.settle(quiet=0.1)
        else:
            pytest.fail("the turn never passed to Cat in one tap")
        group_before = len(api.bot_messages(GROUP))
        before = len(sent_to(api, cat))
        async with game_lock_held(pg_db, game.id) as waiting:
            await cat.start_bot()
            await until(waiting, "/start's view never waited for the lock")
            await api.wait_answer(await user.press(message, data))
            await asyncio.sleep(0.3)
        await wait_for(lambda: len(sent_to(api, cat)) > before)
        await api.settle(quiet=0.5)
        mine = koira_keyboards(api, cat)
        assert len(mine) == 1, [(plain(m.text)[-60:], api.buttons(m)[:3]) for m in mine]
        assert mine[0] is api.bot_messages(cat.id)[-1]
        assert not koira_keyboards(api, user)
        if notes == "quiet":
            assert len(api.bot_messages(GROUP)) <= group_before + 1  # (a new trick's table)


@asynccontextmanager
async def removing_table(pg_url: str
                         ) -> AsyncIterator[tuple[FakeBotAPI, list[FakeUser], BotRunner, Clock]]:
    """Ann, Bob and Cat in a group that removes a player at their first timeout (the
    admin's /settings), on a clock moved by hand, with a sweep every 50 ms."""
    clock = Clock(datetime(2026, 3, 4, 9, 0, tzinfo=UTC))
    async with bot_table(pg_url, GROUP, "Review", ["Ann", "Bob", "Cat"], clock=clock,
                         sweep_interval=0.05) as (api, players, runner):
        ann = players[0]
        await ann.send(GROUP, "/settings")
        await wait_for(lambda: bool(api.find_messages(GROUP, "Defaults for new games")))
        settings = api.find_messages(GROUP, "Defaults for new games")[-1]
        await ann.press_and_settle(settings, "⏰ On timeout: computer plays, removed after 2",
                                   quiet=0.05)
        yield api, players, runner, clock


async def start_as_the_turn_runs_out(db, service, user: FakeUser, clock: Clock, game_id: int,
                                     committed: Callable[[GameSnapshot], bool]) -> None:
    """``user`` sends /start while game ``game_id``'s lock is held (her view waits for it),
    and the turn's clock runs out meanwhile: the sweeper's move commits (``committed``
    says when, as the game reads), its delivery queued behind her view; then the lock
    goes."""
    async with game_lock_held(db, game_id) as waiting:
        await user.start_bot()
        await until(waiting, "/start's view never waited for the lock")
        clock.advance(3601)
        for _ in range(1000):
            if committed(await service.get(game_id)):
                break
            await asyncio.sleep(0.01)
        else:
            pytest.fail("the timeout never committed")
        await asyncio.sleep(0.3)


async def test_start_while_the_timeout_that_removes_her_is_pending(pg_db, pg_url) -> None:
    """The group removes a player at her first timeout. Cat sends /start on her turn while
    the game's lock is held; her turn runs out meanwhile (the sweeper's move removes her;
    its delivery queues behind her view). In the end her latest message says she is out,
    without buttons, and no move buttons are left in her chat; the next player has the one
    keyboard."""
    async with removing_table(pg_url) as (api, players, runner, clock):
        ann, bob, cat = players
        service = runner.app.bot_data[KEY].service
        await to_cats_turn(api, players, runner, GROUP)
        game = (await service.open_games_in(GROUP))[0]
        before = len(sent_to(api, cat))
        await start_as_the_turn_runs_out(pg_db, service, cat, clock, game.id,
                                         lambda now: now.version > game.version)
        await wait_for(lambda: bool(api.find_messages(GROUP, "is removed from the game")))
        await api.settle(quiet=0.5)
        new = sent_to(api, cat)[before:]
        assert not move_keyboards(api, cat), live(api, cat)
        assert "ou are out of game" in plain(api.bot_messages(cat.id)[-1].text), \
            [plain(m.text)[-80:] for m in new]
        assert sum(len(move_keyboards(api, u)) for u in (ann, bob)) == 1


async def test_start_while_the_move_that_ends_the_game_is_pending(pg_db, pg_url) -> None:
    """The group removes a player at her first timeout; a poker-deck game ends at the first
    removal. Cat sends /start while the game's lock is held and the turn times out
    meanwhile (the game ends; its delivery queues behind her view). No move buttons are
    left anywhere; the group gets the end's note once."""
    async with removing_table(pg_url) as (api, players, runner, clock):
        ann, _bob, cat = players
        service = runner.app.bot_data[KEY].service
        lobby = await open_lobby(api, players, GROUP, "/newgame poker-deck")
        await ann.press_and_settle(lobby, "▶️ Start")
        await wait_for(lambda: any(private_turn_message(api, u) for u in players))
        await api.settle(quiet=0.3)
        game = (await service.open_games_in(GROUP))[0]
        before = len(sent_to(api, cat))
        await start_as_the_turn_runs_out(pg_db, service, cat, clock, game.id,
                                         lambda now: now.status == "finished")
        await wait_for(lambda: bool(api.find_messages(GROUP, "is over!")))
        await api.settle(quiet=0.5)
        assert len(api.find_messages(GROUP, "is over!")) == 1
        assert len(sent_to(api, cat)) == before  # (the end edits; no view after it)
        for user in players:
            assert not move_keyboards(api, user), live(api, user)
