"""Bad input (forged buttons, odd typed numbers, commands in the wrong place or for another
bot, forged member updates, Mini App ids past the database's integers) gets a polite answer,
crashes no handler, logs no error and changes nothing. Through the real Application, the
fake Bot API and PostgreSQL."""

from __future__ import annotations

import asyncio
import logging

import pytest

from tests.e2e.harness import (
    BotRunner,
    bot_table,
    mover,
    open_lobby,
    private_turn_message,
    wait_for,
)
from tests.fakebot import FakeBotAPI, FakeUser

GROUP = -100777001
OTHER = -100777002


def failures(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]


def service(runner: BotRunner):
    from telegram_app.services import KEY

    assert runner.app is not None
    return runner.app.bot_data[KEY].service


async def _running(api: FakeBotAPI, players: list[FakeUser], runner: BotRunner, group=GROUP):
    """A started game in ``group``; returns (game snapshot, the mover, their turn message)."""
    lobby = await open_lobby(api, players, group)
    await players[0].press_and_settle(api.get_message(group, lobby.message_id), "▶️ Start")
    turn = await mover(api, players)
    message = private_turn_message(api, turn)
    assert message is not None
    game = await service(runner).open_game(group, 0)
    await api.settle()
    return game, turn, message


# --- forged callback data ------------------------------------------------------------------
@pytest.mark.parametrize("template", [
    "b:{id}:999999999999:1", "c:{id}:999999999999", "cc:{id}:999999999999", "m:{id}:999999999999:1",
    "g:{id}:999999999999", "b:{id}:2147483647:1"])
async def test_forged_moves_with_an_out_of_range_version_are_refused_politely(
        pg_db, pg_url, caplog, template) -> None:
    """A move button forged by the player to act with a version past the database's integer
    column (``b:<game>:999999999999:1``), or of 2**31 - 1: the service refuses it as stale,
    then the double-tap check (``buttons._double_tap`` -> ``moved_by(game, version + 1)``)
    binds that number to ``game_events.version`` (INTEGER) and PostgreSQL raises
    ``integer out of range``: the handler crashes, "Sorry, something went wrong" and an
    ERROR with a traceback. Expected: the stale refusal, nothing logged as a failure."""
    caplog.set_level(logging.INFO)
    async with bot_table(pg_url, GROUP, "G", ["Ann", "Bob", "Cat"]) as (api, players, runner):
        game, turn, message = await _running(api, players, runner)
        answer = await api.wait_answer(await turn.press_raw(
            turn.id, message.message_id, template.format(id=game.id)))
        await api.settle()
        assert answer.get("text") and "went wrong" not in answer["text"], answer
        assert (await service(runner).get(game.id)).version == game.version
    assert not failures(caplog)


GARBAGE = ["b:-1:1:1", "b:0:1:1", "zz:1:1", "b:1", "", ":::", "b:1:1:1:1:1", "p:99999",
           "rm:2147483648", "j:999999999999", "b:1:1:" + "9" * 50, "b:١:1:1", "b:+1:1:1",
           "B:1:1:1", "b :1:1:1", "n:2147483647", "p:1:1", "v:1:99999:99999:1",
           "o:1:99999:0", "z:0:999999999999:0", "u:0:999999999999", "tj:999999999999",
           "ts:2147483648:1", "to:1:1:1:1:1", "tn:0:99999", "ky:1:1:1", "kw:1:999999999999",
           "x:{id}:{v}:99", "q:{id}:{v}:0", "k:{id}:{v}:1", "b:{id}:{v}:1:99999",
           "m:{id}:{v}:1:99999"]


async def test_garbage_callback_data_gets_a_polite_answer_and_changes_nothing(
        pg_db, pg_url, caplog) -> None:
    """Forged data of every shape, pressed on the group's table by the player to act: each
    press is answered (not "something went wrong"), the game does not move, nothing fails."""
    caplog.set_level(logging.INFO)
    async with bot_table(pg_url, GROUP, "G", ["Ann", "Bob", "Cat"]) as (api, players, runner):
        game, turn, _message = await _running(api, players, runner)
        table = [m for m in api.bot_messages(GROUP) if api.buttons(m)][-1]
        bad = {}
        for template in GARBAGE:
            data = template.format(id=game.id, v=game.version)
            answer = await api.wait_answer(await turn.press_raw(GROUP, table.message_id, data))
            if not answer.get("text") or "went wrong" in answer["text"]:
                bad[data] = answer
        await api.settle()
        assert not bad, bad
        assert (await service(runner).get(game.id)).version == game.version
    assert not failures(caplog)


