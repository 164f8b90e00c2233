"""The Mini App's tournament pages through its API (the real bot, the fake Bot API,
PostgreSQL): a tournament played to its end shows its standings, rounds and tables as the
league scored them; each table's game page leads back to it; the group's league page lists
it and a profile lists it as /history does. Forged and foreign requests get a clear JSON
refusal, never a 500."""

from __future__ import annotations

import time
from fractions import Fraction

from sqlalchemy import update

from league.store.snapshots import UserRef
from league.store.tournament_models import TournamentEntry
from league.tournaments.records import points_of
from telegram_app.render.common import error_text
from telegram_app.services import KEY
from tests.miniapp.koira import service_of
from tests.miniapp.server import init_data
from tests.miniapp.tournaments import ROUNDS, finished_tournament, signed_up

GROUP = -100461
OTHER = -100462
OUTSIDER = 99


def _fraction(text: str) -> Fraction:
    return Fraction(text)


async def test_a_finished_tournaments_page(mini) -> None:
    api, players, runner, client = mini
    cup = await finished_tournament(runner, GROUP)
    await api.settle()
    response = await client.get(f"tournament/{cup.id}", 1)
    assert response.status_code == 200, response.text
    data = response.json()
    assert (data["status"], data["stage"], data["game"], data["chat_title"]) == \
        ("finished", "Finished", "Coyote", "Mini league")
    assert data["title"] == f"🏆 Tournament #{cup.id}" and data["deadline"] is None
    assert data["settings"][:3] == ["Rounds: 3", "Each round lasts a day",
                                    "Tables of about 3 players"]
    # The standings: the league's, every figure as the league scored it.
    rows = data["standings"]
    assert [(r["place"], r["name"]) for r in rows] == \
        [(s.place, s.entry.name) for s in cup.standings]
    for row, standing in zip(rows, cup.standings, strict=True):
        assert _fraction(row["points"]) == points_of(standing.points)
        assert _fraction(row["buchholz"]) == points_of(standing.buchholz)
        assert row["played"] == ROUNDS and not row["withdrawn"]
        assert row["you"] == (standing.entry.user_id == 1)
        assert row["ai"] == (standing.entry.user_id is None)
    assert sum(_fraction(r["points"]) for r in rows) == Fraction(6 * ROUNDS, 2)
    # The rounds: two tables of three each, the players in seat order with their place and
    # points; a table's points sum to n/2.
    assert [r["round"] for r in data["rounds"]] == [1, 2, 3]
    names = {e.id: e.name for e in cup.entries}
    for shown in data["rounds"]:
        assert not shown["current"] and shown["byes"] == []
        tables = cup.tables_of(shown["round"])
        assert [t["game_id"] for t in shown["tables"]] == [t.game_id for t in tables]
        for table, info in zip(shown["tables"], tables, strict=True):
            assert table["over"] and table["title"] == f"Table {info.table}"
            assert [p["name"] for p in table["players"]] == [names[e] for e in info.entries]
            assert sorted(p["place"] for p in table["players"]) == [1, 2, 3]
            assert sum(_fraction(p["points"]) for p in table["players"]) == Fraction(3, 2)
    # A table's game page leads back to its tournament, and its replay is there.
    first = cup.tables_of(1)[0]
    game = (await client.get(f"game/{first.game_id}", 1)).json()
    assert game["tournament"] == {"id": cup.id, "round": 1, "table": 1,
                                  "label": f"🏆 Tournament #{cup.id} · Round 1 · Table 1"}
    assert (await client.get(f"replay/{first.game_id}", 2)).status_code == 200
    # The group's league page lists it, with its winner.
    listed = (await client.get(f"chat/{GROUP}/tournaments", 2)).json()
    assert listed["title"] == "Tournaments"
    [item] = listed["tournaments"]
    winners = ", ".join(s.entry.name for s in cup.standings if s.place == 1)
    assert item == {"id": cup.id, "game": "Coyote", "label": item["label"], "stage": "Finished",
                    "players": "6 players", "winner": f"Winner: {winners}", "you": True}
    # Ann's own profile names the group; Bob's, seen by Ann from the group, does not.
    ann = next(s for s in cup.standings if s.entry.user_id == 1)
    own = (await client.get("profile/1", 1)).json()["tournaments"]
    assert [(t["id"], t["chat_id"]) for t in own] == [(cup.id, GROUP)]
    assert "Mini league" in own[0]["line"] and \
        own[0]["line"].endswith(f": place {ann.place} of 6"), own
    bob = (await client.get(f"profile/2?chat={GROUP}", 1)).json()["tournaments"]
    assert [t["id"] for t in bob] == [cup.id] and "Mini league" not in bob[0]["line"]
    # A winner withdrawn (their entry no longer active) gets no medal in the group's final
    # message, nor "Winner" here: the best players still in who scored do.
    first = [s.entry.id for s in cup.standings if s.place == 1]
    async with runner.app.bot_data[KEY].db.sessions.begin() as session:
        await session.execute(update(TournamentEntry).where(TournamentEntry.id.in_(first))
                              .values(active=False))
    [item] = (await client.get(f"chat/{GROUP}/tournaments", 2)).json()["tournaments"]
    still_in = [s for s in cup.standings if s.entry.id not in first and s.points > 0]
    best = [s.entry.name for s in still_in if s.place == still_in[0].place]
    assert item["winner"] == f"Winner: {', '.join(best)}", item


