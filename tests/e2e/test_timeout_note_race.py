"""A game's start and the change after it, committed before the start's delivery took its
changes (it waited for the game's lock: here the lobby's post, whose answer the fake Bot API
holds), are shown by one delivery. The change here is the first player's timeout, in a
group that removes a player who runs out of time: the group is told it
("… ran out of time and is removed from the game"), as when the start was shown first.

The race a full test run once lost (tests/e2e/test_league_screens_replay.py, whose
``time_out`` waited 30 s for that note): the clock moves on the moment the game starts, and
the sweep's timeout lands before the start's delivery reads what it has to show.
"""

from __future__ import annotations

import asyncio
from typing import Any

from league.match.outcome import Outcome
from telegram_app.services import KEY
from tests.e2e.harness import wait_for
from tests.e2e.league_screens_helpers import (
    GROUP,
    TITLE,
    league,
    ref,
    remove_on_timeout,
    service,
    unmarked,
)
from tests.fakebot import FakeBotAPI

REMOVED = "ran out of time and is removed from the game"


def hold_group_sends(api: FakeBotAPI, chat: int) -> tuple[asyncio.Event, asyncio.Event]:
    """Hold the fake's answer to every ``sendMessage`` into ``chat`` (a slow Telegram) until
    the second event is set; the first is set when one arrived."""
    original = api._handlers["sendmessage"]
    arrived, release = asyncio.Event(), asyncio.Event()

    async def answer(params: dict[str, Any]) -> Any:
        if str(params.get("chat_id")) == str(chat) and not release.is_set():
            arrived.set()
            await release.wait()
        result = original(params)
        return await result if asyncio.iscoroutine(result) else result

    api._handlers["sendmessage"] = answer
    return arrived, release


async def _start_and_time_out_behind_the_lobby(api, players, clock, runner, kind: str) -> None:
    """Post the lobby (its answer held: the delivery keeps the game's lock), start the
    game, let the first turn's hour run out and the sweep commit the removal, then let
    Telegram answer: the start's delivery finds the start and the removal both waiting."""
    bot = runner.app.bot_data[KEY]
    svc = service(runner)
    await remove_on_timeout(runner)
    lobby = await svc.open_lobby(GROUP, TITLE, 0, ref(players[0]), kind, {})
    arrived, release = hold_group_sends(api, GROUP)
    posting = asyncio.create_task(bot.presenter.show_lobby(lobby, runner.app.bot.username,
                                                           new=True))
    await asyncio.wait_for(arrived.wait(), 10)
    removals: list[Outcome] = []  # (after the presenter's listener: it has it noted then)
    svc.on_commit(lambda o: removals.extend(
        [o] if any(e.get("type") == "player_removed" for e in o.events) else []))
    for user in players[1:]:
        await svc.join(lobby.id, ref(user))
    await svc.start(lobby.id, players[0].id)
    clock.advance(3601)
    await wait_for(lambda: bool(removals), timeout=10)
    release.set()
    await posting
    await api.settle(quiet=0.3)


def _group_texts(api: FakeBotAPI) -> list[str]:
    return [unmarked(m.text) for m in api.bot_messages(GROUP) if not m.deleted]


async def test_koira_start_and_removal_shown_together_tell_the_removal(pg_db, pg_url) -> None:
    """Before the fix the delivery took the start and the removal as one change: a quiet
    group's new table (drawn for the start) told it, and a Koira table only says "Cat · left
    the game", so nothing said Cat ran out of time and was removed (the note of the removal
    never came). A start is now shown alone, and the removal as any later change."""
    async with league(pg_url) as (api, players, clock, runner):
        await _start_and_time_out_behind_the_lobby(api, players, clock, runner, "koira")
        texts = _group_texts(api)
        assert any(REMOVED in t for t in texts), texts


async def test_coyote_start_and_removal_shown_together_tell_the_removal(pg_db, pg_url
                                                                          ) -> None:
    """Before the fix, as after it (a control), the same race in Coyote told the removal:
    its new table opens with the hand's moves ("⏰ Dan ran out of time and is removed from
    the game"), and the closed lobby says who started. Since the fix the removal also has
    its own note, as when the start was shown first."""
    async with league(pg_url) as (api, players, clock, runner):
        await _start_and_time_out_behind_the_lobby(api, players, clock, runner, "coyote")
        texts = _group_texts(api)
        assert any("started with Ann, Bob, Cat, Dan" in t for t in texts), texts
        assert any(REMOVED in t for t in texts), texts
