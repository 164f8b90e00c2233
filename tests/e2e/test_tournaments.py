"""Tournaments in the group through the real Application and the fake Bot API on
PostgreSQL: a 9-player, 3-round Coyote tournament opened with /tournament, set up and joined
with the sign-up message's buttons, its tables played in the players' private chats (three
tables at once in one group), with the bot restarted between rounds (once with the round's
deadline passing while it was down), to its podium; and a 7-player Koira tournament in which
one human never moves: the computer finishes the tables at each deadline, he scores 0 twice
and is withdrawn, and the announcements say so."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from engine import GAMES
from league.service import MatchService
from league.tournaments.records import TournamentSnapshot
from tests.clock import Clock
from tests.e2e.harness import BotRunner, choose, move_version, press_move, wait_for
from tests.e2e.koira_play import carry_out, computer_choice, koira_version
from tests.fakebot import FakeBotAPI, FakeUser, StoredMessage

GROUP = -100290129
NAMES = ["Ann", "Bob", "Cat", "Dan", "Gus"]
DAY = 86400


class Bot:
    """The bot on a controlled clock, restartable on the same database (a new process's
    Application, as after a kill or a deploy)."""

    def __init__(self, api: FakeBotAPI, pg_url: str, clock: Clock) -> None:
        self.api, self.pg_url, self.clock = api, pg_url, clock
        self.runner: BotRunner | None = None

    async def start(self) -> None:
        self.runner = BotRunner(self.api, self.pg_url, clock=self.clock, sweep_interval=0.1)
        await self.runner.start()

    async def stop(self) -> None:
        if self.runner is not None:
            await self.runner.stop()
            self.runner = None


@asynccontextmanager
async def group_with_bot(pg_url: str, clock: Clock, names: list[str]
                         ) -> AsyncIterator[tuple[FakeBotAPI, list[FakeUser], Bot]]:
    async with FakeBotAPI() as api:
        api.add_group(GROUP, "Cup night", admins=[1])
        users = [api.add_user(i, name) for i, name in enumerate(names, start=1)]
        for user in users:
            await user.start_bot()
        bot = Bot(api, pg_url, clock)
        await bot.start()
        try:
            yield api, users, bot
        finally:
            await bot.stop()


def current(api: FakeBotAPI, message: StoredMessage) -> StoredMessage:
    found = api.get_message(message.chat_id, message.message_id)
    assert found is not None
    return found


def announcements(api: FakeBotAPI, cup_id: int, round_: int, rounds: int) -> list[StoredMessage]:
    return api.find_messages(GROUP, f"tournament #{cup_id}: round {round_} of {rounds}")


async def open_and_set_up(api: FakeBotAPI, admin: FakeUser, command: str,
                          presses: list[str]) -> StoredMessage:
    """``admin`` sends ``command`` and presses ``presses`` on the sign-up message."""
    await admin.send(GROUP, command)
    await wait_for(lambda: bool(api.find_messages(GROUP, "sign-up is open")))
    await api.settle(quiet=0.05)
    signup = api.find_messages(GROUP, "sign-up is open")[-1]
    for label in presses:
        answer = await admin.press_and_settle(current(api, signup), label, quiet=0.05)
        assert not answer.get("show_alert"), (label, answer)
    return signup


def game_of(api: FakeBotAPI, message: StoredMessage) -> int:
    return int(next(d for _, d in api.buttons(message) if d and ":" in d).split(":")[1])


async def turn_message(api: FakeBotAPI, service: MatchService, user: FakeUser, cup_id: int,
                       round_: int) -> StoredMessage | None:
    """``user``'s latest private message if it holds their move keyboard, at the game's
    current version and on their turn, of a running table of round ``round_`` (else
    ``None``: not their turn, the next keyboard on its way, the next round's table)."""
    messages = api.bot_messages(user.id)
    message = messages[-1] if messages else None
    version = move_version(api, message) if message is not None else None
    if message is None or version is None:
        return None
    game = await service.get(game_of(api, message))
    if game.status != "running" or game.version != version or \
            GAMES["coyote"].current_seat(game.state) != game.player(user.id).seat or \
            game.tournament_round != round_:
        return None
    assert game.tournament_id == cup_id
    return message


async def coyote_moves(api: FakeBotAPI, service: MatchService, humans: list[FakeUser],
                       cup_id: int, round_: int, *, each: int | None = None) -> Counter[int]:
    """The humans press their Coyote moves in their private chats (each picks the message of
    the game it is their turn in) until the round's tables are over, or, with ``each``,
    until each of them made that many moves (one who made them moves again when nobody
    else can: another human at their table may be waiting for their turn)."""
    made: Counter[int] = Counter()
    capped = True
    for _ in range(3000):
        cup = await service.tournament(cup_id)
        if all(t.status != "running" for t in cup.tables_of(round_)):
            return made
        if each is not None and all(made[u.id] >= each for u in humans):
            return made
        pressed = False
        for user in humans:
            if each is not None and made[user.id] >= each and capped:
                continue
            message = await turn_message(api, service, user, cup_id, round_)
            if message is None:
                continue
            answer = await press_move(api, user, message, choose(api, message))
            assert not answer.get("show_alert"), answer
            made[user.id] += 1
            pressed = True
        if not pressed:  # (the next keyboards are on their way, or a capped human's turn)
            await asyncio.sleep(0.02)
        capped = pressed or not capped
    raise AssertionError("the round's tables did not end")


async def test_a_coyote_tournament_with_restarts_reaches_its_podium(pg_db, pg_url: str
                                                                     ) -> None:
    clock = Clock()
    service = MatchService(pg_db, clock=clock)
    async with group_with_bot(pg_url, clock, NAMES[:4]) as (api, humans, bot):
        ann, bob, cat, dan = humans
        signup = await open_and_set_up(api, ann, "/tournament coyote", [
            "🔢 Fewer rounds", "🔢 Fewer rounds", "🪑 Smaller tables",
            "❤️ Lives: 3", "❤️ Lives: 4", "❤️ Lives: 5",  # (cycling: 4, 5, then 2)
            *["🤖 Add AI"] * 5])
        for user in (bob, cat, dan):
            answer = await user.press_and_settle(current(api, signup), "✋ Join")
            assert "You joined tournament #1" in answer["text"]
        text = current(api, signup).text or ""
        assert "3 rounds" in text and "tables of 3" in text and "❤️ Lives: 2" in text, text
        assert "Players (9):" in text and text.count("🤖") == 5, text
        cup = await service.tournament(1)
        assert cup.message_id == signup.message_id and cup.options["lives"] == 2

        answer = await ann.press_and_settle(current(api, signup), "▶️ Start")
        assert not answer.get("show_alert"), answer
        await wait_for(lambda: len(announcements(api, 1, 1, 3)) == 1)
        first = announcements(api, 1, 1, 3)[0]
        for user in humans:  # each human mentioned once, no computer player
            assert first.html.count(f"tg://user?id={user.id}") == 1, first.html
        assert first.html.count("tg://user") == 4 and "Table 3:" in (first.text or "")
        await wait_for(lambda: "round 1 of 3 is on" in (current(api, signup).text or ""))
        assert [b for b, _ in api.buttons(current(api, signup))] == ["✋ Join"]

        # Round 1: played to its end by everyone; the bot restarts after its announcement.
        await coyote_moves(api, service, humans, 1, 1)
        await wait_for(lambda: len(announcements(api, 1, 2, 3)) == 1)
        await bot.stop()
        await bot.start()
        # Round 2: everyone moves once, then the bot is down while the deadline passes.
        await coyote_moves(api, service, humans, 1, 2, each=1)
        await api.settle(quiet=0.05)
        await bot.stop()
        clock.advance(DAY + 1)
        await bot.start()
        await wait_for(lambda: len(announcements(api, 1, 3, 3)) == 1)
        third = announcements(api, 1, 3, 3)[0]
        assert "at the deadline" in (third.text or ""), third.text
        assert "Standings:" in (third.text or "")
        # Round 3: played to its end, then the podium.
        await coyote_moves(api, service, humans, 1, 3)
        await wait_for(lambda: bool(api.find_messages(GROUP, "tournament #1 is over!")))
        await api.settle(quiet=0.05)

        cup = await service.tournament(1)
        assert cup.status == "finished" and cup.told_round == 4
        assert [len(cup.tables_of(r)) for r in (1, 2, 3)] == [3, 3, 3]  # no round twice
        assert all(not r.no_show for r in cup.results) and len(cup.results) == 27
        for round_ in (1, 2, 3):
            assert len(announcements(api, 1, round_, 3)) == 1
        final = api.find_messages(GROUP, "tournament #1 is over!")
        assert len(final) == 1
        assert "🥇" in (final[0].text or "") and "Final standings:" in (final[0].text or "")
        winner = cup.standings[0].entry.name
        assert f"🥇 {'🤖 ' if cup.standings[0].entry.is_ai else ''}\u2068{winner}" \
            in (final[0].text or ""), final[0].text
        assert "is over" in (current(api, signup).text or "")
        assert api.buttons(current(api, signup)) == []


async def koira_move(api: FakeBotAPI, service: MatchService, user: FakeUser,
                     game_id: int) -> bool:
    """``user`` makes the computer player's choice with their buttons if it is their turn
    in game ``game_id``; ``False`` if it is not."""
    game = await service.get(game_id)
    seat = game.player(user.id).seat
    if game.status != "running" or GAMES["koira"].current_seat(game.state) != seat:
        return False

    def drawn() -> StoredMessage | None:
        for message in reversed(api.bot_messages(user.id)):
            if koira_version(api, message) == game.version and \
                    game_of(api, message) == game_id:
                return message
        return None

    await wait_for(lambda: drawn() is not None)
    answer, _ = await carry_out(api, user, drawn(), game,
                                computer_choice(game, seat))
    assert not answer.get("show_alert"), answer
    return True


async def play_koira_round(api: FakeBotAPI, service: MatchService, clock: Clock,
                           ann: FakeUser, cup: TournamentSnapshot) -> None:
    """Ann makes one move at her table (turns of the absent player time out first: a minute
    each at this pace), then the round's deadline passes."""
    table = next((t for t in cup.tables_of(cup.round)
                  if cup.entry_of(ann.id).id in t.entries), None)
    if table is not None:
        for _ in range(200):
            if await koira_move(api, service, ann, table.game_id):
                break
            if (await service.get(table.game_id)).status != "running":
                break
            clock.advance(61)
            await asyncio.sleep(0.15)  # (a sweep)
            await api.settle(quiet=0.05)
        else:
            raise AssertionError("Ann never got a turn")
    clock.advance(cup.round_seconds + 1)


async def test_a_koira_tournament_withdraws_a_no_show(pg_db, pg_url: str) -> None:
    clock = Clock()
    service = MatchService(pg_db, clock=clock)
    async with group_with_bot(pg_url, clock, ["Ann", "Gus"]) as (api, (ann, gus), bot):
        signup = await open_and_set_up(api, ann, "/tournament koira", [
            "🔢 Fewer rounds", "🔢 Fewer rounds", "⏱ A round: 1 day", "⏱ A round: 1 week",
            *["🤖 Add AI"] * 5])
        await gus.press_and_settle(current(api, signup), "✋ Join")
        text = current(api, signup).text or ""
        assert "up to 1 hour" in text and "Players (7):" in text, text
        await ann.press_and_settle(current(api, signup), "▶️ Start")
        await wait_for(lambda: len(announcements(api, 1, 1, 3)) == 1)
        cup = await service.tournament(1)
        assert cup.options["pace"] == "quick"
        assert sorted(len(t.entries) for t in cup.tables_of(1)) == [3, 4]

        await play_koira_round(api, service, clock, ann, cup)
        await wait_for(lambda: len(announcements(api, 1, 2, 3)) == 1)
        second = announcements(api, 1, 2, 3)[0].text or ""
        assert "Gus made no move at their table: 0 points" in second.replace(
            "\u2068", "").replace("\u2069", ""), second
        # The tables were played out by the computer at the deadline: a note each, headed by
        # its table, before the next round's tables and announcement.
        deadlines = api.find_messages(GROUP, "The round's deadline")
        assert sorted((m.text or "").split("\n")[0] for m in deadlines) == [
            "🏆 Tournament #1 · Round 1 · Table 1", "🏆 Tournament #1 · Round 1 · Table 2"]
        last = max(m.message_id for m in deadlines)
        later = [m for m in api.bot_messages(GROUP)
                 if (m.text or "").startswith("🏆 Tournament #1 · Round 2 · Table")]
        assert later and all(m.message_id > last for m in later)
        assert announcements(api, 1, 2, 3)[0].message_id > last
        await bot.stop()  # (a restart between rounds here too)
        await bot.start()

        cup = await service.tournament(1)
        await play_koira_round(api, service, clock, ann, cup)
        await wait_for(lambda: len(announcements(api, 1, 3, 3)) == 1)
        third = announcements(api, 1, 3, 3)[0]
        plain = (third.text or "").replace("\u2068", "").replace("\u2069", "")
        assert "Gus made no move in two games and is withdrawn" in plain, plain
        assert third.html.count(f"tg://user?id={gus.id}") == 1  # (the note: at no table)
        cup = await service.tournament(1)
        gus_entry = cup.entry_of(gus.id)
        assert gus_entry is not None and not gus_entry.active
        assert all(gus_entry.id not in t.entries for t in cup.tables_of(3))
        assert "(withdrawn)" in plain

        await play_koira_round(api, service, clock, ann, cup)
        await wait_for(lambda: bool(api.find_messages(GROUP, "tournament #1 is over!")))
        await api.settle(quiet=0.05)
        cup = await service.tournament(1)
        assert cup.status == "finished" and [len(cup.tables_of(r)) for r in (1, 2, 3)] \
            == [2, 2, 2]
        gus_results = [r for r in cup.results if r.entry_id == gus_entry.id]
        assert [(r.round, r.points, r.no_show) for r in gus_results] == \
            [(1, 0.0, True), (2, 0.0, True)]
        ann_entry = cup.entry_of(ann.id)
        assert not any(r.no_show for r in cup.results if r.entry_id == ann_entry.id)
        final = api.find_messages(GROUP, "tournament #1 is over!")[0].text or ""
        assert "🥇" in final and "🥈" in final and "🥉" in final
