"""A game's deep link (``/start g<id>``, the "start a private chat" link the lobby and the
table carry) pressed once the game is over: the player reads how it ended for them."""

from __future__ import annotations

from tests.e2e.harness import bot_table, play_game, wait_for

GROUP = -100612


async def test_a_finished_games_link_names_the_players_place(pg_db, pg_url) -> None:
    """Ann opens the game's link from the group after it ended (a tap on an old lobby, or a
    friend's forward). Before the fix she got the newcomer's welcome ("Add me to a group
    and send /newgame there"), as if she had never played; her game's end was not named.
    She now reads the game's end as her last private message of it says it: her place."""
    async with bot_table(pg_url, GROUP, "Links", ["Ann", "Bob", "Cat"]) as (api, players, _r):
        await play_game(api, players, GROUP)
        await api.settle(quiet=0.1)
        ann = players[0]
        last = api.bot_messages(ann.id)[-1].text
        before = len(api.bot_messages(ann.id))
        await ann.send(ann.id, "/start g1")
        await wait_for(lambda: len(api.bot_messages(ann.id)) > before)
        answer = api.bot_messages(ann.id)[-1].text
    assert "Add me to a group" not in answer, answer
    assert answer == last, (answer, last)


async def test_a_cancelled_games_link_says_it_was_cancelled(pg_db, pg_url) -> None:
    """The same link of a game cancelled in its lobby: before the fix, the welcome; it now
    says the game was cancelled."""
    async with bot_table(pg_url, GROUP, "Links", ["Ann", "Bob", "Cat"]) as (api, players, _r):
        ann, bob = players[0], players[1]
        await ann.send(GROUP, "/newgame")
        await wait_for(lambda: bool(api.find_messages(GROUP, "new game #1")))
        lobby = api.find_messages(GROUP, "new game #1")[-1]
        await bob.press_and_settle(lobby, "✋ Join")
        await ann.send(GROUP, "/cancel")
        await wait_for(lambda: bool(api.find_messages(GROUP, "cancelled")))
        before = len(api.bot_messages(bob.id))
        await bob.send(bob.id, "/start g1")
        await wait_for(lambda: len(api.bot_messages(bob.id)) > before)
        answer = api.bot_messages(bob.id)[-1].text
    assert "Add me to a group" not in answer and "cancelled" in answer, answer
