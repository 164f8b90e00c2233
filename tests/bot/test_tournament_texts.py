"""Tournament texts: the final message's podium (players still in the tournament who scored:
no medal for 0 points, nor for a withdrawn player), on SQLite through the match service; the
standings' tie-breaks shown only where they decide the order."""

from __future__ import annotations

from types import SimpleNamespace

from league.service import MatchService
from league.store.db import Database
from league.tournaments.records import EntryInfo, StandingRow
from telegram_app.i18n import use_language
from telegram_app.tournaments import news
from telegram_app.tournaments.words import podium, standing_line
from tests.clock import Clock
from tests.league.test_tournaments import USERS, past_deadline, signed_up


async def test_no_medal_for_nothing_or_for_the_withdrawn(sqlite_url: str) -> None:
    clock = Clock()
    service = MatchService(Database(sqlite_url), new_seed=iter(range(5, 999)).__next__,
                           clock=clock)
    cup = await signed_up(service, "coyote", USERS[:3], ai=1, rounds=3)
    cup = await service.start_tournament(cup.id, USERS[0].id, is_admin=False,
                                         version=cup.version)
    for _ in range(2):  # the humans never move: 0 points, withdrawn after two games
        cup = await past_deadline(service, clock, cup)
    assert cup.status == "finished"
    medals = podium(cup)
    assert all(row.entry.is_ai and row.points > 0 for row in medals)
    with use_language("en"):
        text = news.final_text(cup)
    assert "🥈" not in text and "🥉" not in text
    assert text.count("🥇") == len(medals) == 1  # (the computer player scored: seeds fixed)


def row(place: int, id_: int, points: float, buchholz: float, elo: float = 1500) -> StandingRow:
    entry = EntryInfo(id_, id_, f"P{id_}", None, True, 0, 0)
    return StandingRow(place, entry, points, buchholz, elo, 2)


def test_a_tie_break_is_shown_only_where_it_decides() -> None:
    rows = [row(1, 1, 1.5, 2), row(2, 2, 1.5, 1), row(3, 3, 1, 1, 1600), row(4, 4, 1, 1),
            row(5, 5, 0, 0), row(5, 6, 0, 0)]
    with use_language("en"):
        lines = [standing_line(r, rows).replace("\u2068", "").replace("\u2069", "")
                 for r in rows]
    assert lines == ["1. P1 · 1.5 (Buchholz 2)", "2. P2 · 1.5 (Buchholz 1)",
                     "3. P3 · 1 (Buchholz 1, Elo 1600)", "4. P4 · 1 (Buchholz 1, Elo 1500)",
                     "5. P5 · 0", "5. P6 · 0"]


def test_the_medals_go_to_the_best_players_still_in_when_the_leader_was_withdrawn() -> None:
    """Before the fix the podium kept the standings' places, so a withdrawn leader left
    place 1 without a 🥇 (🥈 and 🥉 only) and the Mini App named no winner."""
    withdrawn = EntryInfo(1, 1, "P1", None, False, 0, 2)
    rows = (StandingRow(1, withdrawn, 2, 1, 1500, 3), row(2, 2, 1.5, 2), row(2, 3, 1.5, 2),
            row(4, 4, 1, 1), row(5, 5, 0.5, 1))
    cup = SimpleNamespace(standings=rows)
    assert [(r.place, r.entry.name) for r in podium(cup)] == [(1, "P2"), (1, "P3"), (3, "P4")]


def test_a_player_withdrawn_by_leaving_is_not_warned_of_a_second_game() -> None:
    """Beto left the group before his first move of round 2: he is withdrawn (marked so in
    the standings), with one game without a move. Before the fix the round's note still
    warned him with the players who may play on ("😴 Beto made no move at his table: 0
    points. A second game without a move withdraws a player."). Only Carla, still in, is
    warned now."""
    left = EntryInfo(1, 1, "Beto", None, False, 1, 1)
    still = EntryInfo(2, 2, "Carla", None, True, 1, 1)
    entries = {1: left, 2: still}
    cup = SimpleNamespace(
        by_computer=lambda _round: [], entry=entries.__getitem__,
        results=[SimpleNamespace(round=2, no_show=True, entry_id=i) for i in entries])
    with use_language("en"):
        text = " ".join(news.round_notes(cup, 2)).replace("\u2068", "").replace("\u2069", "")
    assert "Carla made no move" in text and "Beto" not in text, text
