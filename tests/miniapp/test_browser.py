"""The Mini App in a real browser (headless Chromium, Playwright) against the real bot and
the fake Bot API: a player's table (own card hidden), a bid from the page told in the group,
the page following a move made by button, standings and a profile chart. Each scenario saves
a 390 × 844 screenshot in the test's folder (tmp_path)."""

from __future__ import annotations

import pytest

from engine import GAMES
from league.store.snapshots import UserRef
from tests.e2e.harness import (
    mover,
    open_lobby,
    play_turn,
    private_turn_message,
    start_game,
    wait_for,
)
from tests.miniapp.browser import chromium, phone
from tests.miniapp.koira import service_of
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
    # What the page asks of Telegram (postEvent), as Telegram's mobile clients receive it
    await page.add_init_script(
        "window.TelegramWebviewProxy = { postEvent: (type) =>"
        " (window.tgEvents = window.tgEvents || []).push(type) };")
    await page.goto(page_url(client.base, api.token, user.id, user.first_name, start, **kw))
    return page, errors


BIDI = str.maketrans("", "", "\u2068\u2069")


def result_lines(api, group: int) -> list[str]:
    """The places of the group's "is over!" message, one line each (``🥇 Ann``)."""
    text = (api.find_messages(group, "is over!")[-1].text or "").translate(BIDI)
    lines = text.split("\n")
    start = next(i for i, line in enumerate(lines) if "is over!" in line) + 2
    end = lines.index("", start)
    return lines[start:end]


async def gap_between(page, left: str, right: str, within: str) -> list[float]:
    """For each ``within`` element holding both, the room between ``left``'s right edge
    and ``right``'s left edge, in pixels (on one line; a wrapped ``right`` counts as 99)."""
    return await page.locator(within).evaluate_all(
        """(els, [l, r]) => els.filter((e) => e.querySelector(l) && e.querySelector(r))
          .map((e) => { const a = e.querySelector(l).getBoundingClientRect();
                        const b = e.querySelector(r).getBoundingClientRect();
                        return b.top >= a.bottom - 1 ? 99 : b.left - a.right; })""",
        [left, right])


async def labels_outside_the_chart(page) -> list[str]:
    """The texts and dots of the Elo chart that run past its frame."""
    return await page.locator("svg.chart text, svg.chart circle").evaluate_all(
        """(els) => els.filter((e) => { const b = e.getBBox();
            const v = e.ownerSVGElement.viewBox.baseVal;
            return b.x < 0 || b.y < 0 || b.x + b.width > v.width || b.y + b.height > v.height; })
          .map((e) => e.textContent || e.getAttribute("class"))""")


async def labels_outside_their_cards(page) -> list[str]:
    """The labels of the drawn cards (svg.card) whose text runs past the card's face."""
    return await page.locator("svg.card .card-label").evaluate_all(
        """(els) => els.filter((t) => { const face = t.parentNode.querySelector('.card-face');
            const a = t.getBBox(); const f = face.getBBox();
            return a.x < f.x || a.x + a.width > f.x + f.width; })
          .map((t) => t.textContent)""")


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
    # the line starts at the starting rating, whose dashed line is labelled
    start_y = float(await page.locator("svg.chart .start-line").get_attribute("y1"))
    first = (await page.locator("svg.chart path.line").get_attribute("d")).split()[0]
    assert abs(float(first.split(",")[1]) - start_y) < 0.1, first
    assert await page.locator("svg.chart .start-label").text_content() == "1500"
    assert await labels_outside_the_chart(page) == []
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


@pytest.mark.parametrize(("edition", "dark"), [("classic", False), ("poker-deck", True)])
async def test_the_end_screen_shows_the_result_and_the_way_to_a_rematch(
        mini, browser, tmp_path, edition, dark) -> None:
    """Once over, the table shows the places as the group's last message gives them (in
    poker-deck, everyone but the loser shares the win) instead of an empty bid line, and
    tells a player where 🔁 Rematch is, with a button back to the chat."""
    api, players, runner, client = mini
    await start_game(api, players, GROUP, f"/newgame {edition}")
    while not api.find_messages(GROUP, "is over!"):
        assert await play_turn(api, players, GROUP)
    await api.settle()
    page, errors = await open_page(browser, mini, players[0], "g1",
                                   **({"theme": TELEGRAM_DARK, "dark": True} if dark else {}))
    result = page.locator("[data-testid=result] .result li")
    await result.first.wait_for()
    assert await result.all_text_contents() == result_lines(api, GROUP)
    if edition == "poker-deck":
        marks = await page.locator(".result .mark").all_inner_texts()
        assert marks.count("🥇") == 2, marks  # the winners share the first place
    assert "No bid yet." not in await page.locator("main").inner_text()
    assert await page.locator(".bidline").count() == 0
    # hearts and the place apart, not "♥♡♡Place 1"
    gaps = await gap_between(page, ".lives", ".place", ".seat-foot")
    assert gaps and min(gaps) >= 4, gaps
    rematch = page.locator(".rematch")
    assert "🔁 Rematch" in await rematch.inner_text()
    await rematch.scroll_into_view_if_needed()
    await page.screenshot(path=tmp_path / f"end-{edition}{'-dark' if dark else ''}.png")
    await page.locator("[data-testid=back-to-chat]").click()
    assert "web_app_close" in await page.evaluate("window.tgEvents")
    # the table of someone who did not play it: the result, no rematch
    dee = api.add_user(99, "Dee")  # sat in a game of the chat (a lobby in another topic)
    await service_of(runner).open_lobby(GROUP, "Mini league", 7, UserRef(99, "Dee"),
                                        kind="coyote")
    other, errors2 = await open_page(browser, mini, dee, "g1")
    await other.locator("[data-testid=result]").wait_for()
    assert await other.locator(".rematch").count() == 0
    assert errors == [] and errors2 == []


