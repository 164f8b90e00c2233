"""Can anyone make the Mini App reveal a hidden card or crash, or get in without genuine
initData? (The real bot against the fake Bot API, PostgreSQL; games seeded, played through
the league service.)

- an id of thousands of digits in any path (``/game/…``, ``/replay/…``, ``/profile/…``) is
  a 4xx, with or without initData, never a 500;
- a player of one group sees nothing of another group's games or league; no query string
  gets another seat's view; the replay of a running Coyote game shows cards only where a
  showdown showed them, the same for everyone; odd paths, query strings and move bodies are
  4xx; the tournament pages and a move want genuine, fresh initData too."""

from __future__ import annotations

import pytest

from engine import GAMES
from league.store.snapshots import UserRef
from tests.miniapp.koira import service_of
from tests.miniapp.miniapp_trust_helpers import (
    GROUP,
    OTHER_GROUP,
    computer_move,
    coyote_game,
)

HUGE = "9" * 5000


async def test_an_id_of_thousands_of_digits_is_4xx(mini) -> None:
    """Every path with an id answers 4xx to an id past Python's 4300-digit limit of
    ``int()`` (``test_api.py`` tries 20 digits), with or without initData. Before the fix the
    routes' own ``{id:int}`` conversion raised before the handler and before initData was
    checked (anyone could send it): a 500 and an ERROR with a traceback in the log."""
    api, players, runner, client = mini
    answers = {}
    for method, path in (("GET", f"game/{HUGE}"), ("GET", f"game/{HUGE}/moves"),
                         ("GET", f"game/{HUGE}/events"), ("POST", f"game/{HUGE}/move"),
                         ("GET", f"replay/{HUGE}"), ("GET", f"profile/{HUGE}")):
        for who, headers in (("nobody", {}), ("Ann", client.auth(1))):
            response = await client.http.request(
                method, client.base + "api/" + path, headers=headers,
                json={"version": 1, "action": {"kind": "call"}} if method == "POST" else None)
            answers[(method, path.replace(HUGE, "9…9"), who)] = response.status_code
    assert {k: s for k, s in answers.items() if not 400 <= s < 500} == {}


async def _status(client, path: str, user_id: int) -> int:
    """The status of a GET (an event stream is not read past its head)."""
    async with client.http.stream("GET", client.base + "api/" + path,
                                  headers=client.auth(user_id)) as response:
        return response.status_code


async def test_a_player_of_another_group_sees_nothing_of_this_ones(mini) -> None:
    api, players, runner, client = mini
    game = await coyote_game(runner)
    service = service_of(runner)
    dee = await service.open_lobby(OTHER_GROUP, "Other league", 0, UserRef(4, "Dee"),
                                   kind="coyote")
    for path in (f"game/{game.id}", f"game/{game.id}/moves", f"game/{game.id}/events",
                 f"replay/{game.id}", f"chat/{GROUP}", f"chat/{GROUP}/standings",
                 f"chat/{GROUP}/history", f"chat/{GROUP}/tournaments",
                 f"profile/1?chat={GROUP}", f"profile/1?chat={OTHER_GROUP}", "profile/1"):
        assert await _status(client, path, 4) == 403, path
    move = await client.post(f"game/{game.id}/move", 4,
                             {"version": 0, "action": {"kind": "bid", "amount": 1}})
    assert move.status_code == 403 and "table" not in move.json()
    # and the other way round: Ann, of this group, of Dee's
    for path in (f"game/{dee.id}", f"replay/{dee.id}", f"chat/{OTHER_GROUP}/standings",
                 f"profile/4?chat={OTHER_GROUP}", f"profile/4?chat={GROUP}", "profile/4"):
        assert await _status(client, path, 1) == 403, path
    me = (await client.get("me", 4)).json()
    assert me["games"] == [] and [c["id"] for c in me["chats"]] == [OTHER_GROUP]


async def test_no_query_string_gets_another_seats_view(mini) -> None:
    api, players, runner, client = mini
    game = await coyote_game(runner)
    on_turn = game.at_seat(GAMES["coyote"].current_seat(game.state)).user_id
    other = next(u for u in (1, 2, 3) if u != on_turn)
    plain_page = (await client.get(f"game/{game.id}", other)).json()
    assert plain_page["seats"][plain_page["you"]]["cards"][0].get("hidden")
    for query in ("?seat=0", "?seat=1", "?seat=2", f"?user={on_turn}", f"?user_id={on_turn}",
                  "?as=1&you=0", f"?tgWebAppStartParam=g{game.id}&seat=0", "?seat=0&seat=1"):
        assert (await client.get(f"game/{game.id}{query}", other)).json() == plain_page, query
        moves = (await client.get(f"game/{game.id}/moves{query}", other)).json()
        assert moves["controls"] == [], query


async def test_the_replay_of_a_running_coyote_game_shows_no_card_in_play(mini) -> None:
    """Mid-round (round 3 or later, bids on the table): the replay is the same for each
    player and for a member of the chat, and it shows cards exactly where a showdown
    showed them: none of the round in play."""
    api, players, runner, client = mini
    game = await coyote_game(runner, seed=11)
    service = service_of(runner)
    await service.open_lobby(GROUP, "Mini league", 7, UserRef(4, "Dee"), kind="coyote")
    step = 0
    while True:
        current = await service.get(game.id)
        assert current.status == "running", "the game ended before round 3"
        if current.state["round"] >= 3 and len(current.state["bids"]) >= 2:
            break
        await computer_move(runner, game.id, step)
        step += 1
    log = await service.log(game.id)
    showdowns = sum(e["type"] == "showdown" for row in log for e in row.events)
    assert showdowns >= 2
    replays = [(await client.get(f"replay/{game.id}", user)).json() for user in (1, 2, 3, 4)]
    assert all(r == replays[0] for r in replays[1:])
    replay = replays[0]
    assert sum(c is not None for c in replay["cards"]) == showdowns
    lines: list[str] = []
    for kept, new in zip(replay["kept"], replay["steps"], strict=True):
        lines = lines[:kept] + new
    last_round = max(i for i, line in enumerate(lines) if line.startswith("— round"))
    assert lines[last_round] == f"— round {current.state['round']} —"
    assert not any("→ total" in line for line in lines[last_round:]), lines[last_round:]


