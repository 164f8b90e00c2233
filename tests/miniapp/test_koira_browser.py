"""The Koira table in a real browser (headless Chromium, Playwright) against the real bot, on
a game of Ann, Bob, Cat and a computer player made through the league service: the page
shows only the player's own hand (neither the DOM nor the JSON it was sent names another
hand's card), a card played by tapping it and Play, a sequence selected card by card, a
pick-up, the page following a move made elsewhere, a stale page, the public table, a Spanish
client in Telegram's dark theme. Each saves a 390 × 844 screenshot in its tmp_path.

The chats are not checked here (the bot has no Koira messages on this branch; see
test_koira_api.py)."""

from __future__ import annotations

import pytest

from engine import Action
from league.store.snapshots import UserRef
from telegram_app.games.koira.table import label
from tests.miniapp.browser import chromium, phone
from tests.miniapp.koira import (
    KOIRA,
    drive,
    human_on_turn,
    koira_game,
    leaked,
    other_hands,
    service_of,
)
from tests.miniapp.server import page_url
from tests.miniapp.test_browser import TELEGRAM_DARK

GROUP = -100555


@pytest.fixture
async def browser():
    async with chromium() as b:
        yield b


async def open_page(browser, mini, user_id: int, start: str, **kw):
    """A phone page for ``user_id``; records the page's errors and the table JSON it got."""
    api, players, runner, client = mini
    page = await phone(browser, dark=kw.pop("dark", False))
    if kw.pop("no_stream", False):  # the page gets no live update: it goes stale
        await page.route("**/events", lambda route: route.abort())
    errors: list[str] = []
    tables: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)

    async def answered(response) -> None:
        if "/api/game/" in response.url and "/events" not in response.url:
            try:
                tables.append(await response.text())
            except Exception:  # noqa: BLE001 - a redirect or an aborted body has none
                pass

    page.on("response", answered)
    await page.goto(page_url(client.base, api.token, user_id, f"U{user_id}", start, **kw))
    return page, errors, tables


def step_events(log, after: int, kind: str) -> list[dict]:
    return [e for row in log if row.seq > after for e in row.events if e["type"] == kind]


async def test_a_koira_hand_plays_a_card_from_the_page(mini, browser, tmp_path) -> None:
    api, players, runner, client = mini
    service = service_of(runner)
    game = await koira_game(runner, GROUP)
    game = await drive(runner, game.id, lambda g: human_on_turn(g) is not None)
    mover = human_on_turn(game)
    seat = game.player(mover).seat
    page, errors, tables = await open_page(browser, mini, mover, f"g{game.id}")
    await page.wait_for_selector("[data-testid=hand] .hcard")
    hand = game.state["hands"][seat]
    codes = await page.locator(".hand .hcard").evaluate_all(
        "els => els.map(e => e.dataset.card)")
    assert sorted(codes) == sorted(hand)
    # the other hands are in neither the DOM nor any JSON the page got
    secret = other_hands(game, mover)
    assert leaked(await page.content(), secret) == set()
    assert tables and all(leaked(t, secret) == set() for t in tables)
    assert await page.locator(".kseat").count() == 3
    assert await page.locator(".kseat .pcard").count() == 0  # their cards: counts only
    play = page.locator("[data-testid=play]")
    assert await play.is_disabled()
    await page.screenshot(path=tmp_path / "koira-your-turn.png")
    card = hand[0]
    await page.locator(f".hcard[data-card='{card}']").click()
    assert await play.is_enabled()
    await page.screenshot(path=tmp_path / "koira-selected.png")
    await play.click()
    # the game moved: the card is in the trick (or a won pile), the page redrew by itself
    await page.wait_for_selector(f".hcard[data-card='{card}']", state="detached")
    after = await service.get(game.id)
    assert after.version > game.version
    played = step_events(await service.log(game.id), game.state["step"], "card_played")
    assert played[0] == {"type": "card_played", "seat": seat, "phase": 1, "cards": [card],
                         "from_stock": False}
    assert int(await page.locator(".table").get_attribute("data-version")) <= after.version
    await page.screenshot(path=tmp_path / "koira-after-play.png")
    assert errors == []


