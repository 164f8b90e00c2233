"""A round's announcement in a forum links each table to its forum topic, through the real
Application and the fake Bot API (the set-up of ``test_tournament_tables.py``): the tables
of a forum tournament are played in topics of their own, and "Table 1: …" is where a
player looks for theirs. A table without a topic of its own (the bot may not open topics)
stays a plain number."""

from __future__ import annotations

import re

from league.tournaments.records import TournamentSnapshot
from telegram_app.services import KEY
from tests.e2e.harness import BotRunner, wait_for
from tests.e2e.test_tournament_tables import GROUP, group_bot, start_cup
from tests.fakebot import FakeBotAPI, StoredMessage

INTERNAL = str(GROUP).removeprefix("-100")
"""The group's id in ``t.me/c/`` links: its chat id without the ``-100`` of a supergroup."""


async def announcement(api: FakeBotAPI, runner: BotRunner, cup: TournamentSnapshot
                       ) -> tuple[StoredMessage, TournamentSnapshot]:
    """Round 1's announcement once posted, and the tournament as it is then."""
    marker = f"tournament #{cup.id}: round 1 of"
    await wait_for(lambda: bool(api.find_messages(GROUP, marker)))
    await api.settle()
    assert runner.app is not None
    service = runner.app.bot_data[KEY].service
    return api.find_messages(GROUP, marker)[-1], await service.tournament(cup.id)


async def test_each_table_of_the_announcement_links_to_its_topic(pg_db, pg_url) -> None:
    """Before the fix round 1's announcement, in the tournament's topic, said "Table 1: Ann,
    Bob, Cat and Dan" and "Table 2: …" with no way to the tables' topics (nor did anything
    wait for them: the announcement went out while the topics were being opened). Now each
    table's number links to its topic (``https://t.me/c/<group>/<topic>``), the mentions as
    before."""
    async with group_bot(pg_url, forum=True) as (api, chat, players, runner):
        home = api.create_topic(GROUP, "Cup final", by=players[0])
        await api.settle()
        cup = await start_cup(runner, players, home, kind="coyote", forum=True)
        message, cup = await announcement(api, runner, cup)
        assert message.thread_id == home
        tables = cup.tables_of(1)
        assert len(tables) == 2 and all(t.thread_id not in (0, home) for t in tables)
        html = message.html or ""
        for table in tables:
            link = f'<a href="https://t.me/c/{INTERNAL}/{table.thread_id}">{table.table}</a>'
            assert f"Table {link}: " in html, html
            assert chat.topics[table.thread_id].endswith(f"Table {table.table}")
        mentioned = {e["user"]["id"] for e in message.entities if e["type"] == "text_mention"}
        assert mentioned == {u.id for u in players}


async def test_without_topics_the_announcement_names_the_tables_plainly(
        pg_db, pg_url) -> None:
    """The bot may not open topics: the tables sit in the tournament's topic, and the
    announcement names them by number, no link (passes before and after the fix)."""
    async with group_bot(pg_url, forum=True) as (api, chat, players, runner):
        chat.bot_can_manage_topics = False
        home = api.create_topic(GROUP, "Cup final", by=players[0])
        await api.settle()
        cup = await start_cup(runner, players, home, kind="coyote", forum=True)
        message, cup = await announcement(api, runner, cup)
        html = message.html or ""
        assert "t.me/c/" not in html and not [
            e for e in message.entities if e["type"] == "text_link"], html
        assert all(t.thread_id == home for t in cup.tables_of(1))
        assert re.search(r"\nTable 1: .+\nTable 2: ", message.text or ""), message.text
