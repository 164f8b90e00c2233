"""Setting games up as a group admin and new players would: the bot added to a group,
/newgame and its options, the lobby's buttons, /settings, /rules, checked against what the
README promises. (The tests whose docstrings say "Finding" each reproduced a problem of a
review, fixed since.)
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest

from telegram_app.games.registry import ui_for
from telegram_app.handlers import members
from telegram_app.i18n import use_language
from telegram_app.render import texts
from tests.clock import Clock
from tests.e2e.harness import bot_table, labels, open_lobby, wait_for
from tests.fakebot import FakeBotAPI, StoredMessage, parse_html

GROUP = -100881


def plain(html: str) -> str:
    """What a client shows of an HTML text."""
    return parse_html(html)[0]


def welcome(language: str, name: str | None) -> str:
    with use_language(language):
        return plain(texts.group_welcome_text(name))


def current(api: FakeBotAPI, message: StoredMessage) -> StoredMessage:
    found = api.get_message(message.chat_id, message.message_id)
    assert found is not None
    return found


@pytest.fixture(autouse=True)
def quick_welcome(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(members, "WELCOME_DELAY", 0.2)


# --- finding: the welcome ignores the group's language ------------------------------------

async def test_a_group_with_a_language_is_welcomed_back_in_it(pg_db, pg_url) -> None:
    """Finding. Kim (Korean app) opened the group's first lobby: the group's language is
    Korean (README, Languages: "that of whoever opened its first lobby"). The bot is removed
    and added back by Ann, whose app is English: the new welcome is a group message, and
    "until a group has one" is the only time the README lets the adder's language decide.
    Today it is in English."""
    async with bot_table(pg_url, GROUP, "모임", ["Ann"]) as (api, players, _runner):
        ann = players[0]
        kim = api.add_user(11, "Kim", language_code="ko")
        await kim.send(GROUP, "/newgame")
        await wait_for(lambda: bool(api.find_messages(GROUP, "#1")))
        await kim.send(GROUP, "/cancel")
        await api.settle()
        api.bot_membership(GROUP, "left", old="member", by=kim)
        await api.settle()
        before = len(api.bot_messages(GROUP))
        api.bot_membership(GROUP, "member", old="left", by=ann)
        await wait_for(lambda: len(api.bot_messages(GROUP)) > before)
        await api.settle()
        said = api.bot_messages(GROUP)[-1].text
        assert said == welcome("ko", "Ann"), said


# --- finding: /rules <edition> answers with the open game's rules -------------------------

async def test_rules_of_a_coyote_edition_while_a_koira_lobby_is_open(pg_db, pg_url) -> None:
    """Finding. README: ``/rules [game or edition]``. With a Koira lobby open in the topic,
    ``/rules feathers`` answers with Koira's rules (the edition is handed to Koira's
    rules, which ignore it), not the feathers edition's."""
    async with bot_table(pg_url, GROUP, "Rules", ["Ann"]) as (api, players, _runner):
        ann = players[0]
        await ann.send(GROUP, "/newgame koira")
        await wait_for(lambda: bool(api.find_messages(GROUP, "new game #")))
        await api.settle()
        before = len(api.bot_messages(GROUP))
        await ann.send(GROUP, "/rules feathers")
        await wait_for(lambda: len(api.bot_messages(GROUP)) > before)
        await api.settle()
        said = api.bot_messages(GROUP)[-1].text
        with use_language("en"):
            feathers = plain(ui_for("coyote").rules_text(["feathers"], None))
        assert said == feathers, said[:120]


# --- finding: feathers' extra lives with more players than they allow ---------------------

async def test_feathers_lives_are_not_raised_past_the_seated_players(pg_db, pg_url) -> None:
    """Finding. README: feathers allows 4 or 5 lives "only with 3–4 players". Six players sit
    in a feathers lobby; the host's ❤️ press still sets 4 lives, and the lobby then reads
    "Players: 6 (from 3 to 4)" — more seated than its own maximum — until ▶️ Start refuses.
    The press should be refused (or skip the values the table cannot have)."""
    names = ["Ann", "Bob", "Cat", "Dan", "Eve", "Fay"]
    async with bot_table(pg_url, GROUP, "Feathers", names) as (api, players, _runner):
        ann = players[0]
        lobby = await open_lobby(api, players, GROUP, "/newgame feathers")
        assert "Players: 6 (from 3 to 10)." in current(api, lobby).text
        answer = await ann.press_and_settle(current(api, lobby), "❤️ Lives: 3")
        shown = current(api, lobby).text or ""
        assert "Players: 6 (from 3 to 4)." not in shown, (answer, shown)
        assert "feathers · 3 lives" in shown, shown