async def test_a_koira_button_pressed_on_a_coyote_game_is_refused(pg_db, pg_url, caplog) -> None:
    caplog.set_level(logging.INFO)
    async with bot_table(pg_url, GROUP, "G", ["Ann", "Bob", "Cat"]) as (api, players, runner):
        game, turn, message = await _running(api, players, runner)
        for data in (f"ky:{game.id}:{game.version}:1", f"kw:{game.id}:{game.version}",
                     f"kh:{game.id}:{game.version}", f"kt:{game.id}:{game.version}:3:0"):
            answer = await api.wait_answer(await turn.press_raw(turn.id, message.message_id,
                                                                data))
            assert answer.get("show_alert") and answer.get("text"), (data, answer)
            assert "went wrong" not in answer["text"], (data, answer)
        await api.settle()
        assert (await service(runner).get(game.id)).version == game.version
    assert not failures(caplog)


async def test_another_groups_game_id_pressed_here_is_refused(pg_db, pg_url, caplog) -> None:
    """Ann plays in two groups; on group G's table she presses a bid of the other group's
    game (at its current version). Expected: refused, the other game unchanged."""
    caplog.set_level(logging.INFO)
    async with bot_table(pg_url, GROUP, "G", ["Ann", "Bob", "Cat"]) as (api, players, runner):
        api.add_group(OTHER, "H", admins=[1])
        game, _turn, _message = await _running(api, players, runner)
        other, turn2, message2 = await _running(api, players, runner, OTHER)
        table = [m for m in api.bot_messages(GROUP) if api.buttons(m)][-1]
        bid = next(d for _, d in api.buttons(message2) if d and d.startswith("b:"))
        answer = await api.wait_answer(await turn2.press_raw(GROUP, table.message_id, bid))
        await api.settle()
        assert answer.get("show_alert") and "went wrong" not in (answer.get("text") or ""), \
            answer
        assert (await service(runner).get(other.id)).version == other.version
        assert (await service(runner).get(game.id)).version == game.version
    assert not failures(caplog)


# --- typed numbers -------------------------------------------------------------------------
@pytest.mark.parametrize("text", ["+5", "５", "٣", "9" * 40, "0", "-3", "1e3", "5.0", "½",
                                  "7\u200b", "１０", "²", "00000000000000000007", "seven"])
async def test_an_odd_typed_number_gets_a_hint_and_bids_nothing(
        pg_db, pg_url, caplog, text) -> None:
    caplog.set_level(logging.INFO)
    async with bot_table(pg_url, GROUP, "G", ["Ann", "Bob", "Cat"]) as (api, players, runner):
        game, turn, _message = await _running(api, players, runner)
        sent = await turn.send(turn.id, text)
        await wait_for(lambda: any(m.reply_to == sent.message_id
                                   for m in api.bot_messages(turn.id)))
        await api.settle()
        answer = next(m for m in api.bot_messages(turn.id) if m.reply_to == sent.message_id)
        assert answer.text and "went wrong" not in answer.text, answer.text
        assert (await service(runner).get(game.id)).version == game.version
        assert not api.find_messages(GROUP, " bids ")
    assert not failures(caplog)


async def test_a_typed_number_with_spaces_around_it_is_the_bid(pg_db, pg_url) -> None:
    async with bot_table(pg_url, GROUP, "G", ["Ann", "Bob", "Cat"]) as (api, players, runner):
        game, turn, _message = await _running(api, players, runner)
        await turn.send(turn.id, "  7 \n")
        await wait_for(lambda: bool(api.find_messages(GROUP, "bids 7")))