@pytest.mark.parametrize("path", [
    f"chat/{GROUP}/standings?period=week&period=season", f"chat/{GROUP}/standings?period=%00",
    f"chat/{GROUP}/standings?game=%00", f"chat/{GROUP}/standings?game=coyote%00",
    f"chat/{GROUP}/standings?game=%3Cscript%3E", f"chat/{GROUP}/standings?game=" + "x" * 6000,
    f"chat/{GROUP}/standings?game=coyote&game=nope", "profile/1?chat=%2B1", "profile/1?chat=1e5",
    "profile/1?chat=--1", "profile/1?chat=-", "profile/1?chat=%EF%BC%91", "profile/1?chat=%00",
    "profile/1?game=koira%00", "profile/2?chat=", "chat/%EF%BC%91/standings", "chat/-0/history",
    "chat/%20-1/history", "chat/0x10/history", "tournament/0", "tournament/-1",
    "tournament/abc", "tournament/99999999999", "tournament/%00", "replay/0", "game/0",
    "game/0/moves", "game/00001", "replay/-1", "profile/-1", "game/1/move", "me/extra",
    "strings?x=" + "%" * 2000, "../../etc/passwd", "static/../../__init__.py",
    f"chat/{GROUP}/standings?" + "&".join(f"k{i}=v" for i in range(1500))])


async def test_odd_paths_and_query_strings_are_never_500(mini, path) -> None:
    api, players, runner, client = mini
    await coyote_game(runner)
    response = await client.http.get(client.base + "api/" + path, headers=client.auth(1))
    assert response.status_code < 500, (path[:80], response.status_code, response.text[:200])
    assert (await client.get("me", 1)).status_code == 200


async def test_odd_move_bodies_are_4xx_and_change_nothing(mini) -> None:
    """(A good move with a byte-order mark, or in UTF-16, is read as the move, as
    ``json.loads`` reads bytes: harmless, not asserted.)"""
    api, players, runner, client = mini
    game = await coyote_game(runner)
    on_turn = game.at_seat(GAMES["coyote"].current_seat(game.state)).user_id
    url = client.base + f"api/game/{game.id}/move"
    headers = client.auth(on_turn)
    good = b'{"version": %d, "action": {"kind": "bid", "amount": 1}}' % game.version
    statuses = {}
    for body, content_type in (
            (b" " * 4000, "application/json"), (b" " * 5000, "application/json"),
            (good + b" " * 5000, "application/json"),
            (b"version=1&action=x", "application/x-www-form-urlencoded"),
            (good.replace(b"1}}", b"1, \"target\": 0}}"), "application/json"),
            (good.replace(b"\"bid\"", b"\"bid\\u0000\""), "application/json"),
            (good.replace(b"1}}", b"1, \"special\": \"shot\", \"target\": 99}}"),
             "application/json"),
            (good.replace(b"1}}", b"1.0}}"), "application/json"),
            (good.replace(b"1}}", b"true}}"), "application/json"),
            (good.replace(b"1}}", b"1, \"amount\": \"x\"}}"), "application/json")):
        response = await client.http.post(url, content=body, headers={
            **headers, "Content-Type": content_type})
        statuses[body[:70]] = response.status_code
    assert {k: s for k, s in statuses.items() if not 400 <= s < 500} == {}
    assert (await service_of(runner).get(game.id)).version == game.version


async def test_the_pages_not_probed_elsewhere_want_genuine_fresh_init_data(mini) -> None:
    """The tournament pages, a POST and a profile with a chat, beside the endpoints
    ``test_api.py`` tries: initData of another bot, a day and a second old, or ten minutes
    ahead (past the five minutes' slack) is 401 there too."""
    import time

    from tests.miniapp.server import init_data

    api, players, runner, client = mini
    game = await coyote_game(runner)
    now = time.time()
    refused = [init_data("1:another-bot", 1, "Ann"),
               init_data(api.token, 1, "Ann", auth_date=now - 86_401),
               init_data(api.token, 1, "Ann", auth_date=now + 600)]
    for data in refused:
        headers = {"Authorization": "tma " + data}
        for path in (f"chat/{GROUP}/tournaments", "tournament/1", f"profile/2?chat={GROUP}",
                     f"replay/{game.id}", f"chat/{GROUP}/standings?game=koira"):
            response = await client.http.get(client.base + "api/" + path, headers=headers)
            assert response.status_code == 401, (path, response.text)
        response = await client.http.post(
            client.base + f"api/game/{game.id}/move", headers=headers,
            json={"version": game.version, "action": {"kind": "bid", "amount": 1}})
        assert response.status_code == 401 and "table" not in response.json()
    fresh = init_data(api.token, 1, "Ann", auth_date=now - 86_000)  # (within the day)
    response = await client.http.get(client.base + f"api/chat/{GROUP}/standings",
                                      headers={"Authorization": "tma " + fresh})
    assert response.status_code == 200
    assert (await service_of(runner).get(game.id)).version == game.version
