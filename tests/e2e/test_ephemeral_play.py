"""Playing from the group alone, through the real Application and the fake Bot API, on
PostgreSQL: Dan never opens a private chat with the bot (the fake answers 403 to every
private message to him), presses 🎴 on the group's table and plays whole games of Coyote
and of Koira through ephemeral messages (Bot API 10.2: messages in the group only he sees),
which the bot edits as the game moves on and deletes when their hand ends. Nobody else ever
sees them, and no group message shows a hidden card. Also: the 👀 alert where Telegram
refuses an ephemeral message, a stale press on an old ephemeral keyboard, and a non-player's
🎴."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from engine import GAMES
from league.store.snapshots import GameSnapshot
from tests.e2e.harness import (
    BotRunner,
    choose,
    move_version,
    press_move,
    private_turn_message,
    wait_for,
)
from tests.e2e.koira_play import (
    KOIRA,
    carry_out,
    computer_choice,
    koira_turn,
    koira_version,
)
from tests.e2e.koira_play import service_of as service
from tests.fakebot import FakeBotAPI, FakeUser, StoredMessage, render_transcript

GROUP = -100616
CARDS = "🎴 My cards"
MOVED = "You already moved this turn."  # (a toast: a stale tap of a turn one played)


@pytest.fixture
async def table(request, pg_db, pg_url: str
                ) -> AsyncIterator[tuple[FakeBotAPI, list[FakeUser], BotRunner]]:
    """Ann and Bob started the bot; Dan never did (and never will in these tests). On
    PostgreSQL, or on SQLite with the parameter ``"sqlite"``."""
    sqlite = getattr(request, "param", "postgresql") == "sqlite"
    url = request.getfixturevalue("sqlite_url") if sqlite else pg_url
    async with FakeBotAPI() as api:
        api.add_group(GROUP, "Group night", admins=[1])
        players = [api.add_user(i, name) for i, name in enumerate(["Ann", "Bob", "Dan"], 1)]
        for user in players[:2]:
            await user.start_bot()
        runner = BotRunner(api, url)
        await runner.start()
        try:
            yield api, players, runner
        finally:
            await runner.stop()


async def start(api: FakeBotAPI, players: list[FakeUser], command: str, chat: int = GROUP,
                thread: int | None = None) -> int:
    """Ann opens a lobby with ``command`` (in forum topic ``thread``), Bob and Dan join, Ann
    starts: the game's id."""
    ann, bob, dan = players
    await ann.send(chat, command, thread_id=thread)
    await wait_for(lambda: bool(api.find_messages(chat, "new game #")))
    await api.settle(quiet=0.05)
    lobby = api.find_messages(chat, "new game #")[-1]
    await bob.press_and_settle(lobby, "✋ Join", quiet=0.02)
    answer = await dan.press_and_settle(lobby, "✋ Join", quiet=0.02)
    assert answer.get("url") or "joined" in (answer.get("text") or "").lower(), answer
    await ann.press_and_settle(api.get_message(chat, lobby.message_id), "▶️ Start")
    await wait_for(lambda: table_message(api, chat) is not None)
    await api.settle(quiet=0.05)
    data = next(d for t, d in api.buttons(table_message(api, chat)) if t == CARDS)
    return int(data.split(":")[1])


def table_message(api: FakeBotAPI, chat: int = GROUP) -> StoredMessage | None:
    """The newest group message carrying 🎴 (the table)."""
    tables = [m for m in api.bot_messages(chat) if any(t == CARDS for t, _ in api.buttons(m))]
    return tables[-1] if tables else None


def live(api: FakeBotAPI, user: FakeUser, chat: int = GROUP) -> StoredMessage | None:
    """``user``'s ephemeral message in the group now (failing if there are several)."""
    found = api.ephemeral_messages(chat, user.id)
    assert len(found) <= 1, [m.text for m in found]
    return found[0] if found else None


class GroupPlayer:
    """Dan: plays from the group only. On his turn he uses his ephemeral message if it
    carries the turn's buttons (the bot edits them in when his turn begins), else presses
    🎴 on the table for a new one."""

    def __init__(self, api: FakeBotAPI, user: FakeUser, version_of) -> None:
        self.api, self.user, self.version_of = api, user, version_of
        self.peeks = 0  # 🎴 presses
        self.edited_in = 0  # turns whose buttons came by an edit of the message he had

    async def turn(self, version: int) -> StoredMessage:
        api = self.api

        def ready() -> StoredMessage | None:
            message = live(api, self.user)
            return message if message is not None and \
                self.version_of(api, message) == version else None

        had = live(api, self.user)
        if had is not None:
            try:
                await wait_for(lambda: ready() is not None, timeout=5)
                self.edited_in += 1
                return ready()  # type: ignore[return-value]
            except TimeoutError:
                raise AssertionError(f"Dan's ephemeral message was not given his turn's "
                                     f"buttons: {had.text!r} {api.buttons(had)}") from None
        table = table_message(api)
        assert table is not None
        answer = await self.user.press_and_settle(table, CARDS, quiet=0.02)
        assert not answer.get("show_alert") and not answer.get("text"), answer
        self.peeks += 1
        await wait_for(lambda: ready() is not None, timeout=15)
        return ready()  # type: ignore[return-value]


