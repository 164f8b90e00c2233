"""The Mini App in a real browser (headless Chromium, Playwright) against the real bot and
the fake Bot API: a player's table (own card hidden), a bid from the page told in the group,
the page following a move made by button, standings and a profile chart. Each scenario saves
a 390 × 844 screenshot in the test's folder (tmp_path)."""

from __future__ import annotations

import pytest

from tests.e2e.harness import (
    mover,
    open_lobby,
    play_turn,
    private_turn_message,
    start_game,
    wait_for,
)
from tests.miniapp.browser import chromium, phone
from tests.miniapp.server import page_url

GROUP = -100999
TELEGRAM_DARK = {"bg_color": "#212d3b", "text_color": "#ffffff", "hint_color": "#7d8b99",
                 "button_color": "#5288c1", "button_text_color": "#ffffff",
                 "secondary_bg_color": "#151e27", "link_color": "#62bcf9"}


@pytest.fixture
async def browser():
    async with chromium() as b:
        yield b


async def open_page(browser, mini, user, start: str, **kw):
    api, players, runner, client = mini
    page = await phone(browser, dark=kw.pop("dark", False))
    if kw.pop("no_stream", False):  # the page gets no live update: it goes stale
        await page.route("**/events", lambda route: route.abort())
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("requestfailed", lambda r: errors.append(f"failed: {r.url}"))
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    await page.goto(page_url(client.base, api.token, user.id, user.first_name, start, **kw))
    return page, errors


async def test_a_player_bids_from_the_table(mini, browser, tmp_path) -> None:
    api, players, runner, client = mini
    await start_game(api, players, GROUP)
    first = await mover(api, players)
    page, errors = await open_page(browser, mini, first, "g1")
    await page.wait_for_selector(".seat.you")
    # own card face down, every other player's card shown
    assert await page.locator(".seat.you .card-back").count() == 1
    others = page.locator(".seat:not(.you)")
    assert await others.count() == 2
    for i in range(2):
        assert await others.nth(i).locator(".card-back").count() == 0
        assert await others.nth(i).locator("svg.card").count() >= 1
    await page.screenshot(path=tmp_path / "table-your-turn.png", full_page=False)
    await page.locator(".quickbid[data-bid='3']").click()
    await page.locator("[data-testid=submit-bid]").click()
    await wait_for(lambda: bool(api.find_messages(GROUP, " bids 3")))
    await page.wait_for_selector(".bids li >> text=3")
    await page.wait_for_selector("[data-testid=submit-bid]", state="detached")
    await page.screenshot(path=tmp_path / "table-after-bid.png")
    assert errors == []


async def test_the_page_follows_a_move_by_button(mini, browser, tmp_path) -> None:
    api, players, runner, client = mini
    await start_game(api, players, GROUP)
    first = await mover(api, players)
    watcher = next(u for u in players if u is not first)
    page, errors = await open_page(browser, mini, watcher, "g1", theme=TELEGRAM_DARK)
    await page.wait_for_selector(".seat.you")
    assert await page.locator(".bids li").count() == 0
    message = private_turn_message(api, first)
    await first.press(message, next(d for t, d in api.buttons(message) if t == "2"))
    await page.wait_for_selector(".bids li >> text=2", timeout=10_000)
    await page.screenshot(path=tmp_path / "table-dark-followed.png")
    assert errors == []


async def test_standings_and_profile_chart(mini, browser, tmp_path) -> None:
    api, players, runner, client = mini
    await start_game(api, players, GROUP)
    while not api.find_messages(GROUP, "is over!"):
        assert await play_turn(api, players, GROUP)
    await api.settle()
    page, errors = await open_page(browser, mini, players[0], f"c{GROUP}")
    await page.wait_for_selector("table.standings tbody tr")
    assert await page.locator("table.standings tbody tr").count() == 3
    names = await page.locator("table.standings td.name").all_inner_texts()
    assert sorted(names) == ["Ann", "Bob", "Cat"]
    await page.screenshot(path=tmp_path / "standings.png")
    await page.locator("button.tab[data-view=profile]").click()
    await page.wait_for_selector("svg.chart circle.dot")
    assert await page.locator("svg.chart circle.dot").count() == 1
    await page.screenshot(path=tmp_path / "profile.png")
    await page.locator("button.tab[data-view=history]").click()
    await page.locator(".history .chip").first.click()
    await page.wait_for_selector(".replay .rstep p.current")
    await page.locator("[data-testid=next]").click()
    await page.screenshot(path=tmp_path / "replay.png")
    assert errors == []


