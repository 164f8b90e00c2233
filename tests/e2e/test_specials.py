"""Every edition and every special action through the real bot (fake Bot API, PostgreSQL)."""

from __future__ import annotations

import pytest

from tests.e2e.harness import (
    BotRunner,
    bot_table,
    confirm_call,
    labels,
    mover,
    open_lobby,
    play_turn,
    press,
    private_turn_message,
    wait_for,
)
from tests.fakebot import FakeBotAPI

GROUP = -100555


@pytest.fixture
async def table(pg_db, pg_url):
    async with bot_table(pg_url, GROUP, "Specials", ["Ann", "Bob", "Cat", "Dan"],
                         notes="every_move") as (
            api, players, _runner):
        yield api, players


async def until_offered(api: FakeBotAPI, players, label: str):
    """Plain lowest bids until the player to act is offered ``label``; returns that player."""
    for _ in range(12):
        user = await mover(api, players)
        offered = labels(api, private_turn_message(api, user))
        if label in offered:
            return user
        await press(api, user, next(t for t in offered if t.isdigit()), GROUP)
    raise AssertionError(f"nobody was offered {label!r}")


async def finish(api: FakeBotAPI, players) -> str:
    for _ in range(600):
        if api.find_messages(GROUP, "is over!"):
            break
        assert await play_turn(api, players, GROUP)
    final = api.find_messages(GROUP, "is over!")
    assert final, "the game did not end"
    return final[-1].text


async def test_classic_masks(table) -> None:
    api, players = table
    lobby = await open_lobby(api, players, GROUP)
    ann = players[0]
    answer = await players[1].press_and_settle(lobby, "🎭 Masks: off")
    assert answer["show_alert"]  # only the opener sets options
    await ann.press_and_settle(lobby, "🎭 Masks: off")
    await ann.press_and_settle(api.get_message(GROUP, lobby.message_id), "❤️ Lives: 3")
    assert "4 lives · special actions on" in api.get_message(GROUP, lobby.message_id).text
    await ann.press_and_settle(api.get_message(GROUP, lobby.message_id), "▶️ Start")

    first = await mover(api, players)
    await press(api, first, "🎭 Pass", GROUP)
    assert api.find_messages(GROUP, "uses Pass")
    second = await mover(api, players)
    assert "🎭 Pass" not in labels(api, private_turn_message(api, second))  # no Pass after Pass
    await press(api, second, "🎭 Double…", GROUP)
    assert "🎭 Double: choose your bid" in labels(api, private_turn_message(api, second))
    await press(api, second, "1", GROUP)
    assert api.find_messages(GROUP, "the loser loses two lives")
    third = await mover(api, players)
    await press(api, third, "🐺 Coyote!", GROUP)
    showdown = api.find_messages(GROUP, "calls Coyote!")[-1].text
    assert "loses two lives (🎭 Double)" in showdown

    starter = await mover(api, players)
    await press(api, starter, "🎭 Draw 1…", GROUP)
    names = [t for t in labels(api, private_turn_message(api, starter)) if t in
             {u.first_name for u in players}]
    assert starter.first_name not in names and names
    await press(api, starter, names[0], GROUP)
    await press(api, starter, "2", GROUP)
    assert api.find_messages(GROUP, "takes an extra card")
    target = next(u for u in players if u.first_name == names[0])
    # (their private message is redrawn: the special was aimed at them)
    await wait_for(lambda: "❓ (yours) + ❓" in (api.bot_messages(target.id)[-1].text or ""))

    nxt = await mover(api, players)
    await press(api, nxt, "🎭 Reverse", GROUP)
    assert (await mover(api, players)) is nxt  # Reverse keeps the turn
    await press(api, nxt, "3", GROUP)
    nxt = await until_offered(api, players, "🎭 Shot…")
    await press(api, nxt, "🎭 Shot…", GROUP)
    choice = next(t for t in labels(api, private_turn_message(api, nxt))
                  if t in {u.first_name for u in players})
    await press(api, nxt, choice, GROUP)
    shot_bid = int(next(t for t in labels(api, private_turn_message(api, nxt)) if t.isdigit()))
    await press(api, nxt, str(shot_bid), GROUP)
    assert (await mover(api, players)).first_name == choice
    changer = await until_offered(api, players, "🎭 Change")
    note = api.find_messages(GROUP, " bids ")[-1].text.replace("\u2068", "")
    last_line = [line for line in note.splitlines() if " bids " in line][-1]
    bidder = next(u for u in players if last_line.startswith(u.first_name + "\u2069 bids"))
    await press(api, changer, "🎭 Change", GROUP)
    assert (await mover(api, players)) is bidder  # the last bidder must raise or call
    raised = next(t for t in labels(api, private_turn_message(api, bidder)) if t.isdigit())
    await press(api, bidder, raised, GROUP)
    assert api.find_messages(GROUP, f"changes their bid to {raised}")
    assert (await mover(api, players)) is changer
    assert "Winner" in await finish(api, players)


