"""A player whose Telegram app sends no language (and who chose none with /language) in a
Spanish group, through the real Application and the fake Bot API: what the bot answers them
in their *private* chat about that group's game (a typed move's hint, a press's alert) is in
the group's language, as their private view of the game is (``render.language.for_player``),
not in English."""

from __future__ import annotations

import pytest

from telegram_app.i18n import _, use_language
from tests.e2e.harness import BotRunner, mover, private_turn_message, wait_for
from tests.e2e.spanish_group import GROUP, spanish_game
from tests.fakebot import FakeBotAPI, FakeUser


def tr(language: str, message: str) -> str:
    with use_language(language):
        return _(message)


@pytest.fixture
async def api():
    async with FakeBotAPI() as fake:
        yield fake


async def _dani_on_turn(api: FakeBotAPI, runner: BotRunner) -> tuple[list, FakeUser]:
    """Ana and Beto (Spanish apps) and Dani (no language) in a Spanish group's Coyote game,
    bidding until it is Dani's turn: ``(the players, Dani)``."""
    api.add_group(GROUP, "Noche de Coyote", admins=[1])
    players = [api.add_user(1, "Ana", language_code="es"),
               api.add_user(2, "Beto", language_code="es"),
               api.add_user(3, "Dani", language_code=None)]
    await spanish_game(api, runner, players)
    await _bid_until(api, players, players[2])
    return players, players[2]


async def _bid_until(api: FakeBotAPI, players: list, who) -> None:
    """The players type rising bids until it is ``who``'s turn."""
    amount = 1
    while (turn := await mover(api, players)) is not who:
        before = private_turn_message(api, turn)
        await turn.send(turn.id, str(amount))
        amount += 1
        await wait_for(lambda t=turn, b=before: private_turn_message(api, t) is not b or
                       private_turn_message(api, t) is None)
        await api.settle(quiet=0.05)


async def test_a_typed_move_hint_is_in_the_groups_language(api: FakeBotAPI, pg_db,
                                                          pg_url: str) -> None:
    """Dani's app sends no language; on his turn in a Spanish group's Coyote game he types
    "hola" in the private chat. Before the fix the hint was English ("To bid, type a whole
    number from 1 to …") under a private view in Spanish; now it is Spanish."""
    runner = BotRunner(api, pg_url)
    try:
        players, dani = await _dani_on_turn(api, runner)
        sent = len(api.bot_messages(dani.id))
        await dani.send(dani.id, "hola")
        await wait_for(lambda: len(api.bot_messages(dani.id)) > sent)
        hint = api.bot_messages(dani.id)[-1].text or ""
        spanish = tr("es", "To bid, type a whole number from 1 to {max} (or use the "
                     "buttons).").split("{")[0]
        english = "To bid, type a whole number"
        assert english not in hint, hint
        assert spanish in hint, hint
    finally:
        await runner.stop()


async def test_an_alert_of_a_press_in_the_private_chat_is_in_the_groups_language(
        api: FakeBotAPI, pg_db, pg_url: str) -> None:
    """Dani's app sends no language; he bids with the buttons of his private message, and
    taps one of them again (an old keyboard, a double tap). Before the fix the toast was
    English ("You already moved this turn.") though the message it answers is Spanish; now
    it is Spanish."""
    runner = BotRunner(api, pg_url)
    try:
        players, dani = await _dani_on_turn(api, runner)
        message = private_turn_message(api, dani)
        assert message is not None
        data = next(d for _t, d in api.buttons(message) if d.startswith("b:"))
        first = await dani.press_raw_on(message, data)
        await api.wait_answer(first, timeout=15)
        await api.settle(quiet=0.05)
        again = await dani.press_raw_on(message, data)
        answer = await api.wait_answer(again, timeout=15)
        text = answer.get("text") or ""
        assert text, answer
        assert text != "You already moved this turn.", answer
        with use_language("es"):
            assert text == _("You already moved this turn."), answer
    finally:
        await runner.stop()


async def test_the_answer_to_a_lobbys_start_link_is_in_the_groups_language(
        api: FakeBotAPI, pg_db, pg_url: str) -> None:
    """Dani (no language from his app) joins a Spanish group's lobby and opens the bot's
    private chat by its link (``/start g1``). Before the fix the answer was English ("You
    are all set for game #1: …") while everything he reads of the game is Spanish."""
    api.add_group(GROUP, "Noche de Coyote", admins=[1])
    ana = api.add_user(1, "Ana", language_code="es")
    dani = api.add_user(3, "Dani", language_code=None)
    runner = BotRunner(api, pg_url)
    try:
        await spanish_game(api, runner, [ana, dani], start=False)
        await dani.send(dani.id, "/start g1")
        expected = tr("es", "You are all set for game #{id}: I will send your view of the "
                            "cards here once it starts.").format(id=1)
        english = "You are all set for game #1"
        await wait_for(lambda: any(expected in (m.text or "") or english in (m.text or "")
                                   for m in api.bot_messages(dani.id)))
        await api.settle(quiet=0.1)
        texts = [m.text or "" for m in api.bot_messages(dani.id)]
        assert any(expected in text for text in texts), texts
    finally:
        await runner.stop()
