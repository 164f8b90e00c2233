"""Helpers of the Mini App's trust tests (``test_miniapp_trust_access.py``,
``test_miniapp_trust_screens.py``): the groups, Coyote games seeded and played through the
league service, the group's final message read back."""

from __future__ import annotations

import random

from engine import GAMES
from league.store.snapshots import UserRef
from tests.miniapp.koira import NAMES, service_of

GROUP = -100561
OTHER_GROUP = -100562
BIDI = str.maketrans("", "", "\u2068\u2069")


async def coyote_game(runner, group: int = GROUP, names: dict[int, str] | None = None,
                      options: dict | None = None, seed: int = 7, thread: int = 0):
    """A started Coyote game of users 1–3 (``names``, else Ann, Bob, Cat) in ``group``
    (its topic ``thread``), through the league service, dealt from ``seed``."""
    names = names or NAMES
    service = service_of(runner)
    service.new_seed = lambda: seed
    ids = sorted(names)
    lobby = await service.open_lobby(group, "Mini league", thread,
                                     UserRef(ids[0], names[ids[0]]),
                                     kind="coyote", options=options or {})
    for user_id in ids[1:]:
        await service.join(lobby.id, UserRef(user_id, names[user_id]))
    return (await service.start(lobby.id, ids[0])).game


async def computer_move(runner, game_id: int, seed: int) -> bool:
    """The player on turn makes the move a computer player would; ``False`` once over."""
    service = service_of(runner)
    game = await service.get(game_id)
    if game.status != "running":
        return False
    rules = GAMES[game.kind]
    seat = rules.current_seat(game.state)
    action = rules.ai_action(rules.view(game.state, seat), random.Random(seed))
    await service.act(game_id, game.at_seat(seat).user_id, game.version, action)
    return True


async def play_out(runner, game_id: int) -> None:
    step = 0
    while await computer_move(runner, game_id, step):
        step += 1
        assert step < 2000


def final_lines(api, group: int) -> list[str]:
    """The places of the group's last "is over!" message, one line each."""
    text = (api.find_messages(group, "is over!")[-1].text or "").translate(BIDI)
    lines = text.split("\n")
    start = next(i for i, line in enumerate(lines) if "is over!" in line) + 2
    return lines[start:lines.index("", start)]
