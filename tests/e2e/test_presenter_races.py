"""Reports racing a cancel or each other, a lost start report, and a failure after a report's
claim (from reviews of the presenter's ordering and claims)."""

from __future__ import annotations

import asyncio

from telegram_app.services import KEY
from tests.e2e.harness import (
    bot_table,
    hold,
    hold_timeout_note,
    mover,
    open_lobby,
    opens_with_an_impossible_bid,
    private_turn_message,
    start_game,
    wait_for,
)

GROUP = -100515151
NOTES = "every_move"  # (slow_table) these tests are about the notes of each move


def _plain(text: str | None) -> str:
    return (text or "").replace("\u2068", "").replace("\u2069", "")


async def test_a_cancel_while_a_new_round_is_reported_leaves_no_live_table(slow_table) -> None:
    """The sweep times a turn out; the computer calls Coyote for the player (the bid before
    was absurd), so its report ends a round and deals the next. While that report is being
    sent (held at the fake server), the admin sends /cancel: committed at once, its
    ``presenter.cancelled(game)`` waits for the game's lock with the game as read after the
    cancel. The sweep's report then posts round 2's table and private messages (drawn from
    the game as read before the cancel), and ``_cancelled`` closes only the messages its
    older picture knows (round 1's). Round 2's table and the private message of the player
    to act keep live buttons in a cancelled game."""
    api, players, clock, runner = slow_table
    lobby = await open_lobby(api, players, GROUP)
    await players[0].press_and_settle(lobby, "▶️ Start")
    first = await mover(api, players)
    await api.settle()
    await first.send(first.id, "40")  # typed: the next player's stand-in surely calls
    await wait_for(lambda: bool(api.find_messages(GROUP, "bids <b>40</b>")
                                or api.find_messages(GROUP, "bids 40")))
    await api.settle()
    service = runner.app.bot_data[KEY].service
    game = await service.open_game(GROUP, 0)
    release = await hold_timeout_note(api, clock, GROUP)
    assert (await service.get(game.id)).state["round"] == 2  # the stand-in called
    await players[0].send(GROUP, "/cancel")  # Ann is the group's admin
    for _ in range(300):
        if (await service.get(game.id)).status == "cancelled":
            break
        await asyncio.sleep(0.05)
    else:
        raise AssertionError("the cancel was not applied")
    release.set()
    await api.settle()
    assert api.find_messages(GROUP, "was cancelled")
    live_tables = [m for m in api.bot_messages(GROUP)
                   if "round 2" in _plain(m.text).lower() and api.buttons(m)]
    live_private = [u.first_name for u in players if private_turn_message(api, u)]
    assert not live_tables and not live_private, (
        [_plain(m.text) for m in live_tables], live_private)


async def test_a_lost_start_report_is_told_with_the_next_move(pg_db, pg_url) -> None:
    """The computer players open round 1 (seed 1: seat 1, a computer, starts), and the
    start's group note with their bids is lost (a 502, and its retry). ``unclaim_told`` gives
    the claim back to ``told_version`` = ``None`` (no report had been recorded before), and
    ``_moved`` treats ``None`` as 'nothing to tell from the log': the next report, Ann's
    bid, tells only her bid. The computers' bids of round 1 are never told, although a lost
    note is meant to be told with the next move."""
    async with bot_table(pg_url, GROUP, "G", ["Ann"], notes="every_move") as (api, (ann,), runner):
        runner.app.bot_data[KEY].service.new_seed = lambda: 1
        await ann.send(GROUP, "/newgame")
        await wait_for(lambda: bool(api.find_messages(GROUP, "new game #")))
        await api.settle()
        lobby = api.find_messages(GROUP, "new game #")[-1]
        await ann.press_and_settle(lobby, "🤖 Add AI")
        await ann.press_and_settle(api.get_message(GROUP, lobby.message_id), "🤖 Add AI")
        api.fail_next("sendMessage", 502, "Bad Gateway", count=2, chat_id=GROUP)
        await ann.press_and_settle(api.get_message(GROUP, lobby.message_id), "▶️ Start")
        await wait_for(lambda: private_turn_message(api, ann) is not None)
        await api.settle()
        service = runner.app.bot_data[KEY].service
        game = await service.open_game(GROUP, 0)
        opened = [e for e in await service.log(game.id) if e.seat is not None]
        assert opened, "the computers did not open round 1 (seed)"
        assert not [m for m in api.bot_messages(GROUP) if "Wile bids" in _plain(m.text)], \
            "the start's note was not lost"
        bid = next(int(d.split(":")[3]) for _, d in api.buttons(private_turn_message(api, ann))
                   if d and d.startswith("b:") and d.count(":") == 3)
        await ann.send(ann.id, str(bid))
        await wait_for(lambda: bool(api.find_messages(GROUP, f"bids <b>{bid}</b>")
                                    or [m for m in api.bot_messages(GROUP)
                                        if f"Ann bids {bid}." in _plain(m.text)]))
        await api.settle()
        told = "\n".join(_plain(m.text) for m in api.bot_messages(GROUP))
        assert "Wile bids" in told, told


