"""Messy Telegram that repeats itself: double taps on 🎴 and on a move, a press or a command update
delivered twice with the same update_id; each is answered and acts once.

A quiet group (a break-it review); Dan never starts the bot (he plays with 🎴 only). The table
and the helpers: :mod:`tests.e2e.messy_telegram_helpers`.
"""

from __future__ import annotations

import logging

from tests.e2e.harness import move_version, wait_for
from tests.e2e.messy_telegram_helpers import (
    CARDS,
    GROUP,
    command,
    dans_view,
    failures,
    game_of,
    game_turn_message,
    live_ephemeral,
    lowest_bid,
    start,
    table,
    to_act,
    until_turn_of,
)
from tests.fakebot import FakeBotAPI, FakeUser, StoredMessage

# ---------------------------------------------------------------- double taps, repeats

def twice(api: FakeBotAPI, payload: dict) -> dict:
    """Deliver one update twice with the same update_id."""
    update = api.enqueue_update(payload)
    api._updates.append(dict(update))
    api._updates_event.set()
    return update


def press_payload(api: FakeBotAPI, user: FakeUser, message: StoredMessage, data: str) -> str:
    """The callback query of ``user`` pressing ``data`` on ``message``, delivered twice
    (same update_id): its query id."""
    api._query_counter += 1
    query_id = str(4_900_000_000_000_000_000 + api._query_counter)
    api._queries[query_id] = {"user_id": user.id, "chat_id": message.chat_id,
                              "message_id": message.message_id, "data": data,
                              "ephemeral_id": message.ephemeral_id}
    twice(api, {"callback_query": {
        "id": query_id, "from": user.to_dict(), "message": api.message_dict(message),
        "chat_instance": str(abs(message.chat_id) * 7919 % 10**18), "data": data}})
    return query_id


async def test_a_double_tap_on_cards_leaves_one_view(pg_db, pg_url, caplog) -> None:
    """Dan taps 🎴 twice at once (two callback queries), and then once more with the
    update delivered twice: both presses are answered, and he has one view."""
    caplog.set_level(logging.INFO)
    async with table(pg_url) as (api, players, runner, clock):
        ann, bob, dan = players
        game_id = await start(api, players, GROUP)
        await until_turn_of(api, runner, players, game_id, dan)
        tbl = api.get_message(GROUP, (await game_of(runner, game_id)).table_message_id)
        first = await dan.press(tbl, CARDS)
        second = await dan.press(tbl, CARDS)
        for query in (first, second):
            answer = await api.wait_answer(query)
            assert not answer.get("show_alert"), answer
        await api.settle(quiet=0.3)
        assert len(api.ephemeral_messages(GROUP, dan.id)) == 1, \
            [m.text for m in api.ephemeral_messages(GROUP, dan.id)]
        query = press_payload(api, dan, tbl, next(d for t, d in api.buttons(tbl) if t == CARDS))
        await api.wait_answer(query)
        await api.settle(quiet=0.3)
        assert len(api.ephemeral_messages(GROUP, dan.id)) == 1
    assert not failures(caplog), failures(caplog)


async def test_a_double_tap_on_a_move_in_the_view(pg_db, pg_url, caplog) -> None:
    """Dan taps the same bid twice at once on his 🎴 view: one bid is made, both taps are
    answered, the next player gets one keyboard, and Dan's view has no buttons left."""
    caplog.set_level(logging.INFO)
    async with table(pg_url) as (api, players, runner, clock):
        ann, bob, dan = players
        game_id, game, tbl = await dans_view(api, runner, players)
        view = live_ephemeral(api, GROUP, dan)
        data = lowest_bid(api, view)
        first = await dan.press_raw_on(view, data)
        second = await dan.press_raw_on(view, data)
        answers = [await api.wait_answer(q) for q in (first, second)]
        await api.settle(quiet=0.3)
        after = await game_of(runner, game_id)
        assert after.version == game.version + 1, (game.version, after.version, answers)
        assert "bids" in "\n".join(m.text or "" for m in api.bot_messages(GROUP))
        view = live_ephemeral(api, GROUP, dan)
        assert view is None or move_version(api, view) is None, view.text
        nxt = {u.id: u for u in players}[await to_act(runner, game_id)]
        live = [m for m in api.bot_messages(nxt.id) if move_version(api, m)]
        assert len(live) == 1, [m.text for m in live]
    assert not failures(caplog), failures(caplog)


async def test_a_private_bid_delivered_twice_and_tapped_twice(pg_db, pg_url, caplog) -> None:
    """Ann's bid press reaches the bot twice (same update_id), and Bob taps his bid twice
    at once: one bid each, every query answered, one live keyboard each."""
    caplog.set_level(logging.INFO)
    async with table(pg_url, names=("Ann", "Bob", "Cat"), strangers=0) as (
            api, players, runner, clock):
        users = {u.id: u for u in players}
        game_id = await start(api, players, GROUP)
        for repeat in ("same update", "two taps"):
            game = await game_of(runner, game_id)
            user = users[await to_act(runner, game_id)]
            await wait_for(lambda user=user, game=game: (
                m := game_turn_message(api, user, game_id)) is not None
                and move_version(api, m) == game.version)
            message = game_turn_message(api, user, game_id)
            data = lowest_bid(api, message)
            if repeat == "same update":
                queries = [press_payload(api, user, message, data)]
            else:
                queries = [await user.press_raw_on(message, data) for _ in range(2)]
            for query in queries:
                await api.wait_answer(query)
            await api.settle(quiet=0.3)
            assert (await game_of(runner, game_id)).version == game.version + 1, repeat
            for u in players:
                live = [m for m in api.bot_messages(u.id) if move_version(api, m)
                        == (await game_of(runner, game_id)).version]
                assert len(live) <= 1, (repeat, u, [m.text for m in live])
    assert not failures(caplog), failures(caplog)


async def test_repeated_pause_cancel_updates(pg_db, pg_url, caplog) -> None:
    """/pause, /resume and /cancel each delivered twice (same update_id): each said once."""
    caplog.set_level(logging.INFO)
    async with table(pg_url) as (api, players, runner, clock):
        ann, bob, dan = players
        await start(api, players, GROUP)
        for text, said in (("/pause", "⏸ The clock of game"), ("/resume", "runs again"),
                           ("/cancel", "was cancelled")):
            twice(api, {"message": command(api, GROUP, ann.id, text)})
            await wait_for(lambda said=said: bool(api.find_messages(GROUP, said)))
            await api.settle(quiet=0.3)
            assert len(api.find_messages(GROUP, said)) == 1, text
        assert not api.find_messages(GROUP, "no game")
    assert not failures(caplog), failures(caplog)
