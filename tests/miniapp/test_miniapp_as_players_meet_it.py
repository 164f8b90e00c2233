"""The Mini App as a new player meets it (the real bot against the fake Bot API, PostgreSQL;
one browser test): a player out of the round sees the public table, a cancelled game names
nobody to act, the page speaks the language chosen with /language, no English is left in the
page's scripts, a bad chat id is not called a missing game (each a review's finding, fixed).

Checked and holding (not repeated here beyond the probes below): no card a viewer must not
see in the JSON of a Coyote table (each edition) or a Koira table, nor in the replay of a
running game; forged, expired or tampered initData is 401 everywhere; huge or odd ids are
404, never 500; a Japanese reader of an English group's table reads no English (but
Coyote's "SHOT" and the feathers "MAX→0", "MAX→−", which the catalog keeps)."""

from __future__ import annotations

import random
import re
import time
from urllib.parse import quote

import pytest

from engine import GAMES, Action
from league.store.snapshots import UserRef
from telegram_app.miniapp.initdata import sign
from tests.miniapp.browser import chromium, phone
from tests.miniapp.koira import NAMES, koira_game, leaked, other_hands, service_of, unseen
from tests.miniapp.server import init_data

GROUP = -100545


async def coyote_game(runner, options: dict | None = None, names: dict | None = None):
    """A started Coyote game of Ann, Bob and Cat (ids 1-3; ``names``: others) through the
    league service."""
    names = names or NAMES
    service = service_of(runner)
    lobby = await service.open_lobby(GROUP, "Mini league", 0, UserRef(1, names[1]),
                                     kind="coyote", options=options or {})
    for user_id in (2, 3):
        await service.join(lobby.id, UserRef(user_id, names[user_id]))
    return (await service.start(lobby.id, 1)).game


async def computer_move(runner, game_id: int, seed: int) -> bool:
    """The player on turn makes the move a computer player would; ``False`` once over."""
    service = service_of(runner)
    game = await service.get(game_id)
    if game.status != "running":
        return False
    rules = GAMES[game.kind]
    seat = rules.current_seat(game.state)
    action = rules.ai_action(rules.view(game.state, seat), random.Random(seed))
    await service.act(game_id, game.at_seat(seat).user_id, game.version, action)
    return True


def shown_cards(page: dict) -> list[tuple[str, str]]:
    """``(seat name, label)`` of every card face up on a Coyote page."""
    return [(seat["name"], card["label"]) for seat in page["seats"]
            for card in seat["cards"] if not card.get("hidden")]


# --- a player who is out of the game ----------------------------------------------------------

async def test_a_player_who_left_sees_no_card_of_the_round_played_on(mini) -> None:
    """In the chat, a player who left (or was knocked out) gets no view any more: 🎴 answers
    "You are out of this game: follow the rest on the table" because "the alert would show
    them the cards in play" (handlers/buttons.py:_peek), and their private message closes.
    The Mini App still draws their seat's view: every card of the players still in the
    round, which they could now tell a friend who is still playing (Coyote is a game of not
    seeing your own card). They should get the public table, as a member of the chat does."""
    api, players, runner, client = mini
    game = await coyote_game(runner)
    before = (await client.get(f"game/{game.id}", 3)).json()
    assert shown_cards(before)  # in play, Cat sees Ann's and Bob's cards: right
    service = service_of(runner)
    current = await service.get(game.id)
    await service.act(game.id, 3, current.version, Action("resign"))  # as /leave
    left = await service.get(game.id)
    assert left.status == "running"  # Ann and Bob play on
    assert not GAMES["coyote"].view(left.state, None)["in_play"][left.player(3).seat]
    page = (await client.get(f"game/{game.id}", 3)).json()
    assert shown_cards(page) == [], (
        "Cat left the game and still sees the cards of those playing on", shown_cards(page))
    # (the public table, her own seat still marked as hers)
    assert page["controls"] == [] and not page["your_turn"]
    assert [s["seat"] for s in page["seats"] if s["you"]] == [left.player(3).seat]


async def test_a_koira_player_who_left_sees_only_the_public_table_too(mini) -> None:
    """Koira: a removed player's hand is empty and the others' hands are hidden to everyone,
    so their seat's view is the public table and their own (empty) hand."""
    api, players, runner, client = mini
    game = await koira_game(runner, GROUP)
    service = service_of(runner)
    await service.act(game.id, 3, game.version, Action("resign"))  # as /leave
    left = await service.get(game.id)
    assert left.status == "running"
    text = (await client.get(f"game/{game.id}", 3)).text
    page = (await client.get(f"game/{game.id}", 3)).json()
    assert page["koira"]["hand"] == [] and page["controls"] == []
    assert [s["seat"] for s in page["seats"] if s["you"]] == [left.player(3).seat]
    hidden = other_hands(left, 3) | set(left.state["stock"])
    assert leaked(text, hidden) == set()


# --- language ----------------------------------------------------------------------------------