async def test_a_report_that_fails_after_its_claim_gives_the_claim_back(pg_db, pg_url) -> None:
    """A database blip while a report is composed (here ``untold``, read after
    ``claim_told`` has committed the claim) makes ``_moved`` raise with the claim taken:
    ``told_version`` already covers the Extra feather and the bid, nothing was sent, and no
    later report tells them (they are 'told'). A claim whose report was not sent should be
    given back, as it is for a lost send."""
    from tests.e2e.harness import press

    async with bot_table(pg_url, GROUP, "G", ["Ann", "Bob", "Cat"],
                         notes="every_move") as (api, players, runner):
        await start_game(api, players, GROUP, "/newgame feathers", "🪙 Coins: off")
        first = await mover(api, players)
        await press(api, first, "🪙 Extra feather", GROUP)
        service = runner.app.bot_data[KEY].service
        plain_untold = service.untold
        blips = {"left": 1}

        async def untold(*args, **kwargs):
            if blips["left"]:
                blips["left"] -= 1
                raise ConnectionError("the database went away for a moment")
            return await plain_untold(*args, **kwargs)

        service.untold = untold
        await first.send(first.id, "1")
        await api.settle()
        assert not blips["left"], "the report did not read the log"
        service.untold = plain_untold
        game = await service.open_game(GROUP, 0)
        second = next(u for u in players if u.id == game.at_seat(game.state["turn"]).user_id)
        await second.send(second.id, "2")
        await wait_for(lambda: any("bids 2." in _plain(m.text) for m in api.bot_messages(GROUP)))
        await api.settle()
        told = "\n".join(_plain(m.text) for m in api.bot_messages(GROUP))
        assert f"{first.first_name} bids 1." in told, told
        assert "Extra feather" in told, told


async def _call_overtaken_by_a_timeout(slow_table) -> list[str]:
    """Bob bids 500; Cat calls Coyote (a showdown; round 2 is dealt). Between the commit of
    the call and its report (the answer to Cat's press of "Yes, call Coyote!" is held), the
    sweep times out round 2's first turn. Returns the group's texts once all is shown."""
    api, players, clock, runner = slow_table
    await opens_with_an_impossible_bid(api, players, GROUP)
    caller = await mover(api, players)
    keyboard = api.bot_messages(caller.id)[-1]
    await caller.press_and_settle(keyboard, "🐺 Coyote!")  # it asks first: "Yes" calls
    held, release = hold(api, "answerCallbackQuery", lambda p: True)
    query = await caller.press(keyboard, "🐺 Yes, call Coyote!")
    await asyncio.wait_for(held.wait(), 30)  # the call is committed; its report waits
    service = runner.app.bot_data[KEY].service
    game = await service.open_game(GROUP, 0)
    clock.advance(3601)  # round 2's first turn runs out: the sweep plays and reports it
    for _ in range(300):  # the timeout is committed (its report waits for the call's)
        if (await service.get(game.id)).version > game.version:
            break
        await asyncio.sleep(0.05)
    else:
        raise AssertionError("the sweep did not time the turn out")
    return api, release, query


async def test_a_showdown_overtaken_by_a_timeout_report_is_still_shown(slow_table) -> None:
    """The sweep's report went first: it told the call's moves as 'untold' but dropped the
    showdown (only moves after the last round boundary were told), and the call's own
    report found its moves claimed and did nothing: the showdown Cat called was never
    shown, round 1's messages never closed, round 2's table never posted. Now the reports
    are shown in the order of their commits."""
    api, release, query = await _call_overtaken_by_a_timeout(slow_table)
    release.set()
    await api.wait_answer(query)
    await api.settle()
    texts = [_plain(m.text) for m in api.bot_messages(GROUP)]
    assert sum("calls Coyote!" in t for t in texts) == 1, texts
    called = next(i for i, t in enumerate(texts) if "calls Coyote!" in t)
    timed_out = next(i for i, t in enumerate(texts) if "ran out of time" in t)
    assert called < timed_out, texts  # told in the order they happened
    assert [m for m in api.bot_messages(GROUP) if "round 2" in (m.text or "")]


async def test_a_timeout_committed_while_a_showdown_is_sent_waits_for_it(slow_table) -> None:
    """The call's report is held at the fake server while the sweep times out round 2's
    first turn: the timeout's delivery waits for the call's (one delivery per game at a
    time), so the showdown is told in full first, round 1's table is closed and round 2's
    posted, then the timeout."""
    api, players, clock, runner = slow_table
    await opens_with_an_impossible_bid(api, players, GROUP)
    caller = await mover(api, players)
    keyboard = api.bot_messages(caller.id)[-1]
    await caller.press_and_settle(keyboard, "🐺 Coyote!")  # it asks first: "Yes" calls
    held, release = hold(api, "sendMessage", lambda p: p.get("chat_id") == GROUP
                         and "<b>Coyote!</b>" in str(p.get("text")))
    query = await caller.press(keyboard, "🐺 Yes, call Coyote!")
    await asyncio.wait_for(held.wait(), 30)  # the call is committed; its report is held
    service = runner.app.bot_data[KEY].service
    game = await service.open_game(GROUP, 0)
    clock.advance(3601)  # round 2's first turn runs out: the sweep plays it
    for _ in range(300):
        if (await service.get(game.id)).version > game.version:
            break
        await asyncio.sleep(0.05)
    else:
        raise AssertionError("the sweep did not time the turn out")
    assert not api.find_messages(GROUP, "ran out of time")  # it waits for the call's report
    release.set()
    await api.wait_answer(query)
    await wait_for(lambda: bool(api.find_messages(GROUP, "ran out of time")))
    await api.settle()
    texts = [_plain(m.text) for m in api.bot_messages(GROUP)]
    called = next(i for i, t in enumerate(texts) if "calls Coyote!" in t)
    timed_out = next(i for i, t in enumerate(texts) if "ran out of time" in t)
    assert called < timed_out, texts
    tables = [m for m in api.bot_messages(GROUP) if "round 2" in (m.text or "")
              and api.buttons(m)]
    assert tables, texts  # round 2's own table
