"""One player (Ann, who reads Spanish) in several games at once — Coyote in a Korean group
whose title holds markup, Koira in a Japanese group with a right-to-left title, Coyote in a
Spanish forum's topic — with Bob and Cat, in her private chat: which game a reply to an old
message belongs to, blocking the bot mid-games and coming back with /start, and /start with
a closed game among running ones. Where a test once failed, its docstring says what the bot
did before the fix."""

from __future__ import annotations

import pytest

from league.store.message_models import PrivateMessage
from tests.e2e.harness import wait_for
from tests.e2e.koira_play import service_of
from tests.e2e.messy_telegram_helpers import plain
from tests.e2e.several_games_helpers import (
    MOVE_VERBS,
    TITLES,
    TOPIC,
    A,
    B,
    C,
    _out_of_one,
    answered_or_moved,
    assert_in_their_languages,
    heading,
    ids_of,
    keyboards_of,
    lowest_bid,
    new_messages,
    private_row,
    until,
    world_fixture,  # noqa: F401 (a fixture)
)
from tests.e2e.test_koira_with_coyote import _move, turn_message
from tests.e2e.test_many_games import (
    open_game,
    others_move_until,
    reply,
    to_act,
)
from tests.fakebot import FakeBotAPI, StoredMessage


# --- a reply to an old message of a closed game ---------------------------------------------
async def test_a_reply_to_an_old_message_of_a_closed_game_moves_no_other_game(world) -> None:
    """Ann played Coyote game #1 in the group "<b>Ops & Co</b>" for a while, so her private
    chat holds older messages of it (an earlier round's, above its latest). Game #1 is
    closed (an admin cancelled it; a game that ends leaves the same messages). It is now her
    turn in game #2, in another group. She answers one of game #1's older messages, headed
    by game #1's group, with a number: she means game #1 (README: "reply to that game's
    latest message"), which is over. Expected: nothing moves, and she is told game #1 is
    not running. Before the fix the number was bid in game #2, a game of another group she
    did not reply to; now, as the league records only each game's latest private message
    and its hand's first (game #1 cannot be named), she is asked to reply to the game's
    latest message."""
    api, (ann, bob, cat), clock, runner, db = world
    users = {u.id: u for u in (ann, bob, cat)}
    service = service_of(runner)
    g1 = await open_game(api, ann, [bob, cat], A, "/newgame")
    g2 = await open_game(api, bob, [ann, cat], B, "/newgame")

    def old_messages(row: PrivateMessage | None) -> list[StoredMessage]:
        kept = {row.message_id, row.hand_first_id} if row is not None else set()
        return [m for m in api.bot_messages(ann.id) if m.message_id not in kept
                and plain(m.text).startswith(heading(A) + "\n")]

    for _ in range(300):  # game #1 only, until Ann has an older message of it
        await api.settle(quiet=0.05)
        if old_messages(await private_row(db, g1, ann.id)):
            break
        assert await to_act(runner, g1) is not None, "game #1 ended first"
        await _move(api, runner, users, g1)
    else:
        raise AssertionError("Ann never had an older message of game #1")
    old = old_messages(await private_row(db, g1, ann.id))[0]
    assert f"#{g1}" in plain(old.text) and not api.buttons(old), old.text

    await ann.send(A, "/cancel")  # (Ann administers the group)
    await wait_for(lambda: bool([m for m in api.bot_messages(A) if f"#{g1}" in plain(m.text)
                                 and ("취소" in plain(m.text))]))
    assert (await service.get(g1)).status == "cancelled"
    await others_move_until(api, runner, [ann, bob, cat], (g2,), {g2: True})
    game = await service.get(g2)
    mine = turn_message(api, ann, g2, game.version)
    assert mine is not None
    bid = lowest_bid(api, mine)
    seen = len(api.bot_messages(ann.id))
    reply(api, ann, old, str(bid))
    await until(answered_or_moved(api, ann, seen, runner, g2, game.version))
    await api.settle(quiet=0.3)
    after = await service.get(g2)
    answers = [plain(m.text) for m in api.bot_messages(ann.id)[seen:]]
    assert after.version == game.version, (
        f"a reply to an old message of closed game #{g1} was bid in game #{g2}", answers)
    assert answers and "No sé de qué partida" in answers[-1], answers


