"""Review probes of what keeps a table together (computer levels, 🔁 Rematch, /notify)
through the real Application and the fake Bot API on PostgreSQL, as a new user of a group
would try them: 🔁 Rematch on the last message of each Coyote edition and of Koira (levels
and options kept, a stranger, a double tap, two players at once, after the rematch lobby
expired or started, a player the bot cannot message), /notify (a blocked subscriber is not
retried, a link to a lobby that has started), forged level, 🔔 and 🔁 presses, the stand-in
level in /settings, /replay's levels, a subscriber who left the group, a forum topic and a
full table of computers (the languages: test_review_table_together_languages.py)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest
from sqlalchemy import func, select

from league.store.clock import DEFAULT_LOBBY_TTL
from league.store.rating_models import RatingEvent
from telegram_app.i18n import _, use_language
from tests.clock import Clock
from tests.e2e.harness import bot_table, labels, play_turn, wait_for
from tests.e2e.koira_play import koira_turn_by, service_of
from tests.fakebot import FakeBotAPI, StoredMessage

GROUP = -100916
WILE, HOWLER = "\u2068Wile\u2069", "\u2068Howler\u2069"  # computer names, isolated


@pytest.fixture
async def table(pg_db, pg_url):
    """The bot in ``GROUP`` with Ann, Bob and Cat on a controlled clock, sweeping every
    50 ms: ``(api, players, clock, runner)``."""
    clock = Clock(datetime(2026, 12, 2, 9, 0, tzinfo=UTC))
    async with bot_table(pg_url, GROUP, "Table", ["Ann", "Bob", "Cat"], clock=clock,
                         sweep_interval=0.05) as (api, players, runner):
        service_of(runner).new_seed = lambda: 20261202
        yield api, players, clock, runner


def tr(language: str, message: str) -> str:
    with use_language(language):
        return _(message)


async def new_lobby(api: FakeBotAPI, user, command: str, marker: str = "new game #"
                    ) -> StoredMessage:
    before = {m.message_id for m in api.find_messages(GROUP, marker)}
    await user.send(GROUP, command)
    await wait_for(lambda: any(m.message_id not in before
                               for m in api.find_messages(GROUP, marker)))
    await api.settle(quiet=0.05)
    return next(m for m in reversed(api.find_messages(GROUP, marker))
                if m.message_id not in before)


async def tap(api: FakeBotAPI, user, lobby: StoredMessage, *labels_: str) -> dict:
    answer: dict = {}
    for label in labels_:
        answer = await user.press_and_settle(api.get_message(GROUP, lobby.message_id), label,
                                             quiet=0.02)
    return answer


async def coyote_to_the_end(api: FakeBotAPI, humans, runner, game_id: int) -> StoredMessage:
    turns = 0
    while (await service_of(runner).get(game_id)).status == "running":
        assert await play_turn(api, humans, GROUP), "nobody can act, the game goes on"
        turns += 1
        assert turns < 800
    await api.settle(quiet=0.05)
    return api.find_messages(GROUP, "is over!")[-1]


async def rated_events(pg_db, game_id: int) -> int:
    async with pg_db.sessions() as session:
        return await session.scalar(select(func.count()).select_from(RatingEvent)
                                    .where(RatingEvent.game_id == game_id))


@pytest.mark.parametrize("edition", ["classic", "feathers", "poker-deck"])
async def test_each_coyote_edition_with_an_easy_and_a_hard_computer_and_its_rematch(
        table, pg_db, edition: str) -> None:
    """Ann, an easy and a hard computer to the end (unrated); the levels in the lobby, the
    table and /replay; 🔁 opens a lobby of the same edition and options with the same
    computers at the same levels."""
    api, (ann, bob, _cat), _clock, runner = table
    lobby = await new_lobby(api, ann, f"/newgame {edition}")
    await tap(api, ann, lobby, "🤖 Add AI", "🤖 Add AI", f"{WILE}: normal", f"{HOWLER}: normal",
              f"{HOWLER}: hard", "⏱ Pace: standard")
    text = api.get_message(GROUP, lobby.message_id).text
    assert f"🤖 {WILE} (hard)" in text and f"🤖 {HOWLER} (easy)" in text, text
    await tap(api, ann, lobby, "▶️ Start")
    await api.settle(quiet=0.05)
    tables = [m for m in api.bot_messages(GROUP) if m.message_id > lobby.message_id]
    assert any("(hard)" in (m.text or "") and "(easy)" in (m.text or "") for m in tables), \
        [m.text for m in tables]
    final = await coyote_to_the_end(api, [ann], runner, 1)
    first = await service_of(runner).get(1)
    assert first.status == "finished" and await rated_events(pg_db, 1) == 0
    assert [p.level for p in first.seated] == [None, "hard", "easy"]
    assert labels(api, final) == ["🔁 Rematch"], labels(api, final)

    await ann.send(GROUP, "/replay 1")
    await wait_for(lambda: bool(api.find_messages(GROUP, "Replay of game #1")))
    replay = api.find_messages(GROUP, "Replay of game #1")[-1].text.split("\n")[0]
    assert f"🤖 {WILE} (hard)" in replay and f"🤖 {HOWLER} (easy)" in replay, replay

    answer = await bob.press_and_settle(final, "🔁 Rematch")  # Bob did not play
    assert answer.get("show_alert") and "not playing" in answer["text"], answer
    answer = await ann.press_and_settle(final, "🔁 Rematch")
    assert "Rematch!" in answer["text"], answer
    again = await service_of(runner).get(2)
    assert again.status == "lobby" and again.options == first.options
    assert again.options["edition"] == edition and again.options["pace"] == "relaxed"
    assert [(p.name, p.level) for p in again.players if p.is_ai] == \
        [("Wile", "hard"), ("Howler", "easy")]
    lobby2 = api.find_messages(GROUP, "new game #")[-1]
    text = api.get_message(GROUP, lobby2.message_id).text
    assert f"🤖 {WILE} (hard)" in text and f"🤖 {HOWLER} (easy)" in text, text
    # the host does not want them: ➖ removes the computers one by one
    await tap(api, ann, lobby2, "➖ Remove AI", "➖ Remove AI")
    assert [p.is_ai for p in (await service_of(runner).get(2)).players] == [False]


async def test_a_koira_rematch_by_two_players_at_once_keeps_options_and_levels(
        table, pg_db) -> None:
    """Ann and Bob with a hard Koira computer, an option changed; to the end; both tap 🔁
    at the same moment: one lobby with both, the options and the hard computer kept."""
    api, (ann, bob, cat), _clock, runner = table
    lobby = await new_lobby(api, ann, "/newgame koira", "Koira — new game #")
    await tap(api, bob, lobby, "✋ Join")
    await tap(api, ann, lobby, "🤖 Add AI", f"{WILE}: normal", "⏱ Pace: standard")
    before = dict((await service_of(runner).get(1)).options)
    await tap(api, ann, lobby, "▶️ Start")
    await api.settle(quiet=0.05)
    assert any(f"{WILE} (hard)" in (m.text or "") for m in api.bot_messages(GROUP)
               if m.message_id > lobby.message_id), "the table names the level"
    turns = 0
    while (await service_of(runner).get(1)).status == "running":
        await koira_turn_by(api, runner, [ann, bob], GROUP)
        turns += 1
        assert turns < 400
    await api.settle(quiet=0.05)
    assert await rated_events(pg_db, 1) == 0  # a computer seat: unrated
    final = api.find_messages(GROUP, "is over!")[-1]
    data = next(d for t, d in api.buttons(final) if "Rematch" in t)
    queries = await asyncio.gather(ann.press_raw(GROUP, final.message_id, data),
                                   bob.press_raw(GROUP, final.message_id, data))
    answers = [await api.wait_answer(q) for q in queries]
    await api.settle(quiet=0.1)
    assert not any(a.get("show_alert") for a in answers), answers
    again = await service_of(runner).get(2)
    assert again.kind == "koira" and again.status == "lobby"
    assert again.options == before and again.options["pace"] == "relaxed"
    assert {p.user_id for p in again.players if not p.is_ai} == {ann.id, bob.id}
    assert [(p.name, p.level) for p in again.players if p.is_ai] == [("Wile", "hard")]
    assert len([m for m in api.find_messages(GROUP, "Koira — new game #")
                if m.message_id > final.message_id]) == 1
    with pytest.raises(Exception):  # noqa: B017 - no third game
        await service_of(runner).get(3)
    answer = await cat.press_and_settle(final, "🔁 Rematch")  # not a player of game 1
    assert answer.get("show_alert") and "not playing" in answer["text"], answer
    # …but the rematch lobby's own ✋ Join is open to anyone, as any lobby's
    await tap(api, cat, api.find_messages(GROUP, "Koira — new game #")[-1], "✋ Join")
    assert (await service_of(runner).get(2)).player(cat.id) is not None


async def test_the_rematch_lobby_expires_and_a_later_tap_opens_another(table) -> None:
    """A rematch lobby nobody starts expires like any lobby; a 🔁 after that opens a fresh
    one (the rematch of the same game); once that one started, 🔁 says a game is open."""
    api, (ann, _bob, _cat), clock, runner = table
    lobby = await new_lobby(api, ann, "/newgame")
    await tap(api, ann, lobby, "🤖 Add AI", "🤖 Add AI", "▶️ Start")
    final = await coyote_to_the_end(api, [ann], runner, 1)
    await ann.press_and_settle(final, "🔁 Rematch")
    assert (await service_of(runner).get(2)).status == "lobby"
    clock.advance(DEFAULT_LOBBY_TTL + 1)
    await wait_for(lambda: bool(api.find_messages(GROUP, "Game #2 expired")))
    assert (await service_of(runner).get(2)).status == "cancelled"  # (how expiry is stored)
    answer = await ann.press_and_settle(final, "🔁 Rematch")
    assert "Rematch!" in answer["text"], answer
    third = await service_of(runner).get(3)
    assert third.status == "lobby" and sum(p.is_ai for p in third.players) == 2
    await tap(api, ann, api.find_messages(GROUP, "new game #")[-1], "▶️ Start")
    answer = await ann.press_and_settle(final, "🔁 Rematch")
    assert answer.get("show_alert") and "already open" in answer["text"], answer
    answer = await ann.press_and_settle(final, "🔁 Rematch")  # and again: nothing new
    assert answer.get("show_alert")
    assert (await service_of(runner).get(3)).status == "running"


async def test_a_rematch_tap_by_a_player_the_bot_cannot_message_seats_him_with_a_hint(
        table) -> None:
    """Bob played, then blocked the bot; his 🔁 seats him, and (as ✋ Join does) his answer
    does not send him away to the private chat (🎴 serves him in the group): it only says
    that a private chat would bring a message on his turn."""
    api, (ann, bob, _cat), _clock, runner = table
    lobby = await new_lobby(api, ann, "/newgame")
    await tap(api, bob, lobby, "✋ Join")
    await tap(api, ann, lobby, "🤖 Add AI", "▶️ Start")
    final = await coyote_to_the_end(api, [ann, bob], runner, 1)
    bob.block_bot()
    await service_of(runner).set_can_message(bob.id, False)  # as a refused message records
    answer = await ann.press_and_settle(final, "🔁 Rematch")
    assert "Rematch!" in answer["text"]
    answer = await bob.press_and_settle(final, "🔁 Rematch")
    assert (await service_of(runner).get(2)).player(bob.id) is not None
    assert not answer.get("url") and not answer.get("show_alert"), answer
    assert answer["text"] == "You joined game #2. Tip: start a private chat with me, and I " \
        "will tell you when it is your turn.", answer


async def test_notify_a_blocked_subscriber_is_not_retried_and_a_late_link(table) -> None:
    """Cat subscribes, then blocks the bot: the first alert is refused (403) and no later
    lobby tries her again, until she starts the bot again. /notify twice, /notify OFF twice;
    a rematch lobby alerts too; an alert's link pressed once its lobby started seats
    nobody."""
    api, (ann, bob, cat), _clock, runner = table
    await cat.send(GROUP, "/notify")
    await wait_for(lambda: bool(api.find_messages(GROUP, "I will tell you")))
    await cat.send(GROUP, "/notify")
    await wait_for(lambda: bool(api.find_messages(GROUP, "You will already be told")))
    await bob.send(GROUP, "/notify")
    await wait_for(lambda: len(api.find_messages(GROUP, "I will tell you")) == 2)
    cat.block_bot()

    def sends_to(user) -> int:
        return sum(1 for c in api.calls("sendMessage")
                   if str(c.params.get("chat_id")) == str(user.id))

    welcomed = sends_to(cat)  # (the welcome of her /start)

    lobby = await new_lobby(api, ann, "/newgame")
    await wait_for(lambda: bool(api.find_messages(bob.id, "A new game")))
    await api.settle(quiet=0.1)
    # the alert names the game (it said "A new game of classic is open")
    assert "A new game of Coyote (classic) is open" in \
        api.find_messages(bob.id, "A new game")[-1].text
    assert sends_to(cat) == welcomed + 1  # tried once, refused
    assert not await service_of(runner).reachable([cat.id])
    await tap(api, ann, lobby, "🚪 Leave")  # the lobby closes
    for _round in range(2):
        lobby = await new_lobby(api, ann, "/newgame")
        await api.settle(quiet=0.1)
        await tap(api, ann, lobby, "🚪 Leave")
    assert sends_to(cat) == welcomed + 1  # not retried
    assert len(api.find_messages(bob.id, "A new game")) == 3  # one per lobby

    said = len(api.bot_messages(cat.id))
    await cat.start_bot()  # back: the subscription still holds
    await wait_for(lambda: len(api.bot_messages(cat.id)) > said)  # (her /start is handled)
    lobby = await new_lobby(api, ann, "/newgame")
    await wait_for(lambda: bool(api.find_messages(cat.id, "A new game")))
    alert = api.find_messages(cat.id, "A new game")[-1]
    link = next(d for _, d in api.buttons(alert) if d and "start=" in d)
    await tap(api, ann, lobby, "🤖 Add AI", "🤖 Add AI", "▶️ Start")
    game = (await service_of(runner).open_game(GROUP, 0))
    await cat.start_bot(link.split("start=")[1])  # too late: the game started
    await api.settle(quiet=0.1)
    assert (await service_of(runner).get(game.id)).player(cat.id) is None

    # a rematch lobby alerts the subscribers who did not tap it
    final = await coyote_to_the_end(api, [ann], runner, game.id)
    told = len(api.find_messages(bob.id, "A new game"))
    await ann.press_and_settle(final, "🔁 Rematch")
    await wait_for(lambda: len(api.find_messages(bob.id, "A new game")) == told + 1)

    await cat.send(GROUP, "/notify OFF")
    await wait_for(lambda: bool(api.find_messages(GROUP, "no more messages")))
    await cat.send(GROUP, "/notify off")
    await wait_for(lambda: bool(api.find_messages(GROUP, "You were not getting")))
    assert not await service_of(runner).subscribed(GROUP, cat.id)


async def test_forged_level_bell_and_rematch_presses_change_nothing(table) -> None:
    """Forged ``v``, ``n`` and ``rm`` data: another computer's index, a level past the
    game's, a press by a guest, an old version, a lobby's 🔁, a 🔔 of a game that does not
    exist or pressed in a private chat: each an alert, the lobby unchanged."""
    api, (ann, bob, _cat), _clock, runner = table
    lobby = await new_lobby(api, ann, "/newgame")
    await tap(api, bob, lobby, "✋ Join")
    await tap(api, ann, lobby, "🤖 Add AI")
    game = await service_of(runner).get(1)
    v = game.version
    said = len(api.bot_messages(GROUP))
    mine = api.bot_messages(ann.id)[-1] if api.bot_messages(ann.id) else None
    forged = [(ann, GROUP, lobby.message_id, f"v:1:1:2:{v}"),  # no second computer
              (ann, GROUP, lobby.message_id, f"v:1:0:3:{v}"),  # no fourth level
              (ann, GROUP, lobby.message_id, f"v:1:0:2:{v - 1}"),  # an old version
              (bob, GROUP, lobby.message_id, f"v:1:0:2:{v}"),  # not the host
              (ann, GROUP, lobby.message_id, "v:2:0:2:1"),  # no such game
              (ann, GROUP, lobby.message_id, "rm:1"),  # the lobby is not finished
              (ann, GROUP, lobby.message_id, "n:99"),  # no such game
              (ann, GROUP, lobby.message_id, "rm:99")]
    if mine is not None:  # a lobby's button pressed in a private chat
        forged += [(ann, ann.id, mine.message_id, "n:1"), (ann, ann.id, mine.message_id,
                                                           f"v:1:0:2:{v}")]
    for who, chat, message_id, data in forged:
        answer = await api.wait_answer(await who.press_raw(chat, message_id, data))
        assert answer.get("show_alert"), (data, answer)
    await api.settle(quiet=0.1)
    after = await service_of(runner).get(1)
    assert after.version == v and [p.level for p in after.players] == [None, None, "normal"]
    assert not await service_of(runner).subscribed(GROUP, ann.id)
    assert len(api.bot_messages(GROUP)) == said
    # a double tap on a level button changes the level once
    data = next(d for t, d in api.buttons(api.get_message(GROUP, lobby.message_id))
                if t.startswith(WILE))
    queries = [await ann.press_raw(GROUP, lobby.message_id, data) for _ in range(2)]
    answers = [await api.wait_answer(q) for q in queries]
    await api.settle(quiet=0.1)
    assert sum(bool(a.get("show_alert")) for a in answers) == 1, answers
    assert [p.level for p in (await service_of(runner).get(1)).players] == [None, None, "hard"]


async def test_the_stand_in_level_setting_reaches_new_lobbies_and_rematches(table) -> None:
    """/settings' 🤖 Stand-in level cycles (admins only); a new lobby takes it, and so does
    a rematch: the chat's policies are the admins', and a rematch's lobby shows none of
    them (its own options, the edition and lives, carry over)."""
    api, (ann, bob, _cat), _clock, runner = table
    await ann.send(GROUP, "/settings")
    await wait_for(lambda: bool(api.find_messages(GROUP, "Defaults for new games")))
    await api.settle(quiet=0.05)
    panel = api.find_messages(GROUP, "Defaults for new games")[-1]
    button = next(t for t in labels(api, panel) if t.startswith("🤖 Stand-in level"))
    assert button == "🤖 Stand-in level: normal", labels(api, panel)
    answer = await bob.press_and_settle(panel, button)  # not an admin
    assert "only the group's admins" in (answer.get("text") or ""), answer
    for shown in ("normal", "easy"):  # normal → easy → hard
        await ann.press_and_settle(api.get_message(GROUP, panel.message_id),
                                   f"🤖 Stand-in level: {shown}")
    panel = api.get_message(GROUP, panel.message_id)
    assert "🤖 Stand-in level: hard" in labels(api, panel), labels(api, panel)
    lobby = await new_lobby(api, ann, "/newgame")
    assert (await service_of(runner).get(1)).options["stand_in_level"] == "hard"
    await tap(api, ann, lobby, "🤖 Add AI", "🤖 Add AI", "▶️ Start")
    final = await coyote_to_the_end(api, [ann], runner, 1)
    await ann.press_and_settle(panel, "🤖 Stand-in level: hard")
    assert "🤖 Stand-in level: normal" in labels(api, api.get_message(GROUP, panel.message_id))
    await ann.press_and_settle(final, "🔁 Rematch")
    assert (await service_of(runner).get(2)).options["stand_in_level"] == "normal"


async def test_a_subscriber_who_left_the_group_is_not_alerted_nor_seated_by_a_link(
        table) -> None:
    """Bob asked for alerts, then was removed from the group: the group's next lobby sends
    him nothing and ``/start j<id>`` does not seat him (it did both: his subscription
    outlived his membership). Eve, who never started the bot, taps 🔔: the answer opens the
    private chat; after Start she is told of the next lobby."""
    api, (ann, bob, _cat), _clock, runner = table
    eve = api.add_user(5, "Eve")
    await bob.send(GROUP, "/notify")
    await wait_for(lambda: bool(api.find_messages(GROUP, "I will tell you")))
    lobby = await new_lobby(api, ann, "/newgame")
    await wait_for(lambda: bool(api.find_messages(bob.id, "A new game")))
    answer = await eve.press_and_settle(api.get_message(GROUP, lobby.message_id),
                                        "🔔 Next games")
    assert (answer.get("url") or "").endswith("?start=n"), answer
    await eve.start_bot("n")
    await wait_for(lambda: bool(api.bot_messages(eve.id)))
    await tap(api, ann, lobby, "🚪 Leave")
    api.user_leaves(bob, GROUP, by=ann)
    await api.settle(quiet=0.1)
    lobby = await new_lobby(api, ann, "/newgame")
    await wait_for(lambda: bool(api.find_messages(eve.id, "A new game")))
    await api.settle(quiet=0.1)
    assert len(api.find_messages(bob.id, "A new game")) == 1
    game = await service_of(runner).open_game(GROUP, 0)
    await bob.start_bot(f"j{game.id}")
    await api.settle(quiet=0.1)
    assert (await service_of(runner).get(game.id)).player(bob.id) is None
    assert not await service_of(runner).subscribed(GROUP, bob.id)


FORUM = -100917


async def test_a_rematch_in_a_forum_topic_stays_in_its_topic(table) -> None:
    """Ann plays two computers in a topic; another topic has its own lobby meanwhile. 🔁
    opens the rematch in the game's topic (not blocked by the other topic's lobby), and
    Bob's alert names the topic."""
    api, (ann, bob, _cat), _clock, runner = table
    api.add_group(FORUM, "Forum", type="supergroup", is_forum=True, admins=[1])
    topic = api.create_topic(FORUM, "Tuesday", ann)
    other = api.create_topic(FORUM, "Wednesday", bob)
    await bob.send(FORUM, "/notify", thread_id=other)
    await wait_for(lambda: bool(api.find_messages(FORUM, "I will tell you")))
    await ann.send(FORUM, "/newgame", thread_id=topic)
    await wait_for(lambda: bool(api.find_messages(FORUM, "new game #")))
    await api.settle(quiet=0.05)
    lobby = api.find_messages(FORUM, "new game #")[-1]
    for label in ("🤖 Add AI", "🤖 Add AI", "▶️ Start"):
        await ann.press_and_settle(api.get_message(FORUM, lobby.message_id), label, quiet=0.02)
    await bob.send(FORUM, "/newgame feathers", thread_id=other)
    await wait_for(lambda: any(m.thread_id == other
                               for m in api.find_messages(FORUM, "new game #")))
    turns = 0
    while (await service_of(runner).get(1)).status == "running":
        assert await play_turn(api, [ann], FORUM)
        turns += 1
        assert turns < 800
    await api.settle(quiet=0.05)
    final = api.find_messages(FORUM, "is over!")[-1]
    assert final.thread_id == topic
    told = len(api.find_messages(bob.id, "A new game"))
    answer = await ann.press_and_settle(final, "🔁 Rematch")
    assert "Rematch!" in answer["text"], answer
    again = await service_of(runner).get(3)
    assert again.thread_id == topic and again.status == "lobby"
    assert api.find_messages(FORUM, "new game #")[-1].thread_id == topic
    await wait_for(lambda: len(api.find_messages(bob.id, "A new game")) == told + 1)
    assert "Tuesday" in api.find_messages(bob.id, "A new game")[-1].text


