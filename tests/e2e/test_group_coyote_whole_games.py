"""Whole Coyote games from the group, each edition, in Spanish and English, no computers."""

from __future__ import annotations

import pytest

from tests.e2e.group_coyote_play import sweep
from tests.e2e.group_play_common import fake_api  # noqa: F401 (the api fixture)


@pytest.mark.parametrize(("language", "command", "started", "specials"), [
    ("es", "/newgame classic", [False, False, False, False], True),
    ("es", "/newgame feathers", [False, True, False, False, False], True),
    ("es", "/newgame poker-deck", [False, False, True], False),
    ("en", "/newgame classic", [True, False, False], True),
    ("en", "/newgame feathers", [False, False, False], True),
    ("en", "/newgame poker-deck", [False, True, False, True], False),
])
async def test_whole_games_from_the_group_without_computer_players(
        api, sqlite_url, language, command, started, specials) -> None:
    """Every human move (bids, 🐺 with its Yes, every mask or coin the keyboard offers,
    their second keyboards) from 🎴's ephemeral message or the private chat: no own card
    shown, no card on the group's table, the specials offered are the rules' legal ones,
    no live buttons off-turn, one live ping naming the player to act (none for a player
    with a private chat), no English in Spanish, the final message right."""
    faults = await sweep(api, sqlite_url, language, command, started, specials, 0, 3)
    assert not faults, faults[:20]