async def test_a_mask_with_a_bid_from_the_page(mini, browser, tmp_path) -> None:
    api, players, runner, client = mini
    await start_game(api, players, GROUP, "/newgame", "🎭 Masks: off")
    first = await mover(api, players)
    page, errors = await open_page(browser, mini, first, "g1")
    await page.wait_for_selector(".control.bid .chip")
    chips = await page.locator(".control.bid .chip").all_inner_texts()
    assert any("Double" in c for c in chips) and any("→" in c for c in chips), chips
    assert await page.locator(".control.specials button").count() >= 1
    await page.locator(".control.bid .chip", has_text="Double").click()
    await page.screenshot(path=tmp_path / "table-masks.png")
    await page.locator("[data-testid=submit-bid]").click()
    await wait_for(lambda: bool(api.find_messages(GROUP, "with 🎭 Double")))
    assert errors == []


@pytest.mark.parametrize("edition", ["feathers", "poker-deck"])
async def test_other_editions_draw_their_cards(mini, browser, tmp_path, edition) -> None:
    api, players, runner, client = mini
    presses = ("🪙 Coins: off",) if edition == "feathers" else ()
    await start_game(api, players, GROUP, f"/newgame {edition}", *presses)
    first = await mover(api, players)
    page, errors = await open_page(browser, mini, first, "g1")
    await page.wait_for_selector(".control.bid")
    assert await page.locator(".seat.you .card-back").count() == 1
    assert await page.locator(".seat:not(.you) svg.card:not(.card-back)").count() >= 2
    if edition == "feathers":
        # the opening player may use a coin before bidding; Guess lists the cards
        await page.wait_for_selector(".control.specials button")
        await page.locator("details.control.guess summary").click()
        await page.wait_for_selector("details.control.guess button >> text=blue 0")
    await page.screenshot(path=tmp_path / f"table-{edition}.png", full_page=True)
    assert errors == []


async def test_a_stale_page_says_the_game_moved_on(mini, browser, tmp_path) -> None:
    api, players, runner, client = mini
    await start_game(api, players, GROUP)
    first = await mover(api, players)
    page, errors = await open_page(browser, mini, first, "g1", no_stream=True)
    await page.wait_for_selector("[data-testid=submit-bid]")
    message = private_turn_message(api, first)
    await first.press(message, next(d for t, d in api.buttons(message) if t == "2"))
    await wait_for(lambda: bool(api.find_messages(GROUP, " bids 2")))
    await api.settle()
    before = len(api.find_messages(GROUP, " bids "))
    await page.locator("[data-testid=submit-bid]").click()  # drawn before the press
    await page.wait_for_selector(".toast >> text=moved on")
    # the page shows the game as it is now: the bid made by button, no more buttons
    await page.wait_for_selector(".bids li >> text=2")
    assert await page.locator("[data-testid=submit-bid]").count() == 0
    await page.screenshot(path=tmp_path / "stale-page.png")
    await api.settle()
    assert len(api.find_messages(GROUP, " bids ")) == before  # the stale bid changed nothing
    # the failed loads are the event stream's, aborted by the test
    assert [e for e in errors if "/events" not in e and "Failed to load" not in e] == []


async def test_from_the_lobby_to_the_table_and_home(mini, browser, tmp_path) -> None:
    api, players, runner, client = mini
    lobby = await open_lobby(api, players, GROUP)
    page, errors = await open_page(browser, mini, players[2], "g1")
    await page.wait_for_selector(".prompt >> text=lobby")
    await page.screenshot(path=tmp_path / "lobby.png")
    await players[0].press_and_settle(lobby, "▶️ Start")
    await page.wait_for_selector(".seat.you .card-back")  # the deal reached the page by itself
    home, home_errors = await open_page(browser, mini, players[1], "")
    await home.wait_for_selector(".seat.you")  # one running game: its table at once
    assert errors == [] and home_errors == []


async def test_an_outsider_reads_why(mini, browser, tmp_path) -> None:
    """Someone who never sat in a game of the chat opens a game's link: the page says whose
    table it is, in place of the table."""
    api, players, runner, client = mini
    await start_game(api, players, GROUP)
    stranger = api.add_user(99, "Dee")
    page, errors = await open_page(browser, mini, stranger, "g1")
    await page.wait_for_selector("p.error >> text=for the players of its group")
    assert await page.locator(".seat").count() == 0
    await page.screenshot(path=tmp_path / "outsider.png")
    assert [e for e in errors if "403" not in e] == []


async def test_no_other_site_frames_the_page(mini, browser) -> None:
    """The page's Content-Security-Policy lets only Telegram's web clients frame it (the
    other tests load it under that policy and see no violation in the console)."""
    api, players, runner, client = mini
    framer = await phone(browser)
    console: list[str] = []
    framer.on("console", lambda msg: console.append(msg.text))
    await framer.set_content(f'<iframe src="{client.base}" width="300" height="300">'
                             "</iframe>")
    await wait_for(lambda: any("frame-ancestors" in m for m in console), timeout=15)
    assert await framer.frames[-1].locator("#main").count() == 0  # nothing of it shown
