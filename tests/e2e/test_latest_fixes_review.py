"""Findings of a fresh review of 9734d87..ba5b7a5 (penalty-card tally, timed-out headings,
``typed_before_timeout`` once the turn was reminded)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from telegram_app.services import KEY
from tests.clock import Clock
from tests.e2e.harness import (
    bot_table,
    open_lobby,
    private_turn_message,
    wait_for,
)

LONE = -100996


async def _start_with_two_computers(api, ann, runner, seed: int):  # type: ignore[no-untyped-def]
    runner.app.bot_data[KEY].service.new_seed = lambda: seed
    lobby = await open_lobby(api, [ann], LONE)
    for label in ("🤖 Add AI", "🤖 Add AI", "▶️ Start"):
        await ann.press_and_settle(api.get_message(LONE, lobby.message_id), label)
    await api.settle()


@pytest.mark.parametrize("reminded", [False, True])
async def test_a_bid_typed_for_the_timed_out_turn_is_not_played_on_the_reminded_next_one(
        pg_db, pg_url, reminded) -> None:
    """Ann opens (seed 3) and types a bid in her first turn, just before its hour runs out;
    Telegram hands the bot her text late (a busy bot, a slow webhook: updates queue), after
    the timeout (the computer played that turn for her), after her next turn's message
    ("bid 8 or more"), and after that next turn's 45-minute reminder. Her text was typed for
    the turn the computer played: it must be refused ("⏰ Your time ran out before that
    arrived, so I did not play it."), as it is when it arrives before the reminder, and not
    played as her answer to a turn she had not seen yet. (``reminded=False``, the text
    arriving before that reminder, is the control: refused already.)
    Before the fix it was played as her bid of the new turn: ``league/match/moves.py``
    ``act`` passes ``reminded=row.reminder_version == version`` and ``_check_typed`` then
    skips the ``typed_before_timeout`` check altogether (d680ef3), rather than comparing
    the text with the first message of the turn that followed the timeout."""
    clock = Clock(datetime(2026, 5, 4, 9, 0, tzinfo=UTC))
    async with bot_table(pg_url, LONE, "Lone group", ["Ann"], clock=clock,
                         sweep_interval=0.05) as (api, players, runner):
        ann = players[0]
        await _start_with_two_computers(api, ann, runner, 3)
        first = private_turn_message(api, ann)
        assert first is not None and "Your turn" in first.text, "Ann opens"
        bid = max(int(d.split(":")[3]) for _, d in api.buttons(first)
                  if d and d.startswith("b:") and d.count(":") == 3)
        held: list[dict] = []
        enqueue = api.enqueue_update

        def late_delivery(payload: dict) -> dict:  # (Telegram's side: the update waits)
            message = payload.get("message") or {}
            if message.get("chat", {}).get("id") == ann.id and message.get("text") == str(bid):
                held.append(payload)
                return payload
            return enqueue(payload)

        api.enqueue_update = late_delivery  # type: ignore[method-assign]
        typed = await ann.send(ann.id, str(bid))  # typed during the first turn
        assert held
        clock.advance(3601)  # the first turn times out
        await wait_for(lambda: bool(api.find_messages(LONE, "ran out of time")))
        await api.settle(quiet=0.3)
        turn = private_turn_message(api, ann)
        assert turn is not None and "Your turn" in turn.text, "the turn came back to Ann"
        assert turn.message_id > typed.message_id
        assert str(bid) in {d.split(":")[3] for _, d in api.buttons(turn)
                            if d and d.startswith("b:") and d.count(":") == 3}, \
            "the bid typed is a legal bid of the new turn too"
        if reminded:
            clock.advance(2701)  # the new turn's reminder
            await wait_for(lambda: bool(api.find_messages(LONE, "it is your turn in game")))
            await api.settle(quiet=0.3)
        api.enqueue_update = enqueue  # type: ignore[method-assign]
        enqueue(held[0])
        await api.settle(quiet=0.5)
        answers = [m.text or "" for m in api.bot_messages(ann.id)
                   if m.message_id > typed.message_id]
        assert any("did not play it" in t for t in answers), answers
        assert not [m for m in api.bot_messages(LONE) if f"bids {bid}" in (m.text or "")
                    and "Ann" in (m.text or "")], \
            [m.text for m in api.bot_messages(LONE)]
