"""A tournament's tables in the group, through the real Application and the fake
Bot API: in a forum each table of a round gets a forum topic of its own, opened by the bot
before the table's first message and named in its players' private messages; where the bot
may not open topics the tables run side by side in the tournament's topic, and it asks once
per table; a plain group is asked nothing. Every table message and private message says
which tournament, round and table it is.

The tournament is opened and started through the match service of the running bot (as its
/tournament command does), which deals round 1's tables and reports them to the presenter
like any start."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest

from league.store.snapshots import UserRef
from league.tournaments.records import TournamentSnapshot
from telegram_app.games.registry import ui_for
from telegram_app.services import KEY
from tests.e2e.harness import BotRunner, play_turn, wait_for
from tests.fakebot import FakeBotAPI, FakeChat, FakeUser, StoredMessage

GROUP = -100290029
TITLE = "Cup"
NAMES = ["Ann", "Bob", "Cat", "Dan", "Eve", "Fay", "Gus", "Hal"]


@asynccontextmanager
async def group_bot(pg_url: str, *, forum: bool, language: str = "en"
                    ) -> AsyncIterator[tuple[FakeBotAPI, FakeChat, list[FakeUser], BotRunner]]:
    """The bot in a group (``forum``: a forum supergroup whose administrator it is) with
    eight players who started it, writing in ``language``."""
    async with FakeBotAPI() as api:
        chat = api.add_group(GROUP, TITLE, type="supergroup" if forum else "group",
                             is_forum=forum, admins=[1], bot_admin=True)
        players = [api.add_user(i, name, language_code=language)
                   for i, name in enumerate(NAMES, start=1)]
        for user in players:
            await user.start_bot()
        runner = BotRunner(api, pg_url, sweep_interval=0.05)
        await runner.start()
        try:
            yield api, chat, players, runner
        finally:
            await runner.stop()


async def start_cup(runner: BotRunner, players: list[FakeUser], home: int, *, kind: str,
                    forum: bool, language: str = "en") -> TournamentSnapshot:
    """Open a tournament of ``kind`` in topic ``home``, all players joined, and start it."""
    assert runner.app is not None
    service = runner.app.bot_data[KEY].service
    people = [UserRef(u.id, u.first_name, language=language) for u in players]
    cup = await service.open_tournament(GROUP, TITLE, home, people[0], kind, forum=forum)
    for person in people[1:]:
        cup = await service.join_tournament(cup.id, person)
    return await service.start_tournament(cup.id, people[0].id, is_admin=False,
                                          version=cup.version)


HEADINGS = {"en": "🏆 Tournament #{id} · Round 1 · Table {table}",
            "ko": "🏆 토너먼트 #{id} · 1라운드 · {table}번 테이블",
            "es": "🏆 Torneo #{id} · Ronda 1 · Mesa {table}"}
TOPICS = {"en": "🏆 #{id} · Round 1 · Table {table}", "ko": "🏆 #{id} · 1라운드 · {table}번 테이블"}


def heading(cup: TournamentSnapshot, table: int, language: str = "en") -> str:
    """Round 1's table ``table`` as its messages head it."""
    return HEADINGS[language].format(id=cup.id, table=table)


def topic(cup: TournamentSnapshot, table: int, language: str = "en") -> str:
    """The name of the forum topic of round 1's table ``table``."""
    return TOPICS[language].format(id=cup.id, table=table)


def tables_shown(api: FakeBotAPI, marker: str) -> list[StoredMessage]:
    """The bot's group messages carrying ``marker`` (a table's heading)."""
    return [m for m in api.bot_messages(GROUP) if marker in (m.text or "")]


def all_shown(api: FakeBotAPI, cup: TournamentSnapshot, language: str = "en"
              ) -> list[StoredMessage]:
    """The bot's group messages heading one of round 1's two tables."""
    return [m for n in (1, 2) for m in tables_shown(api, heading(cup, n, language))]


def first_line(api: FakeBotAPI, user: FakeUser) -> str:
    message = api.bot_messages(user.id)[-1]
    return (message.text or "").split("\n")[0].translate({0x2068: None, 0x2069: None})


