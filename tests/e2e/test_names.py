"""What players read names the right group and the right people: every private message of a
game says which group (and forum topic) it is from, and a player's new name shows everywhere
once the bot has seen it in any update, without a database write per press."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import event

from tests.clock import Clock
from tests.e2e.harness import bot_table, mover, open_lobby, play_turn, press, wait_for
from tests.fakebot import FakeBotAPI, FakeUser, StoredMessage

ALPHA = -100601
BETA = -100602
ISOLATES = str.maketrans("", "", "\u2068\u2069")


def first_line(message: StoredMessage) -> str:
    return (message.text or "").translate(ISOLATES).splitlines()[0]


async def poke(api: FakeBotAPI, user: FakeUser, message: StoredMessage) -> None:
    """``user`` presses a dead button on ``message`` (answered with an alert)."""
    query = await user.press_raw(message.chat_id, message.message_id, "j:1:1")
    await api.wait_answer(query)
    await api.settle()


def about(api: FakeBotAPI, user: FakeUser, game_id: int) -> list[StoredMessage]:
    """The user's private messages about game ``game_id``."""
    return [m for m in api.bot_messages(user.id)
            if f"game #{game_id}" in (m.text or "").lower()]


async def test_private_messages_name_their_group_and_topic(pg_db, pg_url) -> None:
    clock = Clock(datetime(2026, 5, 4, 9, 0, tzinfo=UTC))
    async with bot_table(pg_url, ALPHA, "Alpha group", ["Ann", "Bob", "Cat"], clock=clock,
                         sweep_interval=0.05) as (api, players, _runner):
        ann, bob, cat = players
        beta_title = "Beta & <friends> of the very long coyote league title"
        api.add_group(BETA, beta_title, type="supergroup", is_forum=True, admins=[2])

        # Game #1 in Alpha: its first round ends at once (a bid of 500, called).
        await open_lobby(api, players, ALPHA)
        lobby = api.find_messages(ALPHA, "new game #1")[-1]
        await ann.press_and_settle(lobby, "▶️ Start")
        first = await mover(api, players)
        await first.send(first.id, "500")
        await wait_for(lambda: bool(api.find_messages(ALPHA, "bids 500")))
        await api.settle()
        await press(api, await mover(api, players), "🐺 Coyote!", ALPHA)
        # (the round's end is the next round's private message: nobody's old one is closed)
        await wait_for(lambda: all(any("· round 2" in (m.text or "") for m in about(api, u, 1))
                                   for u in players))

        # Game #2 in a topic of Beta, whose name the bot saw when it was created.
        topic = api.create_topic(BETA, "Coyote", bob)
        await bob.send(BETA, "/newgame", thread_id=topic)
        await wait_for(lambda: bool(api.find_messages(BETA, "new game #2")))
        await api.settle(quiet=0.05)
        lobby = api.find_messages(BETA, "new game #2")[-1]
        for user in (ann, cat):
            await user.press_and_settle(lobby, "✋ Join", quiet=0.02)
        await bob.press_and_settle(api.get_message(BETA, lobby.message_id), "▶️ Start")
        await wait_for(lambda: all(about(api, u, 2) for u in players))

        clock.advance(46 * 60)  # three quarters of the standard hour: both turns' reminders
        await wait_for(lambda: sum(1 for u in players for m in api.bot_messages(u.id)
                                   if "it is your turn in game" in (m.text or "")) == 2)
        await api.settle()

        alpha_line = "👥 Alpha group"
        beta_line = "👥 Beta & <friends> of the … › Coyote"
        assert len(beta_line) - len("👥 ") <= 34 + 2  # one phone line (34), and the ellipsis
        kinds = set()
        for user in players:
            for game_id, line in ((1, alpha_line), (2, beta_line)):
                messages = about(api, user, game_id)
                assert messages, (user, game_id)
                for message in messages:
                    assert first_line(message) == line, (user, message.text)
                    text = message.text or ""
                    kinds |= {kind for kind, mark in (
                        ("cards", "❤️"), ("your turn", "Your turn:"),
                        ("round end", "· round 2"),
                        ("timeout note", "it is your turn in game")) if mark in text}
        assert kinds == {"cards", "your turn", "round end", "timeout note"}
        # The HTML was escaped (the fake refuses a bare "&" or "<") and the title bold.
        message = about(api, ann, 2)[-1]
        assert message.html is not None and "<b>\u2068Beta &amp; &lt;friends&gt;" in \
            message.html

        # A renamed topic and group are named as they are now.
        api.edit_topic(BETA, topic, "Tuesdays", bob)
        api.rename_group(ALPHA, "Alpha league", ann)
        await api.settle()
        await ann.start_bot()  # sends the current views again
        await wait_for(lambda: any(first_line(m) == "👥 Alpha league"
                                   for m in about(api, ann, 1)))
        await wait_for(lambda: any(first_line(m).endswith("› Tuesdays")
                                   for m in about(api, ann, 2)))


