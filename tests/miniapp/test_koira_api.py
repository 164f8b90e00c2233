"""The Mini App's Koira table through its API, against the real bot (fake Bot API, PostgreSQL):
a game of Ann, Bob, Cat and a computer player made through the league service. Each player's
JSON names only their own hand; moves from the page (a card, the stock, a pick-up) are the
service's moves, reported to its commit listeners like a button press; stale and racing
moves; forged initData.

What is not asserted: the group's and private messages' texts (tests/e2e/test_koira.py plays
Koira through the chats); only that the bot's delivery of a page move runs to its end."""

from __future__ import annotations

import asyncio
import logging
import random
import time

from engine.koira.cards import sorted_hand
from league.store.snapshots import UserRef
from tests.miniapp.koira import (
    KOIRA,
    drive,
    human_on_turn,
    koira_game,
    leaked,
    other_hands,
    service_of,
)
from tests.miniapp.server import init_data

GROUP = -100666


async def test_each_player_gets_only_their_own_hand(mini) -> None:
    api, players, runner, client = mini
    game = await koira_game(runner, GROUP)
    for user in players:
        response = await client.get(f"game/{game.id}", user.id)
        assert response.status_code == 200
        page = response.json()
        seat = game.player(user.id).seat
        assert page["you"] == seat and page["layout"] == "koira"
        assert [c["code"] for c in page["koira"]["hand"]] == \
            sorted_hand(game.state["hands"][seat])
        assert leaked(response.text, other_hands(game, user.id)) == set()
        assert all(s["cards"] == [] for s in page["seats"])  # no face-up trump yet
        # (the computer player may have led already, from its hand or the stock)
        assert [s["count"] for s in page["seats"]] == [len(h) for h in game.state["hands"]]
        assert page["koira"]["stock"] == len(game.state["stock"]) >= 39
    assert (await client.get(f"game/{game.id}", 99)).status_code == 403  # not of the chat
    # Once they sat in a game of the chat (a lobby in another topic), the public table.
    await service_of(runner).open_lobby(GROUP, "Mini league", 5, UserRef(99, "Dee"),
                                        kind="koira")
    outsider = await client.get(f"game/{game.id}", 99)
    assert outsider.json()["you"] is None and outsider.json()["koira"]["hand"] is None
    assert outsider.json()["controls"] == []
    assert leaked(outsider.text, other_hands(game, None)) == set()


async def test_the_moves_are_the_legal_actions_of_the_player_on_turn(mini) -> None:
    api, players, runner, client = mini
    game = await koira_game(runner, GROUP)
    game = await drive(runner, game.id, lambda g: human_on_turn(g) is not None)
    mover = human_on_turn(game)
    seat = game.player(mover).seat
    moves = (await client.get(f"game/{game.id}/moves", mover)).json()
    ids = [c["id"] for c in moves["controls"]]
    assert ids == ["play", "stock"]
    assert sorted(moves["controls"][0]["plays"]) == sorted(
        [list(a.cards) for a in KOIRA.legal_actions(game.state, seat) if a.kind == "play"])
    for user in players:
        if user.id != mover:
            assert (await client.get(f"game/{game.id}/moves", user.id)).json()["controls"] == []


async def test_a_card_and_the_stock_played_from_the_page(mini) -> None:
    api, players, runner, client = mini
    service = service_of(runner)
    commits = []
    service.on_commit(commits.append)  # beside the presenter: what it is told
    game = await koira_game(runner, GROUP)
    game = await drive(runner, game.id, lambda g: human_on_turn(g) is not None)
    mover = human_on_turn(game)
    seat = game.player(mover).seat
    card = sorted(game.state["hands"][seat])[0]
    before = len(commits)
    response = await client.post(f"game/{game.id}/move", mover, {
        "version": game.version, "action": {"kind": "play", "cards": [card]}})
    assert response.status_code == 200, response.text
    page = response.json()
    assert page["game"]["version"] > game.version
    assert card not in [c["code"] for c in page["koira"]["hand"] or []]
    log = await service.log(game.id)
    played = [e for row in log for e in row.events if e["type"] == "card_played"
              and e["seat"] == seat]
    assert played[-1]["cards"] == [card]
    # the presenter's listener got the move, as after a button press
    assert len(commits) == before + 1 and commits[-1].game.version == page["game"]["version"]
    assert commits[-1].steps[0].seat == seat
    # the stock, when it is a human's turn again
    game = await drive(runner, game.id, lambda g: human_on_turn(g) is not None)
    mover = human_on_turn(game)
    response = await client.post(f"game/{game.id}/move", mover, {
        "version": game.version, "action": {"kind": "stock"}})
    assert response.status_code == 200, response.text
    log = await service.log(game.id)
    assert [e for row in log if row.seq > game.state["step"] for e in row.events
            if e["type"] == "card_played" and e["seat"] == game.player(mover).seat] == [
        {"type": "card_played", "seat": game.player(mover).seat, "phase": 1,
         "cards": played_from_stock(log, game.state["step"]), "from_stock": True}]


def played_from_stock(log, after: int) -> list[str]:
    """The cards the stock played in the log's steps after ``after``."""
    return [c for row in log if row.seq > after for e in row.events
            if e["type"] == "card_played" and e.get("from_stock") for c in e["cards"]][:1]


