"""Tournaments through the match service on PostgreSQL: sign-up, Swiss rounds dealt as
ordinary games, scoring, the deadline, no-shows, late joiners, a restart between rounds."""

from __future__ import annotations

import asyncio
import random
from fractions import Fraction

import pytest

from league.service import MatchService
from league.store.db import Database
from league.store.errors import ServiceError
from league.store.snapshots import GameSnapshot, UserRef
from league.tournaments.records import TournamentSnapshot, points_of
from league.tournaments.rounds import ROUND_DEADLINE
from tests.clock import Clock

CHAT = -4101
USERS = [UserRef(i, n, language="en") for i, n in enumerate(
    ["Ann", "Bob", "Cat", "Dan", "Eve", "Fay", "Gus", "Hal", "Ivy", "Jon"], 1)]
ANN, BOB, CAT, DAN = USERS[:4]


def service_at(db: Database, clock: Clock) -> MatchService:
    return MatchService(db, new_seed=iter(range(11, 10_000)).__next__, clock=clock)


async def play_table(service: MatchService, game_id: int, *, absent: frozenset[int] = frozenset(),
                     seed: int = 1) -> GameSnapshot:
    """Move for the table's humans as the normal computer player would, until the game ends
    or it is an absent player's turn."""
    game = await service.get(game_id)
    rules = service.games[game.kind]
    rng = random.Random(seed)
    for _ in range(3000):
        if game.status != "running":
            break
        seat = rules.current_seat(game.state or {})
        user = game.at_seat(seat).user_id
        if user is None or user in absent:
            break
        action = rules.ai_action(rules.view(game.state or {}, seat), rng, "normal")
        game = (await service.act(game.id, user, game.version, action)).game
    return game


async def signed_up(service: MatchService, kind: str, humans: list[UserRef], ai: int = 0,
                    **settings: int) -> TournamentSnapshot:
    cup = await service.open_tournament(CHAT, "G", 0, humans[0], kind)
    for user in humans[1:]:
        cup = await service.join_tournament(cup.id, user)
    for _ in range(ai):
        cup = await service.add_tournament_ai(cup.id, humans[0].id, is_admin=False,
                                              version=cup.version)
    for name, value in settings.items():
        cup = await service.set_tournament_setting(cup.id, humans[0].id, name, value,
                                                   is_admin=False, version=cup.version)
    return cup


async def past_deadline(service: MatchService, clock: Clock,
                        cup: TournamentSnapshot) -> TournamentSnapshot:
    """Move the clock past the round's deadline: one tick has the computer finish the tables
    still running and scores the round; the next seats the next round (or ends it all)."""
    clock.advance(cup.round_seconds + 1)
    [ended] = await service.advance_tournaments()
    assert ended.round == cup.round and ended.status == "running"
    finished = ended.by_computer(cup.round)
    assert finished
    table = next(t for t in ended.tables_of(cup.round) if t.table == finished[0])
    assert ROUND_DEADLINE in [e["type"] for row in await service.log(table.game_id)
                              for e in row.events]  # (the group is told it in one line)
    [after] = await service.advance_tournaments()
    return after


def table_sums_hold(cup: TournamentSnapshot) -> None:
    """Each table's points sum to n/2 (less only by no-shows' lost points); a bye is ½."""
    by_game: dict[int | None, list[Fraction]] = {}
    for r in cup.results:
        by_game.setdefault(r.game_id, []).append(points_of(r.points))
        assert 0 <= r.points <= 1
        if r.game_id is None:
            assert points_of(r.points) == Fraction(1, 2)
    for game_id, points in by_game.items():
        if game_id is None:
            continue
        n = len(points)
        no_shows = [r for r in cup.results if r.game_id == game_id and r.no_show]
        assert sum(points) <= Fraction(n, 2)
        if not no_shows:
            assert sum(points) == Fraction(n, 2)