async def test_the_page_speaks_the_language_chosen_with_slash_language(mini) -> None:
    """/language in the private chat "wins over" the client's language for everything the
    bot writes to a player (handlers/language.py: ``chosen_language or language_code``). The
    Mini App reads only initData's ``language_code``: Ann, who chose Korean with /language
    on an English phone, gets her private messages in Korean and the table in English."""
    api, players, runner, client = mini
    game = await coyote_game(runner)
    await service_of(runner).choose_language(UserRef(1, "Ann"), "ko")
    words = (await client.get("strings", 1)).json()  # (her client says "en")
    page = (await client.get(f"game/{game.id}", 1)).json()
    assert words["lang"] == "ko", words["lang"]
    assert "Game #" not in page["title"], page["title"]


async def test_a_bad_chat_id_is_not_called_a_missing_game(mini) -> None:
    """A chat's page with something that is no chat id (a mangled link) answers "This game
    no longer exists." (``text.id_of`` raises ``game_not_found`` for every id): the reader
    was looking at a league, not a game."""
    api, players, runner, client = mini
    await coyote_game(runner)
    for path in (f"chat/{GROUP}x/standings", "chat/abc", f"profile/1?chat={GROUP}x"):
        response = await client.get(path, 1)
        assert response.status_code == 404, (path, response.text)
        assert "game" not in response.json()["message"].lower(), (path, response.text)


# --- stale pages ---------------------------------------------------------------------------------

async def test_a_cancelled_game_does_not_tell_the_player_it_is_their_turn(mini) -> None:
    """An admin cancels a running game while its players have the table open: the event
    stream redraws it, and the page still says "Your turn: bid 1 or more." with the seat on
    turn highlighted, the round's cards and no word of the cancellation (the table is drawn
    from the last state as if running; only the controls are gone)."""
    api, players, runner, client = mini
    game = await coyote_game(runner)
    service = service_of(runner)
    on_turn = game.at_seat(GAMES["coyote"].current_seat(game.state)).user_id
    assert (await client.get(f"game/{game.id}", on_turn)).json()["prompt"].startswith(
        "Your turn")
    await service.cancel(game.id, 1, is_admin=True)
    page = (await client.get(f"game/{game.id}", on_turn)).json()
    assert page["game"]["status"] == "cancelled" and page["controls"] == []
    assert not page["prompt"].startswith("Your turn"), page["prompt"]
    assert not any(seat["turn"] for seat in page["seats"]), page["seats"]
    assert page["prompt"] == f"Game #{game.id} was cancelled.", page["prompt"]
    koira = await koira_game(runner, GROUP + 1)
    await service.cancel(koira.id, 1, is_admin=True)
    for user in players:
        page = (await client.get(f"game/{koira.id}", user.id)).json()
        assert page["prompt"] == f"Game #{koira.id} was cancelled.", page["prompt"]
        assert not page["your_turn"] and not any(seat["turn"] for seat in page["seats"])


# --- checked and holding -----------------------------------------------------------------------

@pytest.mark.parametrize("edition", [{"edition": "classic", "specials": True},
                                     {"edition": "feathers", "specials": True},
                                     {"edition": "poker-deck"}])
async def test_no_own_card_and_no_english_in_a_japanese_coyote_table(mini, edition) -> None:
    api, players, runner, client = mini
    game = await coyote_game(runner, edition)
    service = service_of(runner)
    english = set()
    for step in range(300):
        current = await service.get(game.id)
        for user in players:
            page = (await client.get(f"game/{game.id}", user.id, language="ja")).json()
            mine = next(s for s in page["seats"] if s["you"])
            if current.status == "running" and not current.state["revealed"][mine["seat"]]:
                assert mine["cards"] == [] or mine["cards"][0].get("hidden"), page
            english |= {text for text in (page["prompt"], *page["notes"], *page["recent"])
                        if re.search(r"\b(?!Ann|Bob|Cat|SHOT|MAX)[A-Za-z]{3,}", text)}
        if not await computer_move(runner, game.id, step):
            break
    assert english == set()


async def test_no_hidden_koira_card_in_a_table_or_the_replay_of_a_running_game(mini) -> None:
    api, players, runner, client = mini
    game = await koira_game(runner, GROUP)
    service = service_of(runner)
    for step in range(400):
        current = await service.get(game.id)
        if current.status != "running":
            break
        for user in players:
            for path in (f"game/{game.id}", f"replay/{game.id}"):
                text = (await client.get(path, user.id)).text
                assert leaked(text, unseen(current, user.id)) == set(), (path, user.id, step)
        await computer_move(runner, game.id, step)