# --- blocking the bot mid-games, then /start ------------------------------------------------
@pytest.mark.parametrize("how", ["cancelled", "removed"])
async def test_back_after_blocking_no_keyboard_of_a_closed_game_is_left(world, how) -> None:
    """Ann plays Coyote #1 (group "<b>Ops & Co</b>") and Koira #2 (a right-to-left group).
    On her turn in #1, her private message carries its buttons; she blocks the bot. Its
    reminder to her is refused, so the bot knows; then game #1 is cancelled by an admin
    (``cancelled``), or its clock runs out and, by the group's "remove" timeout policy, she
    is removed while Bob and Cat play on (``removed``). She sends /start: Koira #2's view
    comes back (README: "/start mid-game sends the message again"), and no message of her
    chat may still offer game #1's move buttons (README: a chat never holds a keyboard of a
    game that is over for her; a removed player "is told so in their private message").
    Before the fix game #1's old turn keyboard was still live in her chat after /start, under a
    text that says it is her turn. (Before the fix every closing path skipped her, the bot
    being unable to write to her, and /start re-sent only the games she still plays.)"""
    api, (ann, bob, cat), clock, runner, db = world
    service = service_of(runner)
    if how == "removed":
        await service.set_chat_setting(A, TITLES[A], "timeout_policy", "remove")
    g1 = await open_game(api, ann, [bob, cat], A, "/newgame")
    g2 = await open_game(api, bob, [ann, cat], B, "/newgame koira")
    await others_move_until(api, runner, [ann, bob, cat], (g1, g2), {g1: True, g2: False})
    assert len(keyboards_of(api, ann, g1)) == 1
    ann.block_bot()
    clock.advance(46 * 60)  # game #1's reminder: refused, so the bot learns she blocked it
    await until(_unreachable(service, ann.id))
    if how == "cancelled":
        await ann.send(A, "/cancel")
        await until(_status_is(service, g1, "cancelled"))
    else:
        clock.advance(15 * 60)
        await until(_out_of_one(service, ann.id, (g1,)))
        assert (await service.get(g1)).status == "running"
    await api.settle(quiet=0.2)
    seen = ids_of(api, ann)
    await ann.start_bot()
    await wait_for(lambda: any(plain(m.text).startswith(heading(B))
                               for m in new_messages(api, ann, seen)))
    await api.settle(quiet=0.3)
    back = [plain(m.text) for m in new_messages(api, ann, seen)]
    assert not any(t.startswith(heading(A)) for t in back), back  # (#1 is not shown again)
    left = keyboards_of(api, ann, g1)
    assert not left, (f"game #{g1} is {how} for her, yet Ann's chat still offers its move "
                      f"buttons after /start", [plain(m.text)[:80] for m in left])


async def test_a_deleted_chat_leaves_no_keyboard_to_close_at_every_comeback(world) -> None:
    """Ann, on her turn in Coyote #1, deletes her chat with the bot and blocks it (Telegram's
    "Delete and block"); #1 is cancelled meanwhile. Back with /start, the closing edit of
    #1's message finds it gone: a gone message carries no buttons, so the game is not
    listed as a keyboard left to close again. (Before the fix the record kept saying the
    message had her turn's buttons, and every later comeback tried to close it again.)"""
    api, (ann, bob, cat), clock, runner, db = world
    service = service_of(runner)
    g1 = await open_game(api, ann, [bob, cat], A, "/newgame")
    await others_move_until(api, runner, [ann, bob, cat], (g1,), {g1: True})
    assert len(keyboards_of(api, ann, g1)) == 1
    for message in api.chats[ann.id].messages.values():  # (the chat deleted on her side)
        message.deleted = True
    ann.block_bot()
    clock.advance(46 * 60)  # game #1's reminder: refused, so the bot learns she blocked it
    await until(_unreachable(service, ann.id))
    await ann.send(A, "/cancel")
    await until(_status_is(service, g1, "cancelled"))
    await api.settle(quiet=0.2)
    assert [g.id for g in await service.keyboards_left_of(ann.id)] == [g1]
    await ann.start_bot()

    async def none_left() -> bool:
        return not await service.keyboards_left_of(ann.id)
    await until(none_left)


def _unreachable(service, user_id: int):
    async def check() -> bool:
        return user_id not in await service.reachable([user_id])
    return check


def _status_is(service, game_id: int, status: str):
    async def check() -> bool:
        return (await service.get(game_id)).status == status
    return check


