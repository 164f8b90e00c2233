"""Koira around the clock and players leaving, in both phases, through the real bot (a
break-it review): two timeouts in a row that remove a player mid-trick in phase 2, every
human away, a card typed just before a timeout.

Four players with a private chat each (Ann, Bob, Cat, Dan) on PostgreSQL, a controlled clock
(standard pace: an hour a turn), a seeded deal; the humans who move choose the computer
player's move and press it.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from datetime import UTC, datetime

import pytest

from engine import GAMES, step_of
from league.store.snapshots import GameSnapshot
from tests.clock import Clock
from tests.e2e.harness import bot_table, wait_for
from tests.e2e.koira_play import carry_out, computer_choice, koira_turn, service_of
from tests.fakebot import FakeBotAPI, FakeUser

KOIRA = GAMES["koira"]
GROUP = -100777
SEED = 777001
OVER = "is over!"


@pytest.fixture(name="kennel")
async def kennel_fixture(pg_db, pg_url):
    clock = Clock(datetime(2026, 9, 7, 9, 0, tzinfo=UTC))
    async with bot_table(pg_url, GROUP, "Kennel", ["Ann", "Bob", "Cat", "Dan"], clock=clock,
                         sweep_interval=0.05) as (api, players, runner):
        service_of(runner).new_seed = lambda: SEED
        yield api, players, clock, runner


async def start_koira(api: FakeBotAPI, players: list[FakeUser]) -> int:
    """Ann opens a Koira lobby, the others join, she starts it; the game's id."""
    ann = players[0]
    await ann.send(GROUP, "/newgame koira")
    await wait_for(lambda: bool(api.find_messages(GROUP, "Koira — new game #")))
    await api.settle(quiet=0.05)
    lobby = api.find_messages(GROUP, "Koira — new game #")[-1]
    for user in players[1:]:
        await user.press_and_settle(api.get_message(GROUP, lobby.message_id), "✋ Join",
                                    quiet=0.02)
    await ann.press_and_settle(api.get_message(GROUP, lobby.message_id), "▶️ Start")
    await wait_for(lambda: bool(api.find_messages(GROUP, "phase 1 (collecting) · trick 1")))
    await api.settle(quiet=0.1)
    return 1


async def game_of(runner, game_id: int) -> GameSnapshot:
    return await service_of(runner).get(game_id)


def user_to_act(game: GameSnapshot, players: list[FakeUser]) -> FakeUser | None:
    if game.status != "running":
        return None
    seat = KOIRA.current_seat(game.state)
    if seat is None:
        return None
    uid = game.at_seat(seat).user_id
    return next(u for u in players if u.id == uid)


async def changed(runner, game_id: int, version: int) -> GameSnapshot:
    """The game once its version is past ``version`` (within 20 s)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + 20
    while loop.time() < end:
        game = await game_of(runner, game_id)
        if game.version != version:
            return game
        await asyncio.sleep(0.02)
    raise AssertionError("the game did not move")


async def move(api: FakeBotAPI, runner, user: FakeUser, game: GameSnapshot) -> None:
    """``user`` presses the computer player's choice on their private keyboard."""
    await wait_for(lambda: koira_turn(api, user, game.version - 1) is not None)
    message = koira_turn(api, user, game.version - 1)
    assert message is not None
    seat = game.player(user.id).seat
    action = computer_choice(game, seat)
    answer, _ = await carry_out(api, user, message, game, action)
    assert not answer.get("show_alert"), answer
    await changed(runner, game.id, game.version)
    await api.settle(quiet=0.05)


async def time_out(api: FakeBotAPI, runner, clock, game: GameSnapshot) -> GameSnapshot:
    clock.advance(3601)
    after = await changed(runner, game.id, game.version)
    await api.settle(quiet=0.1)
    return after


Decide = Callable[[GameSnapshot, FakeUser], str | None]


async def drive(api: FakeBotAPI, runner, clock, players: list[FakeUser], game_id: int,
                decide: Decide, limit: int = 500) -> GameSnapshot:
    """Until ``decide`` says ``None`` or the game ends: the player to act moves
    (``"move"``), lets the clock run out (``"timeout"``) or sends /leave (``"leave"``)."""
    for _ in range(limit):
        game = await game_of(runner, game_id)
        user = user_to_act(game, players)
        if user is None:
            await api.settle(quiet=0.2)
            return game
        what = decide(game, user)
        if what is None:
            return game
        if what == "move":
            await move(api, runner, user, game)
        elif what == "timeout":
            await time_out(api, runner, clock, game)
        elif what == "leave":
            await user.send(GROUP, "/leave")
            await changed(runner, game_id, game.version)
            await api.settle(quiet=0.1)
        else:
            raise AssertionError(what)
    raise AssertionError("the game did not end")