async def test_forged_tampered_and_odd_init_data_are_401_never_500(mini) -> None:
    api, players, runner, client = mini
    await coyote_game(runner)
    now = str(int(time.time()))
    good = init_data(api.token, 1, "Ann")
    tampered = good.replace("%22id%22%3A1%2C", "%22id%22%3A2%2C")
    assert tampered != good
    odd = [tampered, good + "&hash=0", good.replace("hash=", "hash=0"),
           init_data("999:other-bot", 1, "Ann"),
           init_data(api.token, 1, "Ann", auth_date=time.time() + 3600),
           sign({"auth_date": now, "query_id": "x"}, api.token),  # no user
           sign({"auth_date": now, "user": "[1]"}, api.token),
           sign({"auth_date": now, "user": '{"id": "1"}'}, api.token),
           sign({"auth_date": now, "user": '{"id": 1e400}'}, api.token),
           sign({"auth_date": "1e9", "user": '{"id": 1}'}, api.token),
           sign({"auth_date": "9" * 40, "user": '{"id": 1}'}, api.token),
           sign({"auth_date": now, "user": '{"id": 1}'}, api.token)[:-1] + "%",
           "%ff%fe=%00&hash=" + "a" * 64, "x" * 9000]
    for data in odd:
        for path in ("me", "game/1", f"chat/{GROUP}/standings"):
            response = await client.http.get(client.base + "api/" + path,
                                              headers={"Authorization": "tma " + data})
            assert response.status_code == 401, (data[:80], path, response.text)
            assert set(response.json()) == {"error", "reason"}


async def test_odd_names_are_plain_text_in_the_league_pages(mini) -> None:
    api, players, runner, client = mini
    odd = {11: "<b>Ann</b> &amp;", 12: "\u202eBob\u202c", 13: "كات"}
    service = service_of(runner)
    lobby = await service.open_lobby(GROUP, "Mini league", 0, UserRef(11, odd[11]),
                                     kind="coyote")
    for user_id in (12, 13):
        await service.join(lobby.id, UserRef(user_id, odd[user_id]))
    game = (await service.start(lobby.id, 11)).game
    step = 0
    while await computer_move(runner, game.id, step):
        step += 1
    await api.settle()
    expected = {"<b>Ann</b> &amp;", "Bob", "كات"}
    standings = (await client.get(f"chat/{GROUP}/standings", 11)).json()
    history = (await client.get(f"chat/{GROUP}/history", 11)).json()
    table = (await client.get(f"game/{game.id}", 11)).json()
    assert {row["name"] for row in standings["rows"]} == expected, standings
    assert {p["name"] for p in history["games"][0]["places"]} == expected, history
    # (the final message's lines: the name, then the Elo change)
    assert {r["name"].split(" · ")[0] for r in table["result"]} == expected, table["result"]
    assert [r["you"] for r in table["result"]].count(True) == 1


# --- the page in Japanese (one browser test: slow) ---------------------------------------------

async def test_a_japanese_player_reads_no_english_words_on_the_page(mini, tmp_path) -> None:
    """Everything the server sends is translated, but three texts are written in the page's
    JavaScript in English: the standings' column heads "P", "G", "W" (league.js), the turn's
    clock "23h 59m" (table.js:tickClocks, a relaxed game) and, for a link whose initData has
    expired (a table left open for a day, then reloaded), "Open this page from Telegram."
    (app.js:boot, before the words are fetched; the 401 carries no text)."""
    api, players, runner, client = mini
    rated = await coyote_game(runner)
    step = 0
    while await computer_move(runner, rated.id, step):
        step += 1
    await service_of(runner).set_chat_setting(GROUP, "Mini league", "pace", "relaxed")
    game = await coyote_game(runner)
    assert game.options["pace"] == "relaxed"
    english = []
    async with chromium() as browser:
        page = await phone(browser)
        data = init_data(api.token, 1, "Ann", start_param=f"g{game.id}", language="ja")
        await page.goto(f"{client.base}#tgWebAppData={quote(data, safe='')}"
                        f"&tgWebAppStartParam=g{game.id}&tgWebAppVersion=8.0")
        await page.wait_for_selector("p.clock")
        await page.wait_for_function(
            "document.querySelector('p.clock').textContent.length > 2")
        clock = await page.locator("p.clock").inner_text()
        if re.search(r"\d[hm]\b", clock):
            english.append(("clock", clock))
        await page.locator("button.tab[data-view=standings]").click()
        await page.wait_for_selector("table.standings")
        heads = await page.locator("table.standings th").all_inner_texts()
        if {"P", "G", "W"} & set(heads):
            english.append(("standings", heads))
        await page.screenshot(path=tmp_path / "ja-standings.png")
        old = init_data(api.token, 1, "Ann", start_param=f"g{game.id}", language="ja",
                        auth_date=time.time() - 2 * 86400)
        stale = await phone(browser)
        await stale.goto(f"{client.base}#tgWebAppData={quote(old, safe='')}"
                         f"&tgWebAppStartParam=g{game.id}&tgWebAppVersion=8.0")
        await stale.wait_for_selector("p.error")
        said = await stale.locator("p.error").inner_text()
        if re.search(r"\b(?!Telegram)[A-Za-z]{4,}", said):  # (the app's name: as it is)
            english.append(("expired", said))
    assert english == [], english
