"""A tournament's page in a real browser (headless Chromium, Playwright) against the real bot
and the fake Bot API: opened from its deep link (``startapp=t<id>``), it shows where the
tournament stands, the standings with Buchholz and each round's tables; a table opens its
game, whose page leads back; the group's league page and the player's profile list it. Each
view saves a 390 × 844 screenshot in the test's folder (tmp_path)."""

from __future__ import annotations

import pytest

from tests.miniapp.browser import chromium, phone
from tests.miniapp.server import page_url
from tests.miniapp.tournaments import ROUNDS, finished_tournament

GROUP = -100464
ISOLATES = str.maketrans("", "", "\u2068\u2069")


@pytest.fixture
async def browser():
    async with chromium() as b:
        yield b


async def test_a_tournaments_page_and_the_ways_to_it(mini, browser, tmp_path) -> None:
    api, players, runner, client = mini
    cup = await finished_tournament(runner, GROUP)
    await api.settle()
    page = await phone(browser)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    ann = players[0]
    await page.goto(page_url(client.base, api.token, ann.id, ann.first_name, f"t{cup.id}"))
    await page.wait_for_selector("[data-testid=tournament-standings] tbody tr")
    assert await page.locator(".tourney h2").inner_text() == f"🏆 Tournament #{cup.id}"
    assert await page.locator("[data-testid=stage]").inner_text() == "Finished"
    rows = page.locator("[data-testid=tournament-standings] tbody tr")
    assert await rows.count() == 6
    first = await rows.nth(0).locator("td").all_inner_texts()
    leader = cup.standings[0]
    assert first[0] == "1" and first[1].startswith(leader.entry.name) and first[4] == str(ROUNDS)
    assert await page.locator("tr.mine").count() == 1  # Ann's own line
    # The rounds, the latest open first: its two tables of three, every player placed.
    assert await page.locator("details.tround").count() == ROUNDS
    latest = page.locator("details.tround[open]")
    assert await latest.get_attribute("data-round") == str(ROUNDS)
    assert await latest.locator(".ttable").count() == 2
    assert await latest.locator(".tplayers li").count() == 6
    places = await latest.locator(".tplace").all_inner_texts()
    assert sorted(places) == ["Place 1", "Place 1", "Place 2", "Place 2", "Place 3", "Place 3"]
    await page.screenshot(path=tmp_path / "tournament.png", full_page=False)

    # A table opens its game; the game's page leads back to the tournament.
    table = cup.tables_of(ROUNDS)[0]
    await latest.locator(f".ttable[data-game='{table.game_id}'] [data-testid=open-game]").click()
    await page.wait_for_selector("[data-testid=tournament-link]")
    assert await page.locator("[data-testid=tournament-link]").inner_text() == \
        f"🏆 Tournament #{cup.id} · Round {ROUNDS} · Table {table.table}"
    await page.screenshot(path=tmp_path / "tournament-table.png")
    await page.locator("[data-testid=tournament-link]").click()
    await page.wait_for_selector("[data-testid=tournament-standings]")
    # … and its replay.
    await page.locator("details.tround[open] [data-testid=open-replay]").first.click()
    await page.wait_for_selector(".replay .rstep p")

    # The group's league page lists it; the profile too.
    await page.locator("button.tab[data-view=standings]").click()
    await page.wait_for_selector("[data-testid=tournaments] .titem")
    item = page.locator(f"[data-testid=tournaments] [data-tournament='{cup.id}']")
    assert "Finished · 6 players" in await item.inner_text()
    await page.screenshot(path=tmp_path / "league-tournaments.png", full_page=True)
    await page.locator("button.tab[data-view=profile]").click()
    await page.wait_for_selector("[data-testid=played-tournaments] .titem")
    mine = (await page.locator("[data-testid=played-tournaments] .titem").inner_text()) \
        .translate(ISOLATES)
    ann_place = next(s.place for s in cup.standings if s.entry.user_id == ann.id)
    assert mine.endswith(f"Mini league: place {ann_place} of 6"), mine
    await page.locator("[data-testid=played-tournaments] .titem").click()
    await page.wait_for_selector("[data-testid=tournament-standings]")
    assert errors == []
