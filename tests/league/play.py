"""Playing a whole game through the match service, for the tests that need a finished one."""

from __future__ import annotations

import random

from league.service import MatchService
from league.snapshots import UserRef


async def play_koira(service: MatchService, chat_id: int, users: list[UserRef],
                     seed: int) -> int:
    """Open, fill and start a Koira lobby in ``chat_id`` with ``users`` (all human: the game
    is rated), then play it to its end, each seat moving as the normal computer player would
    (``seed`` for its choices); returns the game's id."""
    koira = service.games["koira"]
    lobby = await service.open_lobby(chat_id, "G", 0, users[0], "koira")
    for user in users[1:]:
        await service.join(lobby.id, user)
    game = (await service.start(lobby.id, users[0].id)).game
    rng = random.Random(seed)
    for _ in range(2000):
        if game.status != "running":
            break
        seat = koira.current_seat(game.state or {})
        action = koira.ai_action(koira.view(game.state or {}, seat), rng, "normal")
        game = (await service.act(game.id, game.at_seat(seat).user_id, game.version,
                                  action)).game
    assert game.status == "finished"
    return game.id