async def test_feathers_coins(table) -> None:
    api, players = table
    lobby = await open_lobby(api, players, GROUP, "/newgame feathers")
    ann = players[0]
    await ann.press_and_settle(lobby, "🪙 Coins: off")
    assert "feathers · 3 lives · special actions on" in \
        api.get_message(GROUP, lobby.message_id).text
    await ann.press_and_settle(api.get_message(GROUP, lobby.message_id), "▶️ Start")

    first = await mover(api, players)
    before = len(api.bot_messages(GROUP))
    await press(api, first, "🪙 Extra feather", GROUP)
    await api.settle()
    # the same player still acts: no group note yet (it comes with their bid), only their
    # private message shows the face-up card (the table is not edited during a round)
    assert len(api.bot_messages(GROUP)) == before
    assert "face up" in private_turn_message(api, first).text
    assert "🐺 Coyote!" not in labels(api, private_turn_message(api, first))  # then bid
    assert "🪙 Skip" not in labels(api, private_turn_message(api, first))  # one coin a turn
    await press(api, first, "1", GROUP)
    await api.settle()
    [note] = api.bot_messages(GROUP)[before:]
    assert "lies face up" in note.text
    assert "bids 1." in note.text and f"{first.first_name}\u2069, your turn" not in note.text
    nxt = await mover(api, players)
    await press(api, nxt, "🪙 Skip", GROUP)
    assert api.find_messages(GROUP, "uses Skip")
    nxt = await mover(api, players)
    await press(api, nxt, "🪙 Swap", GROUP)
    await press(api, nxt, "2", GROUP)
    nxt = await mover(api, players)
    await press(api, nxt, "🪙 Reverse", GROUP)
    await press(api, nxt, "3", GROUP)
    nxt = await mover(api, players)
    await press(api, nxt, "🪙 Guess", GROUP)
    assert "🪙 Guess: which card do you have?" in labels(api, private_turn_message(api, nxt))
    await press(api, nxt, "20", GROUP)
    assert api.find_messages(GROUP, "guesses")
    assert "Winner" in await finish(api, players)


async def test_poker_deck_game(table) -> None:
    api, players = table
    lobby = await open_lobby(api, players, GROUP, "/newgame poker-deck")
    text = api.get_message(GROUP, lobby.message_id).text
    assert "poker-deck · the 4th penalty card loses · no special actions" in text
    assert not [t for t in labels(api, api.get_message(GROUP, lobby.message_id))
                if "Masks" in t or "Coins" in t]
    await players[0].press_and_settle(lobby, "▶️ Start")
    final = await finish(api, players)
    assert final.count("🥇") == 3  # one loser, everyone else shares first place


async def test_rules_and_unknown_edition(table) -> None:
    api, players = table
    await players[0].send(GROUP, "/rules feathers")
    await players[0].send(GROUP, "/newgame <b>chess</b>")
    await api.settle(quiet=0.05)
    assert api.find_messages(GROUP, "Feathers")
    assert api.find_messages(GROUP, "Unknown edition")
    # The MAX→0 tie (shared/rules/coyote.md, scoring step 2): only one tied card counts 0.
    assert api.find_messages(GROUP, "highest remaining green negative (on a tie, each takes "
                                    "only one)")
    await players[0].send(GROUP, "/rules classic")
    await wait_for(lambda: bool(api.find_messages(GROUP, "Classic")))
    assert api.find_messages(GROUP, "makes the highest positive card count 0 (when several "
                                    "tie for highest, only one of them counts 0)")
    # during a game, /rules tells that game's edition and lives
    await players[0].send(GROUP, "/newgame feathers")
    await wait_for(lambda: bool(api.find_messages(GROUP, "new game #")))
    lobby = api.find_messages(GROUP, "new game #")[-1]
    await players[0].press_and_settle(lobby, "❤️ Lives: 3")
    await players[1].send(GROUP, "/rules")
    await wait_for(lambda: bool(api.find_messages(GROUP, "4 coyote coins and you are out")))


