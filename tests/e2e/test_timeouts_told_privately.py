"""A player whose turn ran out of time is told so in their private chat, not only by the
group's note (README, "Clocks": the computer plays the turn, or the player is removed)."""

from __future__ import annotations

from tests.e2e.clock_helpers import (
    GROUP,
    bot_fixture,  # noqa: F401 (a fixture)
)
from tests.e2e.harness import open_lobby, private_turn_message, wait_for
from tests.e2e.test_clock import _settings


async def _let_the_first_turn_run_out(api, players, clock, told: str):  # type: ignore[no-untyped-def]
    """Start a game and let its first turn's hour run out, until the group reads ``told``:
    the player whose turn it was."""
    lobby = await open_lobby(api, players, GROUP)
    await players[0].press_and_settle(lobby, "▶️ Start")
    late = next(u for u in players if private_turn_message(api, u) is not None)
    clock.advance(3601)
    await wait_for(lambda: bool(api.find_messages(GROUP, told)))
    await api.settle(quiet=0.2)
    return late


async def test_the_computer_played_for_you_is_said_in_the_private_chat(bot) -> None:
    """Ann lets her bid's hour run out: the computer bids for her and the group's note says
    so. Before the fix her private message was redrawn as if she had bid ("Bids: Ann 1",
    "Waiting for Bob"): someone back at the phone read a bid they never made, with no word of
    the clock. Her message now says her time ran out and the computer played for her."""
    api, players, clock, runner = bot
    late = await _let_the_first_turn_run_out(api, players, clock, "ran out of time")
    latest = api.bot_messages(late.id)[-1]
    assert "Your time ran out: the computer played your last turn for you." in latest.text, \
        latest.text
    assert not api.buttons(latest)
    # the others' messages say nothing of it
    for user in players:
        if user is not late:
            assert all("Your time ran out" not in (m.text or "")
                       for m in api.bot_messages(user.id))


async def test_removed_for_the_clock_is_said_in_the_private_chat(bot) -> None:
    """With "removed after 2" set to remove at once, a player whose time runs out is out;
    the others play on. Before the fix their private message said only "🚪 You are out of
    game #1", as if they had left. It now says why: "Your time ran out, so you are out"."""
    api, players, clock, runner = bot
    ann = players[0]
    await _settings(api, ann, "⏰ On timeout: computer plays, removed after 2")  # → removed
    late = await _let_the_first_turn_run_out(api, players, clock, "is removed from the game")
    latest = api.bot_messages(late.id)[-1]
    assert "Your time ran out, so you are out of game #1" in latest.text, \
        latest.text
    assert not api.buttons(latest)