@pytest.mark.parametrize(("kind", "language"), [("coyote", "en"), ("koira", "ko")])
async def test_each_table_gets_a_topic_of_its_own(pg_db, pg_url: str, kind: str,
                                                  language: str) -> None:
    """Two tables of four: two topics (named in the group's language), each table posted
    once in its own, none in the tournament's topic; its players' private messages name the
    topic and the table. No lobby is closed: there was none."""
    async with group_bot(pg_url, forum=True, language=language) as (
            api, chat, players, runner):
        home = api.create_topic(GROUP, "Cup final", by=players[0])
        await api.settle()
        cup = await start_cup(runner, players, home, kind=kind, forum=True, language=language)
        assert len(cup.tables_of(1)) == 2
        await wait_for(lambda: len(tables_shown(api, heading(cup, 1, language))) == 1
                       and len(tables_shown(api, heading(cup, 2, language))) == 1)
        await api.settle()
        assert api.counts["createforumtopic"] == 2
        service = runner.app.bot_data[KEY].service
        cup = await service.tournament(cup.id)
        threads = [t.thread_id for t in cup.tables_of(1)]
        assert len(set(threads)) == 2 and home not in threads
        for number, table in enumerate(cup.tables_of(1), start=1):
            name, line = topic(cup, number, language), heading(cup, number, language)
            assert chat.topics[table.thread_id] == name
            shown = [m for m in api.topic_messages(GROUP, table.thread_id)
                     if line in (m.text or "")]
            assert len(shown) == 1 and api.buttons(shown[0]), [m.text for m in shown]
            # (above the game's own heading)
            assert (shown[0].text or "").startswith(line) or f"\n{line}\n" in shown[0].text
            seated = [u for u in players
                      if (entry := cup.entry_of(u.id)) is not None and entry.id in table.entries]
            assert len(seated) == 4
            for user in seated:
                assert first_line(api, user) == f"👥 Cup › {name}"
                assert line in (api.bot_messages(user.id)[-1].text or "")
            game = await service.get(table.game_id)
            closed = ui_for(game).lobby_closed_text(game)
            assert not [r for r in api.requests if r.params.get("text") == closed]
        assert not [m for m in api.topic_messages(GROUP, home) for n in (1, 2)
                    if heading(cup, n, language) in (m.text or "")]
        assert not [m for m in api.bot_messages(GROUP) if m.thread_id is None]


async def test_a_restart_before_the_table_is_posted_opens_no_second_topic(
        pg_db, pg_url: str) -> None:
    """Table 1's topic is opened and recorded, then its table message is lost (a 502 on the
    send, its retry and, on a slow run, the sweep's try two seconds on); the bot restarts. The
    sweep shows the start again: into the same topic, once."""
    async with group_bot(pg_url, forum=True) as (api, chat, players, runner):
        home = api.create_topic(GROUP, "Cup final", by=players[0])
        await api.settle()
        down = [True]  # (until the restart: the test must not race the sweep's grace)
        api.fail_next("sendMessage", 502, "Bad Gateway", count=1000,
                      when=lambda p: down[0] and p.get("chat_id") == GROUP
                      and "· Round 1 · Table 1" in str(p.get("text")))
        cup = await start_cup(runner, players, home, kind="coyote", forum=True)
        await wait_for(lambda: len(all_shown(api, cup)) == 1
                       and api.counts["createforumtopic"] == 2)
        await api.settle()
        await runner.stop()
        assert len(all_shown(api, cup)) == 1  # (table 1's is not shown yet)
        down[0] = False
        await runner.start()  # (the same database: a new process's memory)
        await wait_for(lambda: len(all_shown(api, cup)) == 2)
        await api.settle()
        assert api.counts["createforumtopic"] == 2
        cup = await runner.app.bot_data[KEY].service.tournament(cup.id)
        for number, table in enumerate(cup.tables_of(1), start=1):
            assert chat.topics[table.thread_id] == f"🏆 #{cup.id} · Round 1 · Table {number}"
            assert len([m for m in api.topic_messages(GROUP, table.thread_id)
                        if heading(cup, number) in (m.text or "")]) == 1
        assert not [m for m in api.topic_messages(GROUP, home) for n in (1, 2)
                    if heading(cup, n) in (m.text or "")]


