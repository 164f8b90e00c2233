"""The end of a game through the real bot and the fake Bot API, on PostgreSQL: the final
message of a rated game gives each player's place and Elo change (``+12``, ``−8`` with a real
minus sign, the rating after it marked "?" while provisional, and what "?" means), and each
player's last private message of the game says where they came and their change instead of
"see the group"; an unrated game (a computer player) says only the places, privately too.
Coyote and Koira."""

from __future__ import annotations

import math
import re

import pytest

from league.store.snapshots import GameSnapshot
from telegram_app.services import KEY
from tests.e2e.harness import bot_table, open_lobby, play_turn, wait_for
from tests.e2e.koira_play import koira_turn_by
from tests.fakebot import FakeBotAPI, FakeUser, parse_html

GROUP = -100912
ORDINALS = {1: "1st", 2: "2nd", 3: "3rd", 4: "4th"}
LINE = re.compile(r"^(🥇|🥈|🥉|\d+\.) (\w+)(?: 🐕)?(?: · ([+−]\d+|±0) \(Elo (\d+)(\??)\))?$")
"""A place line of the final message: medal, name, (Koira) the koira's mark, and for a rated
player the change and the rating after it."""


def plain(text: str | None) -> str:
    """A message as read: no markup, no bidi isolation marks around names."""
    return parse_html(text or "")[0].replace("\u2068", "").replace("\u2069", "")


async def _final(api: FakeBotAPI) -> str:
    await wait_for(lambda: bool(api.find_messages(GROUP, "is over!")), timeout=60)
    await api.settle(quiet=0.1)
    return plain(api.find_messages(GROUP, "is over!")[-1].text)


def _places(final: str, line_re: re.Pattern[str] = LINE
            ) -> dict[str, tuple[int, str | None, int | None, bool]]:
    """``{name: (place, change, rating after, provisional)}`` from the final message (its
    lines read by ``line_re``)."""
    found = {}
    for line in final.splitlines():
        if (m := line_re.match(line)) is None:
            continue
        mark, name, change, rating, mark_q = m.groups()
        place = {"🥇": 1, "🥈": 2, "🥉": 3}.get(mark) or int(mark.rstrip("."))
        found[name] = (place, change, int(rating) if rating else None, mark_q == "?")
    return found


async def _game(runner, game_id: int = 1) -> GameSnapshot:
    return await runner.app.bot_data[KEY].service.get(game_id)


async def _last_private(api: FakeBotAPI, user: FakeUser, expect: str) -> str:
    """``user``'s newest private message of the game, once it says ``expect``."""
    await wait_for(lambda: expect in plain(api.bot_messages(user.id)[-1].text))
    return plain(api.bot_messages(user.id)[-1].text)


async def _lives(api: FakeBotAPI, admin: FakeUser) -> None:
    """The chat's Coyote lives 3 → 2: a quicker game."""
    await admin.send(GROUP, "/settings")
    await wait_for(lambda: bool(api.find_messages(GROUP, "Defaults for new games")))
    await admin.press_and_settle(api.find_messages(GROUP, "Defaults for new games")[-1],
                                 "Coyote · ❤️ Lives: 3", quiet=0.05)


async def _rated_end_is_told(api: FakeBotAPI, runner, players: list[FakeUser],
                             title: str) -> None:
    """The checks of a rated 3-human first game (everyone at 1500, provisional)."""
    final = await _final(api)
    places = _places(final)
    assert set(places) == {p.first_name for p in players}, final
    game = await _game(runner)
    for player in game.seated:  # the league's places and rating events, as stored
        place, change, rating, provisional = places[player.name]
        assert place == player.placement, final
        assert player.elo_change is not None
        assert rating == math.floor(player.elo_change.after + 0.5), final
        shown = rating - 1500  # (everyone's first rated game: from 1500)
        assert change == (f"+{shown}" if shown > 0 else f"−{-shown}" if shown < 0 else "±0")
        assert provisional, final  # one rated game: provisional
    best = min(places.values())
    worst = max(places.values())
    assert best[1].startswith("+") and worst[1].startswith("−"), final
    assert not re.search(r"· -\d", final), final  # a real minus sign, not a hyphen
    assert "(? = provisional: fewer than 10 rated games)" in final
    assert "🔁 Rematch" in [text for text, _ in api.buttons(
        api.find_messages(GROUP, "is over!")[-1])]
    for user in players:
        place, change, _rating, _q = places[user.first_name]
        text = await _last_private(api, user, "is over:")
        assert f"{title} #1 is over: you came {ORDINALS[place]} of 3 (Elo {change})." in \
            text, text
        assert "see the group" not in text


@pytest.fixture
async def trio(pg_db, pg_url):
    async with bot_table(pg_url, GROUP, "The end", ["Ann", "Bob", "Cat"],
                         sweep_interval=0.05) as (api, players, runner):
        yield api, players, runner


async def test_a_rated_coyote_game_ends_with_places_and_elo_changes(trio) -> None:
    """Ann, Bob and Cat play Coyote to the end: the final message gives each one's place,
    signed change and provisional rating; each one's last private message gives their own
    place among 3 and change."""
    api, players, runner = trio
    await _lives(api, players[0])
    lobby = await open_lobby(api, players, GROUP)
    await players[0].press_and_settle(lobby, "▶️ Start")
    for _ in range(400):
        if api.find_messages(GROUP, "is over!"):
            break
        assert await play_turn(api, players, GROUP)
    await _rated_end_is_told(api, runner, players, "🐺 Game")


async def test_an_unrated_games_private_messages_name_only_the_place(trio) -> None:
    """Ann and Bob play Coyote with a computer player: not rated, so the final message
    gives the places alone (the computer has no Elo change), and Ann's and Bob's last
    private messages their place among 3 without Elo."""
    api, players, runner = trio
    ann, bob = players[:2]
    await _lives(api, ann)
    lobby = await open_lobby(api, [ann, bob], GROUP)
    await ann.press_and_settle(api.get_message(GROUP, lobby.message_id), "🤖 Add AI")
    await ann.press_and_settle(api.get_message(GROUP, lobby.message_id), "▶️ Start")
    for _ in range(400):
        if api.find_messages(GROUP, "is over!"):
            break
        assert await play_turn(api, [ann, bob], GROUP)
    final = await _final(api)
    # (the places, below the showdown: a showdown may show Coyote's "?" card)
    places = final.split("is over!")[-1]
    assert "Elo" not in places and "?" not in places and "provisional" not in places, final
    game = await _game(runner)
    assert all(p.elo_change is None for p in game.seated)
    for user in (ann, bob):
        place = game.player(user.id).placement
        text = await _last_private(api, user, "is over:")
        assert f"🐺 Game #1 is over: you came {ORDINALS[place]} of 3." in text, text
        assert "Elo" not in text and "see the group" not in text


async def test_a_rated_koira_game_ends_with_places_and_elo_changes(trio) -> None:
    """Koira likewise: Ann, Bob and Cat play it out; the final message (the koira marked
    🐕) gives each one's place and change, their last private messages theirs."""
    api, players, runner = trio
    lobby = await open_lobby(api, players, GROUP, "/newgame koira")
    await players[0].press_and_settle(api.get_message(GROUP, lobby.message_id), "▶️ Start")
    for _ in range(400):
        if api.find_messages(GROUP, "is over!"):
            break
        await koira_turn_by(api, runner, players, GROUP)
    await _rated_end_is_told(api, runner, players, "🐕 Koira")