async def test_a_sequence_and_a_pick_up_from_the_page(mini, browser, tmp_path) -> None:
    api, players, runner, client = mini
    service = service_of(runner)
    game = await koira_game(runner, GROUP)

    def leads_with_a_sequence(g) -> bool:
        if g.state["phase"] != 2 or g.state["trick"] or human_on_turn(g) is None:
            return False
        seat = KOIRA.current_seat(g.state)
        return any(a.kind == "play" and len(a.cards) >= 2
                   for a in KOIRA.legal_actions(g.state, seat))

    game = await drive(runner, game.id, leads_with_a_sequence)
    mover = human_on_turn(game)
    seat = game.player(mover).seat
    sequence = next(list(a.cards) for a in KOIRA.legal_actions(game.state, seat)
                    if a.kind == "play" and len(a.cards) >= 2)
    page, errors, tables = await open_page(browser, mini, mover, f"g{game.id}")
    await page.wait_for_selector("[data-testid=hand] .hcard")
    assert await page.locator(".control.pickup").count() == 0  # a leader cannot pick up
    play = page.locator("[data-testid=play]")
    for i, card in enumerate(sequence):
        await page.locator(f".hcard[data-card='{card}']").click()
        # each card alone, and each run from the lowest, is a play the server listed
        assert await play.is_enabled(), sequence[:i + 1]
    assert await page.locator(".hcard[aria-pressed=true]").count() == len(sequence)
    label = await play.inner_text()
    assert all(c[:-1] in label for c in sequence), label
    await page.screenshot(path=tmp_path / "koira-sequence.png")
    await play.click()
    await page.wait_for_selector(f".hcard[data-card='{sequence[0]}']", state="detached")
    log = await service.log(game.id)
    assert step_events(log, game.state["step"], "card_played")[0]["cards"] == sequence

    # next: a human facing a trick picks up from the page
    def faces_a_trick(g) -> bool:
        return g.state["phase"] == 2 and bool(g.state["trick"]) and human_on_turn(g) is not None

    game = await drive(runner, game.id, faces_a_trick)
    mover = human_on_turn(game)
    seat = game.player(mover).seat
    bottom = game.state["trick"][0][1]
    page, errors2, tables = await open_page(browser, mini, mover, f"g{game.id}")
    button = page.locator(".control.pickup button")
    await button.wait_for()
    await page.screenshot(path=tmp_path / "koira-pickup.png")
    await button.click()
    for card in bottom:
        await page.wait_for_selector(f".hand .hcard[data-card='{card}']")
    picked = step_events(await service.log(game.id), game.state["step"], "picked_up")
    assert picked[0] == {"type": "picked_up", "seat": seat, "cards": bottom}
    assert errors == [] and errors2 == []


async def test_the_page_follows_a_move_made_elsewhere(mini, browser, tmp_path) -> None:
    api, players, runner, client = mini
    service = service_of(runner)
    game = await koira_game(runner, GROUP)
    game = await drive(runner, game.id, lambda g: human_on_turn(g) is not None)
    mover = human_on_turn(game)
    watcher = next(u.id for u in players if u.id != mover)
    page, errors, tables = await open_page(browser, mini, watcher, f"g{game.id}",
                                           theme=TELEGRAM_DARK)
    await page.wait_for_selector(".hand .hcard")
    version = int(await page.locator(".table").get_attribute("data-version"))
    card = sorted(game.state["hands"][game.player(mover).seat])[0]
    # the same service call a button press makes
    await service.act(game.id, mover, game.version, Action("play", cards=(card,)))
    await page.wait_for_selector(f".table:not([data-version='{version}'])", timeout=10_000)
    await page.locator(".recent", has_text=label(card)).wait_for()
    assert leaked(await page.content(), other_hands(await service.get(game.id), watcher)
                  - {card}) == set()
    await page.screenshot(path=tmp_path / "koira-dark-followed.png")
    assert errors == []


