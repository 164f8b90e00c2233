"""A Koira game and a Coyote game at once in one forum's two topics, the same three players
(Ann, Bob, Cat) in both: buttons, private messages and typed moves each reach their own game
while it is Ann's turn in both; both played to the end, each counts in its own league
(``/standings koira``, ``/top koira``, /rating, /profile and /history)."""

from __future__ import annotations

from engine import GAMES
from telegram_app.games.registry import kind_of_verb
from tests.e2e.harness import bot_table, choose, wait_for
from tests.e2e.koira_play import carry_out, computer_choice, service_of
from tests.fakebot import FakeBotAPI, FakeUser, StoredMessage

GROUP = -100881
FORUM = -1008810


def turn_message(api: FakeBotAPI, user: FakeUser, game_id: int, version: int
                 ) -> StoredMessage | None:
    """``user``'s private message carrying ``game_id``'s move buttons drawn at ``version``."""
    for message in reversed(api.bot_messages(user.id)):
        for _, data in api.buttons(message):
            parts = (data or "").split(":")
            if len(parts) > 2 and kind_of_verb(parts[0]) and parts[1] == str(game_id) \
                    and parts[2] == str(version):
                return message
    return None


def plain(text: str | None) -> str:
    """``text`` without the bidi isolation marks around names."""
    return (text or "").replace("\u2068", "").replace("\u2069", "")


def topic_text(api: FakeBotAPI, thread: int) -> str:
    return "\n".join(m.text or "" for m in api.bot_messages(FORUM) if m.thread_id == thread)


async def _open(api: FakeBotAPI, players: list[FakeUser], thread: int, command: str,
                *presses: str) -> None:
    host = players[0]
    await host.send(FORUM, command, thread_id=thread)
    await wait_for(lambda: any(m.thread_id == thread for m in api.find_messages(FORUM,
                                                                                "new game #")))
    await api.settle(quiet=0.05)
    lobby = next(m for m in api.find_messages(FORUM, "new game #") if m.thread_id == thread)
    for user in players[1:]:
        await user.press_and_settle(lobby, "✋ Join", quiet=0.02)
    for label in (*presses, "▶️ Start"):
        await host.press_and_settle(api.get_message(FORUM, lobby.message_id), label)


async def _move(api: FakeBotAPI, runner, users: dict[int, FakeUser], game_id: int) -> None:
    """The player to act in ``game_id`` moves with its buttons (Coyote: the harness's rule;
    Koira: the computer player's choice)."""
    service = service_of(runner)
    game = await service.get(game_id)
    seat = GAMES[game.kind].current_seat(game.state)
    user = users[game.at_seat(seat).user_id]
    await wait_for(lambda: turn_message(api, user, game_id, game.version) is not None)
    message = turn_message(api, user, game_id, game.version)
    if game.kind == "koira":
        answer, _ = await carry_out(api, user, message, game, computer_choice(game, seat))
    else:
        answer = await user.press_and_settle(message, choose(api, message), quiet=0.02)
    assert not answer.get("show_alert"), answer


async def _on_turn(runner, game_id: int) -> int | None:
    game = await service_of(runner).get(game_id)
    seat = GAMES[game.kind].current_seat(game.state)
    return None if seat is None else game.at_seat(seat).user_id


async def _ask(api: FakeBotAPI, user, thread: int, command: str, expect: str) -> str:
    before = len(api.find_messages(FORUM, expect))
    await user.send(FORUM, command, thread_id=thread)
    await wait_for(lambda: len(api.find_messages(FORUM, expect)) > before)
    return api.find_messages(FORUM, expect)[-1].text


