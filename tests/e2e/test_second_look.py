"""A second look at a session's changes (typed moves, replies placed by their message's
game, messages measured after parsing, a reply's lookup): the faults it found, fixed. A
refusal of typed moves while a hand's message was on its way was taken back (its record
comes when the delivery ends, so it refused moves typed on the message itself)."""

from __future__ import annotations

import asyncio
import re

import pytest

from tests.e2e.harness import bot_table, hold, move_version, private_turn_message, wait_for
from tests.e2e.test_stale_input import _game_with_two_ais
from tests.fakebot import FakeBotAPI, FakeUser

GROUP = -100_2525


def said(api: FakeBotAPI, chat_id: int, text: str) -> list:
    return [m for m in api.bot_messages(chat_id) if text in (m.text or "")]


def plain(text: str | None) -> str:
    return (text or "").replace("\u2068", "").replace("\u2069", "")


async def ann_with_two_computers(api: FakeBotAPI, ann: FakeUser) -> None:
    await _game_with_two_ais(api, ann, GROUP)


def round_offer(api: FakeBotAPI, ann: FakeUser, round_no: int):
    """Ann's newest private message if it is her turn in round ``round_no``."""
    message = private_turn_message(api, ann)
    return message if message is not None and f"round {round_no}" in (message.text or "") \
        else None


async def first_turn(api: FakeBotAPI, ann: FakeUser) -> tuple[object, int]:
    """Ann's first turn (the computers may have ended a round before it): her private
    message and its round."""
    await wait_for(lambda: private_turn_message(api, ann) is not None)
    await api.settle()
    message = private_turn_message(api, ann)
    return message, int(re.search(r"round (\d+)", message.text or "").group(1))


# --- 1. a typed move while the new round's delivery is still under way ------------------
@pytest.mark.parametrize("as_reply", [False, True], ids=["typed", "replying-to-it"])
async def test_a_bid_typed_after_the_rounds_cards_arrived_is_not_refused(
        pg_db, pg_url, as_reply) -> None:
    """Ann bids 500 (typed), a computer calls: she lost round 1 and opens round 2. Her new
    private message (round 2, her turn, "you can also type any number here") reaches her at
    once; the group's new table is slow (the group's 20 messages a minute are spent, say).
    She types 3 (or replies 3 to that message), after the message arrived: it is bid,
    though the hand's private message is recorded only when the whole delivery ends."""
    async with bot_table(pg_url, GROUP, "G", ["Ann"]) as (api, (ann,), _runner):
        await ann_with_two_computers(api, ann)
        first, n = await first_turn(api, ann)
        held, release = hold(api, "sendMessage", lambda p: p.get("chat_id") == GROUP
                             and f"round {n + 1}" in str(p.get("text")))
        await ann.send(ann.id, "500")
        await asyncio.wait_for(held.wait(), 30)  # the new table is on its way (slowly)
        await wait_for(lambda: (m := round_offer(api, ann, n + 1)) is not None
                       and (move_version(api, m) or 0) > (move_version(api, first) or 0))
        offer = round_offer(api, ann, n + 1)
        assert "type any number" in (offer.text or "")
        typed = api.store_message(api.private_chat(ann), from_bot=False, sender_id=ann.id,
                                  text="3", entities=[],
                                  reply_to=offer.message_id if as_reply else None)
        api.enqueue_update({"message": api.message_dict(typed)})
        assert typed.message_id > offer.message_id  # typed after the cards arrived

        def refused() -> list:
            return said(api, ann.id, "reached you") + said(api, ann.id, "cannot tell which")

        try:
            await wait_for(lambda: bool(refused()), timeout=3)
        except TimeoutError:
            pass
        refused = refused()
        release.set()
        await api.settle()
        assert not refused, plain(refused[-1].text)
        assert said(api, GROUP, "bids 3"), "the bid typed on the round's own message was lost"