async def test_a_new_name_shows_everywhere(pg_db, pg_url) -> None:
    async with bot_table(pg_url, ALPHA, "Alpha group", ["Alex", "Bob", "Cat"]) as (
            api, players, runner):
        alex, bob, cat = players
        # A rated game that ends quickly: each makes a move, then Alex and Bob leave (a game
        # is rated when three players made a move of their own; a leave is none).
        lobby = await open_lobby(api, players, ALPHA)
        await alex.press_and_settle(lobby, "▶️ Start")
        moved: set[int] = set()
        while len(moved) < 3:
            moved.add((await mover(api, players)).id)
            assert await play_turn(api, players, ALPHA)
        await alex.send(ALPHA, "/leave")
        await api.settle()
        await bob.send(ALPHA, "/leave")
        await api.settle()
        await wait_for(lambda: bool(api.find_messages(ALPHA, "is over!")))
        await bob.send(ALPHA, "/standings")
        await wait_for(lambda: bool(api.find_messages(ALPHA, "Standings this week")))
        assert "Alex" in api.find_messages(ALPHA, "Standings this week")[-1].text

        # Names unchanged: presses cost no write of a name.
        engine = runner.app.bot_data["coyote"].db.engine.sync_engine
        writes: list[str] = []

        def count(conn, cursor, statement, *args) -> None:  # type: ignore[no-untyped-def]
            if statement.lstrip().upper().startswith("UPDATE") and \
                    ("first_name" in statement or "game_players SET name" in statement):
                writes.append(statement)

        event.listen(engine, "before_cursor_execute", count)
        try:
            table = api.bot_messages(ALPHA)[0]
            for _ in range(3):
                await poke(api, alex, table)
            assert writes == []

            # Alex becomes Alexander; the bot sees it in a callback query (a dead button).
            alex.rename("Alexander", "the Great", "alexg")
            await poke(api, alex, table)
            assert len(writes) >= 1
            seen = len(writes)
            await poke(api, alex, table)
            assert len(writes) == seen  # written once, on the change
        finally:
            event.remove(engine, "before_cursor_execute", count)

        await bob.send(ALPHA, "/standings")
        await wait_for(lambda: len(api.find_messages(ALPHA, "Standings this week")) == 2)
        standings = api.find_messages(ALPHA, "Standings this week")[-1].text
        assert "Alexander the Great" in standings and "Alex ·" not in standings
        await bob.send(ALPHA, "/history")
        await wait_for(lambda: bool(api.find_messages(ALPHA, "Last games in this chat")))
        history = api.find_messages(ALPHA, "Last games in this chat")[-1].text
        assert "Alexander the Great" in history and "Alex " not in history

        # The lobby shows the name as it is now; a rename seen in a typed message counts too.
        await bob.send(ALPHA, "/newgame")
        await wait_for(lambda: bool(api.find_messages(ALPHA, "new game #2")))
        await api.settle()
        lobby = api.find_messages(ALPHA, "new game #2")[-1]
        await alex.press_and_settle(lobby, "✋ Join")
        assert "Alexander the Great" in api.get_message(ALPHA, lobby.message_id).text
        alex.rename("Sasha")
        await alex.send(alex.id, "hello")  # typed in the private chat
        await api.settle()
        await cat.press_and_settle(api.get_message(ALPHA, lobby.message_id), "✋ Join")
        text = api.get_message(ALPHA, lobby.message_id).text
        assert "Sasha" in text and "Alexander" not in text


async def test_a_new_client_language_shows_in_the_next_private_message(pg_db, pg_url) -> None:
    """Bob's Telegram app switches to Spanish mid-game; the bot sees it in a press (whose
    alert is Spanish already): his next private view of the game is Spanish too, not the
    language his client had when he joined."""
    async with bot_table(pg_url, ALPHA, "Alpha group", ["Ann", "Bob", "Cat"]) as (
            api, players, _runner):
        ann, bob, _cat = players
        lobby = await open_lobby(api, players, ALPHA)
        await ann.press_and_settle(lobby, "▶️ Start")
        await wait_for(lambda: bool(about(api, bob, 1)))
        await api.settle()
        bob.language_code = "es"
        await poke(api, bob, api.bot_messages(ALPHA)[0])
        before = api.bot_messages(bob.id)[-1].text
        # Bids until Bob's view is drawn again (at his turn: a move redraws the view of the
        # player to act only, the mover's at their next turn).
        for bid in range(1, 7):
            if api.bot_messages(bob.id)[-1].text != before:
                break
            user = await mover(api, players)
            await user.send(user.id, str(bid))
            await api.settle()
        assert "Partida #1" in api.bot_messages(bob.id)[-1].text
