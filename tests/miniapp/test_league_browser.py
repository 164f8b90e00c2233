"""The league pages per game in a real browser (headless Chromium, Playwright) against the
real bot and the fake Bot API: after a Coyote and a Koira game played from the page, the
game switch shows Koira's standings and a Koira profile chart, the history names both games
and the replay steps through the Koira game. Each view saves a 390 × 844 screenshot in the
test's folder (tmp_path)."""

from __future__ import annotations

import pytest

from tests.miniapp.browser import chromium, phone
from tests.miniapp.league import KoiraUI, both_games
from tests.miniapp.server import page_url

GROUP = -100333


@pytest.fixture
async def browser():
    async with chromium() as b:
        yield b


async def test_koira_standings_profile_chart_and_replay(mini, browser, tmp_path) -> None:
    api, players, runner, client = mini
    with KoiraUI():
        coyote, koira = await both_games(mini, GROUP)
        page = await phone(browser)
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        ann = players[0]
        await page.goto(page_url(client.base, api.token, ann.id, ann.first_name, f"c{GROUP}"))
        switch = page.locator(".chips.games button.chip")
        await page.wait_for_selector(".chips.games button.chip[data-game=koira]")
        assert await switch.all_inner_texts() == ["Coyote", "Koira"]
        # it opens on the game the chat played last
        assert await page.locator(".chips.games [aria-pressed=true]").inner_text() == "Koira"
        await page.locator(".chips.games [data-game=coyote]").click()
        await page.wait_for_selector(".chips.games [data-game=coyote][aria-pressed=true]")
        await page.locator(".chips.games [data-game=koira]").click()
        await page.wait_for_selector(".chips.games [data-game=koira][aria-pressed=true]")
        await page.wait_for_selector("table.standings tbody tr")
        names = await page.locator("table.standings td.name").all_inner_texts()
        assert sorted(names) == ["Ann", "Bob", "Cat"]
        await page.screenshot(path=tmp_path / "koira-standings.png")
        # a row opens that player's profile in the same game
        await page.locator("table.standings tr", has_text="Bob").click()
        await page.wait_for_selector(".profile svg.chart circle.dot")
        assert await page.locator(".profile h2").inner_text() == "Elo of Bob"
        assert await page.locator(".chips.games [aria-pressed=true]").inner_text() == "Koira"
        assert await page.locator("svg.chart circle.dot").count() == 1
        await page.screenshot(path=tmp_path / "koira-profile.png")
        await page.locator("button.tab[data-view=history]").click()
        await page.wait_for_selector(".history li")
        shown = await page.locator(".history .game").all_inner_texts()
        assert shown[0] == "Koira" and shown[1].startswith("Coyote"), shown
        await page.locator(".history li", has_text=f"#{koira}").locator(".chip").click()
        await page.wait_for_selector(".replay .rstep p.current")
        first = await page.locator(".replay .rstep p").count()
        for _ in range(5):
            await page.locator("[data-testid=next]").click()
        await page.wait_for_selector(".counter:text-matches('^Step 6 of')")
        assert await page.locator(".replay .rstep p").count() >= first
        await page.screenshot(path=tmp_path / "koira-replay.png")
        # a jump to a trick of phase 2: its first card, with who played it
        tricks = await page.locator("[data-testid=jump] option:not([disabled])").all_inner_texts()
        assert tricks[0] == "Phase 1 · trick 1", tricks
        later = next(label for label in tricks if label.startswith("Phase 2"))
        await page.locator("[data-testid=jump]").select_option(label=later)
        await page.wait_for_selector(f".counter:text-matches('· {later}$')")
        owners = await page.locator("[data-testid=step-cards] figcaption .name").all_inner_texts()
        assert owners and set(owners) <= {"Ann", "Bob", "Cat", "Wile"}, owners
        leader = (await page.locator(".rstep p.current").all_inner_texts())[-1].translate(
            str.maketrans("", "", "\u2068\u2069"))
        assert leader.startswith(f"{later.rsplit(' ', 1)[1]}. {owners[0]} "), (leader, owners)
        await page.screenshot(path=tmp_path / "koira-replay-jump.png")
        assert errors == []
