"""The final message's podium: players still in the tournament who scored (no medal for 0
points, nor for a withdrawn player), on SQLite through the match service."""

from __future__ import annotations

from league.service import MatchService
from league.store.db import Database
from telegram_app.i18n import use_language
from telegram_app.tournaments import news
from telegram_app.tournaments.words import podium
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
