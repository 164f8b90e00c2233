"""Games played from the Mini App's API alone, for the league tests: every move one of the
controls the page drew (the one a computer player would choose, so that the game ends), and a
rated Koira game (three humans, no computer player) opened through the league service."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from engine import GAMES
from league.store.snapshots import GameSnapshot, UserRef
from telegram_app.games import registry
from tests.e2e.harness import start_game
from tests.miniapp.koira import NAMES, service_of


def drawn_actions(controls: list[dict[str, Any]], wanted: dict[str, Any]
                  ) -> Iterator[dict[str, Any]]:
    """The actions the page's ``controls`` let a player send (both games' control types: a
    number picker with its modifiers, a card selection, buttons); of a number picker only
    those with ``wanted``'s number, if it is in the picker's range."""
    for c in controls:
        if c["type"] == "number":
            n = wanted.get(c["field"])
            if isinstance(n, int) and c["min"] <= n <= c["max"]:
                yield {**c["action"], c["field"]: n}
                for m in c["modifiers"]:
                    yield {**c["action"], c["field"]: n, **m["patch"]}
        elif c["type"] == "cards":
            for play in c["plays"]:
                yield {**c["action"], c["field"]: play}
        elif c["type"] == "buttons":
            for o in c["options"]:
                yield o["action"]


def _same(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Two actions' JSON equal but for keys at ``None`` (``to_json`` may leave them out)."""
    return {k: v for k, v in a.items() if v is not None} == \
        {k: v for k, v in b.items() if v is not None}


async def play_from_page(client, runner, users, game_id: int, limit: int = 3000) -> int:
    """Play game ``game_id`` to its end from the page: each turn the player with controls
    sends the move the computer player would make, which must be one of those the page
    drew. Returns the number of moves."""
    moves = 0
    while True:
        page = None
        for user in users:
            page = (await client.get(f"game/{game_id}", user.id)).json()
            if page["controls"]:
                break
        assert page is not None
        if page["over"]:
            return moves
        assert page["controls"], "nobody can move in a running game"
        game = await service_of(runner).get(game_id)
        rules = GAMES[game.kind]
        chosen = rules.ai_action(rules.view(game.state, page["you"]),
                                 random.Random(moves)).to_json()
        action = next((a for a in drawn_actions(page["controls"], chosen)
                       if _same(a, chosen)), None)
        assert action is not None, (chosen, page["controls"])
        response = await client.post(f"game/{game_id}/move", user.id,
                                     {"version": page["game"]["version"], "action": action})
        assert response.status_code == 200, response.text
        moves += 1
        assert moves < limit


async def rated_koira_game(runner, group: int) -> GameSnapshot:
    """A started Koira game of Ann, Bob and Cat alone (rated: three humans)."""
    service = service_of(runner)
    lobby = await service.open_lobby(group, "Mini league", 0, UserRef(1, "Ann"), kind="koira")
    for user_id in (2, 3):
        await service.join(lobby.id, UserRef(user_id, NAMES[user_id]))
    return (await service.start(lobby.id, 1)).game


class KoiraUI:
    """Koira's UI registered for the test (the bot registers it once its chat side is
    wired; the replay's lines are its own), and unregistered after if it was not before."""

    def __enter__(self) -> None:
        self.had = "koira" in registry.UIS
        from telegram_app.games.koira.ui import KOIRA  # (a first import registers it)

        registry.register(KOIRA)

    def __exit__(self, *exc: object) -> None:
        if not self.had:
            registry.unregister("koira")


async def both_games(mini, group: int) -> tuple[int, int]:
    """A rated Coyote game (#1, opened in the chat) and a rated Koira game (#2) of Ann, Bob
    and Cat in ``group``, each played from the page alone to its end; returns their ids."""
    api, players, runner, client = mini
    await start_game(api, players, group)
    assert await play_from_page(client, runner, players, 1) > 0
    koira = await rated_koira_game(runner, group)
    assert await play_from_page(client, runner, players, koira.id) > 0
    for game_id in (1, koira.id):
        assert (await service_of(runner).get(game_id)).status == "finished"
    await api.settle()
    return 1, koira.id
