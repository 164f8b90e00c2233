"""Turn clocks and the sweeper on PostgreSQL, with a controlled clock (nothing sleeps)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest

from engine import Action
from league.service import MatchService
from league.store.db import Database
from league.store.errors import ServiceError
from league.store.snapshots import UserRef
from tests.clock import Clock

CHAT = -2001
USERS = [UserRef(i, f"P{i}") for i in range(1, 5)]




@pytest.fixture
def clock() -> Clock:
    return Clock(datetime(2026, 3, 2, 12, 0, tzinfo=UTC))


async def _running(service: MatchService, players: int = 3, *, pace: str = "quick",
                   policy: str = "ai", chat: int = CHAT) -> int:
    await service.set_chat_setting(chat, "Group", "pace", pace)
    await service.set_chat_setting(chat, "Group", "timeout_policy", policy)
    lobby = await service.open_lobby(chat, "Group", 0, USERS[0], "coyote")
    for user in USERS[1:players]:
        await service.join(lobby.id, user)
    await service.start(lobby.id, USERS[0].id)
    return lobby.id


async def test_reminder_once_then_auto_move(pg_db: Database, clock: Clock) -> None:
    service = MatchService(pg_db, clock=clock, new_seed=lambda: 3)
    game_id = await _running(service)
    before = await service.get(game_id)
    turn = before.state["turn"]
    clock.advance(44)
    assert await service.sweep() == []
    clock.advance(2)  # 46 s of 60: past three quarters
    [reminder] = await service.sweep()
    assert reminder.kind == "reminder" and reminder.seat == turn
    assert not reminder.removed  # a first timeout: the computer will play for them
    assert await service.sweep() == []  # one reminder per turn
    clock.advance(15)  # 61 s: the clock ran out
    [timeout] = await service.sweep()
    assert timeout.kind == "timeout" and timeout.seat == turn and not timeout.removed
    assert timeout.steps[0].events[0] == {"type": "turn_timed_out", "seat": turn,
                                          "removed": False}
    after = await service.get(game_id)
    assert after.state["turn"] != turn and after.version == before.version + 1
    log = await service.log(game_id)
    assert log[-1].seat == turn and log[-1].user_id is None  # the AI moved for them
    assert await service.sweep() == []  # the next turn's clock starts now


async def test_removed_after_two_timeouts_in_a_row(pg_db: Database, clock: Clock) -> None:
    service = MatchService(pg_db, clock=clock, new_seed=lambda: 5)
    game_id = await _running(service)
    first = (await service.get(game_id)).state["turn"]
    removed = None
    for _ in range(8):
        clock.advance(61)
        for result in await service.sweep():
            if result.kind == "timeout" and result.removed:
                removed = result
        if removed:
            break
    assert removed is not None and removed.seat == first
    game = await service.get(game_id)
    assert game.state["lives"][first] == 0 and first in game.state["out"]


@pytest.mark.parametrize("policy", ["ai", "remove"])
async def test_reminder_says_when_the_timeout_removes(pg_db: Database, clock: Clock,
                                                      policy: str) -> None:
    service = MatchService(pg_db, clock=clock, new_seed=lambda: 5)
    game_id = await _running(service, policy=policy)
    first = (await service.get(game_id)).state["turn"]
    warnings = []
    for _ in range(12):
        clock.advance(46)
        for result in await service.sweep():
            if result.kind == "reminder" and result.seat == first:
                warnings.append(result.removed)
        clock.advance(15)
        if any(r.kind == "timeout" and r.removed for r in await service.sweep()):
            break
    # "ai": the computer plays at the first timeout, the second removes; "remove": at once.
    assert warnings == ([False, True] if policy == "ai" else [True])


async def test_leaving_off_turn_keeps_the_turns_clock(pg_db: Database, clock: Clock) -> None:
    service = MatchService(pg_db, clock=clock, new_seed=lambda: 5)
    game_id = await _running(service, players=4)
    before = await service.get(game_id)
    turn = before.state["turn"]
    clock.advance(30)
    leaver = next(p for p in before.players if p.seat != turn)
    outcome = await service.act(game_id, leaver.user_id, before.version, Action("resign"))
    assert outcome.game.state["turn"] == turn and outcome.game.state["lives"][leaver.seat] == 0
    assert outcome.game.deadline_at == before.deadline_at


async def test_acting_resets_the_timeout_count(pg_db: Database, clock: Clock) -> None:
    service = MatchService(pg_db, clock=clock, new_seed=lambda: 5)
    game_id = await _running(service, 4)
    first = (await service.get(game_id)).state["turn"]
    clock.advance(61)
    [result] = await service.sweep()  # first times out once: the computer plays
    assert result.seat == first and not result.removed
    game = await service.get(game_id)
    for _ in range(12):  # the others time out until it is first's turn again
        if game.state["turn"] == first:
            break
        clock.advance(61)
        await service.sweep()
        game = await service.get(game_id)
    assert game.state["turn"] == first
    bids = game.state["bids"]
    await service.act(game_id, game.at_seat(first).user_id, game.version,
                      Action("bid", bids[-1][1] + 1 if bids else 1))  # in time: count reset
    for _ in range(12):
        clock.advance(61)
        results = [r for r in await service.sweep() if r.seat == first]
        if results:
            assert not results[0].removed  # one timeout in a row again, not two
            break
    else:
        raise AssertionError("first never timed out again")


async def test_remove_policy_removes_at_first_timeout(pg_db: Database, clock: Clock) -> None:
    service = MatchService(pg_db, clock=clock, new_seed=lambda: 9)
    game_id = await _running(service, 4, policy="remove")
    turn = (await service.get(game_id)).state["turn"]
    clock.advance(61)
    [result] = await service.sweep()
    assert result.removed and result.seat == turn
    assert result.game.state["lives"][turn] == 0


async def test_lobby_expires(pg_db: Database, clock: Clock) -> None:
    service = MatchService(pg_db, clock=clock)
    lobby = await service.open_lobby(CHAT, "Group", 0, USERS[0], "coyote")
    clock.advance(3599)
    assert await service.sweep() == []
    clock.advance(2)
    [expired] = await service.sweep()
    assert expired.kind == "lobby_expired" and expired.game.status == "cancelled"
    with pytest.raises(ServiceError, match="not_in_lobby"):
        await service.join(lobby.id, USERS[1])


async def test_pause_and_resume_keep_the_time_left(pg_db: Database, clock: Clock) -> None:
    service = MatchService(pg_db, clock=clock, new_seed=lambda: 3)
    game_id = await _running(service)
    clock.advance(30)
    await service.pause(game_id)
    with pytest.raises(ServiceError, match="already_paused"):
        await service.pause(game_id)
    clock.advance(10_000)
    assert await service.sweep() == []  # nothing happens while paused
    await service.resume(game_id)
    with pytest.raises(ServiceError, match="not_paused"):
        await service.resume(game_id)
    clock.advance(14)  # 44 s used in all: no reminder yet
    assert await service.sweep() == []
    clock.advance(2)
    assert [r.kind for r in await service.sweep()] == ["reminder"]
    clock.advance(14)  # 60 s used in all
    assert [r.kind for r in await service.sweep()] == ["timeout"]


async def test_two_sweepers_never_apply_a_timeout_twice(pg_url: str, pg_db: Database,
                                                      clock: Clock) -> None:
    service = MatchService(pg_db, clock=clock)
    games = [await _running(service, chat=CHAT - k) for k in range(12)]
    clock.advance(61)
    other_db = Database(pg_url)
    other = MatchService(other_db, clock=clock)
    try:
        first, second = await asyncio.gather(service.sweep(limit=5), other.sweep(limit=100))
        rest = await service.sweep()
    finally:
        await other_db.dispose()
    handled = [r.game.id for r in first + second + rest]
    assert sorted(handled) == sorted(games)  # each game exactly once
    for game_id in games:
        timeouts = [row for row in await service.log(game_id)
                    if any(e["type"] == "turn_timed_out" for e in row.events)]
        assert len(timeouts) == 1


async def test_the_computer_finishes_a_timed_out_turn(pg_db: Database, clock: Clock) -> None:
    """When the computer plays a timed-out turn with a coin after which the same player still
    acts (Extra feather, Reverse, Swap), it also makes their bid: the turn moves on, and the
    player is not removed for missing one turn."""
    import random

    from engine.coyote import CoyoteGame
    from engine.coyote.ai import choose_action

    rules = CoyoteGame()
    options = {"edition": "feathers", "specials": True}
    for seed in range(1000):
        state = rules.new_state(4, seed, options)
        rng = random.Random(f"ai:{seed}:{state['step']}")
        if choose_action(rules.view(state, state["turn"]), rng).special in (
                "extra", "reverse", "swap"):
            break
    else:
        raise AssertionError("no seed where the computer's first move is such a coin")
    service = MatchService(pg_db, clock=clock, new_seed=lambda: seed)
    for key, value in (("edition", "feathers"), ("specials", True)):
        await service.set_chat_setting(CHAT, "Group", key, value,
                                       kind=None if key == "pace" else "coyote")
    game_id = await _running(service, 4)
    turn = (await service.get(game_id)).state["turn"]
    clock.advance(61)
    [timeout] = await service.sweep()
    kinds = [e["type"] for step in timeout.steps for e in step.events]
    assert kinds[:2] == ["turn_timed_out", "special_used"] and "bid_placed" in kinds
    assert all(step.seat == turn for step in timeout.steps[:2])
    game = await service.get(game_id)
    assert game.state["turn"] != turn and game.state["lives"][turn] > 0


def _stand_in_ends_the_round() -> tuple[int, int]:
    """A classic 3-player seed and an opening bid after which the next player's computer
    stand-in calls Coyote, loses, and so starts the next round."""
    import random

    from engine.coyote import CoyoteGame

    rules = CoyoteGame()
    for seed in range(2000):
        state = rules.new_state(3, seed, {})
        for amount in range(1, 7):
            after, _ = rules.apply(state, state["turn"], Action("bid", amount))
            seat = after["turn"]
            action = rules.ai_action(rules.view(after, seat),
                                     random.Random(f"ai:{seed}:{after['step']}"))
            if action.kind == "call" and rules.apply(after, seat, action)[0]["turn"] == seat:
                return seed, amount
    raise AssertionError("no seed")


async def test_the_stand_in_leaves_the_next_round_to_the_player(pg_db: Database,
                                                                 clock: Clock) -> None:
    """The computer plays only the timed-out turn: when its call ends the round and the same
    player starts the next one, that turn is theirs again, with a fresh clock."""
    seed, amount = _stand_in_ends_the_round()
    service = MatchService(pg_db, clock=clock, new_seed=lambda: seed)
    game_id = await _running(service)
    game = await service.get(game_id)
    bidder = game.at_seat(game.state["turn"])
    after = await service.act(game_id, bidder.user_id, game.version, Action("bid", amount))
    late = after.game.state["turn"]
    clock.advance(61)
    [timeout] = await service.sweep()
    assert timeout.seat == late and len(timeout.steps) == 1  # the call, nothing more
    game = await service.get(game_id)
    assert game.state["round"] == 2 and game.state["turn"] == late and not game.state["bids"]
    assert game.deadline_at is not None and game.deadline_at > clock()


async def test_the_stand_in_leaves_the_absent_players_mask_alone(pg_db: Database,
                                                                 clock: Clock) -> None:
    """Seed 531 (classic, masks; Ann and Bob, then two computer players): on Ann's first turn
    a computer player would use Change. Standing in for Ann after her timeout, the computer
    does not spend her mask (a Change would hand her turn to another player and back), so it
    bids or calls and her turn is over."""
    service = MatchService(pg_db, clock=clock, new_seed=lambda: 531)
    for key, value in (("pace", "quick"), ("specials", True)):
        await service.set_chat_setting(CHAT, "Group", key, value,
                                       kind=None if key == "pace" else "coyote")
    lobby = await service.open_lobby(CHAT, "Group", 0, USERS[0], "coyote")
    await service.join(lobby.id, USERS[1])
    await service.add_ai(lobby.id, USERS[0].id)
    await service.add_ai(lobby.id, USERS[0].id)
    game = (await service.start(lobby.id, USERS[0].id)).game
    while game.state["turn"] != 0:
        assert game.state["turn"] == 1  # Bob bids the minimum until Ann is to act
        game = (await service.act(game.id, USERS[1].id, game.version,
                                  Action("bid", game.state["bids"][-1][1] + 1
                                         if game.state["bids"] else 1))).game
    clock.advance(61)
    [timeout] = await service.sweep()
    first = timeout.steps[0]
    assert first.seat == 0 and [e["type"] for e in first.events][1] in ("bid_placed",
                                                                       "coyote_called")
    assert game.state["masks"][0] and timeout.steps[0].state["masks"][0]


async def _masks_game(service: MatchService, players: int = 3) -> int:
    """A quick classic game with masks on and the "ai" timeout policy."""
    for key, value in (("pace", "quick"), ("specials", True), ("timeout_policy", "ai")):
        await service.set_chat_setting(CHAT, "Group", key, value,
                                       kind="coyote" if key == "specials" else None)
    lobby = await service.open_lobby(CHAT, "Group", 0, USERS[0], "coyote")
    for user in USERS[1:players]:
        await service.join(lobby.id, user)
    await service.start(lobby.id, USERS[0].id)
    return lobby.id


async def _bid_min(service: MatchService, game):
    bids = game.state["bids"]
    seat = game.state["turn"]
    return (await service.act(game.id, game.at_seat(seat).user_id, game.version,
                              Action("bid", bids[-1][1] + 1 if bids else 1))).game


async def test_a_move_that_keeps_the_turn_keeps_what_its_reminder_said(pg_db: Database,
                                                                        clock: Clock) -> None:
    """A timed out once; on A's next turn the reminder warns that the coming timeout removes
    A. A then uses Reverse (the turn and its clock go on) and lets the clock run out: A is
    removed, as the turn's one reminder said."""
    for seed in range(1, 60):
        service = MatchService(pg_db, clock=clock, new_seed=lambda s=seed: s)
        game_id = await _masks_game(service)
        game = await service.get(game_id)
        a = game.state["turn"]
        clock.advance(61)
        await service.sweep()  # A's first timeout (the stand-in leaves the mask alone)
        game = await service.get(game_id)
        while game.state["turn"] != a and game.state["round"] == 1:
            game = await _bid_min(service, game)
        if game.state["round"] != 1 or not game.state["masks"][a] or \
                (game.state["bids"] and game.state["bids"][-1][1] >= 30):
            continue
        clock.advance(46)
        [reminder] = await service.sweep()
        assert reminder.kind == "reminder" and reminder.seat == a
        game = await service.get(game_id)
        outcome = await service.act(game_id, game.at_seat(a).user_id, game.version,
                                    Action("special", special="reverse"))
        assert outcome.game.state["turn"] == a
        assert outcome.game.deadline_at == game.deadline_at  # clock kept, no new reminder
        clock.advance(15)
        results = await service.sweep()
        assert [r.kind for r in results] == ["timeout"]
        assert reminder.removed == results[0].removed, (
            f"seed {seed}: the one reminder said removed={reminder.removed}, "
            f"the timeout removed={results[0].removed}")
        return
    raise AssertionError("no seed")


async def test_a_reminder_sent_while_its_turn_goes_on_stays_the_turns(pg_db: Database,
                                                                       clock: Clock) -> None:
    """The reminded player's Reverse commits while the reminder is still being sent (its
    message id is recorded after the send): the reminder still counts as this turn's."""
    service = MatchService(pg_db, clock=clock, new_seed=lambda: 4)
    game_id = await _masks_game(service)
    clock.advance(46)
    [reminder] = await service.sweep()
    game = await service.get(game_id)
    a = game.state["turn"]
    await service.act(game_id, game.at_seat(a).user_id, game.version,
                      Action("special", special="reverse"))
    async with service.delivering(game_id) as delivery:  # the send returns late
        delivery.set_messages(reminder=777)
    game = await service.get(game_id)
    assert game.state["turn"] == a
    assert game.reminder_version == game.version and game.reminder_message_id == 777
