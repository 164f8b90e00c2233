"""The Mini App for players whose seat is no longer in play (the real bot against the fake
Bot API, PostgreSQL; games seeded, played through the league service, the page's API as
Telegram's client calls it): a Coyote player knocked out, removed for timeouts or gone with
/leave; a Koira player out of cards or removed; and, beside them, a member of the group
who is not in the game and a player of another group.

In the chat such a player pressing 🎴 reads why nothing is theirs any more
(``handlers/buttons.py:_peek``: "You are out of this game: follow the rest on the table.",
Koira's "You are out of cards: you are safe (place n)."). The page must say as much, and a
move sent from such a seat (a forged request: the page offers no control) gets that refusal,
not the engine's "It is not your turn." or "You are not playing in this game.", and changes
nothing.

Checked and holding (asserted below beside the findings): no out seat, spectator or other
group's player gets a card the public table hides (Coyote: every card in play; Koira: the
hands and the stock) nor a control; every forged move is a 4xx that changes nothing; the
end screen marks the out player's own place; the pages of out seats hold no English in
ko/ja/es and nothing overflows a 360-px-wide phone there (probed, not repeated here)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from engine import GAMES, Action
from league.store.snapshots import GameSnapshot, UserRef
from telegram_app.games.registry import UIS
from telegram_app.miniapp.text import language, plain
from telegram_app.render.common import error_text
from tests.clock import Clock
from tests.miniapp.koira import KOIRA, koira_game, leaked, other_hands, service_of, unseen
from tests.miniapp.miniapp_trust_helpers import computer_move, coyote_game
from tests.miniapp.server import init_data
from tests.miniapp.test_miniapp_trust_screens import mini_at

GROUP = -100591
KOIRA_GROUP = -100592
OTHER_GROUP = -100593
LANGUAGES = ["en", "ko", "ja", "es"]


def out_of_game(lang: str) -> str:
    """The chat's answer to 🎴 from a seat out of the game, in ``lang``."""
    with language(lang):
        return error_text("out_of_game")


def safe_text(game: GameSnapshot, seat: int, lang: str) -> str:
    """Koira's answer to 🎴 from a seat out of cards ("… safe (place n)."), in ``lang``."""
    with language(lang):
        return plain(UIS["koira"].out_text(game, seat) or "")


def shown_cards(page: dict) -> list[tuple[str, str]]:
    """``(seat name, label)`` of every card face up on a Coyote page."""
    return [(seat["name"], card["label"]) for seat in page["seats"]
            for card in seat["cards"] if not card.get("hidden")]


async def knocked_out(runner, game_id: int) -> tuple[GameSnapshot, int]:
    """Play on (as computer players would) until a human has no life left while the game
    goes on; ``(game, that user)``."""
    service = service_of(runner)
    for step in range(2000):
        game = await service.get(game_id)
        assert game.status == "running", "the game ended before anyone was knocked out"
        if 0 in game.state["lives"]:
            return game, game.at_seat(game.state["lives"].index(0)).user_id
        await computer_move(runner, game_id, step)
    raise AssertionError("nobody was knocked out")


async def out_of_cards(runner, game_id: int) -> tuple[GameSnapshot, int]:
    """Play on until a human is out of cards (safe) while the game goes on."""
    service = service_of(runner)
    for step in range(2000):
        game = await service.get(game_id)
        assert game.status == "running", "the game ended before a human went out"
        humans = [s for s in game.state["out"] if not game.at_seat(s).is_ai]
        if humans:
            return game, game.at_seat(humans[0]).user_id
        await computer_move(runner, game_id, step)
    raise AssertionError("nobody went out")


async def forged_moves(client, game: GameSnapshot, user_id: int, actions: list[dict],
                       headers: dict[str, str] | None = None) -> list[tuple[int, dict]]:
    """Each move posted as ``user_id`` at the game's current version: ``(status, body)``."""
    answers = []
    for action in actions:
        response = await client.post(f"game/{game.id}/move", user_id,
                                     {"version": game.version, "action": action},
                                     headers=headers)
        answers.append((response.status_code, response.json()))
    return answers


# --- what an out seat reads ---------------------------------------------------------------