async def test_a_typed_number_off_turn_is_told_and_bids_nothing(pg_db, pg_url, caplog) -> None:
    caplog.set_level(logging.INFO)
    async with bot_table(pg_url, GROUP, "G", ["Ann", "Bob", "Cat"]) as (api, players, runner):
        game, turn, _message = await _running(api, players, runner)
        other = next(p for p in players if p is not turn)
        sent = await other.send(other.id, "5")
        await wait_for(lambda: any(m.reply_to == sent.message_id
                                   for m in api.bot_messages(other.id)))
        answer = next(m for m in api.bot_messages(other.id) if m.reply_to == sent.message_id)
        assert "not your turn" in answer.text.lower(), answer.text
        # a reply to the game's own message, off turn
        own = [m for m in api.bot_messages(other.id) if f"#{game.id}" in (m.text or "")][-1]
        msg = api.store_message(api.private_chat(other), from_bot=False, sender_id=other.id,
                                text="5", entities=[], reply_to=own.message_id)
        api.enqueue_update({"message": api.message_dict(msg)})
        await wait_for(lambda: any(m.reply_to == msg.message_id
                                   for m in api.bot_messages(other.id)))
        answer = next(m for m in api.bot_messages(other.id) if m.reply_to == msg.message_id)
        assert answer.text and "went wrong" not in answer.text, answer.text
        await api.settle()
        assert (await service(runner).get(game.id)).version == game.version
    assert not failures(caplog)


# --- commands -----------------------------------------------------------------------------
async def test_commands_for_another_bot_are_left_alone(pg_db, pg_url, caplog) -> None:
    """``/newgame@otherbot`` and ``/cancel@otherbot`` in the group are another bot's:
    no lobby, no cancel; ``/confirm@otherbot off`` in private changes nothing and is no bid."""
    caplog.set_level(logging.INFO)
    async with bot_table(pg_url, GROUP, "G", ["Ann", "Bob", "Cat"]) as (api, players, runner):
        ann = players[0]
        await ann.send(GROUP, "/newgame@otherbot")
        await api.settle()
        assert not api.find_messages(GROUP, "new game #")
        await ann.send(GROUP, f"/newgame@{api.bot_username}")
        await wait_for(lambda: bool(api.find_messages(GROUP, "new game #")))
        await api.settle()
        await ann.send(GROUP, "/cancel@otherbot")
        await api.settle()
        assert (await service(runner).open_game(GROUP, 0)) is not None
        before = len(api.bot_messages(ann.id))
        await ann.send(ann.id, "/confirm@otherbot off")
        await api.settle()
        assert await service(runner).confirms_ending(ann.id)
        assert len(api.bot_messages(ann.id)) == before
    assert not failures(caplog)


@pytest.mark.parametrize("command", ["/newgame", "/cancel", "/leave", "/settings", "/pause",
                                     "/resume", "/tournament", "/notify", "/settings season 9x",
                                     "/settings season 99999999999999999999", "/replay x",
                                     "/replay 99999999999999", "/rules nonsense", "/confirm maybe",
                                     "/start g99999999999", "/start j-1", "/start ٣",
                                     "/history 99999999999999999999", "/rating @nobody"])
async def test_commands_in_the_private_chat_are_answered(pg_db, pg_url, caplog, command) -> None:
    caplog.set_level(logging.INFO)
    async with bot_table(pg_url, GROUP, "G", ["Ann"]) as (api, (ann,), runner):
        await api.settle()
        sent = await ann.send(ann.id, command)
        await api.settle()
        answers = [m for m in api.bot_messages(ann.id) if m.message_id > sent.message_id]
        assert answers and all("went wrong" not in (m.text or "") for m in answers), \
            [m.text for m in answers]
    assert not failures(caplog)


@pytest.mark.parametrize("command", ["/confirm off", "/start g1", "/settings season 0",
                                     "/settings season 99999999999999999999",
                                     "/settings timezone Mars/Olympus", "/settings language xx",
                                     "/replay 99999999999999", "/history -5", "/rules ٣",
                                     "/leave", "/cancel", "/pause", "/resume"])