async def test_koira_and_coyote_in_two_topics(pg_db, pg_url) -> None:
    async with bot_table(pg_url, GROUP, "G", ["Ann", "Bob", "Cat"],
                         notes="every_move") as (api, players, runner):
        ann, bob, cat = players
        users = {u.id: u for u in players}
        api.add_group(FORUM, "Forum", type="supergroup", is_forum=True, admins=[1])
        # (this test reads each move's note)
        await service_of(runner).set_chat_setting(FORUM, "Forum", "group_notes", "every_move")
        coyote_topic = api.create_topic(FORUM, "Coyote", ann)
        koira_topic = api.create_topic(FORUM, "Koira", ann)
        await _open(api, players, coyote_topic, "/newgame")
        await _open(api, [bob, ann, cat], koira_topic, "/newgame koira")
        service = service_of(runner)
        coyote, koira = (await service.get(1)), (await service.get(2))
        assert (coyote.kind, coyote.thread_id, koira.kind, koira.thread_id) == \
            ("coyote", coyote_topic, "koira", koira_topic)

        # Until it is Ann's turn in both games, the others move.
        for _ in range(200):
            turns = [await _on_turn(runner, 1), await _on_turn(runner, 2)]
            if turns == [ann.id, ann.id]:
                break
            await _move(api, runner, users, 1 if turns[0] != ann.id else 2)
        else:
            raise AssertionError("never Ann's turn in both games")
        coyote, koira = (await service.get(1)), (await service.get(2))
        await wait_for(lambda: turn_message(api, ann, 1, coyote.version) is not None
                       and turn_message(api, ann, 2, koira.version) is not None)
        mine = {1: turn_message(api, ann, 1, coyote.version),
                2: turn_message(api, ann, 2, koira.version)}
        assert plain(mine[1].text).startswith("👥 Forum › Coyote\n🐺 Game #1")
        assert plain(mine[2].text).startswith("👥 Forum › Koira\n🐕 Koira #2")
        assert "Your turn" in mine[1].text and "Your turn" in mine[2].text

        # Typed, not a reply: which game is meant? Nothing moves.
        await ann.send(ann.id, "7H")
        await wait_for(lambda: bool(api.find_messages(
            ann.id, "It is your turn in games #1, #2: reply to the message of the game you")))
        await api.settle(quiet=0.05)
        assert (await service.get(1)).version == coyote.version
        assert (await service.get(2)).version == koira.version
        # A bid typed as a reply to the Coyote message is a Coyote bid.
        lowest = min(int(d.split(":")[3]) for _, d in api.buttons(mine[1])
                     if d and d.startswith("b:") and d.count(":") == 3)
        reply = api.store_message(api.private_chat(ann), from_bot=False, sender_id=ann.id,
                                  text=str(lowest), entities=[], reply_to=mine[1].message_id)
        api.enqueue_update({"message": api.message_dict(reply)})
        await wait_for(lambda: f"Ann\u2069 bids {lowest}" in topic_text(api, coyote_topic))
        await api.settle(quiet=0.05)
        assert (await service.get(2)).version == koira.version
        # A card typed as a reply to the Koira message is a Koira play.
        seat = koira.player(ann.id).seat
        card = next(a.cards[0] for a in GAMES["koira"].legal_actions(koira.state, seat)
                    if a.kind == "play" and len(a.cards) == 1)
        reply = api.store_message(api.private_chat(ann), from_bot=False, sender_id=ann.id,
                                  text=card, entities=[], reply_to=mine[2].message_id)
        api.enqueue_update({"message": api.message_dict(reply)})
        await wait_for(lambda: "Ann\u2069 plays" in topic_text(api, koira_topic)
                       or "Ann\u2069 turns up" in topic_text(api, koira_topic))
        await api.settle(quiet=0.05)
        assert (await service.get(2)).version > koira.version
        # Every note went to its own topic.
        for message in api.bot_messages(FORUM):
            text = message.text or ""
            if "bids" in text or "Coyote!" in text:
                assert message.thread_id == coyote_topic, text
            if "🐕" in text or "plays" in text:
                assert message.thread_id == koira_topic, text

        # Both to the end, turn about.
        for _ in range(800):
            open_games = [g for g in (1, 2) if await _on_turn(runner, g) is not None]
            if not open_games:
                break
            for game_id in open_games:
                await _move(api, runner, users, game_id)
        else:
            raise AssertionError("the games did not end")
        await wait_for(lambda: "is over!" in topic_text(api, coyote_topic)
                       and "is over!" in topic_text(api, koira_topic))
        assert "is the koira" in topic_text(api, koira_topic)

        # Each in its own league.
        standings = await _ask(api, ann, koira_topic, "/standings koira", "Standings this week")
        assert all(name in standings for name in ("Ann", "Bob", "Cat")), standings
        top = await _ask(api, ann, koira_topic, "/top koira", "Leaderboard")
        assert "10 rated games" in top  # (one game each: nobody is on it yet)
        card = await _ask(api, bob, koira_topic, "/rating", "Rated games")
        assert "Koira: Elo" in card and "rated games: 1" in card, card
        history = await _ask(api, ann, coyote_topic, "/history", "Last games in this chat")
        assert "#1" in history and "#2" in history and "Koira" in history, history
        await cat.send(FORUM, "/profile", thread_id=coyote_topic)
        await wait_for(lambda: any(m.kind == "photo" for m in api.messages(FORUM)))
        photo = next(m for m in api.messages(FORUM) if m.kind == "photo")
        assert "Koira: Elo" in (photo.caption or photo.text or ""), photo
