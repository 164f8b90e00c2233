"""A second game plugs in through the two registries only (the proof that nothing else
names a game): the toy game high card, registered here in ``engine.GAMES`` and
``telegram_app.games.registry.UIS``, played to the end through the real Application and the fake
Bot API — lobby, private keyboards, moves, a timeout the computer plays, the result and the
rating — with no other file changed."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from engine import GAMES
from telegram_app.games.registry import register, unregister
from telegram_app.services import KEY
from tests.clock import Clock
from tests.e2e.harness import bot_table, wait_for
from tests.fakebot import FakeBotAPI, FakeUser, StoredMessage
from tests.highcard.game import HighCardGame
from tests.highcard.ui import UI

GROUP = -100777


@pytest.fixture
def highcard():
    GAMES["highcard"] = HighCardGame()
    register(UI)
    try:
        yield
    finally:
        unregister("highcard")
        del GAMES["highcard"]


def _turn(api: FakeBotAPI, players: list[FakeUser], after: int
          ) -> tuple[FakeUser, StoredMessage, str] | None:
    """The player whose newest private message carries card buttons for a version above
    ``after``, that message and its first button's data."""
    for user in players:
        messages = api.bot_messages(user.id)
        data = [d for _t, d in api.buttons(messages[-1])] if messages else []
        cards = [d for d in data if d and d.startswith("hc:")]
        if cards and int(cards[0].split(":")[2]) > after:
            return user, messages[-1], cards[0]
    return None


async def test_high_card_plays_to_the_end_with_a_timeout_and_counts(pg_db, pg_url,
                                                                    highcard) -> None:
    clock = Clock(datetime(2026, 6, 1, 9, 0, tzinfo=UTC))
    async with bot_table(pg_url, GROUP, "Toy group", ["Ann", "Bob", "Cat"], clock=clock,
                         sweep_interval=0.05) as (api, players, runner):
        ann = players[0]
        await ann.send(GROUP, "/newgame highcard")
        await wait_for(lambda: bool(api.find_messages(GROUP, "High card</b>")
                                    or api.find_messages(GROUP, "High card — new game")))
        lobby = api.find_messages(GROUP, "new game #")[-1]
        for user in players[1:]:
            await user.press_and_settle(lobby, "✋ Join", quiet=0.02)
        # (no computer seat: a game with one is not rated; the computer plays a timeout)
        await ann.press_and_settle(api.get_message(GROUP, lobby.message_id), "▶️ Start")
        await wait_for(lambda: bool(api.find_messages(GROUP, "leads the round")))
        assert "High card" in api.get_message(GROUP, lobby.message_id).text

        pressed, timed_out = 0, False
        for _ in range(60):
            if api.find_messages(GROUP, "is over!"):
                break
            await wait_for(lambda after=pressed: _turn(api, players, after) is not None
                           or bool(api.find_messages(GROUP, "is over!")))
            found = _turn(api, players, pressed)
            if found is None:
                break
            user, message, data = found
            assert "Your turn" in message.text and "Your hand:" in message.text
            pressed = int(data.split(":")[2])
            if not timed_out:  # a Coyote button on this game: "this game changed"
                game_id = data.split(":")[1]
                for forged in (f"b:{game_id}:{pressed}:5", f"m:{game_id}:{pressed}:1"):
                    query = await user.press_raw(user.id, message.message_id, forged)
                    answer = await api.wait_answer(query)
                    assert "changed" in answer["text"] and answer["show_alert"]
            if not timed_out:  # the first human turn runs out: the computer plays it
                timed_out = True
                clock.advance(3 * 3600)
                await wait_for(lambda: bool(api.find_messages(GROUP, "ran out of time")))
                continue
            await user.press_and_settle(message, data, quiet=0.02)
        await wait_for(lambda: bool(api.find_messages(GROUP, "is over!")))
        assert api.find_messages(GROUP, "the computer plays for them")
        assert api.find_messages(GROUP, "plays ")  # one note per card played
        assert api.find_messages(GROUP, "wins round")
        assert len(api.find_messages(GROUP, "· round ")) >= 3  # a table a round

        await api.settle(quiet=0.1)
        service = runner.app.bot_data[KEY].service
        cards = [await service.rating_card(u.id, GROUP, kind="highcard") for u in players]
        assert all(card.games == 1 for card in cards)
        assert any(card.rating != 1500 for card in cards)  # the result moved the Elo
