"""Bad input to tournaments, through the real Application and the fake Bot API: each is
answered politely, changes nothing and crashes no handler. A non-admin's
/tournament coyote, /tournament in a private chat, a forged button naming no tournament or
another chat's, a non-admin's admin button, an impossible number of rounds, a stale admin
button (refused, the message redrawn), a join after the cut-off; and the answers that help:
/tournament with none open (an admin gets a button per game), /rules tournament, /help; a join
by a player the bot cannot message, tipped to start a private chat as a lobby's join is. And a
Korean group's tournament, in Korean."""

from __future__ import annotations

import logging

import pytest

from league.service import MatchService
from tests.clock import Clock
from tests.e2e.harness import BotRunner, bot_table, wait_for
from tests.fakebot import FakeBotAPI, StoredMessage

GROUP = -100290229
OTHER = -100290230


def said(api: FakeBotAPI, chat_id: int, text: str) -> list[StoredMessage]:
    return [m for m in api.bot_messages(chat_id) if text in (m.text or "")]


def data_of(api: FakeBotAPI, message: StoredMessage, label: str) -> str:
    found = next((d for t, d in api.buttons(message) if t == label), None)
    assert found is not None, (label, api.buttons(message))
    return found


def failures(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]


async def test_bad_input_is_refused_politely_and_changes_nothing(pg_db, pg_url,
                                                                  caplog) -> None:
    caplog.set_level(logging.INFO)
    clock = Clock()
    service = MatchService(pg_db, clock=clock)
    async with bot_table(pg_url, GROUP, "Cup night", ["Ann", "Bob", "Cat", "Eve"],
                         clock=clock, sweep_interval=0.1) as (api, (ann, bob, cat, eve), _):
        api.add_group(OTHER, "Elsewhere", admins=[2])
        # A non-admin opens nothing; /tournament in private points to a group.
        await bob.send(GROUP, "/tournament coyote")
        await wait_for(lambda: bool(said(api, GROUP, "only the group's admins")))
        await bob.send(bob.id, "/tournament")
        await wait_for(lambda: bool(said(api, bob.id, "send /tournament there")))
        assert await service.tournaments_in(GROUP) == []
        # With none open, an admin is told how and gets a button per game; others only how.
        await bob.send(GROUP, "/tournament")
        await wait_for(lambda: len(said(api, GROUP, "No tournament is on here")) == 1)
        assert api.buttons(said(api, GROUP, "No tournament is on here")[0]) == []
        await ann.send(GROUP, "/tournament")
        await wait_for(lambda: len(said(api, GROUP, "No tournament is on here")) == 2)
        hint = said(api, GROUP, "No tournament is on here")[1]
        assert [t for t, _ in api.buttons(hint)] == ["🏆 Coyote", "🏆 Koira"]
        answer = await bob.press_and_settle(hint, "🏆 Coyote")
        assert answer["show_alert"] and "only the group's admins" in answer["text"]
        assert await service.tournaments_in(GROUP) == []
        await ann.send(GROUP, "/tournament chess")
        await wait_for(lambda: bool(said(api, GROUP, "Open a tournament with /tournament "
                                                     "coyote, /tournament koira.")))
        await ann.press_and_settle(hint, "🏆 Coyote")  # (an admin's tap opens one)
        await wait_for(lambda: bool(said(api, GROUP, "sign-up is open")))
        await api.settle(quiet=0.05)
        assert api.buttons(api.get_message(GROUP, hint.message_id)) == []
        signup = said(api, GROUP, "sign-up is open")[-1]
        cup = await service.tournament(1)
        assert cup.message_id == signup.message_id

        # A forged join naming no tournament, and one from another chat's message.
        query = await bob.press_raw(GROUP, signup.message_id, "tj:999")
        answer = await api.wait_answer(query)
        assert answer["show_alert"] and "does not exist" in answer["text"]
        await bob.send(OTHER, "hello")
        await api.settle(quiet=0.05)
        elsewhere = [m for m in api.messages(OTHER) if m.text == "hello"][0]
        query = await bob.press_raw(OTHER, elsewhere.message_id, f"tj:{cup.id}")
        answer = await api.wait_answer(query)
        assert answer["show_alert"] and "not valid" in answer["text"]
        # A non-admin's admin button, and an impossible number of rounds (forged data).
        answer = await bob.press_and_settle(signup, "🔢 Fewer rounds")
        assert answer["show_alert"] and "opened the tournament" in answer["text"]
        query = await ann.press_raw(GROUP, signup.message_id, f"to:{cup.id}:0:12:{cup.version}")
        answer = await api.wait_answer(query)
        assert answer["show_alert"] and "not available" in answer["text"]
        assert (await service.tournament(cup.id)).rounds == 5
        # A stale admin button: a second tap of an old picture is refused, the message redrawn.
        old = data_of(api, signup, "🔢 Fewer rounds")
        await ann.press_and_settle(signup, "🔢 Fewer rounds")
        query = await ann.press_raw(GROUP, signup.message_id, old)
        answer = await api.wait_answer(query)
        assert answer["show_alert"] and "out of date" in answer["text"]
        await api.settle(quiet=0.05)
        assert (await service.tournament(cup.id)).rounds == 4
        assert "4 rounds" in (api.get_message(GROUP, signup.message_id).text or "")
        # Start with too few players, then with three (a join from a forged old message
        # works: joining carries no version).
        answer = await ann.press_and_settle(signup, "▶️ Start")
        assert answer["show_alert"] and "At least 3 players" in answer["text"]
        for user in (bob, cat):
            await user.press_and_settle(api.get_message(GROUP, signup.message_id), "✋ Join")
        await ann.press_and_settle(api.get_message(GROUP, signup.message_id), "▶️ Start")
        await wait_for(lambda: bool(said(api, GROUP, "tournament #1: round 1 of 4")))
        start_again = await ann.press_raw(GROUP, signup.message_id, f"ts:{cup.id}:{cup.version}")
        answer = await api.wait_answer(start_again)
        assert answer["show_alert"], answer
        # Late joining: open in round 1 (of 4), closed once round 2 has started.
        answer = await eve.press_and_settle(api.get_message(GROUP, signup.message_id), "✋ Join")
        assert "each round you missed counts as a bye" in answer["text"]
        answer = await eve.press_and_settle(api.get_message(GROUP, signup.message_id), "✋ Join")
        assert answer["show_alert"] and "already in this tournament" in answer["text"]
        clock.advance(86400 + 1)
        await wait_for(lambda: bool(said(api, GROUP, "tournament #1: round 2 of 4")))
        await api.settle(quiet=0.05)
        assert api.buttons(api.get_message(GROUP, signup.message_id)) == []
        dan = api.add_user(9, "Dan")
        query = await dan.press_raw(GROUP, signup.message_id, f"tj:{cup.id}")
        answer = await api.wait_answer(query)
        assert answer["show_alert"] and "Too late to join" in answer["text"]
        cup = await service.tournament(cup.id)
        assert cup.entry_of(dan.id) is None and len(cup.entries) == 4
        # Who leaves the group leaves its tournaments: withdrawn, seated in no later round.
        assert (entry := cup.entry_of(eve.id)) is not None and entry.active
        api.user_leaves(eve, GROUP)
        await api.settle(quiet=0.1)
        cup = await service.tournament(cup.id)
        assert (entry := cup.entry_of(eve.id)) is not None and not entry.active
        # /tournament shows where it stands; a non-admin cannot cancel it.
        await cat.send(GROUP, "/tournament")
        await wait_for(lambda: bool(said(api, GROUP, "Standings so far:")))
        status = said(api, GROUP, "Standings so far:")[-1].text or ""
        assert "round 2 of 4" in status and "Table 1:" in status, status
        await cat.send(GROUP, f"/tournament cancel {cup.id}")
        await wait_for(lambda: len(said(api, GROUP, "only the group's admins")) == 2)
        assert (await service.tournament(cup.id)).status == "running"
        await ann.send(GROUP, f"/tournament cancel {cup.id}")
        await wait_for(lambda: bool(said(api, GROUP, f"Tournament #{cup.id} was cancelled.")))
        await api.settle(quiet=0.05)
        cup = await service.tournament(cup.id)
        assert cup.status == "cancelled"
        assert [t.status for t in cup.tables_of(2)] == ["cancelled"]
        table = await service.get(cup.tables_of(2)[0].game_id)
        assert api.buttons(api.get_message(GROUP, table.table_message_id)) == []
        assert "was cancelled" in (api.get_message(GROUP, signup.message_id).text or "")

        # The rules and the help.
        await eve.send(eve.id, "/rules tournament")
        await wait_for(lambda: bool(said(api, eve.id, "Buchholz")))
        assert "1, ⅔, ⅓ and 0" in (said(api, eve.id, "Buchholz")[0].text or "")
        await eve.send(eve.id, "/help")
        await wait_for(lambda: bool(said(api, eve.id, "/rules tournament explains them")))
    assert not failures(caplog)


