"""A deferred press whose move committed, killed before the getUpdates that confirms it
reached Telegram and before its answer: after the restart it is answered (the real process
and a SIGKILL; ``tests/bot/test_deferred_intake.py`` forces the narrower overlap)."""

from __future__ import annotations

import asyncio

import pytest

from tests.e2e.harness import mover, private_turn_message
from tests.e2e.processes import kill, spawn, spawn_with_game
from tests.fakebot import FakeBotAPI

GROUP = -100951


@pytest.mark.timeout(240)
async def test_a_deferred_press_committed_before_its_confirm_is_answered_after_a_kill(
        pg_db, pg_url: str, tmp_path) -> None:
    async with FakeBotAPI() as api:
        bot, players = await spawn_with_game(api, pg_url, tmp_path / "bot.log", GROUP,
                                             "Killed")
        try:
            user = await mover(api, players)
            message = private_turn_message(api, user)
            bid = next(d for _, d in api.buttons(message) if d and d.startswith("b:"))
            await api.settle()
            await asyncio.sleep(1.5)  # (the first replay has run: presses are deferred)
            original_answer = api._handlers["answercallbackquery"]
            original_poll = api._get_updates
            answer_held, poll_held, gate = asyncio.Event(), asyncio.Event(), [0]

            async def lost(params: dict):
                if params.get("callback_query_id") == query and not answer_held.is_set():
                    answer_held.set()
                    await asyncio.Event().wait()  # the process dies while sending it
                return original_answer(params)

            async def poll(params: dict, request):
                if gate[0] and (params.get("offset") or 0) > gate[0] and not poll_held.is_set():
                    poll_held.set()  # the confirming getUpdates never reaches "Telegram"
                    await asyncio.Event().wait()
                return await original_poll(params, request)

            api._handlers["answercallbackquery"] = lost
            api._get_updates = poll
            query = await user.press(message, bid)
            gate[0] = api._next_update_id - 1
            await asyncio.wait_for(answer_held.wait(), 60)
            await asyncio.wait_for(poll_held.wait(), 60)
            await kill(bot)
            api._get_updates = original_poll
            assert api.callback_answer(query) is None
            bot = await spawn(api, pg_url, tmp_path / "bot.log")
            answer = await api.wait_answer(query, timeout=30)
            assert not answer.get("show_alert"), answer
        finally:
            await kill(bot)
