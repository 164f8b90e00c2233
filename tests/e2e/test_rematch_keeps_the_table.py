"""🔁 Rematch of each edition and of Koira: levels and options kept, expiry, a topic."""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import func, select

from league.store.clock import DEFAULT_LOBBY_TTL
from league.store.rating_models import RatingEvent
from tests.e2e.harness import labels, play_turn, wait_for
from tests.e2e.koira_play import koira_turn_by, service_of
from tests.e2e.table_together_helpers import (
    GROUP,
    HOWLER,
    WILE,
    coyote_to_the_end,
    new_lobby,
    table_fixture,  # noqa: F401 (a fixture)
    tap,
)


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
    one (the rematch of the same game); once that one started, 🔁 says the rematch started."""
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
    assert answer.get("show_alert") and "game #3, has already started" in answer["text"], answer
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
