"""The league screens as a Korean or a Japanese player meets them on a 360-px-wide phone,
opened from the chat's deep links (``startapp=c<chat>``, ``r<game>``), in a real browser
(headless Chromium, Playwright) against the real bot and the fake Bot API.

Before the fix:

- beside a long name the standings' column heads broke between two characters, "점/수",
  "게임/수", "승/리" (Korean), "ポイン/ト", "ゲーム/数", "勝利/数" (Japanese): a narrow
  column breaks CJK text anywhere;
- a replay link to a game that does not exist left the page on its "…" placeholder, the
  reason only in a toast that went away after 3.5 s; for a number past 2^53 the toast read
  "HTTP 404" in English (app.js turned the id into a Number: "replay/1e+23", which no route
  takes), and a shorter such id would have opened another game's replay (rounded);
- the replay of a game cancelled before it started read "0단계 중 0단계" above nothing."""

from __future__ import annotations

import pytest

from league.store.snapshots import UserRef
from tests.miniapp.browser import chromium
from tests.miniapp.koira import service_of
from tests.miniapp.miniapp_trust_helpers import GROUP, OTHER_GROUP, coyote_game, play_out
from tests.miniapp.server import page_url

NAMES = {11: "김민준하늘바다별빛김민준하늘바다별빛김민준하늘",
         12: "山田太郎左衛門之助山田太郎左衛門之助山田太郎",
         13: "AlexandraKonstantinouSmithJones"}
PHONE = {"width": 360, "height": 740}
HEAD_LINES = """() => [...document.querySelectorAll('table.standings th')]
  .filter((th) => th.textContent.trim())
  .map((th) => { const range = document.createRange(); range.selectNodeContents(th);
    return [th.textContent, new Set([...range.getClientRects()].map((r) => Math.round(r.top)))
      .size]; })"""
WIDE = """() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]"""


@pytest.fixture
async def browser():
    async with chromium() as b:
        yield b


async def open_as(browser, client, token: str, user_id: int, start: str, language: str):
    context = await browser.new_context(viewport=PHONE, device_scale_factor=1, is_mobile=True,
                                        has_touch=True)
    page = await context.new_page()
    await page.goto(page_url(client.base, token, user_id, NAMES.get(user_id, "X"), start,
                             language=language))
    return page


@pytest.mark.parametrize("language", ["ko", "ja"])
async def test_standings_heads_stay_whole_beside_a_long_name(mini, browser, language,
                                                             tmp_path) -> None:
    api, players, runner, client = mini
    game = await coyote_game(runner, names=NAMES, options={"edition": "classic"}, seed=2)
    await play_out(runner, game.id)
    await api.settle()
    page = await open_as(browser, client, api.token, 11, f"c{GROUP}", language)
    await page.wait_for_selector("table.standings tbody tr")
    for period in range(3):  # this week, last week (empty), the season
        await page.locator(".chips:not(.games) button.chip").nth(period).click()
        await page.wait_for_selector(
            f".chips:not(.games) button.chip:nth-child({period + 1})[aria-pressed=true]")
        await page.screenshot(path=tmp_path / f"{language}-standings-{period}.png")
        assert await page.evaluate(WIDE) == [360, 360]
        heads = await page.evaluate(HEAD_LINES)
        assert [h for h in heads if h[1] != 1] == [], heads
    await page.locator("table.standings tbody tr").nth(1).click()  # a player's chart
    await page.wait_for_selector(".profile svg.chart circle.dot")
    assert await page.evaluate(WIDE) == [360, 360]


@pytest.mark.parametrize("language", ["ko", "ja"])
async def test_a_replay_link_that_leads_nowhere_says_why_in_place(mini, browser,
                                                                  language) -> None:
    api, players, runner, client = mini
    service = service_of(runner)
    await coyote_game(runner)  # (Ann plays in the group: its pages are hers)
    lobby = await service.open_lobby(GROUP, "Mini league", 5, UserRef(1, "Ann"),
                                     kind="coyote")
    await service.cancel(lobby.id, 1, is_admin=True)
    other = await service.open_lobby(OTHER_GROUP, "Other league", 0, UserRef(4, "Dee"),
                                     kind="coyote")
    missing = (await client.get("replay/999999", 1, language=language)).json()["message"]
    forbidden = (await client.get(f"replay/{other.id}", 1, language=language)).json()
    for start, said in (("r999999", missing), ("r" + "9" * 25, missing),
                        (f"r{other.id}", forbidden["message"])):
        page = await open_as(browser, client, api.token, 1, start, language)
        await page.wait_for_selector("p.error")
        assert await page.locator("p.error").inner_text() == said, start
        assert await page.locator("#boot").count() == 0, start  # (not left on "…")
        await page.context.close()
    words = (await client.get("strings", 1, language=language)).json()
    replay = (await client.get(f"replay/{lobby.id}", 1, language=language)).json()
    page = await open_as(browser, client, api.token, 1, f"r{lobby.id}", language)
    await page.wait_for_selector(".replay .rstep p")
    assert await page.locator(".replay .counter").inner_text() == \
        words["step"].replace("{n}", "1").replace("{total}", "1")
    assert await page.locator(".replay .rstep p").all_inner_texts() == replay["steps"][0]
    assert "#" in replay["steps"][0][0] and str(lobby.id) in replay["steps"][0][0]
