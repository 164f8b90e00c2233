"""Whole poker-deck Coyote games through the real bot (fake Bot API, real services), in
English, Japanese and Spanish: its texts must speak of the penalty cards its rules count
(``shared/rules/coyote.md``, "Edition poker-deck": "The player who takes the 4th penalty
card ends the game"), never of lives or hearts."""

from __future__ import annotations

import random

import pytest

from tests.e2e.harness import (
    BotRunner,
    choose,
    move_version,
    press_move,
    private_turn_message,
    wait_for,
)
from tests.e2e.koira_play import service_of
from tests.fakebot import FakeBotAPI

GROUP = -100991


async def _play(api: FakeBotAPI, url: str, language: str, seats: int, seed: int):
    """Open ``/newgame poker-deck`` with ``seats`` players speaking ``language``, start it
    and play it to its end by the players' buttons (bids or 🐺 Coyote!, chosen from a
    seeded generator); player 2 opens 🎴 on the group's table once. Returns the runner's
    finished game and player 2's 🎴 text."""
    api.add_group(GROUP, "Poker night", admins=[1])
    players = [api.add_user(i, f"P{i}", language_code=language)
               for i in range(1, seats + 1)]
    for user in players:
        await user.start_bot()
    runner = BotRunner(api, url)
    await runner.start()
    try:
        service = service_of(runner)
        service.new_seed = lambda: seed
        await players[0].send(GROUP, "/newgame poker-deck")

        def lobby():
            found = [m for m in api.bot_messages(GROUP)
                     if any(d and d.startswith("j:") for _t, d in api.buttons(m))]
            return found[-1] if found else None

        await wait_for(lambda: lobby() is not None)
        await api.settle(quiet=0.05)
        join = next(d for _t, d in api.buttons(lobby()) if d and d.startswith("j:"))
        for user in players[1:]:
            await user.press_and_settle(lobby(), join, quiet=0.02)

        def tables():
            return [m for m in api.bot_messages(GROUP)
                    if any(d and d.startswith("p:") for _t, d in api.buttons(m))]

        start = next(d for _t, d in api.buttons(lobby()) if d and d.startswith("s:"))
        await players[0].press_and_settle(lobby(), start, quiet=0.05)
        await wait_for(lambda: bool(tables()))
        await api.settle(quiet=0.05)
        peek = next(d for _t, d in api.buttons(tables()[-1]) if d and d.startswith("p:"))
        await players[1].press_and_settle(tables()[-1], peek, quiet=0.05)
        shown = api.ephemeral_messages(GROUP, players[1].id)
        peek_text = shown[-1].text if shown else ""
        rng = random.Random(seed)
        for _step in range(800):
            await api.settle(quiet=0.03)
            offers = [(move_version(api, m) or 0, u, m) for u in players
                      if (m := private_turn_message(api, u)) is not None]
            if not offers:
                break
            _v, user, message = max(offers, key=lambda o: o[0])
            data = choose(api, message)
            bids = [d for _t, d in api.buttons(message) if d and d.startswith("b:")]
            if bids and rng.random() < 0.3:
                data = rng.choice(bids[:3])
            await press_move(api, user, message, data)
        await api.settle(quiet=0.1)
        return await service.get(1), peek_text
    finally:
        await runner.stop()


def _texts(api: FakeBotAPI) -> list[str]:
    """Every text the bot sent or edited in, in any chat (ephemeral ones too)."""
    return [e.text for e in api.log if e.kind in ("send", "edit") and e.text]


@pytest.mark.parametrize(("language", "seats", "seed"), [
    ("en", 3, 11), ("ja", 5, 23), ("es", 3, 5),
])
async def test_a_poker_deck_game_counts_penalty_cards_not_hearts(
        sqlite_url, language, seats, seed) -> None:
    """A whole poker-deck game: the group's table, each private view, 🎴's view and every
    showdown line show how many penalty cards each player holds (🂠 taken/4), as the
    rules count them, and no ❤️ anywhere (the edition has no lives).

    Before the fix every seat line showed ❤️❤️❤️❤️ (four "lives" a player loses), a
    showdown said "P2 takes a penalty card (❤️❤️❤️)", and /rules told "Each penalty card
    costs one of your 4 ❤️"."""
    async with FakeBotAPI() as api:
        game, peek_text = await _play(api, sqlite_url, language, seats, seed)
        assert game.status == "finished"
        texts = _texts(api)
        hearts = [t for t in texts if "❤" in t]
        assert not hearts, hearts[:2]
        assert any("🂠 0/4" in t for t in texts)
        assert any("🂠 1/4" in t for t in texts)
        assert peek_text and "🂠 0/4" in peek_text and "❤" not in peek_text, peek_text


@pytest.mark.parametrize("language", ["en", "ja", "es"])
async def test_rules_poker_deck_speak_of_penalty_cards_not_hearts(
        sqlite_url, language) -> None:
    """/rules poker-deck, sent in the group by a player speaking ``language``: the penalty
    cards, the 4th that loses, and no ❤️ (the table counts penalty cards, 🂠 taken/4).
    Before the fix it said "Each penalty card costs one of your 4 ❤️"."""
    async with FakeBotAPI() as api:
        api.add_group(GROUP, "Poker night", admins=[1])
        ann = api.add_user(1, "Ann", language_code=language)
        await ann.start_bot()
        runner = BotRunner(api, sqlite_url)
        await runner.start()
        try:
            await ann.send(GROUP, "/rules poker-deck")
            await wait_for(lambda: bool(api.bot_messages(GROUP)))
            await api.settle(quiet=0.05)
            text = api.bot_messages(GROUP)[-1].text or ""
        finally:
            await runner.stop()
    assert "J" in text and "K" in text and "Q" in text
    assert "❤" not in text, text
    assert "🂠" in text, text