async def test_a_korean_group_reads_its_tournament_in_korean(pg_db, pg_url) -> None:
    """The sign-up message (the game's own option labels included), the buttons' answers
    and the round's announcement in the group's language."""
    async with FakeBotAPI() as api:
        api.add_group(GROUP, "토너먼트 밤", admins=[1])
        ann, bob = api.add_user(1, "민지", language_code="ko"), \
            api.add_user(2, "서준", language_code="ko")
        for user in (ann, bob):
            await user.start_bot()
        runner = BotRunner(api, pg_url, sweep_interval=0.1)
        await runner.start()
        try:
            await ann.send(GROUP, "/tournament koira")
            await wait_for(lambda: bool(said(api, GROUP, "참가 신청 중")))
            await api.settle(quiet=0.05)
            signup = said(api, GROUP, "참가 신청 중")[-1]
            assert "⚖️ 동점: 다시" in (signup.text or ""), signup.text
            assert "🔢 라운드 줄이기" in [t for t, _ in api.buttons(signup)]
            answer = await bob.press_and_settle(signup, "✋ 참가")
            assert answer["text"] == "토너먼트 #1에 참가했어요."
            kim = api.add_user(3, "김", language_code="ko")  # (never started the bot)
            answer = await kim.press_and_settle(signup, "✋ 참가")
            assert answer["text"] == "토너먼트 #1에 참가했어요. 팁: 저와 개인 채팅을 시작하면 " \
                "차례가 되었을 때 알려 드릴게요.", answer
            await ann.press_and_settle(api.get_message(GROUP, signup.message_id), "🤖 AI 추가")
            await ann.press_and_settle(api.get_message(GROUP, signup.message_id), "▶️ 시작")
            await wait_for(lambda: bool(said(api, GROUP, "코이라 토너먼트 #1: 5라운드 중 1라운드")))
            first = said(api, GROUP, "코이라 토너먼트 #1: 5라운드 중 1라운드")[0].text or ""
            assert "1번 테이블:" in first and "마쳐 주세요" in first, first
        finally:
            await runner.stop()


