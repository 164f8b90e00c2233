"""How the chats open the Mini App: a web_app button on the private message, the direct link
on the group's table; neither without the settings."""

from __future__ import annotations

from tests.e2e.harness import BotRunner, mover, start_game
from tests.fakebot import FakeBotAPI

GROUP = -100555
URL = "https://coyote.example/app/"


async def _game(api: FakeBotAPI, pg_url: str, **settings: str):
    api.add_group(GROUP, "Links", admins=[1])
    players = [api.add_user(i, name) for i, name in enumerate(["Ann", "Bob", "Cat"], start=1)]
    for user in players:
        await user.start_bot()
    runner = BotRunner(api, pg_url)
    base = runner.settings
    runner.settings = lambda: base().model_copy(update=settings)  # type: ignore[method-assign]
    await runner.start()
    await start_game(api, players, GROUP)
    return runner, players


def _web_apps(message) -> list[str]:
    return [b["web_app"]["url"] for row in (message.reply_markup or {}).get(
        "inline_keyboard", []) for b in row if "web_app" in b]


async def test_buttons_open_the_mini_app_on_the_game(pg_db, pg_url) -> None:
    async with FakeBotAPI() as api:
        runner, players = await _game(api, pg_url, miniapp_url=URL,
                                      miniapp_short_name="table")
        try:
            first = await mover(api, players)
            for user in players:  # on turn or not, the private message opens the table
                assert _web_apps(api.bot_messages(user.id)[-1]) == [URL + "?start=g1"], user
            assert any("Open the table" in t
                       for t, _ in api.buttons(api.bot_messages(first.id)[-1]))
            table = api.find_messages(GROUP, "· round 1")[-1]
            assert ("🃏 Open the table",
                    "https://t.me/coyote_league_bot/table?startapp=g1") in api.buttons(table)
            assert _web_apps(table) == []  # Telegram allows web_app buttons in private only
        finally:
            await runner.stop()


async def test_no_settings_no_buttons(pg_db, pg_url) -> None:
    async with FakeBotAPI() as api:
        runner, players = await _game(api, pg_url)
        try:
            await mover(api, players)
            table = api.find_messages(GROUP, "· round 1")[-1]
            assert not any("Open the table" in t for t, _ in api.buttons(table))
            for user in players:
                assert _web_apps(api.bot_messages(user.id)[-1]) == []
        finally:
            await runner.stop()