async def test_a_full_table_of_computers_has_a_level_button_each(table) -> None:
    """Ten seats (Ann and nine computers): nine level buttons, three to a row, each
    callback within Telegram's 64 bytes; one more 🤖 is refused."""
    api, (ann, _bob, _cat), _clock, runner = table
    lobby = await new_lobby(api, ann, "/newgame")
    for _seat in range(9):
        await tap(api, ann, lobby, "🤖 Add AI")
    answer = await tap(api, ann, lobby, "🤖 Add AI")
    assert answer.get("show_alert") and "full" in answer["text"], answer
    message = api.get_message(GROUP, lobby.message_id)
    rows = message.reply_markup["inline_keyboard"]
    level_rows = [row for row in rows if all(b.get("callback_data", "").startswith("v:")
                                             for b in row)]
    assert [len(row) for row in level_rows] == [3, 3, 3], rows
    assert all(len(b.get("callback_data", "").encode()) <= 64 for row in rows for b in row)
    assert sum(p.is_ai for p in (await service_of(runner).get(1)).players) == 9
    # the last computer's button changes the last one
    last = level_rows[-1][-1]
    await ann.press_and_settle(message, last["callback_data"])
    levels = [p.level for p in (await service_of(runner).get(1)).players if p.is_ai]
    assert levels == ["normal"] * 8 + ["hard"], levels
