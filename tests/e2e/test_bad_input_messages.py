"""Bad input sent: odd typed numbers, commands in the wrong place, forged member updates."""

from __future__ import annotations

import logging

import pytest

from tests.e2e.bad_input_helpers import GROUP, _running, service
from tests.e2e.harness import bot_table, wait_for
from tests.e2e.messy_telegram_helpers import failures


# --- typed numbers -------------------------------------------------------------------------
# (full-width digits, "５" or "１０" from a Japanese keyboard, are a bid: test_ja_ko_players)
@pytest.mark.parametrize("text", ["+5", "٣", "9" * 40, "0", "-3", "1e3", "5.0", "½",
                                  "7\u200b", "５.０", "²", "00000000000000000007", "seven"])
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
