"""Findings of fresh reviews of the session's change (d4fbd40..): a timed-out player's
private message, and a typed move refused as ``typed_before_timeout`` or not."""

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


class Late:
    """``user``'s text ``text``, typed from now on, handed to the bot only at :meth:`arrive`
    (Telegram's side: updates queue behind a busy bot or a slow webhook)."""

    def __init__(self, api, user, text: str) -> None:  # type: ignore[no-untyped-def]
        self.api, self.held = api, []
        self.enqueue = api.enqueue_update

        def late_delivery(payload: dict) -> dict:
            message = payload.get("message") or {}
            if message.get("chat", {}).get("id") == user.id and message.get("text") == text:
                self.held.append(payload)
                return payload
            return self.enqueue(payload)

        api.enqueue_update = late_delivery

    def arrive(self) -> None:
        self.api.enqueue_update = self.enqueue
        self.enqueue(self.held[0])


def _bids(api, message) -> list[int]:  # type: ignore[no-untyped-def]
    """The bids a turn's message offers."""
    return [int(d.split(":")[3]) for _, d in api.buttons(message) if d and d.startswith("b:")
            and d.count(":") == 3]


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
        bid = min(_bids(api, turn))
        late = Late(api, ann, str(bid))
        typed = await ann.send(ann.id, str(bid))
        assert typed.message_id > turn.message_id and late.held
        clock.advance(2701)  # the turn's reminder: a new private message, same turn
        await wait_for(lambda: bool(api.find_messages(LONE, "it is your turn in game")))
        await api.settle(quiet=0.3)
        assert api.bot_messages(ann.id)[-1].message_id > typed.message_id
        late.arrive()
        await api.settle(quiet=0.5)
        answers = [m.text or "" for m in api.bot_messages(ann.id)
                   if m.message_id > typed.message_id]
        assert not any("did not play it" in t for t in answers), answers
        assert api.find_messages(LONE, f"Ann</b> bids {bid}") or \
            api.find_messages(LONE, f"bids {bid}"), [m.text for m in api.bot_messages(LONE)]


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
        bid = max(_bids(api, first))
        late = Late(api, ann, str(bid))
        typed = await ann.send(ann.id, str(bid))  # typed during the first turn
        assert late.held
        clock.advance(3601)  # the first turn times out
        await wait_for(lambda: bool(api.find_messages(LONE, "ran out of time")))
        await api.settle(quiet=0.3)
        turn = private_turn_message(api, ann)
        assert turn is not None and "Your turn" in turn.text, "the turn came back to Ann"
        assert turn.message_id > typed.message_id
        assert bid in _bids(api, turn), "the bid typed is a legal bid of the new turn too"
        if reminded:
            clock.advance(2701)  # the new turn's reminder
            await wait_for(lambda: bool(api.find_messages(LONE, "it is your turn in game")))
            await api.settle(quiet=0.3)
        late.arrive()
        await api.settle(quiet=0.5)
        answers = [m.text or "" for m in api.bot_messages(ann.id)
                   if m.message_id > typed.message_id]
        assert any("did not play it" in t for t in answers), answers
        assert not [m for m in api.bot_messages(LONE) if f"bids {bid}" in (m.text or "")
                    and "Ann" in (m.text or "")], \
            [m.text for m in api.bot_messages(LONE)]
