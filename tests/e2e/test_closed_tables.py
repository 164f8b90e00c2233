"""Closed tables of a quiet group (README, "Message economy"): once the next table, the game's
end or its cancellation is posted below it, a table shows the hand it showed, as it showed
it (its round or phase, its opening with the lives of then, its moves) and nothing live (no
turn, no clock, no 🎴); a keeps-turn move whose drawing failed is drawn again by the sweep,
then left alone. Games are seeded, so each run plays the same moves."""

from __future__ import annotations

import asyncio
import re

import pytest

from engine import GAMES
from tests.e2e.harness import (
    assert_no_old_table_live,
    bot_table,
    labels,
    move_version,
    mover,
    open_lobby,
    play_turn,
    press,
    start_game,
    wait_for,
)
from tests.e2e.koira_play import koira_turn_by, service_of

GROUP = -100461
CLOSED = "is over: see below"
ROUND = re.compile(r"^🐺 Game #\d+ · round (\d+)$")
NOT_KEPT = ("Waiting for", "opens the round", "Turn ends", "🎴")
"""Lines of a live table that its closed version drops: whose turn it is, the clock, 🎴."""


def _seat_row(line: str) -> bool:
    """A table's seat line (``👉 ⁨Cat⁩ ❤️❤️``, ``🤖 ⁨Wile⁩ (normal) 💀``): names, marks and
    hearts, no words of its own."""
    rest = re.sub(r"\([^)]*\)", "", re.sub("\u2068[^\u2069]*\u2069", "", line))
    return "\u2068" in line and not any(c.isalnum() for c in rest)


def _versions(api, message_id: int) -> list[str]:
    """The texts a group message showed, oldest first (the fake logs each send and edit)."""
    return [e.text for e in api.log if e.chat_id == GROUP and e.message_id == message_id
            and e.kind in ("send", "edit") and e.text]


def _closed(api) -> list:
    return [m for m in api.bot_messages(GROUP) if CLOSED in (m.text or "")]


def _live_moves(text: str) -> list[str]:
    """The move lines of a live Coyote table: below its seats, bar the turn and the clock."""
    lines = text.split("\n")
    last_seat = max(i for i, line in enumerate(lines) if _seat_row(line))
    return [line for line in lines[last_seat + 1:] if line and line != "…"
            and not any(word in line for word in NOT_KEPT)]


def _check_coyote_table(api, message) -> int:
    """``message`` (a closed Coyote table) says the round its live versions said, opens as
    the first of them did and keeps the moves the last of them showed; its round."""
    live = [t for t in _versions(api, message.message_id) if CLOSED not in t]
    assert live, message.text
    closed = message.text.split("\n")
    first = live[0].split("\n")
    head = next(i for i, line in enumerate(first) if ROUND.match(line))
    round_no = int(ROUND.match(first[head]).group(1))
    assert all(v.split("\n")[head] == first[head] for v in live), live
    assert closed[:head + 2] == first[:head + 2], (live[0], message.text)
    assert closed[-1] == f"⏹ Round {round_no} is over: see below.", message.text
    seats = next(i for i, line in enumerate(first) if _seat_row(line))
    opening = first[head + 2:seats]  # (with its blank line, if there is one)
    shown = closed[head + 2:head + 2 + len(opening)]
    for line in shown:
        assert not line.startswith("💀") or line in opening, (live[0], message.text)
    assert shown == opening, (live[0], message.text)
    moves = _live_moves(live[-1])
    if moves:
        at = closed.index(moves[0])
        assert closed[at:at + len(moves)] == moves, (live[-1], message.text)
    return round_no


async def _add_ai_and_start(api, host, lobby, computers: int) -> None:
    for label in ["🤖 Add AI"] * computers + ["▶️ Start"]:
        await host.press_and_settle(api.get_message(GROUP, lobby.message_id), label)
    await api.settle()


async def _play_to_the_end(api, players) -> None:
    for _ in range(400):
        if api.find_messages(GROUP, "is over!"):
            return
        assert await play_turn(api, players, GROUP)
        await api.settle(quiet=0.05)
    raise AssertionError("the game did not end in 400 moves")


async def test_each_closed_table_is_the_round_it_showed(sqlite_url) -> None:
    """Three humans and a computer player, a whole game: every table is closed as its own
    round, with the opening it was posted with (the lives of then: nobody called out who
    lost a life only in a later round) and the moves it showed."""
    async with bot_table(sqlite_url, GROUP, "Closed", ["Ann", "Bob", "Cat"]) as (
            api, players, runner):
        service_of(runner).new_seed = lambda: 1
        lobby = await open_lobby(api, players, GROUP)
        await _add_ai_and_start(api, players[0], lobby, 1)
        await _play_to_the_end(api, players)
        await api.settle()
        tables = [m for m in api.bot_messages(GROUP)
                  if any(ROUND.match(line) for line in (m.text or "").split("\n"))]
        closed = _closed(api)
        assert len(closed) >= 3 and closed == tables, [m.text for m in tables]
        rounds = [_check_coyote_table(api, m) for m in closed]
        assert rounds == sorted(set(rounds)), rounds
        assert_no_old_table_live(api, GROUP)


