"""Coyote from the group with computer players: a human handed the turn is told of it."""

from __future__ import annotations

import pytest

from tests.e2e.group_coyote_helpers import open_table
from tests.e2e.group_coyote_play import play_game, sweep
from tests.e2e.group_play_common import fake_api  # noqa: F401 (the api fixture)


@pytest.mark.parametrize(("command", "started", "specials", "ai", "seed"), [
    ("/newgame feathers", [False, True, False], True, 1, 2),
    ("/newgame poker-deck", [False, False, True], False, 1, 2),
])
async def test_a_player_without_private_chat_is_named_when_a_computer_player_passes_them_the_turn(
        api, sqlite_url, command, started, specials, ai, seed) -> None:
    """Spanish, computer players at the table. When a computer player's move (its opening
    bid of a new round, as the showdown's winner) hands the turn to a human who has no
    private chat, that human must be named in the group (a ping, or the new table's
    "opens the round" mention). Seen: the new table says only "Esperando a Sofía." (no
    mention) and no ping follows: she is not notified at all."""
    faults = await sweep(api, sqlite_url, "es", command, started, specials, ai, seed,
                         keep=lambda f: "came back" not in f)
    assert not [f for f in faults if "not pinged" in f], faults[:20]


async def test_the_turn_coming_back_through_computer_players_is_told(api, sqlite_url) -> None:
    """Spanish, one human without a private chat against two computer players. After her
    bid the computer players reply at once and the turn comes back to her: README says the
    player whose turn begins is told (a new private message, or in the group a short ping);
    here only her ephemeral message gets its buttons back by an edit, which does not notify
    (an offline or away player never learns it is her turn until the clock's reminder)."""
    t = await open_table(api, sqlite_url, "es", [False], command="/newgame classic", ai=2,
                         seed=5)
    try:
        await play_game(t, 5, prefer_special=0.0)
        came_back = [f for f in t.faults if "came back" in f]
        assert not came_back, came_back[:5]
    finally:
        await t.runner.stop()
