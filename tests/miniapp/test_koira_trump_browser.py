"""The Koira table in a real browser: once the trump is known, a trump card carries its ★
with a tooltip saying what a trump does, and a legend line under the board says it too; the
player's own play in the trick is marked "you", not with the trump's star. Saves a 390 × 844
screenshot in its tmp_path."""

from __future__ import annotations

from telegram_app.games.koira.words import trump_rule
from tests.miniapp.koira import drive, human_on_turn, koira_game
from tests.miniapp.test_koira_browser import browser, open_page  # noqa: F401 (a fixture)

GROUP = -100557


async def test_the_trump_star_is_explained(mini, browser, tmp_path) -> None:  # noqa: F811
    api, players, runner, client = mini
    game = await koira_game(runner, GROUP)

    def trump_known(g) -> bool:
        return bool(g.state.get("trump")) and not g.state["over"] and \
            human_on_turn(g) is not None

    game = await drive(runner, game.id, trump_known)
    mover = human_on_turn(game)
    page, errors, tables = await open_page(browser, mini, mover, f"g{game.id}")
    legend = page.locator("[data-testid=legend]")
    await legend.wait_for()
    assert await legend.inner_text() == "★ " + trump_rule()
    trumps = page.locator("svg.pcard.pc-trump")
    assert await trumps.count() > 0 or game.state["phase"] == 2
    for i in range(await trumps.count()):
        assert await trumps.nth(i).locator("title").text_content() == trump_rule()
    plain = page.locator("svg.pcard:not(.pc-trump)")
    for i in range(await plain.count()):
        assert await plain.nth(i).locator("title").count() == 0
    names = await page.locator(".play-name").all_inner_texts()
    assert not [n for n in names if "★" in n], names
    await page.screenshot(path=tmp_path / "koira-trump.png")
    assert errors == []