async def test_a_coyote_tournament_plays_to_its_podium(pg_db: Database) -> None:
    clock = Clock()
    service = service_at(pg_db, clock)
    cup = await signed_up(service, "coyote", USERS[:5], ai=4, rounds=3, table_size=3)
    assert [e.name for e in cup.entries][:5] == ["Ann", "Bob", "Cat", "Dan", "Eve"]
    assert cup.options["pace"] == "standard" and cup.round_seconds == 86400
    cup = await service.start_tournament(cup.id, ANN.id, is_admin=False, version=cup.version)
    assert cup.status == "running" and cup.round == 1
    for round_ in (1, 2, 3):
        tables = cup.tables_of(round_)
        assert [len(t.entries) for t in tables] == [3, 3, 3]
        assert sorted(e for t in tables for e in t.entries) == sorted(e.id for e in cup.entries)
        for table in tables:
            await play_table(service, table.game_id, seed=round_)
        changed = await service.advance_tournaments()
        assert [c.id for c in changed] == [cup.id]
        cup = changed[0]
        assert await service.advance_tournaments() == []  # (nothing seated twice)
    assert cup.status == "finished" and cup.round == 3
    assert len(cup.results) == 27
    table_sums_hold(cup)
    assert [s.place for s in cup.standings][:1] == [1]
    assert sum(s.points for s in cup.standings) == pytest.approx(27 / 2)
    assert cup.told_target == 4
    with pytest.raises(ServiceError) as forged:  # (a table's end offers no 🔁 Rematch)
        await service.rematch(cup.tables[0].game_id, ANN)
    assert forged.value.code == "bad_button"


async def test_the_deadline_finishes_a_table_and_no_shows_are_withdrawn(
        pg_db: Database) -> None:
    clock = Clock()
    service = service_at(pg_db, clock)
    cup = await signed_up(service, "koira", USERS[:7], rounds=4, table_size=4)
    cup = await service.start_tournament(cup.id, ANN.id, is_admin=False, version=cup.version)
    assert sorted(len(t.entries) for t in cup.tables_of(1)) == [3, 4]
    gus = cup.entry_of(USERS[6].id)
    assert gus is not None
    for round_ in (1, 2):
        for table in cup.tables_of(round_):
            await play_table(service, table.game_id, absent=frozenset({USERS[6].id}))
        assert await service.advance_tournaments() == []  # (Gus has not moved)
        cup = await past_deadline(service, clock, cup)
        gus_result = next(r for r in cup.results if r.entry_id == gus.id and r.round == round_)
        assert gus_result.no_show and gus_result.points == 0
        table_sums_hold(cup)
    assert not next(e for e in cup.entries if e.id == gus.id).active
    assert all(gus.id not in t.entries for t in cup.tables_of(3))
    # Withdrawn, Gus may come back; his missed rounds score nothing, and count as sat out
    # (round 3, seated without him), so the seating gives the next byes to others.
    cup = await service.join_tournament(cup.id, USERS[6])
    back = next(e for e in cup.entries if e.id == gus.id)
    assert back.active and back.byes == 1
    with pytest.raises(ServiceError) as late:  # a new player after half the rounds started
        await service.join_tournament(cup.id, USERS[8])
    assert late.value.code == "join_closed"


async def test_a_late_joiner_gets_a_byes_points(pg_db: Database) -> None:
    service = service_at(pg_db, Clock())
    cup = await signed_up(service, "coyote", USERS[:3], rounds=5)
    cup = await service.start_tournament(cup.id, ANN.id, is_admin=False, version=cup.version)
    cup = await service.join_tournament(cup.id, DAN)
    dan = cup.entry_of(DAN.id)
    assert dan is not None and dan.joined_round == 1 and dan.byes == 1  # (sat out round 1)
    assert [(r.round, r.points, r.game_id) for r in cup.results if r.entry_id == dan.id] \
        == [(1, 0.5, None)]
    with pytest.raises(ServiceError) as twice:
        await service.join_tournament(cup.id, DAN)
    assert twice.value.code == "already_joined"