@pytest.mark.parametrize("how", ["knocked_out", "left"])
@pytest.mark.parametrize("lang", LANGUAGES)
async def test_a_coyote_player_out_of_the_game_reads_that_they_are_out(mini, how,
                                                                        lang) -> None:
    """A Coyote player knocked out (no life left) or gone with /leave while the others play
    on opens the table: it shows no card (theirs is gone, the others' are hidden to them as
    to any member of the chat), offers no control, and says what the chat's 🎴 says: "You
    are out of this game: follow the rest on the table." (in their language). Before the fix
    the page said only "Waiting for Bob." under their dimmed seat, as if they were waiting
    for their own turn (the "out" word of the page's strings was never shown)."""
    api, players, runner, client = mini
    game = await coyote_game(runner, group=GROUP, seed=5)
    if how == "knocked_out":
        game, user_id = await knocked_out(runner, game.id)
    else:
        user_id = 3
        await service_of(runner).act(game.id, user_id, game.version, Action("resign"))
        game = await service_of(runner).get(game.id)
    assert game.status == "running"
    page = (await client.get(f"game/{game.id}", user_id, language=lang)).json()
    assert shown_cards(page) == [] and page["controls"] == [] and not page["your_turn"]
    mine = next(seat for seat in page["seats"] if seat["you"])
    assert mine["out"] and mine["seat"] == game.player(user_id).seat
    assert page["prompt"] == out_of_game(lang), page["prompt"]


@pytest.mark.parametrize("lang", LANGUAGES)
async def test_a_koira_player_out_of_cards_reads_they_are_safe_and_their_place(
        mini, lang) -> None:
    """A Koira player who played their last card while the others play on opens the table:
    their empty hand, the others' counts (never their cards, nor the stock's), no control,
    and the chat's answer to their 🎴: "You are out of cards: you are safe (place 1)."
    Before the fix the page said "Waiting for Bob." with a "(safe)" badge on an empty hand,
    and never their place until the end."""
    api, players, runner, client = mini
    api.add_group(KOIRA_GROUP, "Mini league", admins=[1])
    # (a deal in which a card of an unbreakable tie's shuffled share, seen on the table, is
    # in another hand when Ann goes out: the page may name it, as the moves do)
    game = await koira_game(runner, KOIRA_GROUP, seed=1)
    game, user_id = await out_of_cards(runner, game.id)
    assert other_hands(game, user_id) & set(game.state["shuffled"])
    seat = game.player(user_id).seat
    response = await client.get(f"game/{game.id}", user_id, language=lang)
    page = response.json()
    assert leaked(response.text, unseen(game, user_id)) == set()
    assert page["koira"]["hand"] == [] and page["controls"] == [] and not page["your_turn"]
    assert page["prompt"] == safe_text(game, seat, lang), page["prompt"]


async def test_a_removed_koira_player_reads_that_they_are_out(mini) -> None:
    """A Koira player gone with /leave reads "You are out of this game: follow the rest on
    the table." (not "safe": they took the koira's place). Before the fix: "Waiting for …"."""
    api, players, runner, client = mini
    api.add_group(KOIRA_GROUP, "Mini league", admins=[1])
    game = await koira_game(runner, KOIRA_GROUP)
    await service_of(runner).act(game.id, 3, game.version, Action("resign"))
    assert (await service_of(runner).get(game.id)).status == "running"
    page = (await client.get(f"game/{game.id}", 3)).json()
    assert page["prompt"] == out_of_game("en"), page["prompt"]


# --- what a forged move from an out seat gets ---------------------------------------------

async def test_a_forged_move_from_an_out_seat_is_refused_as_out(mini) -> None:
    """Moves posted by hand from a seat out of the game (the page offers none): a knocked-out
    Coyote player's bid, Coyote! and leave; a Koira player's card, pick-up and leave once
    out of cards. Each is refused with 403 and the chat's words for it, and changes nothing.
    Before the fix the Coyote player read "It is not your turn." (400: the engine checks the
    turn first) as if a turn were still to come, and the Koira player "You are not playing
    in this game." about the game they had just played out."""
    api, players, runner, client = mini
    service = service_of(runner)
    coyote = await coyote_game(runner, group=GROUP, seed=5)
    coyote, out_user = await knocked_out(runner, coyote.id)
    answers = await forged_moves(client, coyote, out_user, [
        {"kind": "bid", "amount": 99}, {"kind": "call"}, {"kind": "resign"}])
    assert (await service.get(coyote.id)).version == coyote.version
    assert [(status, body["error"], body["message"]) for status, body in answers] == \
        [(403, "out_of_game", out_of_game("en"))] * 3, answers
    api.add_group(KOIRA_GROUP, "Mini league", admins=[1])
    koira = await koira_game(runner, KOIRA_GROUP)
    koira, safe_user = await out_of_cards(runner, koira.id)
    seat = koira.player(safe_user).seat
    answers = await forged_moves(client, koira, safe_user, [
        {"kind": "play", "cards": koira.state["hands"][KOIRA.current_seat(koira.state)][:1]},
        {"kind": "pickup"}, {"kind": "stock"}, {"kind": "resign"}])
    assert (await service.get(koira.id)).version == koira.version
    assert [(status, body["error"], body["message"]) for status, body in answers] == \
        [(403, "out_of_game", safe_text(koira, seat, "en"))] * 4, answers