async def test_a_stale_koira_page_says_the_game_moved_on(mini, browser, tmp_path) -> None:
    api, players, runner, client = mini
    service = service_of(runner)
    game = await koira_game(runner, GROUP)
    game = await drive(runner, game.id, lambda g: human_on_turn(g) is not None)
    mover = human_on_turn(game)
    seat = game.player(mover).seat
    page, errors, tables = await open_page(browser, mini, mover, f"g{game.id}",
                                           no_stream=True)
    await page.wait_for_selector("[data-testid=hand] .hcard")
    hand = sorted(game.state["hands"][seat])
    # the same player moves from elsewhere (a button, another device): the stock
    await service.act(game.id, mover, game.version, Action("stock"))
    moved = await service.get(game.id)
    await page.locator(f".hcard[data-card='{hand[0]}']").click()
    await page.locator("[data-testid=play]").click()  # drawn before the move
    await page.wait_for_selector(".toast >> text=moved on")
    await page.wait_for_selector(f".table[data-version='{moved.version}']")
    await page.screenshot(path=tmp_path / "koira-stale.png")
    log = await service.log(game.id)
    mine = [e for e in step_events(log, game.state["step"], "card_played") if e["seat"] == seat]
    assert mine[0].get("from_stock") and hand[0] not in mine[0]["cards"]
    assert not any(hand[0] in e["cards"] for e in mine)  # the stale play changed nothing
    assert [e for e in errors if "Failed to load" not in e] == []


async def test_the_public_table_and_a_spanish_player(mini, browser, tmp_path) -> None:
    api, players, runner, client = mini
    game = await koira_game(runner, GROUP)
    # 99 sat in a game of the chat (a lobby in another topic): a member, with no seat here
    await service_of(runner).open_lobby(GROUP, "Mini league", 5, UserRef(99, "Dee"),
                                        kind="koira")
    page, errors, tables = await open_page(browser, mini, 99, f"g{game.id}")
    await page.wait_for_selector(".kseat")
    assert await page.locator(".kseat").count() == 4
    assert await page.locator(".hand, [data-testid=play]").count() == 0
    assert leaked(await page.content(), other_hands(game, None)) == set()
    assert tables and all(leaked(t, other_hands(game, None)) == set() for t in tables)
    await page.screenshot(path=tmp_path / "koira-public.png")
    spanish, errors2, _ = await open_page(browser, mini, 2, f"g{game.id}", language="es",
                                          theme=TELEGRAM_DARK)
    await spanish.wait_for_selector(".hand .hcard")
    assert await spanish.evaluate("document.documentElement.lang") == "es"
    assert "Tu mano" in await spanish.locator(".myhand").inner_text()
    assert "Mont" in await spanish.locator("[data-testid=stock]").inner_text()
    await spanish.screenshot(path=tmp_path / "koira-es-dark.png")
    assert errors == [] and errors2 == []


CONTRAST = """(buttons) => {
  const parse = (c) => {
    let m = c.match(/^rgba?\\(([^)]+)\\)/);
    if (m) return m[1].split(/[\\s,/]+/).filter(Boolean).map(Number).concat([1]).slice(0, 4);
    m = c.match(/^color\\(srgb ([^)]+)\\)/);
    if (m) {
      const [rgb, alpha] = m[1].split("/");
      return rgb.trim().split(/\\s+/).map((x) => Number(x) * 255)
        .concat([alpha === undefined ? 1 : Number(alpha)]);
    }
    throw new Error(`colour ${c}`);
  };
  const lum = ([r, g, b]) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const ratio = (a, b) => {
    const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p);
    return (x + 0.05) / (y + 0.05);
  };
  return buttons.map((button) => {
    let backdrop = null;
    for (let e = button.parentElement; e && !backdrop; e = e.parentElement) {
      const c = parse(getComputedStyle(e).backgroundColor);
      if (c[3] > 0) backdrop = c;
    }
    let opacity = 1;
    let filters = "";
    for (let e = button; e; e = e.parentElement) {
      const style = getComputedStyle(e);
      opacity *= Number(style.opacity);
      if (style.filter !== "none") filters += style.filter;
    }
    // what the eye gets: the button's pixels blended into what lies behind it
    const seen = (c) => c.slice(0, 3).map((v, i) => opacity * v + (1 - opacity) * backdrop[i]);
    const svg = button.querySelector("svg");
    const face = seen(parse(getComputedStyle(svg.querySelector(".card-face")).fill));
    const ink = seen(parse(getComputedStyle(svg.querySelector(".pc-suit")).fill));
    return { card: button.dataset.card, red: svg.classList.contains("pc-red"),
             ratio: ratio(face, ink), face, filters };
  });
}"""