async def test_computer_players_finishing_the_game_leave_round_one_as_round_one(
        sqlite_url) -> None:
    """Two humans bid and /leave in round 1; the two computer players then play the game
    out in one go. The table on screen, round 1's, is closed as round 1 with the humans'
    bids, not as the last round those moves ended."""
    async with bot_table(sqlite_url, GROUP, "Closed", ["Ann", "Bob"]) as (
            api, players, runner):
        service_of(runner).new_seed = lambda: 3
        ann, bob = players
        lobby = await open_lobby(api, players, GROUP)
        await _add_ai_and_start(api, ann, lobby, 2)
        for _ in range(2):
            assert await play_turn(api, players, GROUP)
            await api.settle(quiet=0.05)
        table = next(m for m in api.bot_messages(GROUP) if "· round 1" in (m.text or ""))
        bids = [line for line in table.text.split("\n")
                if re.search("\u2068(Ann|Bob)\u2069 bids", line)]
        assert len(bids) == 2, table.text
        for user in (ann, bob):
            await user.send(GROUP, "/leave")
            await api.settle(quiet=0.3)
        await wait_for(lambda: bool(api.find_messages(GROUP, "is over!")))
        await api.settle()
        text = api.get_message(GROUP, table.message_id).text
        assert CLOSED in text, text
        assert _check_coyote_table(api, api.get_message(GROUP, table.message_id)) == 1
        assert all(bid in text.split("\n") for bid in bids), (bids, text)
        assert [m.message_id for m in _closed(api)] == [table.message_id]
        assert_no_old_table_live(api, GROUP)


@pytest.mark.parametrize("kind", ["coyote", "koira"])
async def test_a_cancelled_quiet_game_leaves_no_live_table(sqlite_url, kind) -> None:
    """/cancel mid-round: the table is closed like any other, the note has no buttons."""
    async with bot_table(sqlite_url, GROUP, "Closed", ["Ann", "Bob", "Cat"]) as (
            api, players, runner):
        service_of(runner).new_seed = lambda: 7
        await start_game(api, players, GROUP, f"/newgame {kind}")
        await api.settle()
        for _ in range(2):
            if kind == "koira":
                await koira_turn_by(api, runner, players, GROUP)
            else:
                assert await play_turn(api, players, GROUP)
            await api.settle(quiet=0.05)
        table = api.bot_messages(GROUP)[-1]
        assert "Waiting for" in table.text, table.text
        await players[0].send(GROUP, "/cancel")
        await wait_for(lambda: bool(api.find_messages(GROUP, "was cancelled")))
        await api.settle(quiet=0.3)
        assert_no_old_table_live(api, GROUP)
        assert [m.message_id for m in _closed(api)] == [table.message_id]
        if kind == "coyote":
            _check_coyote_table(api, api.get_message(GROUP, table.message_id))


async def test_a_koira_game_ending_in_phase_one_closes_phase_one(sqlite_url) -> None:
    """Two of three players /leave in phase 1: the game ends there, and its table says
    phase 1 (not phase 2, where a game that is over usually ends)."""
    async with bot_table(sqlite_url, GROUP, "Closed", ["Ann", "Bob", "Cat"]) as (
            api, players, runner):
        service_of(runner).new_seed = lambda: 7
        await start_game(api, players, GROUP, "/newgame koira")
        await api.settle()
        for _ in range(3):
            await koira_turn_by(api, runner, players, GROUP)
            await api.settle(quiet=0.05)
        table = api.bot_messages(GROUP)[-1]
        assert "· phase 1 (collecting)" in table.text, table.text
        for user in players[1:]:
            await user.send(GROUP, "/leave")
            await api.settle(quiet=0.3)
        await wait_for(lambda: bool(api.find_messages(GROUP, "is over!")))
        await api.settle()
        text = api.get_message(GROUP, table.message_id).text
        assert "🐕 Koira #1 · phase 1 (collecting)" in text, text
        assert "phase 2" not in text and "⏹ This phase is over: see below." in text, text
        assert_no_old_table_live(api, GROUP)


def _calls_since(api, since: int) -> list[str]:
    return [r.method for r in api.requests[since:] if r.method.lower() != "getupdates"]


