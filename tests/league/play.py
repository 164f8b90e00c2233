"""Playing a whole game through the match service, for the tests that need a finished one."""

from __future__ import annotations

import random

from engine import Action
from league.service import MatchService
from league.store.snapshots import GameSnapshot, UserRef


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


async def finish_coyote(service: MatchService, game_id: int) -> GameSnapshot:
    """Play a started Coyote game to its end: each human bids up to 6, then calls; returns
    the finished game."""
    game = await service.get(game_id)
    while game.status == "running":
        seat = game.state["turn"]
        bids = game.state["bids"]
        action = Action("call") if bids and bids[-1][1] >= 6 and bids[-1][0] != seat else \
            Action("bid", bids[-1][1] + 1 if bids else 4)
        game = (await service.act(game.id, game.at_seat(seat).user_id, game.version,
                                  action)).game
    return game
