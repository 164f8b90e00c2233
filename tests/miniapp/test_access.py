"""Who may read a game's pages in the Mini App (the real bot, the fake Bot API, PostgreSQL):
its players and the members of its chat, known as for the chat's league pages (those who sat
in one of its games: ``league.store.access``); anyone else gets 403 with a text that says so, in
their language, and nothing of the table, not even through a stale move's answer. The league
pages' refusals say what they require."""

from __future__ import annotations

import json

from tests.e2e.harness import open_lobby, start_game, wait_for
from tests.miniapp.server import init_data

GROUP = -100878
OUTSIDER = 99
GAME_REFUSAL = "This game's table is for the players of its group."
LEAGUE_REFUSAL = "This group's league is for those who have played a game in it."


async def _two_games(mini):
    """Game 1 (a lobby Ann, Bob and Cat sat in, cancelled) and game 2 (running: Ann, Bob
    and a computer): Cat is a member of the chat but no player of game 2."""
    api, players, runner, client = mini
    ann, bob, cat = players
    await open_lobby(api, players, GROUP)
    await ann.send(GROUP, "/cancel")
    await wait_for(lambda: bool(api.find_messages(GROUP, "Game #1 was cancelled")))
    await start_game(api, [ann, bob], GROUP, "/newgame", "🤖 Add AI")
    service = runner.app.bot_data["coyote"].service
    assert (await service.get(2)).status == "running"
    return ann, bob, cat


async def _first_event(client, path: str, user_id: int) -> tuple[int, str]:
    async with client.http.stream("GET", client.base + "api/" + path,
                                  headers=client.auth(user_id)) as response:
        if response.status_code != 200:
            return response.status_code, (await response.aread()).decode()
        async for line in response.aiter_lines():
            if line.startswith("data: "):
                return 200, line
    return 200, ""


async def test_a_games_pages_are_for_its_players_and_its_chats_members(mini) -> None:
    api, players, runner, client = mini
    ann, bob, cat = await _two_games(mini)
    for path in ("game/2", "game/2/moves", "game/1"):
        response = await client.get(path, OUTSIDER)
        assert response.status_code == 403, (path, response.text)
        assert response.json() == {"error": "game_members_only", "message": GAME_REFUSAL}
    status, body = await _first_event(client, "game/2/events", OUTSIDER)
    assert status == 403 and json.loads(body)["error"] == "game_members_only"
    # A move with an old version would answer 409 with the table: refused before that.
    move = await client.post("game/2/move", OUTSIDER,
                             {"version": 0, "action": {"kind": "bid", "amount": 1}})
    assert move.status_code == 403 and "table" not in move.json(), move.text
    # The refusal is in the reader's language.
    japanese = await client.http.get(client.base + "api/game/2", headers={
        "Authorization": "tma " + init_data(api.token, OUTSIDER, "X", language="ja")})
    assert japanese.status_code == 403
    assert japanese.json()["message"] == \
        "このゲームのテーブルは、そのグループのプレイヤーだけが見られます。"
    # An unknown game is still 404, for everyone.
    assert (await client.get("game/77", OUTSIDER)).status_code == 404
    assert (await client.get("game/77", ann.id)).status_code == 404

    # Cat sat in the chat's first game: she sees game 2's public table, with no seat.
    page = await client.get("game/2", cat.id)
    assert page.status_code == 200, page.text
    assert page.json()["you"] is None
    assert all(seat["cards"][0].get("hidden") for seat in page.json()["seats"])
    assert (await client.get("game/2/moves", cat.id)).json()["controls"] == []
    status, line = await _first_event(client, "game/2/events", cat.id)
    assert status == 200 and line.startswith("data: ")
    refused = await client.post("game/2/move", cat.id,
                                {"version": page.json()["game"]["version"],
                                 "action": {"kind": "bid", "amount": 1}})
    assert refused.status_code in (400, 403), refused.text  # no seat: no move
    # Its players see their own seat.
    for user in (ann, bob):
        mine = (await client.get("game/2", user.id)).json()
        assert mine["you"] is not None


async def test_league_refusals_say_what_is_required(mini) -> None:
    api, players, runner, client = mini
    ann, bob, cat = await _two_games(mini)
    for path in (f"chat/{GROUP}", f"chat/{GROUP}/standings", f"chat/{GROUP}/history",
                 "replay/1", f"profile/{ann.id}?chat={GROUP}"):
        response = await client.get(path, OUTSIDER)
        assert response.status_code == 403, path
        assert response.json() == {"error": "league_members_only",
                                   "message": LEAGUE_REFUSAL}, path
    for path in (f"profile/{OUTSIDER}", f"profile/{OUTSIDER}?chat={GROUP}"):
        response = await client.get(path, ann.id)
        assert response.status_code == 403
        assert response.json()["error"] == "profile_not_shared"
        assert "Only the host" not in response.json()["message"]
    assert (await client.get(f"chat/{GROUP}/standings", cat.id)).status_code == 200