async def test_without_the_right_the_tables_sit_side_by_side(pg_db, pg_url: str) -> None:
    """The bot may not manage topics: it asks once per table, the tables are posted in the
    tournament's topic, and neither moves nor a restart make it ask again."""
    async with group_bot(pg_url, forum=True) as (api, chat, players, runner):
        chat.bot_can_manage_topics = False
        home = api.create_topic(GROUP, "Cup final", by=players[0])
        await api.settle()
        cup = await start_cup(runner, players, home, kind="coyote", forum=True)
        await wait_for(lambda: len(all_shown(api, cup)) == 2)
        await api.settle()
        assert api.counts["createforumtopic"] == 2
        assert chat.topics == {home: "Cup final"}
        for number in (1, 2):
            assert len([m for m in api.topic_messages(GROUP, home)
                        if heading(cup, number) in (m.text or "")]) == 1
        for user in players:  # (the topic of the tournament: the bot saw its creation)
            assert first_line(api, user) == "👥 Cup › Cup final"
        for _ in range(3):
            assert await play_turn(api, players, GROUP)
        await api.settle()
        await runner.stop()
        await runner.start()
        await api.settle()
        assert await play_turn(api, players, GROUP)
        await api.settle()
        assert api.counts["createforumtopic"] == 2
        assert not [m for m in api.bot_messages(GROUP) if m.thread_id != home]


async def test_a_plain_group_in_spanish_asks_for_no_topic(pg_db, pg_url: str) -> None:
    """A Coyote tournament in a group that is no forum: no createForumTopic; the tables side
    by side, each saying in Spanish which tournament, round and table it is (its players'
    private messages too)."""
    async with group_bot(pg_url, forum=False, language="es") as (api, _chat, players, runner):
        cup = await start_cup(runner, players, 0, kind="coyote", forum=False, language="es")
        await wait_for(lambda: len(all_shown(api, cup, "es")) == 2)
        await api.settle()
        assert api.counts["createforumtopic"] == 0
        for number, table in enumerate(cup.tables_of(1), start=1):
            shown = tables_shown(api, heading(cup, number, "es"))
            assert len(shown) == 1 and shown[0].thread_id is None
            for user in players:
                entry = cup.entry_of(user.id)
                if entry is not None and entry.id in table.entries:
                    text = api.bot_messages(user.id)[-1].text or ""
                    assert heading(cup, number, "es") in text, text


@pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")  # retry_after
async def test_the_messenger_opens_a_topic_or_says_none(pg_db, pg_url: str) -> None:
    """``Messenger.create_topic``: the thread id; through the rate limiter (a 429 waits and
    is tried again); ``None`` for any refusal, nothing raised."""
    async with group_bot(pg_url, forum=True) as (api, chat, _players, runner):
        messenger = runner.app.bot_data[KEY].messenger
        api.fail_next("createForumTopic", chat_id=GROUP)  # (retry after 1 s)
        thread = await messenger.create_topic(GROUP, "Table 1")
        assert thread is not None and chat.topics[thread] == "Table 1"
        assert api.counts["createforumtopic"] == 2
        chat.bot_can_manage_topics = False
        assert await messenger.create_topic(GROUP, "Table 2") is None
        chat.bot_can_manage_topics, chat.is_forum = True, False
        assert await messenger.create_topic(GROUP, "Table 2") is None
        assert await messenger.create_topic(GROUP, "") is None
        assert await messenger.create_topic(-1, "Table 2") is None  # (no such chat)
        chat.is_forum = True
        api.fail_next("createForumTopic", 502, "Bad Gateway", chat_id=GROUP, count=2)
        assert await messenger.create_topic(GROUP, "Table 2") is None  # (a 5xx: tried twice)
        assert list(chat.topics.values()) == ["Table 1"]


async def test_leave_in_the_group_leaves_ones_own_table(pg_db, pg_url: str) -> None:
    """In a plain group the tables run side by side, outside any topic's game: /leave from
    a seated player leaves their own table (placed last there), not "no running game"."""
    async with group_bot(pg_url, forum=False) as (api, chat, players, runner):
        cup = await start_cup(runner, players, 0, kind="coyote", forum=False)
        await wait_for(lambda: len(all_shown(api, cup)) == 2)
        await api.settle()
        service = runner.app.bot_data[KEY].service
        table = cup.tables_of(1)[1]
        leaver = next(u for u in players if (entry := cup.entry_of(u.id)) is not None
                      and entry.id in table.entries)
        await leaver.send(GROUP, "/leave")
        await wait_for(lambda: bool(api.find_messages(GROUP, f"{leaver.first_name}\u2069 leaves "
                                                             "the game")))
        game = await service.get(table.game_id)
        seat = game.player(leaver.id).seat
        assert game.state["lives"][seat] == 0
        assert not api.find_messages(GROUP, "There is no running game here")
        first = await service.get(cup.tables_of(1)[0].game_id)  # (the other table plays on)
        assert first.status == "running" and 0 not in first.state["lives"]
