"""Bad input pressed: forged callback data, 🎴 and the confirmation, rematch, /settings."""

from __future__ import annotations

import asyncio
import logging

import pytest

from tests.e2e.bad_input_helpers import GROUP, OTHER, _running, service
from tests.e2e.harness import BotRunner, bot_table, mover, open_lobby, wait_for
from tests.e2e.messy_telegram_helpers import failures
from tests.fakebot import FakeBotAPI, FakeUser


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


async def test_a_settings_press_forged_in_a_private_chat_is_answered(pg_db, pg_url,
                                                                     caplog) -> None:
    """A /settings button's data pressed on a message of the private chat (forged: the
    keyboard is a group's) gets the polite "not valid" answer and changes nothing. (Once
    the settings handler checked for a group message before answering, such a press went
    unanswered: the spinner turned until Telegram gave up.)"""
    caplog.set_level(logging.INFO)
    async with bot_table(pg_url, GROUP, "G", ["Ann", "Bob"]) as (api, (ann, _bob), runner):
        before = await service(runner).chat_settings(GROUP)
        await ann.send(ann.id, "/help")
        await wait_for(lambda: bool(api.bot_messages(ann.id)))
        await api.settle()
        private = api.bot_messages(ann.id)[-1]
        answer = await api.wait_answer(await ann.press_raw(ann.id, private.message_id,
                                                           "z:0:0:1"))
        await api.settle()
        assert answer.get("text") and "went wrong" not in answer["text"], answer
        assert await service(runner).chat_settings(GROUP) == before
    assert not failures(caplog)