async def test_commands_in_the_group_are_answered(pg_db, pg_url, caplog, command) -> None:
    caplog.set_level(logging.INFO)
    async with bot_table(pg_url, GROUP, "G", ["Ann", "Bob"]) as (api, (ann, bob), runner):
        await api.settle()
        sent = await bob.send(GROUP, command)  # (not an admin)
        await api.settle()
        answers = [m for m in api.bot_messages(GROUP) if m.message_id > sent.message_id]
        assert answers and all("went wrong" not in (m.text or "") for m in answers), \
            [m.text for m in answers]
        assert await service(runner).confirms_ending(bob.id)
    assert not failures(caplog)


# --- the table, 🎴, the confirmation -------------------------------------------------------
def _table(api: FakeBotAPI, group: int = GROUP):
    return [m for m in api.bot_messages(group)
            if any(t == "🎴 My cards" for t, _ in api.buttons(m))][-1]


async def _opened_with_a_bid(api: FakeBotAPI, players: list[FakeUser], runner: BotRunner):
    lobby = await open_lobby(api, players, GROUP)
    await players[0].press_and_settle(api.get_message(GROUP, lobby.message_id), "▶️ Start")
    first = await mover(api, players)
    game = await service(runner).open_game(GROUP, 0)
    await first.send(first.id, "500")
    await wait_for(lambda: bool(api.find_messages(GROUP, "bids 500")))
    for _ in range(500):
        now = await service(runner).get(game.id)
        if now.version > game.version:
            break
        await asyncio.sleep(0.02)
    await api.settle()


async def test_the_confirmation_asked_by_someone_else_is_refused(pg_db, pg_url, caplog) -> None:
    """``cc`` at the current version pressed by a player whose turn it is not, and by
    someone who does not play: each refused, no keyboard drawn, nothing changes."""
    caplog.set_level(logging.INFO)
    async with bot_table(pg_url, GROUP, "G", ["Ann", "Bob", "Cat", "Eve"]) as (
            api, players, runner):
        await _opened_with_a_bid(api, players[:3], runner)
        game = await service(runner).open_game(GROUP, 0)
        turn = await mover(api, players[:3])
        other = next(p for p in players[:3] if p is not turn)
        eve = players[3]
        own = [m for m in api.bot_messages(other.id) if f"#{game.id}" in (m.text or "")][-1]
        before = api.buttons(api.get_message(other.id, own.message_id))
        answer = await api.wait_answer(await other.press_raw(
            other.id, own.message_id, f"cc:{game.id}:{game.version}"))
        assert answer.get("show_alert") and "turn" in answer["text"].lower(), answer
        table = _table(api)
        answer = await api.wait_answer(await eve.press_raw(
            GROUP, table.message_id, f"cc:{game.id}:{game.version}"))
        assert answer.get("show_alert") and "not playing" in answer["text"].lower(), answer
        answer = await api.wait_answer(await eve.press_raw(
            GROUP, table.message_id, f"c:{game.id}:{game.version}"))
        assert answer.get("show_alert") and "not playing" in answer["text"].lower(), answer
        await api.settle()
        assert api.buttons(api.get_message(other.id, own.message_id)) == before
        assert (await service(runner).get(game.id)).version == game.version
        assert not api.find_messages(GROUP, "calls Coyote!")
    assert not failures(caplog)


async def test_cards_pressed_by_a_non_player_show_nothing(pg_db, pg_url, caplog) -> None:
    """🎴 pressed by a group member who does not play, and by a player of another game:
    an alert, no ephemeral message, no cards."""
    caplog.set_level(logging.INFO)
    async with bot_table(pg_url, GROUP, "G", ["Ann", "Bob", "Cat", "Eve"]) as (
            api, players, runner):
        game, _turn, _message = await _running(api, players[:3], runner)
        eve = players[3]
        answer = await eve.press_and_settle(_table(api), "🎴 My cards")
        assert answer.get("show_alert") and "not playing" in answer["text"].lower(), answer
        assert not api.ephemeral_messages(GROUP, eve.id)
    assert not failures(caplog)