# --- finding: /newgame's words after the edition are dropped without a word --------------

@pytest.mark.parametrize("command", ["/newgame feathers 5", "/newgame classic masks"])
async def test_newgame_words_after_the_edition_are_not_dropped(pg_db, pg_url,
                                                               command) -> None:
    """Finding. ``/newgame koira <word>`` refuses a word it does not know and names it;
    ``/newgame feathers 5`` (meant: 5 lives) or ``/newgame classic masks`` opens a default
    lobby (3 lives, masks off) and says nothing of the ignored word. Either the word is
    used or the command is refused naming it, as Koira's does."""
    async with bot_table(pg_url, GROUP, "Words", ["Ann"]) as (api, players, _runner):
        ann = players[0]
        await ann.send(GROUP, command)
        await wait_for(lambda: bool(api.bot_messages(GROUP)))
        await api.settle()
        said = api.bot_messages(GROUP)[-1]
        shown = ((said.text or "") + "\n" + "\n".join(labels(api, said))).replace(
            "\u2068", "").replace("\u2069", "")  # (a typed word is isolated as a name is)
        ignored = command.split()[-1]
        used = "5 lives" in shown if ignored == "5" else "🎭 Masks: on" in shown
        assert used or f"“{ignored}”" in shown, shown


# --- verified: what the README promises and the bot does ---------------------------------

async def test_a_lobby_expires_an_hour_after_it_opened_joins_or_not(pg_db, pg_url) -> None:
    """README: "A lobby nobody starts expires after an hour." It does, counted from its
    opening (a join at 50 minutes does not extend it); the lobby message says so and keeps
    no buttons, and a new /newgame opens the next one."""
    clock = Clock(datetime(2026, 5, 4, 9, 0, tzinfo=UTC))
    async with bot_table(pg_url, GROUP, "Expiry", ["Ann", "Bob"], clock=clock,
                         sweep_interval=0.05) as (api, players, _runner):
        ann, bob = players
        await ann.send(GROUP, "/newgame koira")
        await wait_for(lambda: bool(api.find_messages(GROUP, "new game #")))
        await api.settle()
        lobby = api.find_messages(GROUP, "new game #")[-1]
        answer = await ann.press_and_settle(lobby, "▶️ Start")
        assert answer["show_alert"] and "At least 3 players" in answer["text"]
        clock.advance(3000)
        await bob.press_and_settle(current(api, lobby), "✋ Join")
        clock.advance(601)
        await wait_for(lambda: "expired" in (current(api, lobby).text or ""))
        assert not api.buttons(current(api, lobby))
        await asyncio.sleep(0.1)
        await ann.send(GROUP, "/newgame")
        await wait_for(lambda: bool(api.find_messages(GROUP, "new game #2")))


async def test_full_lobbies_and_who_may_press_what(pg_db, pg_url) -> None:
    """Koira seats 8 (the 9th join and 🤖 are refused as full); a non-player's ▶️ Start and
    a player's ➖ Remove AI are refused (only the host); a double ✋ is one seat."""
    names = [f"P{i}" for i in range(1, 10)]
    async with bot_table(pg_url, GROUP, "Full", names) as (api, players, _runner):
        host = players[0]
        lobby = await open_lobby(api, players[:7], GROUP, "/newgame koira")
        await host.press_and_settle(current(api, lobby), "🤖 Add AI")
        assert "Players: 8 (from 3 to 8)." in current(api, lobby).text
        answer = await players[7].press_and_settle(current(api, lobby), "✋ Join")
        assert answer["show_alert"] and "full (8 players)" in answer["text"]
        answer = await host.press_and_settle(current(api, lobby), "🤖 Add AI")
        assert answer["show_alert"] and "full" in answer["text"]
        answer = await players[8].press_and_settle(current(api, lobby), "▶️ Start")
        assert answer["show_alert"] and "host" in answer["text"]
        answer = await players[1].press_and_settle(current(api, lobby), "➖ Remove AI")
        assert answer["show_alert"] and "host" in answer["text"]
        await host.press_and_settle(current(api, lobby), "➖ Remove AI")
        first = await players[7].press(current(api, lobby), "✋ Join")
        second = await players[7].press(current(api, lobby), "✋ Join")
        await api.wait_answer(first)
        await api.wait_answer(second)
        await api.settle()
        assert "Players: 8 (from 3 to 8)." in current(api, lobby).text
        # the second tap's answer is a toast, not an alert to dismiss: they are in, as meant
        answers = [api.callback_answer(q) or {} for q in (first, second)]
        assert not any(a.get("show_alert") for a in answers), answers