async def test_cards_you_cannot_play_stay_readable_in_the_dark(mini, browser, tmp_path) -> None:
    """In Telegram's dark theme the hand cards that no legal play uses are told apart from
    the others but stay readable: their suits keep a contrast of 4.5 (black) or 3 (red,
    large symbols) against their face, as drawn over the hand's background."""
    api, players, runner, client = mini
    game = await koira_game(runner, GROUP)

    def some_cannot_be_played(g) -> bool:
        if g.state["phase"] != 2 or not g.state["trick"] or human_on_turn(g) is None:
            return False
        seat = KOIRA.current_seat(g.state)
        playable = {c for a in KOIRA.legal_actions(g.state, seat) if a.kind == "play"
                    for c in a.cards}
        return bool(set(g.state["hands"][seat]) - playable) and bool(playable)

    game = await drive(runner, game.id, some_cannot_be_played)
    mover = human_on_turn(game)
    page, errors, tables = await open_page(browser, mini, mover, f"g{game.id}",
                                           theme=TELEGRAM_DARK, dark=True)
    await page.wait_for_selector("[data-testid=hand] .hcard:disabled")
    await page.locator(".myhand").scroll_into_view_if_needed()
    await page.screenshot(path=tmp_path / "koira-dark-unplayable.png")
    seen = await page.locator("[data-testid=hand] .hcard").evaluate_all(CONTRAST)
    blocked = await page.locator("[data-testid=hand] .hcard:disabled").evaluate_all(
        "els => els.map(e => e.dataset.card)")
    for card in seen:
        assert card["ratio"] >= (3 if card["red"] else 4.5), card
        assert card["filters"] == "", card
    faces = {tuple(round(v) for v in c["face"]) for c in seen if c["card"] in blocked}
    open_faces = {tuple(round(v) for v in c["face"]) for c in seen if c["card"] not in blocked}
    assert faces and open_faces and not faces & open_faces  # told apart
    assert errors == []


async def test_the_koira_end_screen_shows_the_places(mini, browser, tmp_path) -> None:
    """Once over, the page lists the places as the group's "is over!" message does (the
    koira marked 🐕) and tells a player where 🔁 Rematch is."""
    api, players, runner, client = mini
    # (a dealt game the driven policy ends: some deals it plays for ever, picking up)
    service_of(runner).new_seed = lambda: 7
    game = await koira_game(runner, GROUP)
    game = await drive(runner, game.id, lambda g: g.state["over"])
    await api.settle()
    told = [m.text or "" for m in api.find_messages(GROUP, "is over!")]
    assert told, "the group was told the end"
    lines = told[-1].translate(str.maketrans("", "", "\u2068\u2069")).split("\n")
    start = next(i for i, line in enumerate(lines) if "is over!" in line) + 2
    places = lines[start:lines.index("", start)]
    assert any("🐕" in line for line in places), places
    page, errors, tables = await open_page(browser, mini, 2, f"g{game.id}")
    result = page.locator("[data-testid=result] .result li")
    await result.first.wait_for()
    assert await result.all_text_contents() == places
    assert "🔁 Rematch" in await page.locator(".rematch").inner_text()
    await page.locator("[data-testid=result]").scroll_into_view_if_needed()
    await page.screenshot(path=tmp_path / "koira-end.png")
    assert errors == []
