"""The Mini App's API against the real bot and the fake Bot API, on PostgreSQL: initData on
every endpoint, what a player and a non-player see, a move from the page told in the chats as
a button press is, stale and racing moves, the league pages' access and figures, the event
stream."""

from __future__ import annotations

import asyncio
import json
import time

import pytest

from tests.e2e.harness import (
    mover,
    open_lobby,
    play_turn,
    private_turn_message,
    start_game,
    wait_for,
)
from tests.miniapp.server import init_data

GROUP = -100888

ENDPOINTS = ["strings", "me", "game/1", "game/1/moves", "game/1/events", f"chat/{GROUP}",
             f"chat/{GROUP}/standings", f"chat/{GROUP}/history", "profile/1", "replay/1"]


async def _started(mini):
    api, players, runner, client = mini
    await start_game(api, players, GROUP)
    first = await mover(api, players)
    return first


async def _version(client, user_id: int) -> int:
    return (await client.get("game/1", user_id)).json()["game"]["version"]


async def test_every_endpoint_wants_genuine_fresh_init_data(mini) -> None:
    api, players, runner, client = mini
    first = await _started(mini)
    before = await _version(client, 1)
    forged = init_data("1:not-the-token", first.id, "Ann")
    old = init_data(api.token, first.id, "Ann", auth_date=time.time() - 86_401)
    refused = [{}, {"Authorization": "tma " + forged}, {"Authorization": "tma " + old},
               {"Authorization": "Bearer " + init_data(api.token, first.id, "Ann")},
               {"Authorization": "tma"}, {"Authorization": "tma x=1"}]
    for path in ENDPOINTS:
        for headers in refused:
            response = await client.http.get(client.base + "api/" + path, headers=headers)
            assert response.status_code == 401, (path, headers, response.text)
    for headers in refused:
        response = await client.post("game/1/move", first.id,
                                     {"version": before, "action": {"kind": "bid",
                                                                    "amount": 1}},
                                     headers=headers)
        assert response.status_code == 401
    assert await _version(client, 1) == before  # nothing changed


async def test_init_data_is_never_logged(mini, caplog) -> None:
    api, players, runner, client = mini
    caplog.set_level("DEBUG")
    data = init_data(api.token, 1, "Ann")
    await client.http.get(client.base + "api/me", headers={"Authorization": "tma " + data})
    await client.http.get(client.base + "api/me",
                          headers={"Authorization": "tma " + data.replace("a", "b")})
    digest = data.rsplit("hash=", 1)[1]
    assert digest not in caplog.text and "query_id" not in caplog.text


async def test_a_player_sees_every_card_but_their_own(mini) -> None:
    api, players, runner, client = mini
    await _started(mini)
    for user in players:
        page = (await client.get("game/1", user.id)).json()
        assert page["you"] == next(s["seat"] for s in page["seats"] if s["you"])
        for seat in page["seats"]:
            first = seat["cards"][0]
            assert first.get("hidden", False) == seat["you"], (user, seat)
    # Someone who never sat in a game of the chat sees nothing (tests/miniapp/test_guard.py).
    assert (await client.get("game/1", 99)).status_code == 403


async def test_legal_moves_only_for_the_player_on_turn(mini) -> None:
    api, players, runner, client = mini
    first = await _started(mini)
    moves = (await client.get("game/1/moves", first.id)).json()
    kinds = [c["id"] for c in moves["controls"]]
    assert kinds[0] == "bid" and moves["controls"][0]["min"] == 1
    for user in players:
        if user is not first:
            assert (await client.get("game/1/moves", user.id)).json()["controls"] == []
    assert (await client.get("game/1/moves", 99)).status_code == 403


async def test_a_move_from_the_page_is_told_like_a_button_press(mini) -> None:
    api, players, runner, client = mini
    first = await _started(mini)
    version = await _version(client, first.id)
    notes = len(api.bot_messages(GROUP))
    response = await client.post("game/1/move", first.id,
                                 {"version": version, "action": {"kind": "bid", "amount": 3}})
    assert response.status_code == 200, response.text
    assert response.json()["game"]["version"] > version
    await wait_for(lambda: any(" bids 3" in (m.text or "")
                               for m in api.bot_messages(GROUP)[notes - 1:]))
    # the next player gets their keyboard in private, as after a button press
    await wait_for(lambda: any(private_turn_message(api, u, version) for u in players))
    # the same version again (a double tap, a stale page): 409, and the table as it is now
    again = await client.post("game/1/move", first.id,
                              {"version": version, "action": {"kind": "bid", "amount": 4}})
    assert again.status_code == 409
    assert "moved on" in again.json()["message"]
    assert again.json()["table"]["game"]["version"] > version


