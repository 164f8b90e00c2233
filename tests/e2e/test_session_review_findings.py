"""Findings of a fresh review of the session d4fbd40..19c072b: a timed-out player's private
message, and a typed move refused as ``typed_before_timeout``."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from telegram_app.services import KEY
from tests.clock import Clock
from tests.e2e.clock_helpers import (
    GROUP,
    bot_fixture,  # noqa: F401 (a fixture)
)
from tests.e2e.harness import (
    bot_table,
    mover,
    open_lobby,
    opens_with_an_impossible_bid,
    private_turn_message,
    wait_for,
)

PLAYED_FOR_YOU = "Your time ran out: the computer played this turn for you."
LONE = -100997


async def _start_with_two_computers(api, ann, runner, seed: int):  # type: ignore[no-untyped-def]
    runner.app.bot_data[KEY].service.new_seed = lambda: seed
    lobby = await open_lobby(api, [ann], LONE)
    for label in ("🤖 Add AI", "🤖 Add AI", "▶️ Start"):
        await ann.press_and_settle(api.get_message(LONE, lobby.message_id), label)
    await api.settle()


@pytest.mark.parametrize("seed", [1, 3])
async def test_a_new_turn_after_a_timeout_does_not_say_it_was_played(pg_db, pg_url,
                                                                     seed) -> None:
    """Ann plays alone against two computer players. Her first turn's hour runs out: the
    computer plays it, the computer players answer, and the turn is Ann's again (seed 3:
    the same round, "bid 8 or more"; seed 1: the computer's call ended round 1 and Ann
    starts round 2, "No bid yet"). Her new turn's message, with its buttons, must not say
    "the computer played this turn for you": this turn is hers to play, and who reads it
    so waits, and is removed at the second timeout. She is still told her time ran out.
    Before the fix the new turn's message read "⏰ Your time ran out: the computer played
    this turn for you." above "Your turn: bid …" and its bid buttons
    (``presenter/private.py`` ``headed`` heads any message sent to a seat in
    ``Delivery.timed_out``, the new turn's ping too)."""
    clock = Clock(datetime(2026, 5, 4, 9, 0, tzinfo=UTC))
    async with bot_table(pg_url, LONE, "Lone group", ["Ann"], clock=clock,
                         sweep_interval=0.05) as (api, players, runner):
        ann = players[0]
        await _start_with_two_computers(api, ann, runner, seed)
        assert private_turn_message(api, ann) is not None  # Ann opens
        clock.advance(3601)
        await wait_for(lambda: bool(api.find_messages(LONE, "ran out of time")))
        await api.settle(quiet=0.3)
        turn = private_turn_message(api, ann)
        assert turn is not None, "the turn came back to Ann"
        assert "Your turn" in turn.text, turn.text
        assert "Your time ran out" in turn.text, turn.text  # (she is told: kept)
        assert PLAYED_FOR_YOU not in turn.text, turn.text


async def test_a_timeout_that_ends_the_round_is_said_in_the_private_chat(bot) -> None:
    """Cat bids 500; Ann, to answer, lets her hour run out: the computer calls Coyote! for
    her, which ends round 1, and Cat (who lost) starts round 2. The session's promise
    (README, "Clocks": "their private message says which") holds here too: one of Ann's
    private messages says her time ran out. Before the fix none did: her turn's message
    was closed ("round 1 is over") and round 2 was drawn on it in place
    (``PrivateViews._private_in_place`` and ``_close_hand`` ignore
    ``Delivery.timed_out``), so only a player who starts the next round (whose new message
    is sent, and headed) read it."""
    api, players, clock, runner = bot
    await opens_with_an_impossible_bid(api, players, GROUP)
    late = await mover(api, players)
    clock.advance(3601)
    await wait_for(lambda: bool(api.find_messages(GROUP, "round 2")))
    await api.settle(quiet=0.3)
    texts = [m.text or "" for m in api.bot_messages(late.id) if not m.deleted]
    assert any("Your time ran out" in t for t in texts), texts


async def test_a_bid_typed_during_the_turn_after_a_timeout_is_played(pg_db, pg_url) -> None:
    """Ann's first turn timed out (the computer played it); the turn is hers again (seed 3)
    and, having read that new turn's message, she types her bid. Telegram hands the bot her
    text only after the turn's 45-minute reminder went out (a busy bot, a slow webhook:
    updates queue): the reminder is a new private message, newer than her text, but the
    same turn, whose time has not run out. Her bid is played. Before the fix it was refused
    with "⏰ Your time ran out before that arrived, so I did not play it." (a time that did
    not run out), and the bid was lost: ``league/match/moves.py`` ``_check_typed`` compares
    the text with the latest private message (``private.message_id``, the reminder), not
    with the first message of the turn that followed the timeout."""
    clock = Clock(datetime(2026, 5, 4, 9, 0, tzinfo=UTC))
    async with bot_table(pg_url, LONE, "Lone group", ["Ann"], clock=clock,
                         sweep_interval=0.05) as (api, players, runner):
        ann = players[0]
        await _start_with_two_computers(api, ann, runner, 3)
        clock.advance(3601)
        await wait_for(lambda: bool(api.find_messages(LONE, "ran out of time")))
        await api.settle(quiet=0.3)
        turn = private_turn_message(api, ann)
        assert turn is not None and "Your turn" in turn.text, "the turn came back to Ann"
        bid = min(int(d.split(":")[3]) for _, d in api.buttons(turn)
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
        typed = await ann.send(ann.id, str(bid))
        assert typed.message_id > turn.message_id and held
        clock.advance(2701)  # the turn's reminder: a new private message, same turn
        await wait_for(lambda: bool(api.find_messages(LONE, "it is your turn in game")))
        await api.settle(quiet=0.3)
        assert api.bot_messages(ann.id)[-1].message_id > typed.message_id
        api.enqueue_update = enqueue  # type: ignore[method-assign]
        enqueue(held[0])
        await api.settle(quiet=0.5)
        answers = [m.text or "" for m in api.bot_messages(ann.id)
                   if m.message_id > typed.message_id]
        assert not any("did not play it" in t for t in answers), answers
        assert api.find_messages(LONE, f"Ann</b> bids {bid}") or \
            api.find_messages(LONE, f"bids {bid}"), [m.text for m in api.bot_messages(LONE)]