async def test_a_keeps_turn_drawing_that_failed_is_drawn_by_the_sweep(sqlite_url) -> None:
    """🪙 Extra feather keeps the turn; Telegram fails the edits that would show the
    player's next keyboard (502). The game is not marked drawn, so a sweep draws it again;
    once drawn, the sweeps leave it alone."""
    async with bot_table(sqlite_url, GROUP, "Keeps", ["Ann", "Bob", "Cat"],
                         sweep_interval=0.2) as (api, players, runner):
        await start_game(api, players, GROUP, "/newgame feathers", "🪙 Coins: off")
        first = await mover(api, players)
        message = api.bot_messages(first.id)[-1]
        pressed = move_version(api, message)
        api.fail_next("editMessageText", 502, "Bad Gateway", count=3, chat_id=first.id)
        data = next(d for t, d in api.buttons(message) if "Extra feather" in t)
        await first.press_and_settle(message, data)
        game = await service_of(runner).get(1)
        player = game.player(first.id)
        assert pressed is not None and game.state is not None and player is not None
        assert game.version > pressed, "the move was made"
        assert GAMES["coyote"].current_seat(game.state) == player.seat, "keeps the turn"

        def current() -> bool:
            latest = api.bot_messages(first.id)[-1]
            return move_version(api, latest) == game.version

        assert not current(), "the failed edit showed the keyboard anyway"
        # (a change younger than delivery.GRACE, 2 s, is its committer's: then the sweep)
        await wait_for(current, timeout=8)
        latest = api.bot_messages(first.id)[-1]
        assert not any("Extra feather" in label for label in labels(api, latest))
        await api.settle(quiet=0.5)
        since = len(api.requests)
        await asyncio.sleep(2.0)  # (ten sweeps)
        await api.settle()
        assert _calls_since(api, since) == []
        assert (await service_of(runner).get(1)).version == game.version
        await press(api, first, "3", GROUP)  # (the game goes on from the redrawn keyboard)


async def test_a_koira_timeout_that_ends_a_trick_keeps_the_phases_table(sqlite_url) -> None:
    """A quiet group's Koira table lasts a phase: a timeout whose computer move ends a trick
    is a note (it stays), and the table on screen is edited to the next trick, neither
    closed as if the phase were over nor followed by a second table."""
    from tests.clock import Clock

    clock = Clock()
    async with bot_table(sqlite_url, GROUP, "Closed", ["Ann", "Bob", "Cat"], clock=clock,
                         sweep_interval=0.1) as (api, players, runner):
        service_of(runner).new_seed = lambda: 7
        await start_game(api, players, GROUP, "/newgame koira")
        await api.settle()
        [table] = [m for m in api.bot_messages(GROUP) if "· phase 1" in (m.text or "")]
        service = service_of(runner)
        game = (await service.open_games_in(GROUP))[0]
        while len(game.state["trick"]) < 2 or game.state.get("tied"):
            await koira_turn_by(api, runner, players, GROUP)
            await api.settle(quiet=0.05)
            game = await service.get(game.id)
        assert game.state["phase"] == 1 and len(game.state["trick"]) == 2, game.state
        clock.advance(3800)  # the last card of the trick: its player runs out of time
        await wait_for(lambda: bool(api.find_messages(GROUP, "ran out of time")))
        await api.settle(quiet=0.3)
        game = await service.get(game.id)
        assert game.state["phase"] == 1 and game.state["trick"] == [], game.state
        tables = [m for m in api.bot_messages(GROUP) if "· phase 1" in (m.text or "")]
        assert [m.message_id for m in tables] == [table.message_id], [m.text for m in tables]
        text = api.get_message(GROUP, table.message_id).text
        assert "This phase is over" not in text and "trick 2" in text, text
        assert "Waiting for" in text, text
        notes = [m for m in api.find_messages(GROUP, "ran out of time")
                 if m.message_id != table.message_id]  # (the table lists it too)
        assert len(notes) == 1, [m.text for m in notes]


@pytest.mark.parametrize("kind", ["coyote", "koira"])
async def test_a_player_who_leaves_off_turn_is_told_so_privately(sqlite_url, kind) -> None:
    """/leave from a player who is not to act: their private message of the game said
    "Waiting for …" as if they still played; now it says they are out, without buttons,
    and keeps saying so when the others' messages are drawn again (/pause, /resume)."""
    async with bot_table(sqlite_url, GROUP, "Closed", ["Ann", "Bob", "Cat", "Dan"]) as (
            api, players, runner):
        await start_game(api, players, GROUP, f"/newgame {kind}")
        await api.settle()
        game = (await service_of(runner).open_games_in(GROUP))[0]
        to_act = game.at_seat(game.state["turn"]).user_id
        leaver = next(u for u in players if u.id != to_act)
        await leaver.send(GROUP, "/leave")
        await wait_for(lambda: bool(api.find_messages(GROUP, "leaves the game")))
        await api.settle(quiet=0.3)
        last = api.bot_messages(leaver.id)[-1]
        assert "You are out of game #1" in last.text, last.text
        assert not api.buttons(last) and "Waiting for" not in last.text, last.text
        sent = len(api.bot_messages(leaver.id))
        for command, said in (("/pause", "is paused"), ("/resume", "runs again")):
            await players[0].send(GROUP, command)
            await wait_for(lambda said=said: bool(api.find_messages(GROUP, said)))
            await api.settle(quiet=0.3)
            last = api.get_message(leaver.id, last.message_id)
            assert "You are out of game #1" in last.text, (command, last.text)
        assert len(api.bot_messages(leaver.id)) == sent
