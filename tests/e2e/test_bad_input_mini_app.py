"""Bad input to the Mini App: game ids past the database's integers, moves in others' games."""

from __future__ import annotations

import logging

import pytest

from tests.e2e.bad_input_helpers import GROUP, _running, service
from tests.e2e.harness import bot_table
from tests.e2e.messy_telegram_helpers import failures


# --- the Mini App -------------------------------------------------------------------------
@pytest.mark.parametrize("path", ["game/3000000000", "game/3000000000/moves",
                                  "game/3000000000/events", "replay/3000000000",
                                  "game/9223372036854775807", "profile/9223372036854775808"])
async def test_a_mini_app_id_past_the_games_integer_column_is_not_found(
        pg_db, pg_url, caplog, path) -> None:
    """A genuine user asks for a game id that fits 64 bits but not the ``games.id`` column
    (INTEGER): ``text.id_of`` allows ids below 2**63, ``access.may_see_game`` binds it to
    ``games.id`` and PostgreSQL raises ``integer out of range``: a 500 with a traceback.
    Expected: 404 ``game_not_found`` (as ``load_game`` does for ids past 2**31 - 1)."""
    import httpx

    from tests.miniapp.server import init_data, miniapp_server

    caplog.set_level(logging.INFO)
    async with bot_table(pg_url, GROUP, "G", ["Ann", "Bob", "Cat"]) as (api, players, runner):
        await _running(api, players, runner)
        async with miniapp_server(runner.app) as base, httpx.AsyncClient(timeout=30) as http:
            headers = {"Authorization": "tma " + init_data(api.token, 1, "Ann")}
            response = await http.get(base + "api/" + path, headers=headers)
            assert response.status_code in (403, 404), (response.status_code, response.text)
            if path.startswith("game/") and not path.endswith(("moves", "events")):
                response = await http.post(base + "api/" + path + "/move", headers=headers,
                                           json={"version": 1, "action": {"kind": "bid",
                                                                          "amount": 1}})
                assert response.status_code in (403, 404), (response.status_code,
                                                             response.text)
    assert not failures(caplog)


async def test_a_mini_app_move_in_another_users_game_is_refused(pg_db, pg_url, caplog) -> None:
    """Eve (never in this group's games) posts a move to it with her own genuine initData,
    and Ann's initData with Eve's id swapped in: 403 and 401, nothing changes."""
    import json as _json
    from urllib.parse import parse_qsl, urlencode

    import httpx

    from tests.miniapp.server import init_data, miniapp_server

    caplog.set_level(logging.INFO)
    async with bot_table(pg_url, GROUP, "G", ["Ann", "Bob", "Cat", "Eve"]) as (
            api, players, runner):
        game, turn, _message = await _running(api, players[:3], runner)
        async with miniapp_server(runner.app) as base, httpx.AsyncClient(timeout=30) as http:
            body = {"version": game.version, "action": {"kind": "bid", "amount": 1}}
            eve = {"Authorization": "tma " + init_data(api.token, 4, "Eve")}
            response = await http.post(base + f"api/game/{game.id}/move", headers=eve,
                                       json=body)
            assert response.status_code == 403, response.text
            fields = dict(parse_qsl(init_data(api.token, turn.id, turn.first_name)))
            fields["user"] = _json.dumps({"id": 4, "first_name": "Eve"})
            swapped = {"Authorization": "tma " + urlencode(fields)}
            response = await http.post(base + f"api/game/{game.id}/move", headers=swapped,
                                       json=body)
            assert response.status_code == 401, response.text
            for bad in ([], "x", {"version": True, "action": {"kind": "bid", "amount": 1}},
                        {"version": game.version, "action": {"kind": "bid", "amount": 10**30}},
                        {"version": game.version, "action": {"kind": "special",
                                                             "special": "guess",
                                                             "guess": "x"}},
                        {"version": game.version, "action": {"kind": "bid", "amount": -1}},
                        {"version": 2**40, "action": {"kind": "call"}}):
                mine = {"Authorization": "tma " + init_data(api.token, turn.id, "X")}
                response = await http.post(base + f"api/game/{game.id}/move", headers=mine,
                                           json=bad)
                assert 400 <= response.status_code < 500, (bad, response.status_code,
                                                           response.text)
        await api.settle()
        assert (await service(runner).get(game.id)).version == game.version
    assert not failures(caplog)