def nobody_else_saw(api: FakeBotAPI, dan: FakeUser, others: list[FakeUser]) -> None:
    """Dan's ephemeral messages reached Dan alone, and no message anyone else sees shows a
    player's own view (a hidden card)."""
    sent = api.calls("sendMessage")
    assert all(r.params.get("receiver_user_id") in (None, dan.id) for r in sent)
    assert all(m.receiver_id == dan.id for m in api.ephemeral_messages(GROUP, None, True))
    for other in others:
        seen = render_transcript(api, GROUP, viewer=other.id)
        assert "(ephemeral" not in seen
        assert all(m.receiver_id in (None, other.id)
                   for m in api.messages(GROUP, include_deleted=True, viewer=other.id))
    for entry in api.log:
        if entry.chat_id == GROUP and entry.kind in ("send", "edit") and entry.receiver is None:
            assert "(yours)" not in (entry.text or "") and "Your hand" not in (entry.text or "")
    assert not api.bot_messages(dan.id), "the bot reached Dan's private chat?"


def no_message_id_zero(api: FakeBotAPI) -> None:
    """No call aimed at a group message with id 0 (an ephemeral press taken for one)."""
    for method in ("editMessageText", "editMessageReplyMarkup", "deleteMessage"):
        assert not [r for r in api.calls(method) if r.params.get("message_id") == 0], method


async def coyote_mover(api: FakeBotAPI, runner: BotRunner, game_id: int
                       ) -> tuple[GameSnapshot, int | None]:
    await api.settle(quiet=0.05)
    game = await service(runner).get(game_id)
    if game.status != "running":
        return game, None
    return game, GAMES[game.kind].current_seat(game.state)


@pytest.mark.parametrize("table", ["postgresql", "sqlite"], indirect=True)
async def test_a_coyote_game_from_the_group(table) -> None:
    api, players, runner = table
    ann, bob, dan = players
    game_id = await start(api, players, "/newgame")
    assert [t for t, _ in api.buttons(table_message(api))][0] == CARDS
    dan_plays = GroupPlayer(api, dan, move_version)
    users = {u.id: u for u in players}
    stale_checked, turns = False, 0
    while True:
        game, seat = await coyote_mover(api, runner, game_id)
        if seat is None:
            break
        user = users[game.at_seat(seat).user_id]
        if user is dan:
            message = await dan_plays.turn(game.version)
            own = next(line for line in message.text.splitlines() if "(yours)" in line)
            assert "Dan" in own  # his own view: every card but his
            data = choose(api, message)
            if not stale_checked and data.startswith("b:"):
                # The bot's edit after his bid fails (twice: a retry), so the client still
                # shows the old keyboard, and he presses a bid on it: he moved this turn
                # already (a toast), and the pressed ephemeral message is redrawn as the game
                # is now (no buttons).
                api.fail_next("editEphemeralMessageText", 500, "Internal Server Error",
                              count=2)
                answer = await dan.press_and_settle(message, data, quiet=0.05)
                assert not answer.get("show_alert"), answer
                assert live(api, dan) is message and move_version(api, message) is not None
                stale = await dan.press_raw_on(message, data)
                answer = await api.wait_answer(stale)
                assert not answer["show_alert"] and answer["text"] == MOVED, answer
                await api.settle(quiet=0.05)
                assert live(api, dan) is message
                assert move_version(api, message) is None, api.buttons(message)
                redrawn = [r for r in api.calls("editEphemeralMessageText")
                           if r.params["ephemeral_message_id"] == message.ephemeral_id]
                assert len(redrawn) >= 3  # the two that failed, then the redraw
                stale_checked = True
                turns += 1
                continue
        else:
            await wait_for(lambda u=user, g=game: (m := private_turn_message(api, u))
                           is not None and move_version(api, m) == g.version)
            message = private_turn_message(api, user)
            data = choose(api, message)
        # (🐺 Coyote! asks first, on the same message: then "Yes")
        answer = await press_move(api, user, message, data, quiet=0.02)
        assert not answer.get("show_alert"), answer
        if user is dan:  # his turn ended: the buttons went (or the round, and the message)
            await api.settle(quiet=0.05)
            after = live(api, dan)
            assert after is None or move_version(api, after) is None, api.buttons(after)
        turns += 1
        assert turns < 400
    assert game.status == "finished"
    assert api.find_messages(GROUP, "is over!")
    assert stale_checked and dan_plays.peeks >= 1 and dan_plays.edited_in >= 1, \
        (stale_checked, dan_plays.peeks, dan_plays.edited_in)
    assert live(api, dan) is None  # deleted at the end
    # Each round's message went with its round: at most one was ever there at a time, and
    # every one of them was deleted.
    assert all(m.deleted for m in api.ephemeral_messages(GROUP, dan.id, True))
    assert api.calls("deleteEphemeralMessage")
    nobody_else_saw(api, dan, [ann, bob])
    no_message_id_zero(api)