async def test_special_cards_fit_and_are_explained(mini, browser, tmp_path) -> None:
    """A special card's label fits its card ("MAX→0" ran past both edges), and the table
    says what each special card shown does (a line under the seats, a tooltip on the
    card)."""
    api, players, runner, client = mini
    seed = next(n for n in range(10_000)
                if "max0" in GAMES["coyote"].new_game(3, n, {})[0]["hands"])
    service_of(runner).new_seed = lambda: seed
    await start_game(api, players, GROUP)
    game = await service_of(runner).get(1)
    holder = game.state["hands"].index("max0")
    viewer = next(u for u in players if game.player(u.id).seat != holder)
    page, errors = await open_page(browser, mini, viewer, "g1")
    card = page.locator(".seat svg.card[aria-label='MAX→0']")
    await card.wait_for()
    assert await labels_outside_their_cards(page) == []
    assert await card.locator("title").text_content() == "the highest positive card counts 0"
    legend = await page.locator("[data-testid=legend]").inner_text()
    assert "MAX→0 the highest positive card counts 0" in legend, legend
    await page.screenshot(path=tmp_path / "table-max0.png")
    assert errors == []


@pytest.mark.parametrize("dark", [False, True])
async def test_the_replay_jumps_and_shows_whose_cards(mini, browser, tmp_path, dark) -> None:
    """The replay has a slider over every step and a jump to each round; a showdown's step
    shows each card with its owner."""
    api, players, runner, client = mini
    await start_game(api, players, GROUP)
    while not api.find_messages(GROUP, "is over!"):
        assert await play_turn(api, players, GROUP)
    await api.settle()
    game, log = await service_of(runner).replay(1, GROUP)
    rounds = [e["round"] for events in log for e in events if e["type"] == "round_dealt"]
    assert len(rounds) >= 3
    page, errors = await open_page(browser, mini, players[1], "r1",
                                   **({"theme": TELEGRAM_DARK, "dark": True} if dark else {}))
    await page.wait_for_selector(".replay .rstep p.current")
    slider = page.locator("[data-testid=slider]")
    total = int(await slider.get_attribute("max")) + 1
    assert await page.locator(".counter").inner_text() == f"Step 1 of {total} · Round 1"
    options = await page.locator("[data-testid=jump] option:not([disabled])").all_inner_texts()
    assert options == [f"Round {n}" for n in rounds]
    await page.locator("[data-testid=jump]").select_option(label="Round 3")
    await page.wait_for_selector(".counter:text-matches('· Round 3$')")
    current = await page.locator(".rstep p.current").all_inner_texts()
    assert "— round 3 —" in current, current
    assert await slider.input_value() != "0"
    # the move that dealt round 3 ended round 2 in a showdown: its cards, each with its
    # owner, under the showdown's line (before the new round's heading)
    cards = page.locator("[data-testid=step-cards] figure")
    await cards.first.wait_for()
    assert (await page.locator(".rstep > p:has(+ [data-testid=step-cards])").inner_text()
            ).strip().startswith("cards ")
    assert await page.locator("[data-testid=step-cards] + p").inner_text() == "— round 3 —"
    showdown = [e for events in log for e in events if e["type"] == "showdown"][1]
    names = {p.seat: p.name for p in game.seated}
    owners = [names[s] for s in showdown["owners"]]
    shown = await page.locator("[data-testid=step-cards] figcaption .name").all_inner_texts()
    assert shown[:len(owners)] == owners and len(shown) == len(showdown["cards"])
    assert await labels_outside_their_cards(page) == []
    await page.screenshot(path=tmp_path / f"replay-showdown{'-dark' if dark else ''}.png")
    await slider.fill(str(total - 1))
    await page.wait_for_selector(f".counter:text-matches('^Step {total} of {total}')")
    assert "— game over —" in await page.locator(".rstep").inner_text()
    await page.screenshot(path=tmp_path / f"replay-end{'-dark' if dark else ''}.png")
    assert errors == []


async def test_coyote_from_the_page_asks_once(mini, browser, tmp_path) -> None:
    """🐺 Coyote! ends the round: the page asks once in place (Back restores the row), as the
    chat's keyboard does."""
    api, players, runner, client = mini
    await start_game(api, players, GROUP)
    first = await mover(api, players)
    page, errors = await open_page(browser, mini, first, "g1")
    await page.locator(".quickbid[data-bid='3']").click()
    await page.locator("[data-testid=submit-bid]").click()
    await wait_for(lambda: bool(api.find_messages(GROUP, " bids 3")))
    caller = await mover(api, players)
    page, errors = await open_page(browser, mini, caller, "g1")
    await page.locator("button >> text=🐺 Coyote!").click()
    await page.wait_for_selector("[data-testid=confirm]")
    await page.locator("button >> text=↩️ Back").click()
    await page.wait_for_selector("[data-testid=confirm]", state="detached")
    await page.locator("button >> text=🐺 Coyote!").click()
    await api.settle(quiet=0.1)
    assert not api.find_messages(GROUP, "calls Coyote!")  # (asked, not called)
    await page.locator("[data-testid=confirm]").click()
    await wait_for(lambda: bool(api.find_messages(GROUP, "calls Coyote!")))
    await page.screenshot(path=tmp_path / "table-after-call.png")
    assert errors == []
