"""Results players can trust, through the real bot: a game nobody played is not rated (and
the final message says so), a player who never moved is placed but not rated, shared places
are told the same way in the final message, /history, /replay, the standings and the Mini
App's history, the lobby names who cannot get their cards, and a player Telegram refused is
not sent a reminder on every turn."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest

from telegram_app.services import KEY
from tests.clock import Clock
from tests.e2e.harness import (
    bot_table,
    choose,
    move_version,
    mover,
    open_lobby,
    play_turn,
    press_move,
    private_turn_message,
    wait_for,
)
from tests.fakebot import FakeBotAPI, FakeUser, parse_html

GROUP = -100777


@pytest.fixture
async def table(pg_db, pg_url):
    clock = Clock(datetime(2026, 3, 4, 9, 0, tzinfo=UTC))  # a Wednesday
    async with bot_table(pg_url, GROUP, "Results", ["Ann", "Bob", "Cat", "Dan"], clock=clock,
                         sweep_interval=0.05) as (api, players, runner):
        yield api, players, clock, runner


def plain(text: str | None) -> str:
    """A message as read: no markup, no bidi isolation marks around names."""
    return parse_html(text or "")[0].replace("\u2068", "").replace("\u2069", "")


async def _settings(api: FakeBotAPI, admin: FakeUser, label: str) -> None:
    await admin.send(GROUP, "/settings")
    await wait_for(lambda: bool(api.find_messages(GROUP, "Defaults for new games")))
    await admin.press_and_settle(api.find_messages(GROUP, "Defaults for new games")[-1], label,
                                 quiet=0.05)


async def _ask(api: FakeBotAPI, user: FakeUser, command: str, expect: str) -> str:
    before = len(api.find_messages(GROUP, expect))
    await user.send(GROUP, command)
    await wait_for(lambda: len(api.find_messages(GROUP, expect)) > before)
    return plain(api.find_messages(GROUP, expect)[-1].text)


async def _final(api: FakeBotAPI) -> str:
    await wait_for(lambda: bool(api.find_messages(GROUP, "is over!")), timeout=60)
    await api.settle(quiet=0.1)
    return plain(api.find_messages(GROUP, "is over!")[-1].text)


async def test_a_game_nobody_played_is_not_rated(table) -> None:
    """On timeout: removed. Nobody moves: two turns run out, two players are removed and
    the third is left alone. Nobody made a move of their own: nothing is rated, the final
    message says so, and the two removed share the last place."""
    api, players, clock, _runner = table
    ann = players[0]
    await _settings(api, ann, "⏰ On timeout: computer plays, removed after 2")  # → removed
    lobby = await open_lobby(api, players[:3], GROUP)
    await ann.press_and_settle(lobby, "▶️ Start")
    for _ in range(2):
        before = len(api.find_messages(GROUP, "is removed from the game"))
        clock.advance(3601)  # standard pace: the turn runs out, its player is removed
        await wait_for(lambda before=before: len(
            api.find_messages(GROUP, "is removed from the game")) > before)
    final = await _final(api)
    assert "This game is not rated: fewer than 3 players made a move of their own" in final
    medals = re.findall(r"^(🥇|🥈|🥉|\d+\.) ", final, flags=re.MULTILINE)
    assert medals == ["🥇", "🥈", "🥈"], final
    standings = await _ask(api, ann, "/standings", "Standings this week")
    assert "No rated game yet in this period" in standings
    history = await _ask(api, ann, "/history", "Last games in this chat")
    assert "#1" in history and "(+" not in history and "(-" not in history
    assert re.search(r"1\. \w+, 2\. \w+, 2\. \w+", history), history


async def test_a_player_who_never_moved_is_placed_but_not_rated(table) -> None:
    """On timeout: removed. The first player to act never moves (removed at once); the
    three others play the game out: it is rated for them, and the final message names the
    one who made no move."""
    api, players, clock, _runner = table
    ann = players[0]
    await _settings(api, ann, "⏰ On timeout: computer plays, removed after 2")  # → removed
    await _settings(api, ann, "Coyote · ❤️ Lives: 3")  # → 2 lives: quicker
    lobby = await open_lobby(api, players, GROUP)
    await ann.press_and_settle(lobby, "▶️ Start")
    absent = await mover(api, players)
    clock.advance(3601)
    await wait_for(lambda: bool(api.find_messages(GROUP, "is removed from the game")))
    others = [p for p in players if p is not absent]
    for _ in range(400):
        if api.find_messages(GROUP, "is over!"):
            break
        assert await play_turn(api, others, GROUP)
    final = await _final(api)
    assert f"⚖️ Not rated: {absent.first_name}, who made no move of their own." in final
    assert f"4. {absent.first_name}" in final
    history = await _ask(api, ann, "/history", "Last games in this chat")
    assert f"4. {absent.first_name}\n" in history + "\n" or \
        f"4. {absent.first_name}," in history, history  # no Elo change: not rated
    assert len(re.findall(r"\((?:[+\u2212]\d+|±0)\)", history)) == 3, history  # (+20, −8, ±0)


async def test_shared_places_are_told_the_same_everywhere(table) -> None:
    """Ann and Dan make a move (a leave is none: the game is rated for those who made one),
    then leave; Bob and Cat play it out. Ann and Dan share the last place: the final
    message, /history, /replay, the week's table and the Mini App's history all say so, and
    the table gives each the half point of a shared place."""
    api, players, _clock, runner = table
    ann, bob, cat, dan = players
    await _settings(api, ann, "Coyote · ❤️ Lives: 3")  # → 2 lives: quicker
    lobby = await open_lobby(api, players, GROUP)
    await ann.press_and_settle(lobby, "▶️ Start")
    moved: set[int] = set()
    while not {ann.id, dan.id} <= moved:
        moved.add((await mover(api, players)).id)
        assert await play_turn(api, players, GROUP)
    for leaver in (dan, ann):
        before = len(api.find_messages(GROUP, "leaves the game"))
        await leaver.send(GROUP, "/leave")
        await wait_for(lambda before=before: len(
            api.find_messages(GROUP, "leaves the game")) > before)
        await api.settle(quiet=0.05)
    for _ in range(400):
        if api.find_messages(GROUP, "is over!"):
            break
        assert await play_turn(api, [bob, cat], GROUP)
    final = await _final(api)
    lines = [line.split(" · ", 1)[0]  # (without the Elo change: tests/e2e/test_game_end.py)
             for line in final.splitlines() if line.startswith(("🥇", "🥈", "🥉"))]
    assert len(lines) == 4 and lines[2:] == ["🥉 Ann", "🥉 Dan"], final
    first, second = (line.split(" ", 1)[1] for line in lines[:2])

    history = await _ask(api, ann, "/history", "Last games in this chat")
    told = re.sub(r" \((?:[+\u2212]\d+|±0)\)", "", history.splitlines()[2].split(": ", 1)[1])
    assert told == f"1. {first}, 2. {second}, 3. Ann, 3. Dan", history
    replay = await _ask(api, ann, "/replay 1", "Replay of game #1")
    assert replay.splitlines()[-1] == f"1. {first}, 2. {second}, 3. Ann, 3. Dan", replay
    week = await _ask(api, ann, "/standings", "Standings this week")
    rows = {line.split(" · ")[0].split(". ", 1)[1]: line.split(" · ")[1]
            for line in week.splitlines() if line[:1].isdigit()}
    assert rows == {first: "3", second: "2", "Ann": "0.5", "Dan": "0.5"}, week
    assert {line.split(". ", 1)[0] for line in week.splitlines()
            if line.startswith(("3. Ann", "3. Dan"))} == {"3"}
    # the Mini App's history page shows the service's history as it is
    service = runner.app.bot_data[KEY].service
    [entry] = await service.history(GROUP, kind=None)
    assert [(place, name) for place, name, _ in entry.placements] == \
        [(1, first), (2, second), (3, "Ann"), (3, "Dan")]


async def test_the_lobby_hints_who_gets_no_message_on_their_turn(table) -> None:
    """Eve never started the bot: she can play from the group (🎴), so the lobby neither
    warns nor asks the host to wait; it marks her 🔕 and tells her how a private chat gets
    her a message on her turn. Once she starts the bot from the lobby's link, the hint
    goes."""
    api, players, _clock, _runner = table
    ann = players[0]
    eve = api.add_user(5, "Eve")
    lobby = await open_lobby(api, [ann, players[1], eve], GROUP)
    text = plain(api.get_message(GROUP, lobby.message_id).text)
    assert "3. Eve 🔕" in text, text
    assert "🔕 Eve: you can play from the group with 🎴 My cards. To get a message when it " \
        "is your turn, tap “Private chat” below and press Start." in text, text
    assert "⚠️" not in text and "wait" not in text, text
    game_id = int(re.search(r"new game #(\d+)", text).group(1))
    await eve.start_bot(f"g{game_id}")
    await wait_for(lambda: "🔕" not in plain(api.get_message(GROUP, lobby.message_id).text))


async def test_a_blocked_player_is_not_dealt_twice_at_the_round_end(table) -> None:
    """Cat blocks the bot once she has her cards; the round ends before anything else is
    sent to her. The new hand, drawn on her message, is refused: that one refusal is all
    (no new message is tried in its place)."""
    api, players, _clock, runner = table
    ann, bob, cat = players[:3]
    # (seed 3, three seats: Ann starts, then Bob, then Cat)
    runner.app.bot_data[KEY].service.new_seed = lambda: 3
    lobby = await open_lobby(api, [ann, bob, cat], GROUP)
    await ann.press_and_settle(lobby, "▶️ Start")
    await wait_for(lambda: private_turn_message(api, ann) is not None
                   and bool(api.bot_messages(cat.id)))
    cat.block_bot()
    tried = len([r for r in api.requests if r.params.get("chat_id") == cat.id])
    message = private_turn_message(api, ann)
    assert message is not None
    bid = min((int(d.split(":")[3]), d) for _, d in api.buttons(message)
              if d and d.startswith("b:") and d.count(":") == 3)[1]
    await press_move(api, ann, message, bid)
    await wait_for(lambda: private_turn_message(api, bob) is not None)
    message = private_turn_message(api, bob)
    assert message is not None
    call = next(d for _, d in api.buttons(message) if d and d.startswith(("c:", "cc:")))
    await press_move(api, bob, message, call)

    def to_cat() -> list:
        return [r for r in api.requests if r.params.get("chat_id") == cat.id][tried:]

    await wait_for(lambda: bool(to_cat()))
    await api.settle(quiet=0.3)
    refused = to_cat()
    assert len(refused) == 1, [r.method for r in refused]


@pytest.mark.parametrize("blocked", ["before the deal", "after the deal"])
async def test_no_reminder_to_a_player_who_blocked_the_bot(table, blocked: str) -> None:
    """Cat blocks the bot before the game, or once she has her cards: the first private
    message the bot then tries (the deal's, or an edit of hers) is refused, which the bot
    notes; her turns run out (a reminder each, in the group) and nothing private is tried
    again until she starts the bot."""
    api, players, clock, _runner = table
    ann, bob, cat = players[:3]
    lobby = await open_lobby(api, [ann, bob, cat], GROUP)

    def to_cat() -> list:
        return [r for r in api.requests if r.params.get("chat_id") == cat.id]

    if blocked == "before the deal":
        cat.block_bot()
    await ann.press_and_settle(lobby, "▶️ Start")
    await api.settle(quiet=0.1)
    if blocked == "after the deal":
        assert api.bot_messages(cat.id)  # her cards
        cat.block_bot()
    tried = len(to_cat())
    assert tried >= 1  # (before the deal: its message to her, refused)
    reminded, pressed = 0, 0
    for _ in range(80):
        if reminded == 2 or api.find_messages(GROUP, "is over!"):
            break
        await api.settle(quiet=0.1)
        offers = [(move_version(api, m) or 0, u.id, u, m) for u in (ann, bob)
                  if (m := private_turn_message(api, u, pressed)) is not None]
        if offers:  # Ann's or Bob's turn: they play
            pressed, _, user, message = max(offers)
            # (🐺 Coyote! asks first, on the same message: then "Yes")
            answer = await press_move(api, user, message, choose(api, message), quiet=0.02)
            assert not answer.get("show_alert"), answer
            continue
        before = len(api.find_messages(GROUP, "it is your turn in game"))  # Cat's turn
        clock.advance(2701)  # three quarters of the standard pace's hour: the reminder
        await wait_for(lambda before=before: len(
            api.find_messages(GROUP, "it is your turn in game")) > before)
        assert "Cat, it is your turn" in plain(
            api.find_messages(GROUP, "it is your turn in game")[-1].text)
        reminded += 1
        before = len(api.find_messages(GROUP, "ran out of time"))
        clock.advance(900)  # and the turn runs out: the computer plays it
        await wait_for(lambda before=before: len(
            api.find_messages(GROUP, "ran out of time")) > before)
    assert reminded == 2
    refused = to_cat()[tried:]
    # (one refusal tells the bot; before the deal, that was the deal's message)
    assert len(refused) <= (0 if blocked == "before the deal" else 1), \
        [r.method for r in refused]