async def test_a_pick_up_from_the_page(mini) -> None:
    api, players, runner, client = mini
    service = service_of(runner)
    game = await koira_game(runner, GROUP)
    game = await drive(runner, game.id, lambda g: g.state["phase"] == 2 and
                       human_on_turn(g) is not None and bool(g.state["trick"]))
    mover = human_on_turn(game)
    seat = game.player(mover).seat
    moves = (await client.get(f"game/{game.id}/moves", mover)).json()["controls"]
    assert "pickup" in [c["id"] for c in moves]
    bottom = game.state["trick"][0][1]
    response = await client.post(f"game/{game.id}/move", mover, {
        "version": game.version, "action": {"kind": "pickup"}})
    assert response.status_code == 200, response.text
    after = await service.get(game.id)
    assert set(bottom) <= set(after.state["hands"][seat])  # the bottom play (R11)
    picked = [e for row in await service.log(game.id) for e in row.events
              if e["type"] == "picked_up"]
    assert picked[-1] == {"type": "picked_up", "seat": seat, "cards": bottom}


async def test_stale_racing_and_refused_moves(mini) -> None:
    api, players, runner, client = mini
    service = service_of(runner)
    game = await koira_game(runner, GROUP)
    game = await drive(runner, game.id, lambda g: human_on_turn(g) is not None)
    mover = human_on_turn(game)
    seat = game.player(mover).seat
    hand = sorted(game.state["hands"][seat])
    other = next(u.id for u in players if u.id != mover)
    cases = [  # (user, body, status): each changes nothing
        (mover, {"version": game.version, "action": {"kind": "play", "cards": hand[:2]}}, 400),
        (mover, {"version": game.version, "action": {"kind": "pickup"}}, 400),
        (mover, {"version": game.version, "action": {"kind": "play", "cards": ["1X"]}}, 400),
        (mover, {"version": game.version, "action": {"kind": "play", "cards": "7H"}}, 400),
        (other, {"version": game.version, "action": {"kind": "play",
                                                     "cards": [hand[0]]}}, 400),
        (99, {"version": game.version, "action": {"kind": "stock"}}, 403),
    ]
    for user_id, body, status in cases:
        response = await client.post(f"game/{game.id}/move", user_id, body)
        assert response.status_code == status, (body, response.text)
        assert response.json()["message"]
    forged = init_data("1:not-the-token", mover, "X")
    old = init_data(api.token, mover, "X", auth_date=time.time() - 86_401)
    for headers in ({}, {"Authorization": "tma " + forged}, {"Authorization": "tma " + old}):
        for path in (f"game/{game.id}", f"game/{game.id}/moves", f"game/{game.id}/events"):
            response = await client.http.get(client.base + "api/" + path, headers=headers)
            assert response.status_code == 401, (path, response.text)
        response = await client.post(f"game/{game.id}/move", mover, {
            "version": game.version, "action": {"kind": "play", "cards": [hand[0]]}},
            headers=headers)
        assert response.status_code == 401
    assert (await service.get(game.id)).version == game.version  # nothing changed
    # two pages of the same player race with the same version: exactly one move applies
    first, second = await asyncio.gather(*(client.post(f"game/{game.id}/move", mover, {
        "version": game.version, "action": action}) for action in (
            {"kind": "play", "cards": [hand[0]]}, {"kind": "stock"})))
    assert sorted([first.status_code, second.status_code]) == [200, 409]
    stale = first if first.status_code == 409 else second
    assert "moved on" in stale.json()["message"]
    assert stale.json()["table"]["game"]["version"] > game.version
    log = await service.log(game.id)
    mine = [e for row in log for e in row.events
            if e["type"] == "card_played" and e["seat"] == seat
            and row.seq > game.state["step"]]
    assert len(mine) == 1


async def test_the_chats_are_told_of_a_page_move(mini, caplog) -> None:
    api, players, runner, client = mini
    caplog.set_level(logging.WARNING)
    game = await koira_game(runner, GROUP)
    game = await drive(runner, game.id, lambda g: human_on_turn(g) is not None)
    mover = human_on_turn(game)
    card = sorted(game.state["hands"][game.player(mover).seat])[0]
    response = await client.post(f"game/{game.id}/move", mover, {
        "version": game.version, "action": {"kind": "play", "cards": [card]}})
    version = response.json()["game"]["version"]
    await api.settle()
    # game-neutral: the delivery of the move ran to its end without an error
    assert (await service_of(runner).get(game.id)).told_version == version
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


async def test_a_whole_game_played_from_the_page_alone(mini) -> None:
    """Every human move through the page's API, one of the controls it drew (the one the
    computer player would choose: simpler rules can go round in circles): the game ends, and
    every page shows the places and the koira."""
    api, players, runner, client = mini
    game = await koira_game(runner, GROUP)
    moves = 0
    while True:
        page = None
        for user in players:
            page = (await client.get(f"game/{game.id}", user.id)).json()
            if page["controls"]:
                break
        if page["over"]:
            break
        assert page["controls"], "nobody can move in a running game"
        # the move the computer player would make, which must be one the page drew
        state = (await service_of(runner).get(game.id)).state
        chosen = KOIRA.ai_action(KOIRA.view(state, page["you"]), random.Random(moves))
        drawn = [{**c["action"], c["field"]: play} for c in page["controls"]
                 if c["type"] == "cards" for play in c["plays"]]
        drawn += [o["action"] for c in page["controls"] if c["type"] == "buttons"
                  for o in c["options"]]
        action = chosen.to_json()
        assert action in drawn, (action, drawn)
        response = await client.post(f"game/{game.id}/move", user.id,
                                     {"version": page["game"]["version"], "action": action})
        assert response.status_code == 200, response.text
        moves += 1
        assert moves < 2000
    finished = await service_of(runner).get(game.id)
    assert finished.status == "finished"
    for user in players:
        end = (await client.get(f"game/{game.id}", user.id)).json()
        assert end["over"] and end["controls"] == [] and end["game"]["deadline"] is None
        assert sorted(s["place"] for s in end["seats"]) == [1, 2, 3, 4]
        assert "koira" in end["prompt"]