async def test_back_after_blocking_both_views_come_back_with_one_keyboard_each(world) -> None:
    """What held: Ann blocks the bot while it is Bob's turn in Coyote #1 and Koira #2; both
    turns pass to her while she is away (refused). /start brings back both views, each
    headed by its own group (markup as typed, the right-to-left title isolated), one live
    keyboard of each game, none of them twice; her own Coyote card is not shown."""
    api, (ann, bob, cat), clock, runner, db = world
    service = service_of(runner)
    users = {u.id: u for u in (ann, bob, cat)}
    g1 = await open_game(api, ann, [bob, cat], A, "/newgame")
    g2 = await open_game(api, bob, [ann, cat], B, "/newgame koira")
    await others_move_until(api, runner, [ann, bob, cat], (g1, g2), {g1: True, g2: True})
    # Ann moves in both; then she blocks the bot, and the others move until it is her turn.
    for g in (g1, g2):
        await _move(api, runner, users, g)
    ann.block_bot()
    for g in (g1, g2):
        for _ in range(20):
            if await to_act(runner, g) in (None, ann.id):
                break
            await _move(api, runner, users, g)
    assert await to_act(runner, g1) == ann.id and await to_act(runner, g2) == ann.id
    await until(_unreachable(service, ann.id))
    await api.settle(quiet=0.2)
    seen = ids_of(api, ann)
    await ann.start_bot()
    await wait_for(lambda: len(new_messages(api, ann, seen)) >= 2)
    await api.settle(quiet=0.3)
    for g, chat in ((g1, A), (g2, B)):
        game = await service.get(g)
        live = keyboards_of(api, ann, g)
        assert len(live) == 1, (g, [plain(m.text)[:60] for m in live])
        assert move_version_of(api, live[0]) == game.version, g
        assert plain(live[0].text).startswith(heading(chat) + "\n"), live[0].text
    view = plain(keyboards_of(api, ann, g1)[0].text)
    own = [line for line in view.splitlines() if "Ann" in line and "·" in line]
    assert own and all("❓" in line for line in own), view  # (her own card stays hidden)
    assert_in_their_languages(api, ann)


def move_version_of(api: FakeBotAPI, message: StoredMessage) -> int | None:
    for _, d in api.buttons(message):
        parts = (d or "").split(":")
        if parts[0] in MOVE_VERBS and len(parts) > 2 and parts[2].isdigit():
            return int(parts[2])
    return None


# --- /start with a closed game among running ones ---------------------------------------------
async def test_start_brings_each_running_games_view_and_none_of_a_cancelled_one(world) -> None:
    """What held: Ann plays Coyote #1 (Korean group), Koira #2 (right-to-left group) and
    Coyote #3 (a topic "Noche & <Coyote>" of the forum "Foro <i>&amp;"), her turn in #1 and
    #2; #3 is cancelled. /start: a view of #1 and of #2 each, in place of the one before,
    each headed by its own group (markup shown as typed); #3 is not sent again, and its
    last message says it was cancelled, without buttons. One live keyboard a game."""
    api, (ann, bob, cat), clock, runner, db = world
    service = service_of(runner)
    topic = api.create_topic(C, TOPIC, ann)
    await api.settle(quiet=0.05)
    g1 = await open_game(api, ann, [bob, cat], A, "/newgame")
    g2 = await open_game(api, bob, [ann, cat], B, "/newgame koira")
    g3 = await open_game(api, cat, [ann, bob], C, "/newgame", thread=topic)
    await others_move_until(api, runner, [ann, bob, cat], (g1, g2, g3),
                            {g1: True, g2: True, g3: False})
    await ann.send(C, "/cancel", thread_id=topic)
    await until(_status_is(service, g3, "cancelled"))
    await api.settle(quiet=0.2)
    third = (await service.get(g3)).player(ann.id).private_message_id
    seen = ids_of(api, ann)
    await ann.start_bot()
    await wait_for(lambda: len(new_messages(api, ann, seen)) >= 2)
    await api.settle(quiet=0.3)
    fresh = new_messages(api, ann, seen)
    assert sorted(plain(m.text).splitlines()[0] for m in fresh) == \
        sorted([heading(A), heading(B)]), [plain(m.text)[:60] for m in fresh]
    for g in (g1, g2):
        assert len(keyboards_of(api, ann, g)) == 1, g
    assert not keyboards_of(api, ann, g3)
    last = api.get_message(ann.id, third)
    assert last is not None and not last.deleted and not api.buttons(last)
    assert plain(last.text).startswith(heading(C, TOPIC) + "\n"), last.text
    assert "cancel" in plain(last.text).lower(), last.text
    assert_in_their_languages(api, ann)