TIP = "Tip: start a private chat with me, and I will tell you when it is your turn."


async def test_a_join_by_a_player_the_bot_cannot_message_tips_the_private_chat(
        pg_db, pg_url) -> None:
    """As a lobby's ✋ Join does: a player who never started the bot is not sent away to the
    private chat (his tables serve him in the group), only told that it would bring a
    message on his turn, at the sign-up and when he joins a running tournament late; one
    the bot can message gets the plain answer."""
    async with bot_table(pg_url, GROUP, "Cup night", ["Ann", "Bob"]) as (api, (ann, bob), _):
        await ann.send(GROUP, "/tournament coyote")
        await wait_for(lambda: bool(said(api, GROUP, "sign-up is open")))
        await api.settle(quiet=0.05)
        signup = said(api, GROUP, "sign-up is open")[-1]
        answer = await bob.press_and_settle(api.get_message(GROUP, signup.message_id), "✋ Join")
        assert answer["text"] == "You joined tournament #1.", answer
        dan, eve = api.add_user(8, "Dan"), api.add_user(9, "Eve")  # (never started the bot)
        answer = await dan.press_and_settle(api.get_message(GROUP, signup.message_id), "✋ Join")
        assert not answer.get("url") and not answer.get("show_alert"), answer
        assert answer["text"] == f"You joined tournament #1. {TIP}", answer
        await ann.press_and_settle(api.get_message(GROUP, signup.message_id), "▶️ Start")
        await wait_for(lambda: bool(said(api, GROUP, "tournament #1: round 1 of")))
        answer = await eve.press_and_settle(api.get_message(GROUP, signup.message_id), "✋ Join")
        assert not answer.get("show_alert"), answer
        assert "each round you missed counts as a bye" in answer["text"], answer
        assert answer["text"].endswith(f" {TIP}"), answer
