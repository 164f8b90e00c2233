"""An evening of a Spanish-speaking group through the real Application and the fake Bot API:
the group's language set with /settings, players whose clients say ``es``, ``es-MX`` and
``es-AR``; a Koira game to its end, read as those players read it."""

from __future__ import annotations

import re

import pytest

from tests.e2e.harness import BotRunner, wait_for
from tests.e2e.koira_play import koira_turn_by, service_of
from tests.e2e.spanish_group import GROUP, spanish_game
from tests.english_check import log_faults
from tests.fakebot import FakeBotAPI

SAFE_WITHOUT_PLACE = re.compile(r"a salvo \(\d+\)")


@pytest.fixture
async def api():
    async with FakeBotAPI() as fake:
        yield fake


async def test_a_koira_player_out_of_cards_reads_their_place_in_spanish(
        api: FakeBotAPI, pg_db, pg_url: str) -> None:
    """A Koira player who runs out of cards is safe, and the table and their own message say
    in which place in Spanish words: "a salvo (puesto 1)", never a bare "(1)" (the Coyote
    ``ordinal`` of ``render/results.py`` is a bare number in Spanish; Koira's own
    ``screens.ordinal`` says "puesto"), and no English reaches the group or the players
    (every text, button and alert of the game)."""
    api.add_group(GROUP, "Noche de Koira", admins=[1])
    ana = api.add_user(1, "Ana", language_code="es")
    beto = api.add_user(2, "Beto", language_code="es-MX")
    caro = api.add_user(3, "Caro", language_code="es-AR")
    players = [ana, beto, caro]
    runner = BotRunner(api, pg_url)
    try:
        await spanish_game(api, runner, players, "/newgame koira", seed=7)
        turns = 0
        while (await service_of(runner).get(1)).status == "running":
            await koira_turn_by(api, runner, players, GROUP,
                                over="🏁 ¡La partida de Koira #1 ha terminado!")
            turns += 1
            assert turns < 400
        await api.settle(quiet=0.1)

        safe = [e.text or "" for e in api.log if e.kind in ("send", "edit")
                and "a salvo" in (e.text or "")]
        assert safe, "nobody was told safe"
        assert not [t for t in safe if SAFE_WITHOUT_PLACE.search(t)], \
            [m.group(0) for t in safe if (m := SAFE_WITHOUT_PLACE.search(t))][:3]
        assert any("a salvo (puesto " in t for t in safe)
        chats = {GROUP: "es", ana.id: "es", beto.id: "es", caro.id: "es"}
        actors = {"Ana": "es", "Beto": "es", "Caro": "es"}
        assert not log_faults(api.log, chats, actors, ("Ana", "Beto", "Caro"))
    finally:
        await runner.stop()


async def test_a_player_whose_app_sends_no_language_reads_the_groups(
        api: FakeBotAPI, pg_db, pg_url: str) -> None:
    """Dani's Telegram app sends no language (``language_code`` is optional in the Bot API)
    and he never chose one with /language. In a group set to Spanish he joins a Coyote game:
    the ✋ answer, his private view of the cards and its buttons are in Spanish, the
    group's language being the best guess. Before the fix they were in English ("You joined
    game #1.", "Higher ▶") among Spanish speakers. Ana, whose app says ``es-MX``, and the
    group read Spanish as before."""
    api.add_group(GROUP, "Noche de Coyote", admins=[1])
    ana = api.add_user(1, "Ana", language_code="es-MX")
    beto = api.add_user(2, "Beto", language_code="es")
    dani = api.add_user(3, "Dani", language_code=None)
    players = [ana, beto, dani]
    runner = BotRunner(api, pg_url)
    try:
        chosen, answers = await spanish_game(api, runner, players)
        assert [a.get("text") for a in answers] == ["Te uniste a la partida #1."] * 2, answers
        await wait_for(lambda: len(api.bot_messages(dani.id)) > 1)
        await api.settle(quiet=0.1)
        chats = {GROUP: "es", ana.id: "es", beto.id: "es", dani.id: "es"}
        actors = {"Ana": "es", "Beto": "es", "Dani": "es"}
        faults = log_faults(api.log[chosen:], chats, actors, ("Ana", "Beto", "Dani"))
        assert not faults, faults[:10]
    finally:
        await runner.stop()