async def test_lobbies_in_two_forum_topics_and_a_second_newgame(pg_db, pg_url) -> None:
    """One game per topic: two topics get a lobby each, a second /newgame in a topic
    points at its open game, /newgame@OtherBot is not for us, and in private the bot says
    to add it to a group."""
    async with bot_table(pg_url, GROUP, "Forum", ["Ann", "Bob"]) as (api, players, _runner):
        ann, bob = players
        api.chats[GROUP].type = "supergroup"
        one = api.create_topic(GROUP, "Table one", ann)
        two = api.create_topic(GROUP, "Table two", bob)
        await api.settle()
        await ann.send(GROUP, "/newgame", thread_id=one)
        await bob.send(GROUP, "/newgame koira", thread_id=two)
        await bob.send(GROUP, "/newgame feathers", thread_id=two)
        await ann.send(GROUP, "/newgame@OtherBot", thread_id=one)
        await ann.send(ann.id, "/newgame")
        await api.settle(quiet=0.3)
        lobbies = {m.thread_id: m.text.splitlines()[0].split(" — ")[0]
                   for m in api.bot_messages(GROUP) if "new game #" in (m.text or "")}
        assert lobbies == {one: "🐺 Coyote", two: "🐕 Koira"}
        refusals = [m for m in api.bot_messages(GROUP) if "already open here" in (m.text or "")]
        assert [m.thread_id for m in refusals] == [two]
        assert "Add me to a group" in (api.bot_messages(ann.id)[-1].text or "")


async def test_settings_note_per_move_and_language_by_an_admin_only(pg_db, pg_url) -> None:
    """/settings: a non-admin is refused (command and button); the admin's 🔕 Group press
    turns it to a note per move, and 🌐 switches the message's language in place."""
    async with bot_table(pg_url, GROUP, "Settings", ["Ann", "Bob"]) as (api, players, _runner):
        ann, bob = players
        await bob.send(GROUP, "/settings")
        await wait_for(lambda: bool(api.find_messages(GROUP, "only the group's admins")))
        await ann.send(GROUP, "/settings")
        await wait_for(lambda: bool(api.find_messages(GROUP, "Defaults for new games")))
        await api.settle()
        message = api.find_messages(GROUP, "Defaults for new games")[-1]
        quiet = next(label for label in labels(api, message) if label.startswith("🔕 Group"))
        answer = await bob.press_and_settle(message, quiet)
        assert answer["show_alert"]
        await ann.press_and_settle(current(api, message), quiet)
        assert any(label.startswith("🔔 Group") for label in labels(api, current(api, message)))
        for _press in range(2):  # (no language yet: each member's own → English → Korean)
            language = next(label for label in labels(api, current(api, message))
                            if label.startswith("🌐"))
            await ann.press_and_settle(current(api, message), language)
        assert "🌐 언어: 한국어" in labels(api, current(api, message))
        assert (current(api, message).text or "").startswith("⚙️ 이 그룹의")


@pytest.mark.parametrize(("command", "other"), [("/newgame koria", True),
                                                ("/newgame classic masks", False),
                                                ("/newgame koira tiesplit", False)])
async def test_a_word_that_names_nothing_lists_the_other_games(pg_db, pg_url, command,
                                                               other) -> None:
    """``/newgame koria`` (a game's name mistyped) is refused with the editions and the
    other games' commands; a word after a known edition or game gets no such list."""
    async with bot_table(pg_url, GROUP, "Typos", ["Ann"]) as (api, players, _runner):
        await players[0].send(GROUP, command)
        await wait_for(lambda: bool(api.bot_messages(GROUP)))
        await api.settle()
        said = api.bot_messages(GROUP)[-1].text or ""
        assert ("Other games:" in said) is other, said
        assert not other or "/newgame koira" in said, said

