"""Forged and stale Koira presses through the real Application and the fake
Bot API (a mask past the hand, another game's id, an old version, a Coyote verb, a move
pressed on the group's table, a press by someone not playing), /notify in a private chat.
Each must be answered with an alert and change nothing."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from league.store.errors import ServiceError
from tests.clock import Clock
from tests.e2e.harness import bot_table, wait_for
from tests.e2e.koira_play import (
    koira_mover,
    koira_turn_by,
    koira_version,
    moves,
    service_of,
)

GROUP = -100881
SEED = 20261202


@pytest.fixture
async def kennel(pg_db, pg_url):
    clock = Clock(datetime(2026, 12, 2, 9, 0, tzinfo=UTC))
    async with bot_table(pg_url, GROUP, "Kennel", ["Ann", "Bob", "Eve"], clock=clock,
                         sweep_interval=0.05, notes="every_move") as (api, players, runner):
        service_of(runner).new_seed = lambda: SEED
        yield api, players, runner


async def test_forged_koira_presses_change_nothing(kennel) -> None:
    api, (ann, bob, eve), runner = kennel
    await ann.send(GROUP, "/newgame koira")
    await wait_for(lambda: bool(api.find_messages(GROUP, "Koira — new game #")))
    await api.settle(quiet=0.05)
    lobby = api.find_messages(GROUP, "Koira — new game #")[-1]
    await bob.press_and_settle(lobby, "✋ Join", quiet=0.02)
    await ann.press_and_settle(api.get_message(GROUP, lobby.message_id), "🤖 Add AI")
    await ann.press_and_settle(api.get_message(GROUP, lobby.message_id), "▶️ Start")
    user, message = await koira_mover(api, [ann, bob])
    other = bob if user is ann else ann
    version = koira_version(api, message)
    await api.settle(quiet=0.05)
    game = await service_of(runner).get(1)
    assert game.version == version
    hand = len(game.state["hands"][game.player(user.id).seat])
    table = api.find_messages(GROUP, "trick 1")[-1]
    said = {u.id: len(api.bot_messages(u.id)) for u in (ann, bob, eve)}
    said_group = len(api.bot_messages(GROUP))
    forged = [
        (user, user.id, message.message_id, f"ky:1:{version}:{1 << hand}"),  # past the hand
        (user, user.id, message.message_id, f"ky:1:{version}:0"),  # nothing
        (user, user.id, message.message_id, f"ky:1:{version}:1:0"),  # a zero high half
        (user, user.id, message.message_id, f"ky:1:{version}:67108863:67108863"),
        (user, user.id, message.message_id, f"ky:2:{version}:1"),  # no such game
        (user, user.id, message.message_id, f"ky:1:{version - 1}:1"),  # an old version
        (user, user.id, message.message_id, f"kt:1:{version}:1"),  # a phase-2 selection
        (user, user.id, message.message_id, f"kh:1:{version}"),  # a pick-up in phase 1
        (user, user.id, message.message_id, f"b:1:{version}:5"),  # a Coyote bid
        (user, user.id, message.message_id, f"c:1:{version}"),  # a Coyote call
        (user, GROUP, table.message_id, f"ky:1:{version}:1"),  # the move on the table
        (other, other.id, api.bot_messages(other.id)[-1].message_id, f"ky:1:{version}:1"),
        (eve, eve.id, api.bot_messages(eve.id)[-1].message_id if api.bot_messages(eve.id)
         else None, f"ky:1:{version}:1"),  # not playing
    ]
    for who, chat, message_id, data in forged:
        if message_id is None:
            continue
        answer = await api.wait_answer(await who.press_raw(chat, message_id, data))
        assert answer.get("show_alert"), (data, answer)
    await api.settle(quiet=0.1)
    assert (await service_of(runner).get(1)).version == version
    assert len(api.bot_messages(GROUP)) == said_group
    for u in (ann, bob, eve):
        assert len(api.bot_messages(u.id)) == said[u.id], u.first_name
    # the mover's message still carries their moves
    assert koira_version(api, api.get_message(user.id, message.message_id)) == version


async def test_notify_in_a_private_chat_is_refused_politely(kennel) -> None:
    api, (ann, _bob, _eve), runner = kennel
    await ann.send(ann.id, "/notify")
    await wait_for(lambda: bool(api.find_messages(ann.id, "Send /notify in a group")))
    assert not await service_of(runner).subscribed(ann.id, ann.id)


async def _start_against_two_computers(api, host) -> None:
    """``host`` opens a Koira lobby in the group, adds two computer players and starts."""
    await host.send(GROUP, "/newgame koira")
    await wait_for(lambda: bool(api.find_messages(GROUP, "Koira — new game #")))
    await api.settle(quiet=0.05)
    lobby = api.find_messages(GROUP, "Koira — new game #")[-1]
    for label in ("🤖 Add AI", "🤖 Add AI", "▶️ Start"):
        await host.press_and_settle(api.get_message(GROUP, lobby.message_id), label)


async def test_a_koira_rematch_replay_and_league(kennel) -> None:
    """Ann against two computers to the end; then 🔁 by a non-player, a double tap, the
    new lobby's kind and computers; /replay 1, /standings koira, /top koira, /profile,
    /history; no hand in the group."""
    api, (ann, _bob, eve), runner = kennel
    await _start_against_two_computers(api, ann)
    turns = 0
    while not api.find_messages(GROUP, "is over!"):
        await koira_turn_by(api, runner, [ann], GROUP)
        turns += 1
        assert turns < 300
    await api.settle(quiet=0.05)
    final = api.find_messages(GROUP, "is over!")[-1]
    answer = await eve.press_and_settle(final, "🔁 Rematch")
    assert answer["show_alert"] and "not playing" in answer["text"], answer
    data = next(d for t, d in api.buttons(final) if "Rematch" in t)
    first = await ann.press_raw(GROUP, final.message_id, data)
    second = await ann.press_raw(GROUP, final.message_id, data)
    answers = [await api.wait_answer(first), await api.wait_answer(second)]
    await api.settle(quiet=0.1)
    game = await service_of(runner).get(2)
    assert game.kind == "koira" and game.status == "lobby"
    assert [p.is_ai for p in game.players].count(True) == 2
    assert [p.user_id for p in game.players if not p.is_ai] == [ann.id], answers
    assert len([m for m in api.find_messages(GROUP, "Koira — new game #")
                if m.message_id > final.message_id]) == 1  # one rematch lobby
    # the league and replay commands; /top koira says whose leaderboard it is (it did not)
    for command, expect in (("/replay 1", "Replay of game #1"),
                            ("/standings koira", "Koira"),
                            ("/top koira", "Leaderboard (10 or more rated games) · Koira"),
                            ("/profile", "Ann"), ("/history", "#1")):
        before = len(api.bot_messages(GROUP))
        await ann.send(GROUP, command)
        await wait_for(lambda before=before: len(api.bot_messages(GROUP)) > before)
        await api.settle(quiet=0.05)
        text = "\n".join(m.text or "" for m in api.bot_messages(GROUP)[before:])
        assert expect in text, (command, text)
    assert not api.find_messages(GROUP, "Your hand")  # no hand in the group, ever


async def test_double_taps_a_running_replay_and_a_rematch_behind_a_lobby(kennel) -> None:
    """Two quick taps of one move make one move; /replay of the running game; after the
    end, 🔁 while another lobby is open in the group opens nothing and says so."""
    api, (ann, bob, eve), runner = kennel
    await _start_against_two_computers(api, ann)
    for _round in range(4):
        user, message = await koira_mover(api, [ann])
        version = koira_version(api, message)
        await api.settle(quiet=0.05)
        offered = moves(api, message)
        data = next((d for _, d in offered if d.startswith("kw:")), offered[0][1])
        said = len(api.bot_messages(GROUP))
        first = await ann.press_raw(ann.id, message.message_id, data)
        second = await ann.press_raw(ann.id, message.message_id, data)
        answers = [await api.wait_answer(first), await api.wait_answer(second)]
        await api.settle(quiet=0.1)
        game = await service_of(runner).get(1)
        # one move by Ann (and the computers' after it); the second tap is told she moved
        assert [a.get("text") for a in answers][1] == "You already moved this turn.", \
            (data, answers)
        assert not any(a.get("show_alert") for a in answers), (data, answers)
        assert len(api.bot_messages(GROUP)) > said and game.version > version
    before = len(api.bot_messages(GROUP))
    await eve.send(GROUP, "/replay 1")
    await wait_for(lambda: len(api.bot_messages(GROUP)) > before)
    await api.settle(quiet=0.05)
    text = "\n".join(m.text or "" for m in api.bot_messages(GROUP)[before:])
    assert "Your hand" not in text
    while (await service_of(runner).get(1)).status == "running":
        await koira_turn_by(api, runner, [ann], GROUP)
    await api.settle(quiet=0.05)
    final = api.find_messages(GROUP, "is over!")[-1]
    await bob.send(GROUP, "/newgame")
    await wait_for(lambda: bool(api.find_messages(GROUP, "Coyote</b> — new game #")
                                or api.find_messages(GROUP, "Coyote — new game #")))
    answer = await ann.press_and_settle(final, "🔁 Rematch")
    assert answer.get("show_alert") and "already open" in answer["text"], answer
    assert (await service_of(runner).get(2)).kind == "coyote"
    with pytest.raises(ServiceError):  # no third game
        await service_of(runner).get(3)


async def test_koira_verbs_on_a_coyote_game_change_nothing(kennel) -> None:
    """A forged Koira press (the stock, a pick-up, a play, a selection) on a running Coyote
    game, by the player to act, in their private chat and on the table: an alert each."""
    from tests.e2e.harness import move_version, mover, private_turn_message, start_game

    api, (ann, bob, eve), runner = kennel
    await start_game(api, [ann, bob, eve], GROUP)
    user = await mover(api, [ann, bob, eve])
    message = private_turn_message(api, user)
    version = move_version(api, message)
    await api.settle(quiet=0.05)
    table = next(m for m in reversed(api.bot_messages(GROUP)) if api.buttons(m))
    said = len(api.bot_messages(GROUP))
    for chat, message_id in ((user.id, message.message_id), (GROUP, table.message_id)):
        for data in (f"kw:1:{version}", f"kh:1:{version}", f"ky:1:{version}:1",
                     f"kt:1:{version}:1", "rm:1", f"v:1:0:0:{version}"):
            answer = await api.wait_answer(await user.press_raw(chat, message_id, data))
            assert answer.get("show_alert"), (chat, data, answer)
    await api.settle(quiet=0.1)
    assert (await service_of(runner).get(1)).version == version
    assert len(api.bot_messages(GROUP)) == said


async def test_rating_and_profile_of_a_named_game(kennel) -> None:
    """A rated Koira game (three humans); ``/rating koira`` and ``/profile koira`` show
    Koira's card first (they showed Coyote's, 0 games, whatever the argument)."""
    api, players, runner = kennel
    ann, bob, eve = players
    await ann.send(GROUP, "/newgame koira")
    await wait_for(lambda: bool(api.find_messages(GROUP, "Koira — new game #")))
    await api.settle(quiet=0.05)
    lobby = api.find_messages(GROUP, "Koira — new game #")[-1]
    for user in (bob, eve):
        await user.press_and_settle(lobby, "✋ Join", quiet=0.02)
    await ann.press_and_settle(api.get_message(GROUP, lobby.message_id), "▶️ Start")
    turns = 0
    while (await service_of(runner).get(1)).status == "running":
        await koira_turn_by(api, runner, players, GROUP)
        turns += 1
        assert turns < 400
    await api.settle(quiet=0.05)
    before = len(api.bot_messages(GROUP))
    await ann.send(GROUP, "/rating koira")
    await wait_for(lambda: len(api.bot_messages(GROUP)) > before)
    text = api.bot_messages(GROUP)[-1].text
    assert text.split("\n\n")[0].endswith("Rated games: 1 · wins: 0") or \
        "Rated games: 1 · wins: 1" in text.split("\n\n")[0], text
    assert "Koira" in text.split("\n")[0], text
    before = len(api.bot_messages(GROUP))
    await ann.send(GROUP, "/profile koira")
    await wait_for(lambda: len(api.bot_messages(GROUP)) > before)
    caption = api.bot_messages(GROUP)[-1].text or ""
    assert "Rated games: 1" in caption.split("\n\n")[0] and "Koira" in caption.split("\n")[0], \
        caption


async def test_a_join_link_seats_only_a_subscriber_of_that_group(kennel) -> None:
    """``/start j<id>`` is the link of a next-game alert, sent to the group's subscribers
    only; typed by anyone else (a stranger to the group guessing a number) it must not seat
    them in that group's lobby (it did: they then got the group's name, its players and the
    game in private)."""
    api, (ann, bob, eve), runner = kennel
    await ann.send(GROUP, "/newgame koira")
    await wait_for(lambda: bool(api.find_messages(GROUP, "Koira — new game #")))
    await api.settle(quiet=0.05)
    stranger = api.add_user(9, "Mallory")
    await stranger.start_bot()
    await stranger.send(stranger.id, "/start j1")
    await api.settle(quiet=0.1)
    await wait_for(lambda: len(api.bot_messages(stranger.id)) >= 2)
    assert (await service_of(runner).get(1)).player(stranger.id) is None
    # a subscriber's link still seats them
    await bob.send(GROUP, "/notify")
    await wait_for(lambda: bool(api.find_messages(GROUP, "I will tell you")))
    await bob.send(bob.id, "/start j1")
    await wait_for(lambda: bool(api.find_messages(bob.id, "You are all set for game #1")))
    assert (await service_of(runner).get(1)).player(bob.id) is not None
