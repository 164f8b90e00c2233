"""What real groups send that tidy tests do not: numbers too big for the database, forum
topics (where every message is a reply to the topic's first message), anonymous admins, and a
lobby message deleted by an admin. Each case was found by a break-it review."""

from __future__ import annotations

import logging

import pytest

from tests.e2e.harness import bot_table, mover, open_lobby, wait_for
from tests.e2e.messy_telegram_helpers import anonymous, command
from tests.fakebot import FakeBotAPI

GROUP = -100321


def said(api: FakeBotAPI, chat_id: int, text: str) -> list:
    return [m for m in api.bot_messages(chat_id) if text in (m.text or "")]


def failures(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]


async def test_numbers_beyond_the_databases_ids_are_refused_politely(pg_db, pg_url,
                                                                     caplog) -> None:
    caplog.set_level(logging.INFO)
    async with bot_table(pg_url, GROUP, "G", ["Ann", "Bob", "Cat"]) as (api, players, _):
        ann = players[0]
        await ann.send(GROUP, "/newgame")
        await wait_for(lambda: bool(said(api, GROUP, "new game #")))
        lobby = said(api, GROUP, "new game #")[-1]
        for data in ("j:99999999999", "p:2147483648", "b:2147483648:1:5"):
            answer = await api.wait_answer(await ann.press_raw(GROUP, lobby.message_id, data))
            assert answer["show_alert"] and "something went wrong" not in answer["text"]
        await ann.send(GROUP, "/replay 3000000000")  # (as any number no game has)
        await wait_for(lambda: bool(said(api, GROUP, "Game #3000000000 was not played in "
                                                     "this group.")))
        await ann.send(ann.id, "/start g99999999999")
        await api.settle()
        assert len(api.bot_messages(ann.id)) >= 2  # /start was answered
    assert not failures(caplog)


async def test_rating_in_a_forum_topic_is_the_senders(pg_db, pg_url) -> None:
    async with bot_table(pg_url, GROUP, "G", ["Ann", "Bob"]) as (api, (ann, bob), _):
        chat = api.chats[GROUP]
        chat.type, chat.is_forum = "supergroup", True
        root = api.store_message(chat, from_bot=False, sender_id=ann.id, kind="service",
                                 service={"forum_topic_created": {"name": "Coyote",
                                                                  "icon_color": 7322096}})
        api.enqueue_update({"message": command(api, GROUP, bob.id, "/rating",
                                               thread_id=root.message_id,
                                               reply_to=root.message_id)})
        await wait_for(lambda: bool(said(api, GROUP, "Elo")))
        assert "Bob" in said(api, GROUP, "Elo")[-1].text


async def test_anonymous_admin_has_no_rating(pg_db, pg_url) -> None:
    async with bot_table(pg_url, GROUP, "G", ["Ann"]) as (api, _players, _):
        anonymous(api, GROUP, "/rating")
        await wait_for(lambda: bool(said(api, GROUP, "send it as yourself")))
        assert not said(api, GROUP, "Elo")


async def test_a_deleted_lobby_is_posted_again(pg_db, pg_url) -> None:
    async with bot_table(pg_url, GROUP, "G", ["Ann", "Bob", "Cat"]) as (api, players, _):
        ann, bob, _cat = players
        await ann.send(GROUP, "/newgame")
        await wait_for(lambda: bool(said(api, GROUP, "new game #")))
        await api.settle()
        said(api, GROUP, "new game #")[-1].deleted = True  # an admin deleted it
        await bob.send(GROUP, "/newgame")
        await wait_for(lambda: any(not m.deleted for m in said(api, GROUP, "new game #")))
        lobby = next(m for m in said(api, GROUP, "new game #") if not m.deleted)
        answer = await bob.press_and_settle(lobby, "✋ Join")
        assert "joined" in answer["text"].lower()
        assert not said(api, GROUP, "already open")
        await ann.send(GROUP, "/newgame")  # the lobby is there now: point at it
        await wait_for(lambda: bool(said(api, GROUP, "already open")))
        assert len([m for m in said(api, GROUP, "new game #") if not m.deleted]) == 1


async def test_leaving_a_running_game(pg_db, pg_url) -> None:
    async with bot_table(pg_url, GROUP, "G", ["Ann", "Bob", "Cat", "Dan"]) as (api, players, _):
        lobby = await open_lobby(api, players[:3], GROUP)
        await players[0].press_and_settle(lobby, "▶️ Start")
        acting = await mover(api, players[:3])
        leaver = next(u for u in players[:3] if u is not acting)
        await leaver.send(GROUP, "/leave")
        await wait_for(lambda: bool(said(api, GROUP, "leaves the game")))
        assert leaver.first_name in said(api, GROUP, "leaves the game")[-1].text
        assert await mover(api, players[:3]) is acting  # still their turn
        await leaver.send(GROUP, "/leave")
        await players[3].send(GROUP, "/leave")
        await wait_for(lambda: len(said(api, GROUP, "not playing in this game")) == 2)