async def test_computer_players_and_no_flood(table) -> None:
    api, players = table
    ann, bob = players[0], players[1]
    await ann.send(GROUP, "/newgame")
    await wait_for(lambda: bool(api.find_messages(GROUP, "new game #")))
    lobby = api.find_messages(GROUP, "new game #")[-1]
    answer = await bob.press_and_settle(lobby, "🤖 Add AI")
    assert answer["show_alert"]  # only the host seats computer players
    for _ in range(4):
        await ann.press_and_settle(api.get_message(GROUP, lobby.message_id), "🤖 Add AI")
    await ann.press_and_settle(api.get_message(GROUP, lobby.message_id), "➖ Remove AI")
    text = api.get_message(GROUP, lobby.message_id).text
    assert text.count("🤖") == 3 and "Wile" in text
    await ann.press_and_settle(api.get_message(GROUP, lobby.message_id), "▶️ Start")
    for _ in range(300):
        if api.find_messages(GROUP, "is over!"):
            break
        before = len(api.bot_messages(GROUP))
        if not await play_turn(api, [ann], GROUP):
            break
        await api.settle(quiet=0.05)
        assert len(api.bot_messages(GROUP)) - before <= 2  # one report, one new table at most
    assert api.find_messages(GROUP, "is over!")
    texts = [(m.text or "").replace("\u2068", "").replace("\u2069", "")
             for m in api.bot_messages(GROUP)]
    # a showdown Ann took part in is shown in full, never as a computer-only summary line
    assert not [line for t in texts for line in t.splitlines()
                if line.startswith("🃏") and ("Ann" in line)]
    # rounds the computer players played out meanwhile show no bids; a new round's moves
    # come under its heading
    for t in texts:
        if "🔹 Round" in t:
            assert "calls Coyote!" in t.split("🔹 Round")[0] or "🃏" in t


async def test_one_game_per_forum_topic(pg_db, pg_url) -> None:
    async with FakeBotAPI() as api:
        forum = api.add_group(-100777000, "Forum", type="supergroup", is_forum=True,
                              admins=[1])
        ann, bob, cat = (api.add_user(i, name) for i, name in
                         enumerate(["Ann", "Bob", "Cat"], start=1))
        for user in (ann, bob, cat):
            await user.start_bot()
        runner = BotRunner(api, pg_url)
        await runner.start()
        try:
            await ann.send(forum.id, "/newgame", thread_id=11)
            await bob.send(forum.id, "/newgame feathers", thread_id=22)
            await wait_for(lambda: len(api.find_messages(forum.id, "new game #")) == 2)
            lobbies = {m.thread_id: m for m in api.find_messages(forum.id, "new game #")}
            assert set(lobbies) == {11, 22} and "feathers" in lobbies[22].text
            await cat.send(forum.id, "/newgame", thread_id=11)
            await wait_for(lambda: bool(api.find_messages(forum.id, "already open here")))
            assert api.find_messages(forum.id, "already open here")[-1].thread_id == 11
        finally:
            await runner.stop()


async def test_the_highest_bid_can_only_be_called(table) -> None:
    """A bid of 99,999,999,999 (the highest the bot takes) leaves the next player Coyote!
    only: no higher bid, and no special action (Change would demand a higher bid)."""
    api, players = table
    lobby = await open_lobby(api, players, GROUP)
    await players[0].press_and_settle(lobby, "🎭 Masks: off")
    await players[0].press_and_settle(api.get_message(GROUP, lobby.message_id), "▶️ Start")
    first = await mover(api, players)
    await first.send(first.id, "99999999999")
    await wait_for(lambda: bool(api.find_messages(GROUP, "bids 99999999999")))
    await api.settle()
    second = await mover(api, players)
    assert second is not first
    keyboard = private_turn_message(api, second)
    assert "nobody may bid higher: call Coyote!" in keyboard.text
    offered = labels(api, keyboard)
    assert "🐺 Coyote!" in offered and not [t for t in offered if t.startswith("🎭")]
    assert not [t for t in offered if t.isdigit() or t == "Higher ▶"]
    await second.send(second.id, "100000000000")
    await wait_for(lambda: "type a whole number from 1 to 99999999999" in (
        api.bot_messages(second.id)[-1].text or ""))
    await second.press_and_settle(keyboard, "🐺 Coyote!")
    await confirm_call(api, second, keyboard)  # (it asks first: "Yes" on the same message)
    await wait_for(lambda: bool(api.find_messages(GROUP, "The bid was too high")))