async def test_a_player_back_after_blocking_the_bot_can_type_her_bid(pg_db, pg_url) -> None:
    """Ann blocks the bot during round 1 (the bot's next private message gets a 403: it
    stops writing to her) and unblocks it from her settings, which sends no /start. In round
    2 it is her turn; the group's table and 🎴 show her the game, and she types her bid in
    the private chat: it counts, though her private message was last recorded in round 1
    (no round-2 message is sent to a player who refused); and as she wrote, the bot writes
    to her again: her private view comes back."""
    async with bot_table(pg_url, GROUP, "G", ["Ann"]) as (api, (ann,), _runner):
        await ann_with_two_computers(api, ann)
        _first, n = await first_turn(api, ann)
        bid = api.store_message(api.private_chat(ann), from_bot=False, sender_id=ann.id,
                                text="500", entities=[])
        ann.block_bot()  # (just after her bid: the bot's next messages to her fail)
        api.enqueue_update({"message": api.message_dict(bid)})
        await wait_for(lambda: bool(said(api, GROUP, f"round {n + 1}")))
        await api.settle()
        ann.blocked = False  # unblocked in her settings: no /start
        await ann.send(ann.id, "90")  # (above any bid the computers may have made)
        await api.settle()
        refused = said(api, ann.id, "reached you")
        assert not refused, f"{len(refused)} refusals: {plain(refused[-1].text)}"
        assert said(api, GROUP, "bids 90")
        # She wrote to the bot, so it may write to her again: her view of a later round
        # (her 90 may have lost round 2 already) is there.
        await wait_for(lambda: any(int(r) > n for m in api.bot_messages(ann.id)
                                   for r in re.findall(r"round (\d+)", m.text or "")))


# --- 3. the closed table of a long round ----------------------------------------------------
async def test_a_long_rounds_closed_table_keeps_its_heading(pg_db, pg_url) -> None:
    """(Checked, right.) The live table keeps its heading by fitting its moves
    (``table_text``); the closed table it becomes at the round's end does not
    (``closed_table_text``, cut by ``fit_lines`` keeping the *last* lines), but its 24 moves
    fit: ten 64-character names, a long masked round, Spanish, came to 3,533 characters."""
    from tests.e2e.test_size_limits import GROUP as SIZES
    from tests.e2e.test_size_limits import Audit, open_lobby_any, play_coyote, spanish
    from tests.fakebot.html_check import parse_html

    async with bot_table(pg_url, SIZES, "Coyotes", [spanish(i) for i in range(1, 11)]) as (
            api, players, _runner):
        for user in players:
            user.language_code = "es"
        audit = Audit(api)
        await open_lobby_any(api, players, "/newgame", ("🎭", "❤️", "❤️"))
        await play_coyote(api, players, moves={1: 1, 2: 26}, masks_after=14, stop_at=(3, 0))
        await api.settle()
        audit.check()
        closed = [parse_html(str(r.params["text"]), strict_amp=False)[0]
                  for r in api.requests
                  if r.method == "editMessageText" and r.params.get("chat_id") == SIZES
                  and "⏹" in str(r.params.get("text"))]
        assert closed, "no closed table"
        headless = [t for t in closed if "#1 ·" not in t.splitlines()[0]]
        assert not headless, f"the closed table opens with {headless[0].splitlines()[:2]}"


# --- 2. a reply in the private chat ----------------------------------------------------------
def lowest_bid(api: FakeBotAPI, message) -> int:
    shown = api.get_message(message.chat_id, message.message_id)
    return min(int(d.split(":")[3]) for _, d in api.buttons(shown)
               if d and d.startswith("b:") and d.count(":") == 3)


async def test_a_number_replying_to_the_bots_hint_is_bid(pg_db, pg_url) -> None:
    """It is Ann's turn (her only game). She types "seven"; the bot answers, under the
    game's group, "To bid, type a whole number from 1 to …". She replies to that answer with
    the number, as one answers a question: it is bid (a reply to no game's message goes to
    the game where it is her turn while she plays only one)."""
    async with bot_table(pg_url, GROUP, "G", ["Ann"]) as (api, (ann,), _runner):
        await ann_with_two_computers(api, ann)
        await wait_for(lambda: private_turn_message(api, ann) is not None)
        await api.settle()
        bid = lowest_bid(api, private_turn_message(api, ann))
        await ann.send(ann.id, "seven")
        await wait_for(lambda: bool(said(api, ann.id, "type a whole number")))
        hint = said(api, ann.id, "type a whole number")[-1]
        msg = api.store_message(api.private_chat(ann), from_bot=False, sender_id=ann.id,
                                text=str(bid), entities=[], reply_to=hint.message_id)
        api.enqueue_update({"message": api.message_dict(msg)})
        await api.settle()
        assert not said(api, ann.id, "cannot tell which game"), plain(
            said(api, ann.id, "cannot tell which game")[-1].text)
        assert said(api, GROUP, f"bids {bid}")