async def test_refused_moves_change_nothing(mini) -> None:
    api, players, runner, client = mini
    first = await _started(mini)
    other = next(u for u in players if u is not first)
    version = await _version(client, first.id)
    cases = [
        (other.id, {"version": version, "action": {"kind": "bid", "amount": 5}}, 400),
        (99, {"version": version, "action": {"kind": "bid", "amount": 5}}, 403),
        (first.id, {"version": version, "action": {"kind": "call"}}, 400),
        (first.id, {"version": version, "action": {"kind": "bid", "amount": "5"}}, 400),
        (first.id, {"version": "x", "action": {"kind": "bid", "amount": 5}}, 400),
        (first.id, {"action": {"kind": "bid"}}, 400),
        (first.id, [], 400),
    ]
    for user_id, body, status in cases:
        response = await client.post("game/1/move", user_id, body)
        assert response.status_code == status, (body, response.text)
        assert response.json()["message"]
    junk = await client.http.post(client.base + "api/game/1/move", content=b"{not json",
                                  headers=client.auth(first.id))
    assert junk.status_code == 400
    huge = await client.http.post(client.base + "api/game/1/move", content=b"[" * 100_000,
                                  headers=client.auth(first.id))
    assert huge.status_code == 413
    assert await _version(client, first.id) == version


async def test_a_page_move_racing_a_button_press_applies_once(mini) -> None:
    api, players, runner, client = mini
    first = await _started(mini)
    message = private_turn_message(api, first)
    version = await _version(client, first.id)
    data = next(d for t, d in api.buttons(message) if t == "2")
    press = first.press(message, data)
    page = client.post("game/1/move", first.id,
                       {"version": version, "action": {"kind": "bid", "amount": 5}})
    _, response = await asyncio.gather(press, page)
    await api.settle()
    log = await runner.app.bot_data["coyote"].service.log(1)
    bids = [e for row in log for e in row.events if e["type"] == "bid_placed"
            and e["seat"] == response.json().get("you", (await client.get(
                "game/1", first.id)).json()["you"])]
    assert len(bids) == 1, bids
    assert response.status_code in (200, 409)
    assert (bids[0]["amount"] == 5) == (response.status_code == 200)


async def test_the_event_stream_tells_a_move_by_button(mini) -> None:
    api, players, runner, client = mini
    first = await _started(mini)
    seen: list[int] = []

    async def listen() -> None:
        async with client.http.stream("GET", client.base + "api/game/1/events",
                                      headers=client.auth(2)) as response:
            assert response.headers["content-type"].startswith("text/event-stream")
            async for line in response.aiter_lines():
                if line.startswith("data: "):
                    seen.append(json.loads(line[6:])["version"])
                    if len(seen) == 2:
                        return

    task = asyncio.create_task(listen())
    await wait_for(lambda: len(seen) == 1)
    message = private_turn_message(api, first)
    await first.press(message, next(d for t, d in api.buttons(message) if t == "1"))
    await asyncio.wait_for(task, 10)
    assert seen[1] > seen[0]


async def test_league_pages_for_the_chats_players_only(mini) -> None:
    api, players, runner, client = mini
    await _started(mini)
    for path in (f"chat/{GROUP}", f"chat/{GROUP}/standings", f"chat/{GROUP}/history",
                 "replay/1", "profile/2"):
        assert (await client.get(path, 99)).status_code == 403, path
    assert (await client.get(f"chat/{GROUP}/standings?period=nope", 1)).status_code == 400
    assert (await client.get("chat/abc/standings", 1)).status_code == 404
    assert (await client.get("profile/99", 1)).status_code == 403
    assert (await client.get(f"profile/99?chat={GROUP}", 1)).status_code == 403
    chat = (await client.get(f"chat/{GROUP}", 1)).json()
    assert chat["title"] == "Mini league"
    week = (await client.get(f"chat/{GROUP}/standings?period=week", 1)).json()
    assert week["rows"] == [] and week["empty"]
    mine = (await client.get("profile/1", 1)).json()
    assert mine["points"] == [] and mine["elo"] == "1500?"
    assert (await client.get(f"profile/2?chat={GROUP}", 1)).status_code == 200
    replay = (await client.get("replay/1", 1)).json()
    assert replay["steps"] and "round 1" in replay["steps"][0][0]


@pytest.mark.parametrize("path", ["nothing", "game/abc", "game/99", "game/99999999999999999999",
                                  "replay/99999999999999999999", "chat/-99999999999999999999",
                                  "profile/1?chat=99999999999999999999x", "game/1/events"])
async def test_unknown_paths_are_404(mini, path: str) -> None:
    api, players, runner, client = mini
    assert (await client.get(path, 1)).status_code == 404


