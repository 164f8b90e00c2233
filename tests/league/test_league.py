"""The league on PostgreSQL: rated games, standings over two simulated weeks, ratings that
replay exactly, history, the leaderboard, and posts claimed exactly once."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select

from engine import Action
from league.service import MatchService
from league.store.db import Database
from league.store.rating_models import RatingEvent
from league.store.snapshots import UserRef
from league.tables.ratings import RatingChange, replay
from tests.clock import Clock
from tests.league.play import finish_coyote

CHAT = -3001
PEOPLE = [UserRef(i, name) for i, name in enumerate(["Ann", "Bob", "Cat", "Dan", "Eve"], 1)]




async def play_game(service: MatchService, users: list[UserRef], *, ai: int = 0,
                    leave_first: bool = False) -> int:
    """A whole game through the service: bid up to 6, then call."""
    lobby = await service.open_lobby(CHAT, "League", 0, users[0], "coyote")
    for user in users[1:]:
        await service.join(lobby.id, user)
    for _ in range(ai):
        await service.add_ai(lobby.id, users[0].id)
    game = (await service.start(lobby.id, users[0].id)).game
    if leave_first:
        from league.store.models import Game
        async with service.db.sessions.begin() as session:
            row = await session.get(Game, game.id)
            row.due_at = service.clock()  # the sweeper removes the player to act
            row.deadline_at = service.clock()
            row.remind_at = None
            row.options = {**row.options, "timeout_policy": "remove"}
        await service.sweep()
        game = await service.get(game.id)
    return (await finish_coyote(service, game.id)).id


async def test_rated_games_standings_and_replay(pg_db: Database) -> None:
    clock = Clock(datetime(2026, 3, 2, 10, 0, tzinfo=UTC))  # a Monday
    service = MatchService(pg_db, clock=clock, new_seed=iter(range(100, 200)).__next__)
    week1 = [await play_game(service, PEOPLE[:4]), await play_game(service, PEOPLE[1:5])]
    clock.now += timedelta(days=7)
    week2 = [await play_game(service, PEOPLE[:3])]
    await play_game(service, PEOPLE[:2], ai=2)  # a computer seat: not rated
    async with service.db.sessions() as session:
        events = list(await session.scalars(select(RatingEvent).order_by(RatingEvent.id)))
    assert {e.game_id for e in events} == set(week1 + week2)
    assert len(events) == 4 + 4 + 3

    this_week = await service.standings(CHAT, "week", kind="coyote")
    assert sum(r.games for r in this_week.rows) == 3
    assert sum(r.points for r in this_week.rows) == 3.0  # 3 players: 0+1+2 pair points
    last_week = await service.standings(CHAT, "last", kind="coyote")
    assert sum(r.points for r in last_week.rows) == 6.0 + 6.0
    season = await service.standings(CHAT, "season", kind="coyote")
    assert sum(r.games for r in season.rows) == 11
    assert [r.rank for r in season.rows] == sorted(r.rank for r in season.rows)

    games: dict[int, list[RatingChange[int]]] = {}
    for e in events:
        games.setdefault(e.game_id, []).append(
            RatingChange(e.user_id, e.before, e.after, e.k, e.score, e.expected))
    replayed = replay(list(games.items()))
    cards = {p.id: await service.rating_card(p.id, CHAT, kind="coyote") for p in PEOPLE}
    assert all(abs(replayed[u] - cards[u].rating) < 1e-9 for u in replayed)
    assert cards[1].chat_rank is not None and cards[1].overall_rank is None  # < 10 games
    by_rating = sorted(cards.values(), key=lambda c: -c.rating)
    assert by_rating[0].chat_rank == 1
    for better, worse in zip(by_rating, by_rating[1:], strict=False):
        assert better.chat_rank < worse.chat_rank or better.rating == worse.rating

    history = await service.history(CHAT, kind="coyote")
    assert len(history) == 4 and history[0].placements[0][0] == 1
    game, log = await service.replay(week2[0], CHAT)
    assert any(e["type"] == "showdown" for step in log for e in step)


async def test_removed_player_counts_last(pg_db: Database) -> None:
    """A player who bid, then left: placed last, and rated last."""
    clock = Clock(datetime(2026, 3, 4, 10, 0, tzinfo=UTC))
    service = MatchService(pg_db, clock=clock, new_seed=lambda: 77)
    lobby = await service.open_lobby(CHAT, "League", 0, PEOPLE[0], "coyote")
    for user in PEOPLE[1:4]:
        await service.join(lobby.id, user)
    game = (await service.start(lobby.id, PEOPLE[0].id)).game
    leaver = game.at_seat(game.state["turn"])
    game = (await service.act(game.id, leaver.user_id, game.version, Action("bid", 4))).game
    game = (await service.act(game.id, leaver.user_id, game.version, Action("resign"))).game
    game_id = (await finish_coyote(service, game.id)).id
    async with service.db.sessions() as session:
        events = {e.user_id: e for e in await session.scalars(
            select(RatingEvent).where(RatingEvent.game_id == game_id))}
    assert len(events) == 4 and events[leaver.user_id].score == 0.0
    assert events[leaver.user_id].place == 4
    [entry] = await service.history(CHAT, kind="coyote")
    assert entry.placements[-1][:2] == (4, leaver.name) and entry.placements[-1][2] < 0


async def test_a_player_who_never_moved_is_placed_but_not_rated(pg_db: Database) -> None:
    """The player to act is removed for a timeout before any move of theirs: the three
    others are rated among themselves; the removed one is placed last, unrated."""
    clock = Clock(datetime(2026, 3, 4, 10, 0, tzinfo=UTC))
    service = MatchService(pg_db, clock=clock, new_seed=lambda: 77)
    game_id = await play_game(service, PEOPLE[:4], leave_first=True)
    game = await service.get(game_id)
    [removed] = [p for p in game.players if p.rated is False]
    assert removed.placement == 4 and all(p.rated for p in game.players if p is not removed)
    async with service.db.sessions() as session:
        events = {e.user_id: e for e in await session.scalars(
            select(RatingEvent).where(RatingEvent.game_id == game_id))}
    assert set(events) == {p.user_id for p in game.players} - {removed.user_id}
    assert sorted(e.score for e in events.values()) == [0.0, 1.0, 2.0]  # three of them
    card = await service.rating_card(removed.user_id, CHAT, kind="coyote")
    assert card.games == 0
    [entry] = await service.history(CHAT, kind="coyote")
    assert entry.placements[-1] == (4, removed.name, None)
    week = await service.standings(CHAT, "week", kind="coyote")
    assert removed.user_id not in {row.player for row in week.rows}


async def test_a_leave_is_no_move_of_ones_own(pg_db: Database) -> None:
    """A player who never moved and then left (/leave: the resign action, logged with their
    id) is placed last but not rated, as one removed for timeouts; the three others are
    rated among themselves. (One who moved and then left is rated last:
    test_removed_player_counts_last.)"""
    clock = Clock(datetime(2026, 3, 4, 10, 0, tzinfo=UTC))
    service = MatchService(pg_db, clock=clock, new_seed=lambda: 77)
    lobby = await service.open_lobby(CHAT, "League", 0, PEOPLE[0], "coyote")
    for user in PEOPLE[1:4]:
        await service.join(lobby.id, user)
    game = (await service.start(lobby.id, PEOPLE[0].id)).game
    leaver = next(p for p in game.players if p.seat != game.state["turn"])  # not yet to act
    game = (await service.act(game.id, leaver.user_id, game.version, Action("resign"))).game
    game = await finish_coyote(service, game.id)
    assert game.status == "finished"
    [left] = [p for p in game.players if p.user_id == leaver.user_id]
    assert left.placement == 4 and left.rated is False
    assert all(p.rated for p in game.players if p is not left)
    async with service.db.sessions() as session:
        events = {e.user_id: e for e in await session.scalars(
            select(RatingEvent).where(RatingEvent.game_id == game.id))}
    assert set(events) == {p.user_id for p in game.players} - {leaver.user_id}
    assert sorted(e.score for e in events.values()) == [0.0, 1.0, 2.0]
    assert (await service.rating_card(leaver.user_id, CHAT, kind="coyote")).games == 0


async def test_a_game_nobody_played_is_not_rated(pg_db: Database) -> None:
    """On timeout: removed. Every turn runs out until one player is left: nobody made a
    move, so nothing is rated; the removed share the last place."""
    clock = Clock(datetime(2026, 3, 4, 10, 0, tzinfo=UTC))
    service = MatchService(pg_db, clock=clock, new_seed=lambda: 77)
    await service.set_chat_setting(CHAT, "League", "timeout_policy", "remove")
    lobby = await service.open_lobby(CHAT, "League", 0, PEOPLE[0], "coyote")
    for user in PEOPLE[1:3]:
        await service.join(lobby.id, user)
    game = (await service.start(lobby.id, PEOPLE[0].id)).game
    for _ in range(10):
        if game.status != "running":
            break
        clock.now += timedelta(days=2)
        await service.sweep()
        game = await service.get(game.id)
    assert game.status == "finished"
    assert sorted(p.placement for p in game.players) == [1, 2, 2]
    assert [p.rated for p in game.players] == [False] * 3
    async with service.db.sessions() as session:
        assert list(await session.scalars(select(RatingEvent))) == []
    [entry] = await service.history(CHAT, kind="coyote")
    assert [(place, delta) for place, _, delta in entry.placements] == \
        [(1, None), (2, None), (2, None)]


@pytest.mark.parametrize("processes", [1, 2])
async def test_weekly_post_claimed_once(pg_db: Database, pg_url: str, processes: int) -> None:
    clock = Clock(datetime(2026, 3, 5, 10, 0, tzinfo=UTC))
    service = MatchService(pg_db, clock=clock, new_seed=lambda: 5)
    await play_game(service, PEOPLE[:3])
    assert await service.due_posts() == []  # the week is not over yet
    clock.now = datetime(2026, 3, 9, 0, 0, 1, tzinfo=UTC)  # Monday: last week is final
    due = await service.due_posts()
    assert [(c, game, post) for c, game, post, _ in due] == [(CHAT, "coyote", "week")]
    others = [MatchService(Database(pg_url), clock=clock) for _ in range(processes)]
    claims = [await s.claim_post(*due[0]) for s in [service, *others]]
    assert claims.count(True) == 1
    assert await service.due_posts() == []  # also after a restart: the claim is stored
    for other in others:
        await other.db.dispose()


async def test_long_season_champion_is_still_announced(pg_db: Database) -> None:
    """A 12-week season whose only games were in its first week, long before its end."""
    clock = Clock(datetime(2024, 1, 3, 10, 0, tzinfo=UTC))  # season 0 starts Mon 2024-01-01
    service = MatchService(pg_db, clock=clock, new_seed=lambda: 5)
    await service.set_chat_setting(CHAT, "League", "season_weeks", 12)
    await play_game(service, PEOPLE[:3])
    clock.now = datetime(2024, 1, 8, 0, 1, tzinfo=UTC)
    assert [post for _, _, post, _ in await service.due_posts()] == ["week"]
    clock.now = datetime(2024, 3, 25, 0, 1, tzinfo=UTC)  # twelve weeks later
    due = await service.due_posts()
    assert [(chat, post, key.date().isoformat()) for chat, _, post, key in due] == \
        [(CHAT, "season", "2024-03-25")]  # (keyed by its end)
    table = await service.standings(CHAT, "last_season", kind="coyote")
    assert table.rows and table.rows[0].points > 0


async def test_supergroup_keeps_settings_and_league(pg_db: Database) -> None:
    clock = Clock(datetime(2026, 3, 4, 10, 0, tzinfo=UTC))
    service = MatchService(pg_db, clock=clock, new_seed=lambda: 5)
    await service.set_chat_setting(CHAT, "League", "timezone", "Asia/Tokyo")
    await service.set_chat_setting(CHAT, "League", "season_weeks", 6)
    await play_game(service, PEOPLE[:3])
    clock.now = datetime(2026, 3, 9, 0, 0, 1, tzinfo=UTC)
    for due in await service.due_posts():  # the week, and the six-week season
        assert await service.claim_post(*due)
    new = CHAT * 1000
    for _ in range(2):  # Telegram reports it twice: as a service message and as an error
        await service.migrate_chat(CHAT, new)
    settings = await service.chat_settings(new)
    assert settings["timezone"] == "Asia/Tokyo" and settings["season_weeks"] == 6
    table = await service.standings(new, "last", kind="coyote")
    assert len(table.rows) == 3 and sum(r.games for r in table.rows) == 3
    assert len(await service.history(new, kind="coyote")) == 1
    assert await service.due_posts() == []  # last week's post stays claimed
    card = await service.rating_card(PEOPLE[0].id, new, kind="coyote")
    assert card.chat_rank is not None


async def test_migration_into_a_supergroup_that_has_a_row_already(pg_db: Database) -> None:
    clock = Clock(datetime(2026, 3, 4, 10, 0, tzinfo=UTC))
    service = MatchService(pg_db, clock=clock, new_seed=lambda: 5)
    await service.set_chat_setting(CHAT, "League", "timezone", "Asia/Tokyo")
    await service.set_chat_setting(CHAT, "League", "pace", "relaxed")
    await play_game(service, PEOPLE[:3])
    new = CHAT * 1000
    await service.set_chat_setting(new, "League", "pace", "quick")  # set there already
    await service.migrate_chat(CHAT, new)
    settings = await service.chat_settings(new)
    assert settings["pace"] == "quick" and settings["timezone"] == "Asia/Tokyo"
    clock.now = datetime(2026, 3, 9, 0, 0, 1, tzinfo=UTC)
    due = await service.due_posts()
    assert [(chat, post) for chat, _, post, _ in due] == [(new, "week")]


async def test_migration_when_both_ids_claimed_the_same_post(pg_db: Database) -> None:
    from league.store.rating_models import LeaguePost

    clock = Clock(datetime(2026, 3, 9, 0, 0, 1, tzinfo=UTC))
    service = MatchService(pg_db, clock=clock)
    new = CHAT * 1000
    key = datetime(2026, 3, 2, tzinfo=UTC)
    for chat in (CHAT, new):
        await service.set_chat_setting(chat, "League", "season_weeks", 4)
        assert await service.claim_post(chat, "coyote", "week", key)
    await service.migrate_chat(CHAT, new)
    async with pg_db.sessions() as session:
        posts = list(await session.scalars(select(LeaguePost)))
    assert [(p.chat_id, p.kind) for p in posts] == [(new, "week")]


async def test_last_rated_time_never_goes_back(pg_db: Database) -> None:
    """Two games finishing together: the one committing last may have the earlier time."""
    from league.store.models import Chat

    clock = Clock(datetime(2026, 3, 8, 23, 59, tzinfo=UTC))
    service = MatchService(pg_db, clock=clock, new_seed=lambda: 5)
    later = datetime(2026, 3, 9, 0, 1, tzinfo=UTC)
    await service.set_chat_setting(CHAT, "League", "pace", "quick")
    async with pg_db.sessions.begin() as session:
        (await session.get(Chat, CHAT)).last_rated_at = later
    await play_game(service, PEOPLE[:3])
    async with pg_db.sessions() as session:
        assert (await session.get(Chat, CHAT)).last_rated_at == later


async def test_chat_time_zone_and_season_settings(pg_db: Database) -> None:
    service = MatchService(pg_db)
    from league.store.errors import ServiceError

    for bad in ("Mars/Base", "localtime", "posix/Europe/Berlin", "right/UTC", "Factory", 5):
        with pytest.raises(ServiceError, match="bad_timezone"):
            await service.set_chat_setting(CHAT, "League", "timezone", bad)
    settings = await service.set_chat_setting(CHAT, "League", "timezone", "europe/berlin")
    assert settings["timezone"] == "Europe/Berlin"
    with pytest.raises(ServiceError, match="bad_option"):
        await service.set_chat_setting(CHAT, "League", "season_weeks", 0)
    settings = await service.set_chat_setting(CHAT, "League", "timezone", "Asia/Kolkata")
    settings = await service.set_chat_setting(CHAT, "League", "season_weeks", 2)
    assert settings["timezone"] == "Asia/Kolkata" and settings["season_weeks"] == 2
    table = await service.standings(CHAT, "week", kind="coyote",
                                    at=datetime(2026, 3, 4, 12, 0, tzinfo=UTC))
    assert table.start == datetime(2026, 3, 1, 18, 30, tzinfo=UTC)  # Monday 00:00 in India


async def test_a_post_that_was_not_sent_is_retried_once(pg_db: Database) -> None:
    clock = Clock(datetime(2026, 3, 5, 10, 0, tzinfo=UTC))
    service = MatchService(pg_db, clock=clock, new_seed=lambda: 5)
    await play_game(service, PEOPLE[:3])
    clock.now = datetime(2026, 3, 9, 0, 0, 1, tzinfo=UTC)
    [due] = await service.due_posts()
    assert await service.claim_post(*due)  # the send then fails: never marked posted
    assert await service.due_posts() == []
    clock.now += timedelta(minutes=11)
    assert await service.due_posts() == [due]
    assert await service.claim_post(*due) and not await service.claim_post(*due)
    await service.mark_posted(*due)
    clock.now += timedelta(hours=1)
    assert await service.due_posts() == []


async def test_overall_rank_counts_only_established_players(pg_db: Database) -> None:
    from league.store.models import User
    from league.store.rating_models import Rating

    service = MatchService(pg_db)
    async with pg_db.sessions.begin() as session:
        for uid, rating, games in ((1, 1600.0, 12), (2, 1700.0, 3), (3, 1550.0, 10),
                                   (4, 1600.0, 20)):
            session.add(User(id=uid, first_name=f"U{uid}", can_message=False))
            await session.flush()
            session.add(Rating(user_id=uid, kind="coyote", rating=rating, games=games, wins=0))
    ranks = {uid: (await service.rating_card(uid, None, kind="coyote")).overall_rank
             for uid in (1, 2, 3, 4)}
    assert ranks == {1: 1, 2: None, 3: 3, 4: 1}  # 2 is provisional; 1 and 4 share first
    assert [row[0] for row in await service.top(kind="coyote")] == [1, 1, 3]


async def test_history_dates_are_the_chats_local_dates(pg_db: Database) -> None:
    clock = Clock(datetime(2026, 5, 11, 3, 30, tzinfo=UTC))  # Sunday 23:30 in New York
    service = MatchService(pg_db, clock=clock, new_seed=lambda: 5)
    await service.set_chat_setting(CHAT, "League", "timezone", "America/New_York")
    await play_game(service, PEOPLE[:3])
    [entry] = await service.history(CHAT, kind="coyote")
    assert entry.finished_at.date().isoformat() == "2026-05-10"