# --- removed for timeouts -----------------------------------------------------------------

async def test_a_player_removed_for_timeouts_reads_that_they_are_out(pg_db, pg_url) -> None:
    """The group's timeout policy is "remove": the player on turn lets the clock run out
    and is removed while the others play on (Coyote and Koira). Their table shows no card
    in play and no control, and says "You are out of this game: follow the rest on the
    table."; a move they post is refused so and changes nothing. Before the fix: "Waiting
    for …" and, for a move, "You are not playing in this game." (403 ``not_a_player``)."""
    clock = Clock(datetime(2026, 5, 4, 20, 0, tzinfo=UTC))
    async with mini_at(pg_url, clock, GROUP) as (api, players, runner, client):
        service = service_of(runner)
        api.add_group(KOIRA_GROUP, "Mini league", admins=[1])
        for group in (GROUP, KOIRA_GROUP):
            await service.set_chat_setting(group, "Mini league", "timeout_policy", "remove")
        for game in (await coyote_game(runner, group=GROUP, seed=5),
                     await koira_game(runner, KOIRA_GROUP)):
            user_id = game.at_seat(GAMES[game.kind].current_seat(game.state)).user_id
            for _hour in range(10):
                clock.advance(3600)
                await service.sweep()
                game = await service.get(game.id)
                if not game.player(user_id).playing:
                    break
            assert not game.player(user_id).playing and game.status == "running", game.kind
            when = clock.now.timestamp()
            response = await client.get(f"game/{game.id}", user_id, auth_date=when)
            page = response.json()
            if game.kind == "coyote":
                assert shown_cards(page) == []
            else:
                assert page["koira"]["hand"] == []
                assert leaked(response.text, unseen(game, user_id)) == set()
            assert page["controls"] == [] and not page["your_turn"]
            assert page["prompt"] == out_of_game("en"), (game.kind, page["prompt"])
            headers = {"Authorization": "tma " + init_data(api.token, user_id, "X",
                                                           auth_date=when)}
            answers = await forged_moves(client, game, user_id, [{"kind": "resign"}],
                                         headers=headers)
            assert answers == [(403, {"error": "out_of_game",
                                      "message": out_of_game("en")})], answers
            assert (await service.get(game.id)).version == game.version


# --- checked and holding: those who never had a seat, and the end -------------------------

async def test_a_spectator_and_another_groups_player_get_no_card_and_no_move(mini) -> None:
    """Dee sat in an earlier lobby of the group (so its pages are hers) but not in this
    game; Eve plays only in another group. Dee gets the public table (every card face down,
    no control; a forged bid: 403 "You are not playing in this game."); Eve gets 403 for
    the table and the move; neither changes the game."""
    api, players, runner, client = mini
    service = service_of(runner)
    game = await coyote_game(runner, group=GROUP, seed=5)
    lobby = await service.open_lobby(GROUP, "Mini league", 5, UserRef(4, "Dee"),
                                     kind="coyote")
    await service.cancel(lobby.id, 4, is_admin=False)
    await service.open_lobby(OTHER_GROUP, "Other league", 0, UserRef(5, "Eve"),
                             kind="coyote")
    page = (await client.get(f"game/{game.id}", 4)).json()
    assert page["you"] is None and shown_cards(page) == [] and page["controls"] == []
    assert (await client.get(f"game/{game.id}/moves", 4)).json()["controls"] == []
    assert await forged_moves(client, game, 4, [{"kind": "bid", "amount": 1}]) == [
        (403, {"error": "not_a_player", "message": error_text("not_a_player")})]
    assert (await client.get(f"game/{game.id}", 5)).status_code == 403
    answers = await forged_moves(client, game, 5, [{"kind": "bid", "amount": 1}])
    assert [(status, body["error"]) for status, body in answers] == \
        [(403, "game_members_only")]
    assert (await service.get(game.id)).version == game.version


async def test_the_end_screen_marks_the_knocked_out_players_place(mini) -> None:
    """Once the game is over, the knocked-out player's page gives the places as the group's
    final message does, their own line marked, their seat's place beside it; the "out"
    line is gone (the game is over for everyone)."""
    api, players, runner, client = mini
    game = await coyote_game(runner, group=GROUP, seed=5)
    game, user_id = await knocked_out(runner, game.id)
    step = 0
    while await computer_move(runner, game.id, step):
        step += 1
    game = await service_of(runner).get(game.id)
    page = (await client.get(f"game/{game.id}", user_id)).json()
    mine = next(seat for seat in page["seats"] if seat["you"])
    place = game.player(user_id).placement
    assert mine["place"] == place
    assert [r["you"] for r in page["result"]] == [i + 1 == place
                                                  for i in range(len(page["result"]))]
    assert page["prompt"] == "The game is over."