async def test_sign_up_and_refusals(mini) -> None:
    api, players, runner, client = mini
    service = service_of(runner)
    cup = await signed_up(runner, GROUP, ai=1)
    # In sign-up: who signed up, no standings, no round.
    data = (await client.get(f"tournament/{cup.id}", 2)).json()
    assert (data["status"], data["stage"], data["standings"], data["rounds"]) == \
        ("signup", "Sign-up", [], [])
    assert [p["name"] for p in data["players"]] == ["Ann", "Bob", "Cat", cup.entries[3].name]
    # Dan joined the sign-up without ever playing in the group: the tournament's page is his,
    # the group's league is not yet.
    await service.join_tournament(cup.id, UserRef(4, "Dan"))
    assert (await client.get(f"tournament/{cup.id}", 4)).status_code == 200
    refused = await client.get(f"chat/{GROUP}/tournaments", 4)
    assert refused.status_code == 403 and refused.json()["error"] == "league_members_only"

    # Someone who neither plays in it nor played in its group.
    foreign = await client.get(f"tournament/{cup.id}", OUTSIDER)
    assert foreign.status_code == 403
    assert foreign.json() == {
        "error": "tournament_members_only",
        "message": "This tournament's page is for its players and those who have played a "
                   "game in its group."}
    # A tournament of another group, whose games Ann never sat in.
    other = await service.open_tournament(OTHER, "Elsewhere", 0, UserRef(5, "Eve"), "coyote")
    refused = await client.get(f"tournament/{other.id}", 1)
    assert refused.status_code == 403 and refused.json()["error"] == "tournament_members_only"
    assert (await client.get(f"tournament/{other.id}", 5)).status_code == 200
    # No tournament, or no id at all: 404 with its text.
    for raw in ("777", "0", "-1", "abc", "99999999999999999999", "2147483648", "1.5"):
        missing = await client.get(f"tournament/{raw}", 1)
        assert missing.status_code == 404, (raw, missing.text)
        assert missing.json() == {"error": "tournament_not_found",
                                  "message": error_text("tournament_not_found")}, raw
    # Forged, expired or missing initData: 401, whatever the tournament.
    forged = await client.http.get(f"{client.base}api/tournament/{cup.id}", headers={
        "Authorization": "tma " + init_data("123:forged", 1, "Ann")})
    assert forged.status_code == 401 and forged.json()["error"] == "unauthorized"
    expired = await client.http.get(f"{client.base}api/tournament/{cup.id}", headers={
        "Authorization": "tma " + init_data(api.token, 1, "Ann",
                                            auth_date=time.time() - 3 * 86400)})
    assert expired.status_code == 401
    assert (await client.get(f"tournament/{cup.id}", None)).status_code == 401
    assert (await client.get(f"chat/{GROUP}/tournaments", None)).status_code == 401
    # The refusal is in the reader's language.
    japanese = await client.http.get(f"{client.base}api/tournament/{other.id}", headers={
        "Authorization": "tma " + init_data(api.token, 1, "Ann", language="ja")})
    assert japanese.status_code == 403
    assert japanese.json()["message"] == \
        "このトーナメントのページは、参加者と、そのグループでゲームをしたことがある人だけが見られます。"

    # Once started: round 1 of 3 with its deadline, its tables being played; Dan has now
    # sat in the group's games, so its league page is his too.
    cup = await service.tournament(cup.id)
    cup = await service.start_tournament(cup.id, 1, is_admin=False, version=cup.version)
    data = (await client.get(f"tournament/{cup.id}", 4)).json()
    assert (data["status"], data["stage"]) == ("running", "Round 1 of 3")
    assert cup.round_ends_at is not None and data["deadline"] == cup.round_ends_at.isoformat()
    [first] = data["rounds"]
    assert first["current"] and all(not t["over"] for t in first["tables"])
    assert sorted(p["name"] for t in first["tables"] for p in t["players"]) == \
        sorted(e.name for e in cup.entries)
    assert [r["points"] for r in data["standings"]] == ["0"] * len(cup.entries)
    listed = (await client.get(f"chat/{GROUP}/tournaments", 4)).json()["tournaments"]
    assert [(t["id"], t["stage"], t["you"]) for t in listed] == [(cup.id, "Round 1 of 3", True)]