async def test_league_pages_show_the_chat_commands_figures(mini) -> None:
    api, players, runner, client = mini
    await start_game(api, players, GROUP)
    while not api.find_messages(GROUP, "is over!"):
        assert await play_turn(api, players, GROUP)
    await api.settle()
    await players[0].send(GROUP, "/standings")
    await wait_for(lambda: bool(api.find_messages(GROUP, "Standings this week")))
    chat_text = api.find_messages(GROUP, "Standings this week")[-1].text or ""
    week = (await client.get(f"chat/{GROUP}/standings?period=week", 1)).json()
    assert len(week["rows"]) == 3
    for row in week["rows"]:
        line = f"{row['rank']}. {row['name']} · {row['points']} · {row['games']} · " \
               f"{row['wins']} · {row['elo']} ({row['change']})"
        assert line in chat_text.replace("\u2068", "").replace("\u2069", ""), (line, chat_text)
    await players[1].send(GROUP, "/rating")
    await wait_for(lambda: bool(api.find_messages(GROUP, "Rank in this chat")))
    rating = (api.find_messages(GROUP, "Rank in this chat")[-1].text or "").replace(
        "\u2068", "").replace("\u2069", "")
    profile = (await client.get(f"profile/2?chat={GROUP}", 2)).json()
    assert [line.replace("\u2068", "").replace("\u2069", "") for line in profile["lines"]] \
        == rating.split("\n")
    assert len(profile["points"]) == 1 and profile["elo"] in rating
    history = (await client.get(f"chat/{GROUP}/history", 3)).json()
    assert [g["id"] for g in history["games"]] == [1]
    replay = (await client.get("replay/1", 3)).json()
    assert any("game over" in line for step in replay["steps"] for line in step)


async def test_the_lobby_and_the_end_of_a_game(mini) -> None:
    api, players, runner, client = mini
    lobby = await open_lobby(api, players, GROUP)
    page = (await client.get("game/1", 2)).json()
    assert page["game"]["status"] == "lobby" and page["controls"] == []
    assert [s["name"] for s in page["seats"]] == ["Ann", "Bob", "Cat"]
    assert [s["you"] for s in page["seats"]] == [False, True, False]
    await players[0].press_and_settle(lobby, "▶️ Start")
    while not api.find_messages(GROUP, "is over!"):
        assert await play_turn(api, players, GROUP)
    end = (await client.get("game/1", 1)).json()
    assert end["over"] and end["controls"] == [] and end["game"]["deadline"] is None
    assert sorted(s["place"] for s in end["seats"]) == [1, 2, 3]
    assert (await client.post("game/1/move", 1, {"version": end["game"]["version"],
                                                 "action": {"kind": "call"}})).status_code == 409


async def test_the_page_words_and_who_the_user_is(mini) -> None:
    api, players, runner, client = mini
    words = (await client.get("strings", 1)).json()
    assert words["table"] == "Table" and words["lang"] == "en"
    assert "{n}" in words["pile"] and "{time}" in words["turn_ends"]
    await _started(mini)
    me = (await client.get("me", 2, name="Bob")).json()
    assert me["id"] == 2 and me["games"] == [{"id": 1, "chat_id": GROUP, "status": "running"}]
    assert me["chats"] == [{"id": GROUP, "title": "Mini league"}]


async def _quick_move(client, players, game_id: int = 1) -> bool:
    """The player on turn calls Coyote when they may, else bids the least, but Ann (id 1)
    bids far too high: once she starts a round she loses it and starts the next, so her
    three lives go in three rounds of two moves each. ``False`` once the game is over."""
    for user in players:
        page = (await client.get(f"game/{game_id}", user.id)).json()
        if page["over"]:
            return False
        controls = {c["id"]: c for c in page["controls"]}
        if not controls:
            continue
        action = controls["call"]["options"][0]["action"] if "call" in controls \
            else {"kind": "bid", "amount": 1000 if user.id == 1 else controls["bid"]["min"]}
        response = await client.post(f"game/{game_id}/move", user.id,
                                     {"version": page["game"]["version"], "action": action})
        assert response.status_code == 200, response.text
        return True
    raise AssertionError("nobody may move in a running game")


async def test_the_event_log_says_out_only_for_the_showdown_that_put_them_out(mini) -> None:
    """Each showdown line of the page's event log says "is out of the game" exactly when
    that showdown took the loser's last life, however the game went on after it."""
    api, players, runner, client = mini
    await start_game(api, players, GROUP)
    service = runner.app.bot_data["coyote"].service
    checked = 0
    while await _quick_move(client, players):
        rows = (await service.log(1))[-6:]
        truth = [any(x["type"] == "player_eliminated" and x["seat"] == e["loser"]
                     for x in row.events)
                 for row in rows for e in row.events
                 if e["type"] == "showdown" and e["loser"] is not None]
        recent = (await client.get("game/1", 1)).json()["recent"]
        shown = [" is out of the game" in line for line in recent if "called Coyote" in line]
        assert shown == truth[len(truth) - len(shown):], (recent, truth)
        checked += sum(truth) < len(truth) and any(shown)
    assert checked  # a window held a showdown someone survived and one that put them out
