"""The bad-input tests' groups, the bot's service and a started game to send bad input to."""

from __future__ import annotations

from tests.e2e.harness import BotRunner, mover, open_lobby, private_turn_message
from tests.fakebot import FakeBotAPI, FakeUser

GROUP = -100777001
OTHER = -100777002


def service(runner: BotRunner):
    from telegram_app.services import KEY

    assert runner.app is not None
    return runner.app.bot_data[KEY].service


async def _running(api: FakeBotAPI, players: list[FakeUser], runner: BotRunner, group=GROUP):
    """A started game in ``group``; returns (game snapshot, the mover, their turn message)."""
    lobby = await open_lobby(api, players, group)
    await players[0].press_and_settle(api.get_message(group, lobby.message_id), "▶️ Start")
    turn = await mover(api, players)
    message = private_turn_message(api, turn)
    assert message is not None
    game = await service(runner).open_game(group, 0)
    await api.settle()
    return game, turn, message