async def test_a_removal_in_phase_2_mid_trick_keeps_the_trick_and_the_turns(kennel) -> None:
    """Dan plays phase 1 himself, then lets two phase-2 turns in a row run out, the second
    with cards on the table. Expected: each timeout is told once; at the removal the trick
    stays as it lay (the cards in his hand leave the game), the next player still in the
    game acts, Dan keeps no move buttons; the game ends with Dan last and rated (he moved),
    the others placed 1–3 and the Elo changes summing to zero."""
    api, players, clock, runner = kennel
    dan = players[3]
    game_id = await start_koira(api, players)
    timeouts: list[int] = []

    def decide(game: GameSnapshot, user: FakeUser) -> str | None:
        if user is dan and game.state["phase"] == 2:
            if timeouts:
                return None  # his second: below
            timeouts.append(game.version)
            return "timeout"
        return "move"

    before = await drive(api, runner, clock, players, game_id, decide)
    assert before.status == "running" and before.state["trick"], before.state
    after = await time_out(api, runner, clock, before)
    assert after.state["removed"] == [3]
    assert after.state["trick"] == before.state["trick"]
    assert after.state["hands"][3] == []
    assert after.state["turn"] == 0  # the next seat still in the game
    timed = api.find_messages(GROUP, "ran out of time: the computer plays")
    removed = api.find_messages(GROUP, "ran out of time and is removed")
    assert len(timed) == 1 and len(removed) == 1, [m.text for m in timed + removed]
    for message in api.bot_messages(dan.id):
        assert not any(d and d.split(":")[0] in ("ky", "kt", "kw", "kh")
                       for _, d in api.buttons(message)), message.text
    game = await drive(api, runner, clock, players, game_id, lambda g, u: "move")
    assert game.status == "finished"
    places = {p.name: p.placement for p in game.seated}
    assert places["Dan"] == 4 and sorted(places.values()) == [1, 2, 3, 4], places
    changes = [p.elo_change.delta for p in game.seated if p.elo_change is not None]
    assert len(changes) == 4 and abs(sum(changes)) < 1e-6, changes


async def test_a_game_every_human_lets_run_out_ends_unrated(kennel) -> None:
    """Nobody presses anything: the computer plays every turn, each player is removed at
    their second timeout in a row, the last one standing comes first. Expected: the game
    ends by itself, told once per timeout, and is not rated (nobody made a move)."""
    api, players, clock, runner = kennel
    game_id = await start_koira(api, players)
    game = await drive(api, runner, clock, players, game_id, lambda g, u: "timeout")
    assert game.status == "finished"
    assert len(api.find_messages(GROUP, "is over!")) == 1
    assert len(api.find_messages(GROUP, "is removed from the game")) == 3
    assert all(p.rated is False and p.elo_change is None for p in game.seated)
    assert api.find_messages(GROUP, "This game is not rated")


async def test_a_card_typed_before_a_timeout_is_not_played_on_the_turn_after(kennel) -> None:
    """Ann (private chat) against two computer players types a card for her turn, and the
    clock runs out before the bot reads it: the computer plays her turn (it turns up the
    stock), the computer players answer, and her turn comes straight back with a new
    message. Her typed card was meant for the turn the computer played, written before the
    new turn's message existed: like a press on that turn's buttons (refused as stale), it
    must not be played for her. Before the fix it was played on the new turn, which she
    had not yet seen (league/match/moves.py, act / _check_typed: a typed move is checked
    only against the hand's first message, not against the turn that began after a
    timeout)."""
    api, players, clock, runner = kennel
    ann = players[0]
    await ann.send(GROUP, "/newgame koira")
    await wait_for(lambda: bool(api.find_messages(GROUP, "Koira — new game #")))
    await api.settle(quiet=0.05)
    lobby = api.find_messages(GROUP, "Koira — new game #")[-1]
    for _ in range(2):
        await ann.press_and_settle(api.get_message(GROUP, lobby.message_id), "🤖 Add AI")
    await ann.press_and_settle(api.get_message(GROUP, lobby.message_id), "▶️ Start")
    await wait_for(lambda: koira_turn(api, ann) is not None)
    await api.settle(quiet=0.1)
    game = await game_of(runner, 1)
    seat = game.player(ann.id).seat
    stand_in = KOIRA.stand_in_action(game.state, seat,
                                     random.Random(f"ai:{SEED}:{step_of(game.state)}"),
                                     "normal")
    hand = KOIRA.view(game.state, seat)["hand"]
    typed = next(c for c in hand if (c,) != stand_in.cards)
    kept: list[dict] = []
    enqueue = api.enqueue_update
    api.enqueue_update = kept.append  # typed now; Telegram hands it to the bot later
    try:
        await ann.send(ann.id, typed)
    finally:
        api.enqueue_update = enqueue
    clock.advance(3601)
    await wait_for(lambda: bool(api.find_messages(GROUP, "ran out of time")))
    await wait_for(lambda: koira_turn(api, ann, game.version) is not None)
    back = await game_of(runner, 1)
    assert KOIRA.current_seat(back.state) == seat  # her turn came straight back
    assert typed in KOIRA.view(back.state, seat)["hand"]
    new_turn = koira_turn(api, ann, game.version)
    assert new_turn is not None and new_turn.message_id > kept[0]["message"]["message_id"]
    enqueue(kept[0])
    await api.settle(quiet=0.5)
    now = await game_of(runner, 1)
    assert typed in KOIRA.view(now.state, seat)["hand"], \
        f"{typed}, typed for the turn the computer played, was played on the next one"
    assert now.version == back.version
    assert any("sent before this turn's message" in (m.text or "")
               for m in api.bot_messages(ann.id))