# --- rematch ------------------------------------------------------------------------------
async def test_rematch_of_a_game_not_finished_or_elsewhere_is_refused(
        pg_db, pg_url, caplog) -> None:
    caplog.set_level(logging.INFO)
    async with bot_table(pg_url, GROUP, "G", ["Ann", "Bob", "Cat"]) as (api, players, runner):
        api.add_group(OTHER, "H", admins=[1])
        game, turn, _message = await _running(api, players, runner)
        table = _table(api)
        bad = {}
        for data in (f"rm:{game.id}", f"rm:{game.id}:1", "rm:0", "rm:2147483647"):
            answer = await api.wait_answer(await turn.press_raw(GROUP, table.message_id, data))
            if not answer.get("text") or "went wrong" in answer["text"]:
                bad[data] = answer
        await players[0].send(GROUP, "/cancel")
        await wait_for(lambda: bool(api.find_messages(GROUP, "was cancelled")))
        await api.settle()
        answer = await api.wait_answer(await turn.press_raw(GROUP, table.message_id,
                                                            f"rm:{game.id}"))
        if not answer.get("text") or "went wrong" in answer["text"]:
            bad["cancelled"] = answer
        # another group's message pressed with this group's game
        await players[0].send(OTHER, "/help")
        await wait_for(lambda: bool(api.bot_messages(OTHER)))
        answer = await api.wait_answer(await turn.press_raw(
            OTHER, api.bot_messages(OTHER)[-1].message_id, f"rm:{game.id}"))
        if not answer.get("show_alert"):
            bad["other group"] = answer
        await api.settle()
        assert not bad, bad
        assert (await service(runner).open_game(GROUP, 0)) is None
        assert (await service(runner).open_game(OTHER, 0)) is None
    assert not failures(caplog)


# --- /settings ----------------------------------------------------------------------------
async def test_a_settings_press_by_a_non_admin_changes_nothing(pg_db, pg_url, caplog) -> None:
    caplog.set_level(logging.INFO)
    async with bot_table(pg_url, GROUP, "G", ["Ann", "Bob"]) as (api, (ann, bob), runner):
        await ann.send(GROUP, "/settings")
        await wait_for(lambda: bool(api.find_messages(GROUP, "Defaults for new games")))
        await api.settle()
        message = api.find_messages(GROUP, "Defaults for new games")[-1]
        before = await service(runner).chat_settings(GROUP)
        shown = api.buttons(message)
        for _label, data in shown:
            if data and data.startswith("z:"):
                answer = await api.wait_answer(await bob.press_raw(GROUP, message.message_id,
                                                                   data))
                assert answer.get("text") and "admin" in answer["text"], answer
        await api.settle()
        assert await service(runner).chat_settings(GROUP) == before
        assert api.buttons(api.get_message(GROUP, message.message_id)) == shown
        # an admin's press from another message (the table of no game, a lobby) is refused
        await ann.send(GROUP, "/help")
        await api.settle()
        other = api.bot_messages(GROUP)[-1]
        z = next(d for _, d in shown if d and d.startswith("z:"))
        answer = await api.wait_answer(await ann.press_raw(GROUP, other.message_id, z))
        await api.settle()
        assert answer.get("text"), answer
        assert await service(runner).chat_settings(GROUP) == before
    assert not failures(caplog)


# --- my_chat_member -----------------------------------------------------------------------
async def test_forged_member_updates_say_nothing_and_crash_nothing(pg_db, pg_url, caplog) -> None:
    """my_chat_member updates for a private chat, a channel, a promotion: no welcome."""
    caplog.set_level(logging.INFO)
    async with bot_table(pg_url, GROUP, "G", ["Ann"]) as (api, (ann,), runner):
        await api.settle()
        bot = api.bot_user_dict()
        user = api.user_dict(ann.id)

        def change(chat: dict, old: str, new: str) -> dict:
            return {"my_chat_member": {
                "chat": chat, "from": user, "date": 0,
                "old_chat_member": {"status": old, "user": bot},
                "new_chat_member": {"status": new, "user": bot}}}

        sent = len(api.calls("sendMessage"))
        api.enqueue_update(change({"id": ann.id, "type": "private", "first_name": "Ann"},
                                  "kicked", "member"))
        api.enqueue_update(change({"id": -100999, "type": "channel", "title": "C"},
                                  "left", "administrator"))
        api.enqueue_update(change({"id": GROUP, "type": "group", "title": "G"},
                                  "member", "administrator"))
        await api.settle()
        assert len(api.calls("sendMessage")) == sent
    assert not failures(caplog)


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
