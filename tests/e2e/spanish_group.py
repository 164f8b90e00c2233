"""A Spanish-speaking group for the end-to-end tests: ``GROUP`` set to Spanish with
/settings, and a game opened there by its first player, joined by the others with ✋ and
started with ▶️ (the real Application against the fake Bot API)."""

from __future__ import annotations

from tests.e2e.harness import BotRunner, wait_for
from tests.e2e.koira_play import service_of
from tests.fakebot import FakeBotAPI, FakeUser

GROUP = -100778
SETTINGS_HEADER = "Ajustes de las partidas"  # (the /settings message, in Spanish)


def button(api: FakeBotAPI, chat_id: int, message_id: int, start: str) -> str:
    """The label of the button of that message that starts with ``start``."""
    message = api.get_message(chat_id, message_id)
    assert message is not None
    return next(t for t, _ in api.buttons(message) if t.startswith(start))


async def spanish_game(api: FakeBotAPI, runner: BotRunner, players: list[FakeUser],
                       command: str = "/newgame", *, seed: int | None = None,
                       start: bool = True) -> tuple[int, list[dict]]:
    """Each player starts the bot, then the bot starts; the first player sets the group to
    Spanish and opens a game with ``command`` (the deal's ``seed`` fixed if given), the
    others join it (``start``: and the first starts it). ``(the index of api.log right after
    the language was set, the answers to the ✋ presses)``."""
    for user in players:
        await user.start_bot()
    await runner.start()
    await wait_for(lambda: all(api.bot_messages(u.id) for u in players))
    await players[0].send(GROUP, "/settings language es")
    await wait_for(lambda: bool(api.find_messages(GROUP, SETTINGS_HEADER)))
    since = len(api.log)
    if seed is not None:
        service_of(runner).new_seed = lambda: seed
    await players[0].send(GROUP, command)
    await wait_for(lambda: bool(api.find_messages(GROUP, "nueva partida #1")))
    await api.settle(quiet=0.05)
    lobby = api.find_messages(GROUP, "nueva partida #1")[-1].message_id
    answers = [await user.press_and_settle(api.get_message(GROUP, lobby),
                                           button(api, GROUP, lobby, "✋"), quiet=0.02)
               for user in players[1:]]
    if start:
        await players[0].press_and_settle(api.get_message(GROUP, lobby),
                                          button(api, GROUP, lobby, "▶️"), quiet=0.05)
    return since, answers