async def test_placing_a_reply_reads_no_whole_table_of_old_games(pg_db) -> None:
    """``game_of_private_message`` matches any game, running or long finished, by
    ``private_messages.message_id`` or ``hand_first_id``: with 50,000 finished games it
    reads the user's rows by ``ix_private_messages_user_id``, not every game's (a
    sequential scan took 10 ms at 200,000 rows and grew with the league's history)."""
    from sqlalchemy import event, text

    from league.service import MatchService

    async with pg_db.engine.begin() as conn:
        for sql in (
            "INSERT INTO chats (id, created_at, game_options) VALUES (-100, now(), '{}')",
            "INSERT INTO users (id, first_name, can_message, created_at, updated_at) "
            "SELECT g, 'u' || g, true, now(), now() FROM generate_series(1, 200) g",
            "INSERT INTO games (id, chat_id, thread_id, kind, options, status, version, seed, "
            "creator_id, created_at) SELECT g, -100, 0, 'coyote', '{}', 'finished', 10, g, 1, "
            "now() FROM generate_series(1, 50000) g",
            "INSERT INTO game_players (game_id, user_id, name, is_ai, joined_at, seat) "
            "SELECT g, (g * 7 + s * 13) % 200 + 1, 'x', false, now(), s "
            "FROM generate_series(1, 50000) g, generate_series(0, 3) s",
            "INSERT INTO private_messages (game_id, user_id, message_id, hand, hand_first_id) "
            "SELECT game_id, user_id, game_id * 10 + seat, 3, game_id * 10 + seat - 1 "
            "FROM game_players",
            "ANALYZE"):
            await conn.execute(text(sql))
    seen: list[tuple[str, object]] = []

    def record(_conn, _cursor, statement, parameters, _context, _many) -> None:
        if "private_messages" in statement:
            seen.append((statement, parameters))

    event.listen(pg_db.engine.sync_engine, "before_cursor_execute", record)
    try:
        assert await MatchService(pg_db).game_of_private_message(5, 7) is None
    finally:
        event.remove(pg_db.engine.sync_engine, "before_cursor_execute", record)
    assert seen
    async with pg_db.engine.connect() as conn:
        plan = "\n".join(row[0] for row in await conn.exec_driver_sql(
            "EXPLAIN " + seen[0][0], seen[0][1]))
    assert "Seq Scan on private_messages" not in plan, plan


# --- 3. a tournament's second round --------------------------------------------------------
async def test_a_later_rounds_announcement_lists_every_table(sqlite_url: str) -> None:
    """60 players with ordinary long names (64 characters) play round 1 of a Coyote
    tournament. The round-2 announcement is the message that says who plays at which table
    and mentions (notifies) each of them: every table is listed, the standings (40 lines)
    after them, cut at the end if need be (they came first, and tables were cut)."""
    from league.service import MatchService
    from league.store.db import Database
    from league.store.snapshots import UserRef
    from telegram_app.i18n import use_language
    from telegram_app.tournaments import news
    from tests.e2e.test_size_limits import spanish
    from tests.league.test_tournaments import play_table, signed_up

    users = [UserRef(i, spanish(i), language="en") for i in range(1, 61)]
    service = MatchService(Database(sqlite_url), new_seed=iter(range(5, 9999)).__next__)
    cup = await signed_up(service, "coyote", users)
    cup = await service.start_tournament(cup.id, users[0].id, is_admin=False,
                                         version=cup.version)
    for table in cup.tables_of(1):
        await play_table(service, table.game_id)
    [cup] = await service.advance_tournaments()
    assert cup.round == 2
    with use_language("en"):
        text = news.round_text(cup)
    tables = cup.tables_of(2)
    shown = [t.table for t in tables if f"Table {t.table}:" in text]
    assert len(shown) == len(tables), (
        f"the round-2 announcement lists {len(shown)} of {len(tables)} tables")
