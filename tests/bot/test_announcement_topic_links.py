"""A round's announcement links each table of a forum tournament to its topic
(``news.round_text``), as long as Telegram applies every entity of the message: past 100 it
ignores the rest, and a table's link must not cost a player's mention its notification.
Names stay escaped. (The announcement as sent is ``tests/e2e/test_tournament_topic_links.py``.)"""

from __future__ import annotations

from datetime import UTC, datetime

from league.tournaments.records import EntryInfo, TableInfo, TournamentSnapshot
from telegram_app.i18n import use_language
from telegram_app.tournaments import news
from tests.fakebot.html_check import parse_html

NOW = datetime(2026, 5, 6, 9, tzinfo=UTC)
HOME = 5


def cup(tables: int, *, chat_id: int = -1001234567890) -> TournamentSnapshot:
    """Round 1 of a forum tournament of ``tables`` tables of four humans, each table in
    a topic of its own (thread 100 + its number); the first player's name is HTML."""
    entries = tuple(EntryInfo(i, i, "<b>Ann & co</b>" if i == 1 else f"P{i}", None, True, 1, 0)
                    for i in range(1, 4 * tables + 1))
    seated = tuple(TableInfo(1, n, 1000 + n, "running", 100 + n,
                             tuple(range(4 * n - 3, 4 * n + 1)))
                   for n in range(1, tables + 1))
    return TournamentSnapshot(
        id=3, chat_id=chat_id, thread_id=HOME, forum=True, kind="coyote", options={},
        rounds=5, round_seconds=86400, table_size=4, status="running", round=1,
        round_ends_at=NOW, creator_id=1, version=1, message_id=None, told_round=0,
        created_at=NOW, finished_at=None, entries=entries, tables=seated, results=(),
        standings=())


def test_each_table_links_to_its_topic_and_names_stay_escaped() -> None:
    with use_language("en"):
        html = news.round_text(cup(3))
    text, entities = parse_html(html)
    for n in (1, 2, 3):
        assert f'Table <a href="https://t.me/c/1234567890/{100 + n}">{n}</a>: ' in html, html
    assert "&lt;b&gt;Ann &amp; co&lt;/b&gt;" in html and "<b>Ann" not in html
    assert "<b>Ann & co</b>" in text
    assert [e["url"] for e in entities if e["type"] == "text_link"] == [
        f"https://t.me/c/1234567890/{100 + n}" for n in (1, 2, 3)]


def test_links_never_take_the_announcement_past_telegrams_100_entities() -> None:
    """24 tables of four humans: 96 mentions, the title and the deadline, 98 entities;
    24 links would make 122, and Telegram would ignore the last 22, mentions among them.
    So the tables are named by number; 23 tables (92 mentions, 23 links: 117) neither; a
    round of 4 tables (16 mentions) has its links."""
    for tables, linked in ((24, False), (23, False), (4, True)):
        with use_language("en"):
            html = news.round_text(cup(tables))
        _text, entities = parse_html(html)
        links = [e for e in entities if e["type"] == "text_link"]
        mentions = [e for e in entities if e["type"] == "text_mention"]
        assert len(mentions) == 4 * tables
        assert len(entities) <= max(news.ENTITY_LIMIT, 4 * tables + 2)
        assert (len(links) == tables) if linked else not links, (tables, len(entities))