async def test_bad_requests_change_nothing(pg_db: Database) -> None:
    service = service_at(pg_db, Clock())
    cup = await signed_up(service, "coyote", USERS[:2])
    for name, value in [("rounds", 2), ("rounds", 10), ("rounds", True), ("table_size", 11),
                        ("table_size", 2), ("round_seconds", 60), ("edition", "chess"),
                        ("nonsense", 1)]:
        with pytest.raises(ServiceError) as bad:
            await service.set_tournament_setting(cup.id, ANN.id, name, value, is_admin=False,
                                                 version=cup.version)
        assert bad.value.code == "bad_option", (name, value)
    with pytest.raises(ServiceError) as stranger:
        await service.set_tournament_setting(cup.id, BOB.id, "rounds", 4, is_admin=False,
                                             version=cup.version)
    assert stranger.value.code == "not_allowed"
    with pytest.raises(ServiceError) as few:
        await service.start_tournament(cup.id, ANN.id, is_admin=False, version=cup.version)
    assert few.value.code == "too_few_players"
    changed = await service.set_tournament_setting(cup.id, BOB.id, "rounds", 4, is_admin=True,
                                                   version=cup.version)
    with pytest.raises(ServiceError) as stale:  # the old message's button
        await service.set_tournament_setting(cup.id, ANN.id, "rounds", 6, is_admin=False,
                                             version=cup.version)
    assert stale.value.code == "stale"
    assert (await service.tournament(cup.id)).rounds == changed.rounds == 4
    for forged in (0, -1, 2 ** 40, True):
        with pytest.raises(ServiceError) as missing:
            await service.tournament(forged)
        assert missing.value.code == "tournament_not_found"


async def test_two_tournaments_and_a_casual_game_share_a_group(pg_db: Database) -> None:
    service = service_at(pg_db, Clock())
    first = await signed_up(service, "coyote", USERS[:3])
    second = await signed_up(service, "koira", USERS[:4])
    await service.start_tournament(first.id, ANN.id, is_admin=False, version=first.version)
    await service.start_tournament(second.id, ANN.id, is_admin=False, version=second.version)
    lobby = await service.open_lobby(CHAT, "G", 0, ANN, "coyote")
    assert lobby.status == "lobby"
    assert [t.id for t in await service.tournaments_in(CHAT)] == [first.id, second.id]
    running = await service.running_games_of(ANN.id)
    assert {g.tournament_id for g in running} == {first.id, second.id}
    cancelled = await service.cancel_tournament(first.id, ANN.id, is_admin=True)
    assert cancelled.status == "cancelled"
    assert all(t.status == "cancelled" for t in cancelled.tables)


async def test_two_processes_ticking_at_once_seat_the_next_round_once(pg_db: Database) -> None:
    clock = Clock()
    first, second = service_at(pg_db, clock), service_at(pg_db, clock)
    cup = await signed_up(first, "coyote", USERS[:3], ai=3, rounds=3, table_size=3)
    cup = await first.start_tournament(cup.id, ANN.id, is_admin=False, version=cup.version)
    clock.advance(cup.round_seconds + 1)  # (the deadline: the computer finishes the tables)
    for _ in range(2):  # (the tables finished and scored; then round 2 seated)
        one, two = await asyncio.gather(first.advance_tournaments(),
                                        second.advance_tournaments())
        assert len(one) + len(two) == 1
    cup = await first.tournament(cup.id)
    assert cup.round == 2 and len(cup.tables_of(2)) == 2
    assert len([r for r in cup.results if r.round == 1]) == 6


async def test_a_tournament_on_sqlite(sqlite_url: str) -> None:
    clock = Clock()
    service = service_at(Database(sqlite_url), clock)
    cup = await signed_up(service, "koira", USERS[:3], ai=2, rounds=3, table_size=5)
    cup = await service.start_tournament(cup.id, ANN.id, is_admin=False, version=cup.version)
    assert [len(t.entries) for t in cup.tables_of(1)] == [5]
    for round_ in (1, 2, 3):
        [table] = cup.tables_of(round_)
        await play_table(service, table.game_id, seed=round_)
        [cup] = await service.advance_tournaments()
    assert cup.status == "finished" and len(cup.results) == 15
    assert not any(r.no_show for r in cup.results)
    table_sums_hold(cup)


