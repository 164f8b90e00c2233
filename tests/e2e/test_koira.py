"""Koira through the real Application and the fake Bot API, on PostgreSQL: /help and
/rules koira, the lobby of ``/newgame koira`` (its options, a computer player), then a
3-player game (Ann, Bob and the computer) played to the end by pressing the private
keyboards: the stock turned up, a sequence tapped card by card and played, a pick-up, a turn
that times out and the computer plays, and a stale press. Seeded (``new_seed``): the same
deal every run."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from engine import Action
from tests.clock import Clock
from tests.e2e.harness import bot_table, wait_for
from tests.e2e.koira_play import (
    KOIRA,
    koira_mover,
    koira_turn,
    koira_turn_by,
    koira_version,
    moves,
    service_of,
)
from tests.fakebot import FakeBotAPI

MOVED = "You already moved this turn."  # (a toast: a stale tap of a turn one played)
GROUP = -100880
SEED = 20261202


@pytest.fixture
async def kennel(pg_db, pg_url):
    clock = Clock(datetime(2026, 12, 2, 9, 0, tzinfo=UTC))
    async with bot_table(pg_url, GROUP, "Kennel", ["Ann", "Bob"], clock=clock,
                         sweep_interval=0.05, notes="every_move") as (api, players, runner):
        service_of(runner).new_seed = lambda: SEED
        yield api, players, clock, runner


class Script:
    """The humans' choices: the computer player's, except that the first chance of each is
    taken to turn up the stock, to play a sequence and to pick up."""

    def __init__(self) -> None:
        self.done: set[str] = set()

    def __call__(self, game, seat: int, legal: list[Action]) -> Action | None:
        wanted = [("stock", lambda a: a.kind == "stock"),
                  ("sequence", lambda a: a.kind == "play" and len(a.cards or ()) > 1),
                  ("pickup", lambda a: a.kind == "pickup")]
        for name, fits in wanted:
            action = next((a for a in legal if fits(a)), None)
            if name not in self.done and action is not None:
                self.done.add(name)
                return action
        return None


def group_text(api: FakeBotAPI, since: int = 0) -> str:
    return "\n".join(m.text or "" for m in api.bot_messages(GROUP)[since:])


async def _ask(api: FakeBotAPI, user, command: str, expect: str) -> str:
    await user.send(GROUP, command)
    await wait_for(lambda: bool(api.find_messages(GROUP, expect)))
    return api.find_messages(GROUP, expect)[-1].text


async def test_a_koira_game_with_a_computer_player_to_the_end(kennel) -> None:
    api, players, clock, runner = kennel
    ann, bob = players
    assert "/newgame koira" in await _ask(api, ann, "/help", "Coyote League")
    rules = await _ask(api, ann, "/rules koira", "Phase 1 — collecting")
    assert "koira" in rules and "Phase 2 — shedding" in rules

    await ann.send(GROUP, "/newgame koira")
    await wait_for(lambda: bool(api.find_messages(GROUP, "Koira — new game #")))
    await api.settle(quiet=0.05)
    lobby = api.find_messages(GROUP, "Koira — new game #")[-1]
    offered = [t for t, _ in api.buttons(lobby)]
    for label in ("⚖️ Ties: replay", "✂️ Trump ends trick: off", "📥 Pick up: a whole play",
                  "🔗 Sequences: 2+ cards", "🤖 Add AI", "▶️ Start"):
        assert label in offered, offered
    await ann.press_and_settle(lobby, "🔗 Sequences: 2+ cards")  # → 3+, and back
    assert "sequences of 3+" in api.get_message(GROUP, lobby.message_id).text
    await ann.press_and_settle(api.get_message(GROUP, lobby.message_id), "🔗 Sequences: 3+ cards")
    await bob.press_and_settle(lobby, "✋ Join", quiet=0.02)
    await ann.press_and_settle(api.get_message(GROUP, lobby.message_id), "🤖 Add AI")
    await ann.press_and_settle(api.get_message(GROUP, lobby.message_id), "▶️ Start")
    assert "Koira #1 started with" in api.get_message(GROUP, lobby.message_id).text
    await wait_for(lambda: bool(api.find_messages(GROUP, "phase 1 (collecting) · trick 1")))
    for user in players:  # each their own hand, sorted by suit then rank, nobody else's
        await wait_for(lambda user=user: bool(api.bot_messages(user.id)))
        assert "Your hand:" in api.bot_messages(user.id)[-1].text

    script = Script()
    stale_checked = timed_out = False
    turns, game_id = 0, 1
    while not api.find_messages(GROUP, "is over!"):
        turns += 1
        assert turns < 300, "the game did not end"
        if turns == 3 and not timed_out:
            # The player to act does nothing: past the deadline the computer plays for them.
            user, message = await koira_mover(api, players)
            version = koira_version(api, message)
            clock.advance(3601)
            await wait_for(lambda: bool(api.find_messages(GROUP, "ran out of time")))
            await wait_for(lambda version=version: any(koira_turn(api, u, version)
                                                        for u in players)
                           or bool(api.find_messages(GROUP, "is over!")))
            note = api.find_messages(GROUP, "ran out of time")[-1].text
            assert f"{user.first_name}" in note and "the computer plays this turn" in note
            timed_out = True
            continue
        user, action, message, data = await koira_turn_by(api, runner, players, GROUP, script)
        if not stale_checked and action.kind == "play":
            # The same button pressed again (a double tap, an old client): a toast that they
            # moved this turn already (no alert to dismiss), nothing changes.
            await api.settle(quiet=0.05)
            version = (await service_of(runner).get(game_id)).version
            said = len(api.bot_messages(GROUP))
            answer = await api.wait_answer(await user.press_raw(user.id, message.message_id,
                                                                data))
            assert not answer["show_alert"] and answer["text"] == MOVED, answer
            await api.settle(quiet=0.05)
            assert (await service_of(runner).get(game_id)).version == version
            assert len(api.bot_messages(GROUP)) == said
            stale_checked = True
    assert script.done == {"stock", "sequence", "pickup"}, script.done
    assert stale_checked and timed_out
    text = group_text(api)
    for line in ("turns up the stock and plays", "plays the sequence", "picks up",
                 "Phase 2", "is the koira"):
        assert line in text, line
    game = await service_of(runner).get(1)
    assert game.status == "finished" and KOIRA.is_over(game.state)
    for user in players:  # the private messages end without buttons
        assert not moves(api, api.bot_messages(user.id)[-1])
