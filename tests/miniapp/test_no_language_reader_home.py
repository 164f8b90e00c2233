"""The Mini App's home screen for a player whose Telegram app sends no language (and who
chose none with /language), as ``test_no_language_reader`` (its Spanish group, its helpers):
opened with no start parameter (the bot's menu button, the link without one), the page asks
for its words naming no game, chat, tournament or profile (``strings``), and reads them in
the language of the group of the reader's most recent game, as his own profile does. A
stranger, who has played nowhere, reads English."""

from __future__ import annotations

from urllib.parse import quote

import pytest

from tests.e2e.group_play_common import tr
from tests.fakebot import FakeBotAPI
from tests.miniapp.browser import chromium, phone
from tests.miniapp.test_no_language_reader import (  # noqa: F401  (api, spanish: fixtures)
    DANI,
    STRANGER,
    api,
    get,
    no_language_init_data,
    spanish,
)
from tests.miniapp.test_no_language_reader_profile import korean_game

HOME = ("strings", "strings?start=", "strings?start=x1", "strings?start=g")
"""The page's words for a screen that names nothing: no start parameter, an empty one, and
ones the page does not know (``app.js`` opens the home screen for each)."""


async def test_a_reader_with_no_language_reads_the_home_screen_in_his_groups_language(
        spanish, api: FakeBotAPI) -> None:  # noqa: F811
    """Before the fix Dani (no language from his app) opened the Mini App from the bot's
    menu button and read its home screen ("Your games", "Your leagues", every label) in
    English, while the bot speaks Spanish to him about his games: a request naming nothing
    fell back to English. Now its words are those of the group of his most recent game
    (Spanish; Korean once his latest game is in a Korean group), exactly as for an app in
    that language; a link naming a game or league he may not see stays English."""
    client, _cup = spanish
    for path in HOME:
        words = (await get(client, path, DANI, None)).json()
        assert words["lang"] == "es", path
        assert words == (await get(client, path, DANI, "es")).json() != (await get(
            client, path, DANI, "en")).json(), path
    assert (await get(client, "me", DANI, None)).json() == (await get(
        client, "me", DANI, "es")).json()
    for path in ("strings?start=g999", "strings?start=c-1"):  # (named, not his: English)
        assert (await get(client, path, DANI, None)).json()["lang"] == "en", path

    await korean_game(api)
    for path in HOME:
        words = (await get(client, path, DANI, None)).json()
        assert words["lang"] == "ko" and words == (await get(
            client, path, DANI, "ko")).json(), path


async def test_the_home_screen_tells_a_stranger_no_groups_language(
        spanish) -> None:  # noqa: F811
    """Before the fix (and after: it guards the fix) a stranger whose app sends no language,
    who has played in no group, reads the home screen's words in English, as an English
    app does, and the Spanish game's words refused to him stay English too."""
    client, _cup = spanish
    for path in (*HOME, "strings?start=g1"):
        words = (await get(client, path, STRANGER, None)).json()
        assert words["lang"] == "en" and words == (await get(
            client, path, STRANGER, "en")).json(), path


@pytest.fixture
async def browser():
    async with chromium() as b:
        yield b


async def test_the_page_opened_from_the_menu_button_speaks_his_groups_language(
        spanish, api: FakeBotAPI, browser) -> None:  # noqa: F811
    """Dani (no language from his app) opens the Mini App with no start parameter. Before
    the fix the page was English: his one running game's table around its labels, and,
    once he plays in the Korean group too, the home screen listing his two games ("Your
    games") and his leagues. Now it speaks Spanish, then Korean, his latest game's group's."""
    client, _cup = spanish
    page = await phone(browser)
    url = (f"{client.base}#tgWebAppData="
           f"{quote(no_language_init_data(client.token, DANI), safe='')}"
           "&tgWebAppVersion=8.0&tgWebAppPlatform=web")
    await page.goto(url)
    await page.wait_for_selector("html[lang='es']", state="attached", timeout=10000)

    await korean_game(api)
    await page.goto("about:blank")
    await page.goto(url)
    await page.wait_for_selector("html[lang='ko']", state="attached", timeout=10000)
    await page.wait_for_selector(".home h2", timeout=10000)
    assert await page.locator(".home h2").all_inner_texts() == [
        tr("ko", "Your games"), tr("ko", "Your leagues")]