async def koira_move(api: FakeBotAPI, user: FakeUser, message: StoredMessage,
                     game: GameSnapshot) -> None:
    """The computer player's choice for ``user``, made with the buttons of ``message``."""
    answer, _ = await carry_out(api, user, message, game,
                                computer_choice(game, game.player(user.id).seat))
    assert not answer.get("show_alert"), answer


async def test_a_koira_game_from_the_group(table) -> None:
    api, players, runner = table
    ann, bob, dan = players
    service(runner).new_seed = lambda: 20261212
    game_id = await start(api, players, "/newgame koira")
    dan_plays = GroupPlayer(api, dan, koira_version)
    users = {u.id: u for u in players}
    turns, hands = 0, set()
    while True:
        await api.settle(quiet=0.05)
        game = await service(runner).get(game_id)
        if game.status != "running":
            break
        seat = KOIRA.current_seat(game.state)
        user = users[game.at_seat(seat).user_id]
        if user is dan:
            message = await dan_plays.turn(game.version)
            assert "Your hand:" in message.text
            hands.add(KOIRA.hand_number(game.state))
        else:
            await wait_for(lambda u=user, g=game: (m := koira_turn(api, u)) is not None
                           and koira_version(api, m) == g.version)
            message = koira_turn(api, user)
        await koira_move(api, user, message, game)
        turns += 1
        assert turns < 800
    assert game.status == "finished"
    assert api.find_messages(GROUP, "is over!")
    assert len(hands) == 2, hands  # he played in both phases
    assert dan_plays.peeks >= 2  # (a new phase is a new hand: its message is a new one)
    assert live(api, dan) is None
    assert all(m.deleted for m in api.ephemeral_messages(GROUP, dan.id, True))
    nobody_else_saw(api, dan, [ann, bob])
    no_message_id_zero(api)


async def test_the_alert_where_telegram_refuses_and_a_strangers_press(table) -> None:
    api, players, runner = table
    ann, bob, dan = players
    eve = api.add_user(9, "Eve")
    await start(api, players, "/newgame")
    tbl = table_message(api)
    api.fail_next("sendMessage", 400, "Bad Request: not enough rights to send messages",
                  when=lambda p: p.get("receiver_user_id") is not None)
    answer = await dan.press_and_settle(tbl, CARDS, quiet=0.05)
    assert answer["show_alert"] and answer["text"].startswith("Cards you can see:"), answer
    assert len(answer["text"]) <= 200 and "Dan" not in answer["text"]
    assert live(api, dan) is None
    # The next press works, and answers with nothing but the message.
    answer = await dan.press_and_settle(tbl, CARDS, quiet=0.05)
    assert not answer.get("text") and live(api, dan) is not None
    # A second 🎴 sends a new one and deletes the one before.
    first = live(api, dan)
    await dan.press_and_settle(tbl, CARDS, quiet=0.05)
    assert live(api, dan) is not first and first.deleted
    # Someone who does not play: the polite refusal, nothing sent.
    sends = len(api.calls("sendMessage"))
    answer = await eve.press_and_settle(tbl, CARDS, quiet=0.05)
    assert answer["show_alert"] and "not playing" in answer["text"].lower(), answer
    assert len(api.calls("sendMessage")) == sends
    nobody_else_saw(api, dan, [ann, bob, eve])


async def test_in_a_forum_topic(table) -> None:
    api, players, runner = table
    ann, bob, dan = players
    forum = -100617
    api.add_group(forum, "Forum", type="supergroup", is_forum=True, admins=[1])
    topic = api.create_topic(forum, "Coyote", ann)
    await start(api, players, "/newgame", chat=forum, thread=topic)
    tbl = table_message(api, forum)
    assert tbl.thread_id == topic
    answer = await dan.press_and_settle(tbl, CARDS, quiet=0.05)
    assert not answer.get("show_alert"), answer
    shown = live(api, dan, forum)
    assert shown is not None and shown.thread_id == topic
    # (in the topic itself: no "👥 Forum › Coyote" heading, which the private chat has)
    assert shown.text.startswith("🐺 Game #1 · round 1"), shown.text
