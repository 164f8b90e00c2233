"""The tournament page's data from a tournament as the league hands it out (no database): a
bye listed with its half point, a no-show and a withdrawn player marked, points of a table of
four with their thirds, the round's deadline while it runs."""

from __future__ import annotations

from datetime import UTC, datetime

from league.tournaments.records import (
    EntryInfo,
    ResultInfo,
    StandingRow,
    TableInfo,
    TournamentSnapshot,
)
from telegram_app.i18n import use_language
from telegram_app.miniapp import links
from telegram_app.miniapp.tournament_api import page
from telegram_app.render.league import tournament_line, tournaments_text

NOW = datetime(2026, 5, 4, 9, 0, tzinfo=UTC)
ENTRIES = (
    EntryInfo(1, 11, "Ann", None, True, 0, 0),
    EntryInfo(2, 12, "Bob <b>", None, True, 0, 0),
    EntryInfo(3, None, "Wile", "normal", True, 0, 0),
    EntryInfo(4, 14, "Dan", None, False, 0, 2),  # withdrawn: two no-shows
    EntryInfo(5, 15, "Eve", None, True, 0, 0),
)


def _cup() -> TournamentSnapshot:
    results = (
        # round 1: a table of four (thirds), Eve's bye
        ResultInfo(1, 1, 101, 1, 1.0, False), ResultInfo(1, 2, 101, 2, 2 / 3, False),
        ResultInfo(1, 3, 101, 3, 1 / 3, False), ResultInfo(1, 4, 101, 4, 0.0, True),
        ResultInfo(1, 5, None, None, 0.5, False),
    )
    standings = (
        StandingRow(1, ENTRIES[0], 1.0, 2 / 3 + 1 / 3, 1500, 1),
        StandingRow(2, ENTRIES[1], 2 / 3, 4 / 3, 1500, 1),
        StandingRow(3, ENTRIES[4], 0.5, 0.0, 1500, 0),
        StandingRow(4, ENTRIES[2], 1 / 3, 5 / 3, 1500, 1),
        StandingRow(5, ENTRIES[3], 0.0, 2.0, 1500, 1),
    )
    return TournamentSnapshot(
        id=7, chat_id=-100, thread_id=0, forum=False, kind="coyote",
        options={"edition": "classic", "pace": "standard"}, rounds=4, round_seconds=3600,
        table_size=4, status="running", round=2, round_ends_at=NOW, creator_id=11,
        version=9, message_id=None, told_round=2, created_at=NOW, finished_at=None,
        entries=ENTRIES,
        tables=(TableInfo(1, 1, 101, "finished", 0, (2, 1, 4, 3)),
                TableInfo(2, 1, 102, "running", 0, (1, 2, 3, 5))),
        results=results, standings=standings, chat_title="Night <club>")


def test_the_page_of_a_running_tournament() -> None:
    with use_language("en"):
        data = page(_cup(), 12)
    assert (data["status"], data["stage"], data["deadline"]) == \
        ("running", "Round 2 of 4", NOW.isoformat())
    assert data["chat_title"] == "Night <club>"  # (the page sets text, never HTML)
    assert data["settings"][:3] == ["Rounds: 4", "Each round lasts an hour",
                                    "Tables of about 4 players"]
    rows = {r["name"]: r for r in data["standings"]}
    assert rows["Bob <b>"]["points"] == "0.67" and rows["Bob <b>"]["you"]
    assert rows["Wile"]["points"] == "0.33" and rows["Wile"]["ai"]
    assert rows["Wile"]["buchholz"] == "1.67" and rows["Ann"]["buchholz"] == "1"
    assert rows["Dan"]["withdrawn"] and not rows["Ann"]["withdrawn"]
    assert [p["name"] for p in data["players"]] == ["Ann", "Bob <b>", "Wile", "Eve"]
    first, second = data["rounds"]
    assert not first["current"] and second["current"]
    [table] = first["tables"]
    assert [(p["name"], p["place"], p["points_text"], p["no_show"]) for p in table["players"]] \
        == [("Bob <b>", 2, "0.67 points", False), ("Ann", 1, "1 point", False),
            ("Dan", 4, "0 points", True), ("Wile", 3, "0.33 points", False)]
    assert first["byes"] == [{"name": "Eve", "you": False, "points": "0.5",
                              "points_text": "0.5 points"}]
    # The running round: its table open, nobody placed yet.
    [running] = second["tables"]
    assert running["status"] == "running" and not running["over"]
    assert all(p["place"] is None and p["points_text"] is None for p in running["players"])
    assert second["byes"] == []


def test_figures_in_the_readers_language() -> None:
    with use_language("es"):
        data = page(_cup(), 11)
    assert data["stage"] != "Round 2 of 4"
    assert {r["name"]: r["points"] for r in data["standings"]}["Wile"] == "0,33"


def test_a_players_line_as_history_gives_it() -> None:
    cup = _cup()
    with use_language("en"):
        assert tournament_line(cup, 11, group=False) == \
            "🏆 #7 · Coyote · classic: round 2 of 4"
        # a withdrawn player is told so; a list across groups names the group, escaped
        assert tournament_line(cup, 14, group=True) == \
            "🏆 #7 · Coyote · classic · \u2068Night &lt;club&gt;\u2069: round 2 of 4 · withdrawn"
        assert tournaments_text([], 11, "T", group=False) == ""
    with use_language("ko"):
        assert tournament_line(cup, 11, group=False).endswith(": 2라운드 (전체 4라운드)")


def test_the_deep_link_to_a_tournament() -> None:
    saved = (links.LINKS.url, links.LINKS.short_name, links.LINKS.bot_username)
    try:
        links.configure(None, None, None)
        assert links.tournament_row(7) == []
        links.configure("https://coyote.example/app/", "table", "coyote_league_bot")
        with use_language("en"):
            [button] = links.tournament_row(7)
        assert (button.text, button.url) == (
            "🏆 Standings and tables", "https://t.me/coyote_league_bot/table?startapp=t7")
    finally:
        links.configure(*saved)
