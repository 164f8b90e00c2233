"""A player whose Telegram app sends no language (``initData``'s user has no
``language_code``, which is optional) and who chose none with /language, on the Mini App
pages of a Spanish group (the real Application, the fake Bot API, the Mini App served beside
it): a game's table, its replay, the group's league and its tournament read in Spanish, as
the chat's messages about them do; someone who may not read those pages learns nothing from
the language of the refusal."""

from __future__ import annotations

import json
import time
from urllib.parse import quote

import httpx
import pytest

from telegram_app.miniapp.initdata import sign
from tests.e2e.group_play_common import tr
from tests.e2e.harness import BotRunner
from tests.e2e.spanish_group import GROUP, spanish_game
from tests.fakebot import FakeBotAPI
from tests.miniapp.browser import chromium, phone
from tests.miniapp.conftest import Client
from tests.miniapp.server import init_data, miniapp_server
from tests.miniapp.tournaments import signed_up

DANI = 3
STRANGER = 99


def no_language_init_data(token: str, user_id: int) -> str:
    """``initData`` of a Telegram app that sends no ``language_code``."""
    return sign({"auth_date": str(int(time.time())), "query_id": f"AA{user_id}",
                 "user": json.dumps({"id": user_id, "first_name": "Dani"})}, token)


async def get(client: Client, path: str, user_id: int,
              language: str | None) -> httpx.Response:
    """GET ``path`` as ``user_id``, whose app sends ``language`` (``None``: none at all)."""
    data = no_language_init_data(client.token, user_id) if language is None \
        else init_data(client.token, user_id, "Dani", language=language)
    return await client.http.get(client.base + "api/" + path,
                                 headers={"Authorization": "tma " + data})


@pytest.fixture
async def api():
    async with FakeBotAPI() as fake:
        yield fake


@pytest.fixture
async def spanish(api: FakeBotAPI, pg_db, pg_url: str):
    """``(client, tournament id)``: Ana and Beto (Spanish apps) and Dani (id 3, no
    language) in a running Coyote game #1 of the Spanish ``GROUP``, which also has a
    tournament in sign-up; the Mini App served."""
    api.add_group(GROUP, "Noche de Coyote", admins=[1])
    players = [api.add_user(1, "Ana", language_code="es"),
               api.add_user(2, "Beto", language_code="es"),
               api.add_user(DANI, "Dani", language_code=None)]
    runner = BotRunner(api, pg_url)
    try:
        await spanish_game(api, runner, players)
        await api.settle(quiet=0.05)
        cup = await signed_up(runner, GROUP, "Noche de Coyote", ai=0)
        async with miniapp_server(runner.app) as base:
            client = Client(base, api.token)
            try:
                yield client, cup.id
            finally:
                await client.http.aclose()
    finally:
        await runner.stop()


async def test_a_reader_with_no_language_reads_the_groups_pages_in_its_language(
        spanish) -> None:
    """Dani's app sends no language; he opens his Spanish group's game's table, its moves and
    replay, the group's standings, history and tournaments and its tournament's page in the
    Mini App, and the page's own words for each of those screens. Before the fix every one
    of them was in English (the Mini App's fallback: "a
    request has no game yet") while the bot's messages about that game are Spanish; now
    each reads exactly as for a Spanish app. An app in English keeps English."""
    client, cup = spanish
    moves = await get(client, "game/1/moves", DANI, None)  # (no words when not Dani's turn)
    assert moves.json() == (await get(client, "game/1/moves", DANI, "es")).json()
    for path in ["game/1", "replay/1", f"chat/{GROUP}/standings",
                 f"chat/{GROUP}/history", f"chat/{GROUP}/tournaments", f"tournament/{cup}"]:
        none = await get(client, path, DANI, None)
        assert none.status_code == 200, (path, none.text)
        spanish_app = (await get(client, path, DANI, "es")).json()
        english_app = (await get(client, path, DANI, "en")).json()
        assert none.json() == spanish_app != english_app, path
    table = (await get(client, "game/1", DANI, None)).json()
    assert table["title"] != (await get(client, "game/1", DANI, "en")).json()["title"]
    standings = (await get(client, f"chat/{GROUP}/standings", DANI, None)).json()
    assert standings["period"] == "week" and standings["title"] != (await get(
        client, f"chat/{GROUP}/standings", DANI, "en")).json()["title"]
    listed = (await get(client, f"chat/{GROUP}/tournaments", DANI, None)).json()
    assert listed["title"] == tr("es", "Tournaments") != "Tournaments"
    page = (await get(client, f"tournament/{cup}", DANI, None)).json()
    assert page["title"] == tr("es", "🏆 Tournament #{id}").format(id=cup)
    # the page's own words (its labels), for the screen it opens
    for start in ("g1", "r1", f"c{GROUP}", f"t{cup}"):
        words = (await get(client, f"strings?start={start}", DANI, None)).json()
        assert words["lang"] == "es" and words == (await get(
            client, f"strings?start={start}", DANI, "es")).json(), start
    # (a screen naming a game or league he may not see: English; one naming nothing, the
    # home screen, is his latest game's group's: test_no_language_reader_home)
    for start in ("g999", "c-1"):
        assert (await get(client, f"strings?start={start}", DANI, None)).json()["lang"] == "en"
    stranger = (await get(client, "strings?start=g1", STRANGER, None)).json()
    assert stranger["lang"] == "en"


async def test_a_refusal_tells_a_stranger_nothing_by_its_language(spanish) -> None:
    """A stranger whose app sends no language asks for the Spanish group's game, replay,
    league and tournament: each refusal is the one an English app gets (the group's language
    is told to those who may read its pages only), as for a game that does not exist; Dani,
    a member, asking for a game or tournament that does not exist gets its polite 404.
    (Passes before the fix too: it guards the fix from telling the group's language.)"""
    client, cup = spanish
    for path, code in [("game/1", "game_members_only"), ("game/1/moves", "game_members_only"),
                       ("replay/1", "league_members_only"),
                       (f"chat/{GROUP}/standings", "league_members_only"),
                       (f"chat/{GROUP}/tournaments", "league_members_only"),
                       (f"tournament/{cup}", "tournament_members_only"),
                       ("game/999", "game_not_found"), ("replay/999", "game_not_found"),
                       ("tournament/999", "tournament_not_found")]:
        refused = await get(client, path, STRANGER, None)
        assert refused.status_code in (403, 404), (path, refused.text)
        assert refused.json()["error"] == code, path
        english = (await get(client, path, STRANGER, "en")).json()
        assert refused.json() == english != (await get(client, path, STRANGER, "es")).json()
    for path in ("game/999", "replay/999", "tournament/999", "chat/-1/standings"):
        missing = await get(client, path, DANI, None)
        assert missing.status_code in (403, 404), (path, missing.text)
        assert missing.json() == (await get(client, path, DANI, "en")).json(), path


@pytest.fixture
async def browser():
    async with chromium() as b:
        yield b


async def test_the_page_opened_on_a_spanish_game_speaks_spanish(spanish, browser) -> None:
    """Dani (no language from his app) opens the Spanish game's table from the chat. Before
    the fix the page's own words (its tabs, its labels) were English around the Spanish
    table: the page asked for its words without saying which screen it opens."""
    client, _cup = spanish
    page = await phone(browser)
    data = no_language_init_data(client.token, DANI)
    await page.goto(f"{client.base}#tgWebAppData={quote(data, safe='')}"
                    "&tgWebAppStartParam=g1&tgWebAppVersion=8.0&tgWebAppPlatform=web")
    await page.wait_for_selector("html[lang='es']", state="attached", timeout=10000)