async def test_a_tournament_with_fewer_than_three_players_left_ends(pg_db: Database) -> None:
    clock = Clock()
    service = service_at(pg_db, clock)
    cup = await signed_up(service, "coyote", USERS[:3], ai=2, rounds=5)
    cup = await service.start_tournament(cup.id, ANN.id, is_admin=False, version=cup.version)
    for _ in range(2):  # nobody human moves: withdrawn after two games
        cup = await past_deadline(service, clock, cup)
    assert cup.status == "finished" and cup.round == 2
    assert [e.active for e in cup.entries] == [False, False, False, True, True]
    assert cup.told_target == 6


async def test_a_supergroup_migration_moves_the_tournament(pg_db: Database) -> None:
    service = service_at(pg_db, Clock())
    cup = await signed_up(service, "coyote", USERS[:3], ai=1)
    await service.set_tournament_message(cup.id, 77)
    cup = await service.start_tournament(cup.id, ANN.id, is_admin=False, version=cup.version)
    await service.migrate_chat(CHAT, -100_4101)
    [moved] = await service.tournaments_in(-100_4101)
    assert moved.id == cup.id and moved.message_id is None
    assert {(await service.get(t.game_id)).chat_id for t in moved.tables} == {-100_4101}
    assert await service.tournaments_in(CHAT) == []


async def test_computer_players_alone_play_on_for_nobody(pg_db: Database) -> None:
    clock = Clock()
    service = service_at(pg_db, clock)
    cup = await signed_up(service, "coyote", USERS[:3], ai=4, rounds=5)
    cup = await service.start_tournament(cup.id, ANN.id, is_admin=False, version=cup.version)
    for _ in range(2):  # nobody human moves: withdrawn after two games
        cup = await past_deadline(service, clock, cup)
    assert cup.status == "finished" and cup.round == 2
    assert len(cup.active) == 4 and all(e.is_ai for e in cup.active)


async def test_an_opener_who_leaves_the_sign_up_hands_it_on(pg_db: Database) -> None:
    service = service_at(pg_db, Clock())
    cup = await signed_up(service, "coyote", USERS[:3])
    cup = await service.leave_tournament(cup.id, ANN.id)
    assert cup.creator_id == BOB.id and cup.entry_of(ANN.id) is None
    cup = await service.set_tournament_setting(cup.id, BOB.id, "rounds", 3, is_admin=False,
                                               version=cup.version)
    assert cup.rounds == 3


async def test_a_table_of_computer_players_plays_a_long_game_to_its_end_at_once(
        pg_db: Database) -> None:
    """A Koira tournament of Ann and fifteen easy computer players, tables of eight: one
    table is computers only, dealt with seed 2198, whose game takes them 1,181 moves (easy
    Koira players' games are the longest). A table of computers only is played to its end
    when it is dealt. Before the fix the computers stopped after 1,000 moves
    (``MAX_AI_STEPS``) with one of them to act and no clock running: the table stayed open
    and the whole round waited a day for its deadline, Ann's table long finished."""
    clock = Clock()
    service = MatchService(pg_db, new_seed=lambda: 2198, clock=clock)
    cup = await service.open_tournament(CHAT, "G", 0, ANN, "koira")
    for _ in range(15):
        cup = await service.add_tournament_ai(cup.id, ANN.id, is_admin=False,
                                              version=cup.version, level="easy")
    cup = await service.set_tournament_setting(cup.id, ANN.id, "table_size", 8,
                                               is_admin=False, version=cup.version)
    cup = await service.start_tournament(cup.id, ANN.id, is_admin=False, version=cup.version)
    [computers] = [t for t in cup.tables_of(1) if ANN.id not in {
        p.user_id for p in (await service.get(t.game_id)).seated}]
    game = await service.get(computers.game_id)
    assert game.status == "finished", f"stopped after {game.version} moves"
    assert len(await service.log(game.id)) > 1000
