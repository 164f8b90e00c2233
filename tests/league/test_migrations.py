"""Schema migrations on PostgreSQL when several bot processes start at once (a redeploy)."""

from __future__ import annotations

import subprocess
import sys
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg
import pytest
from sqlalchemy.engine import make_url

from tests.conftest import ADMIN_URL

ROOT = Path(__file__).resolve().parents[2]


@contextmanager
def _scratch_postgresql() -> Iterator[str]:
    """The URL of a new, empty PostgreSQL database on the test server, dropped afterwards."""
    admin = make_url(ADMIN_URL).set(drivername="postgresql")
    name = f"coyote_migrate_{uuid.uuid4().hex[:10]}"
    admin_dsn = admin.render_as_string(hide_password=False)
    with psycopg.connect(admin_dsn, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield admin.set(database=name).render_as_string(hide_password=False)
    finally:
        with psycopg.connect(admin_dsn, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.mark.postgres
@pytest.mark.process
def test_processes_starting_together_migrate_once() -> None:
    with _scratch_postgresql() as url:
        # Separate processes, as in a redeploy (Alembic's context is per process).
        script = f"from league.store.db import upgrade; upgrade({url!r})"
        runs = [subprocess.Popen([sys.executable, "-c", script], cwd=ROOT,
                                 stderr=subprocess.PIPE, text=True) for _ in range(3)]
        for run in runs:
            _, err = run.communicate(timeout=120)
            assert run.returncode == 0, err  # none fails on "already exists"
        with psycopg.connect(url) as conn:
            versions = conn.execute("SELECT version_num FROM alembic_version").fetchall()
        assert len(versions) == 1


def _downgrade(url: str, revision: str) -> None:
    from alembic import command
    from alembic.config import Config

    from league.store.db import ALEMBIC_DIR, sync_url

    config = Config()
    config.set_main_option("script_location", str(ALEMBIC_DIR))
    config.set_main_option("sqlalchemy.url", sync_url(url).replace("%", "%%"))
    command.downgrade(config, revision)


def _check_game_options(url: str) -> None:
    """0011 keeps a chat's Coyote settings (non-default ones, and a chat that never changed
    them), a seat's lives as ``playing``, the private message's round as its hand, and all
    of it back again on the way down."""
    import json

    from sqlalchemy import create_engine, text

    from league.store.db import sync_url, upgrade

    upgrade(url, "0010_names_topics")
    engine = create_engine(sync_url(url))
    state = {"round": 4, "lives": [2, 0, 1], "step": 30}
    with engine.begin() as conn:
        conn.execute(text("INSERT INTO users (id, first_name, can_message, created_at, "
                          "updated_at) VALUES (1, 'Ann', false, :t, :t)"), {"t": "2026-12-01"})
        conn.execute(text(
            "INSERT INTO chats (id, title, created_at, pace, edition, lives, specials, "
            "timeout_policy, lobby_ttl, timezone, season_weeks) VALUES "
            "(-1, 'A', :t, 'quick', 'feathers', 4, true, 'remove', 3600, 'UTC', 4), "
            "(-2, 'B', :t, 'standard', 'classic', NULL, false, 'ai', 3600, 'UTC', 4)"),
            {"t": "2026-12-01"})
        conn.execute(text(
            "INSERT INTO games (id, chat_id, thread_id, kind, options, status, state, version, "
            "seed, creator_id, created_at) VALUES (1, -1, 0, 'coyote', :o, 'running', :s, 5, "
            "7, 1, :t)"), {"o": "{}", "s": json.dumps(state), "t": "2026-12-01"})
        for seat, lives in enumerate(state["lives"]):
            conn.execute(text(
                "INSERT INTO game_players (game_id, user_id, name, is_ai, seat, lives, "
                "private_round, timeouts_in_row, joined_at) VALUES (1, :u, :n, :ai, :seat, "
                ":lives, 4, 0, :t)"), {"u": 1 if seat == 0 else None, "n": f"P{seat}",
                                       "ai": seat != 0, "seat": seat, "lives": lives,
                                       "t": "2026-12-01"})
    upgrade(url, "0011_game_options")
    with engine.begin() as conn:
        options = {chat: value if isinstance(value, dict) else json.loads(value)
                   for chat, value in conn.execute(text("SELECT id, game_options FROM chats"))}
        assert options == {-1: {"coyote": {"edition": "feathers", "lives": 4, "specials": True}},
                           -2: {"coyote": {"edition": "classic", "specials": False}}}
        assert conn.execute(text("SELECT hand FROM games")).scalar() == 4
        seats = conn.execute(text("SELECT seat, playing, private_hand FROM game_players "
                                  "ORDER BY seat")).all()
        assert [(s, bool(p), h) for s, p, h in seats] == [(0, True, 4), (1, False, 4),
                                                         (2, True, 4)]
    _downgrade(url, "0010_names_topics")
    with engine.begin() as conn:
        chats = conn.execute(text("SELECT id, pace, edition, lives, specials FROM chats "
                                  "ORDER BY id")).all()
        assert [(c, p, e, lv, bool(s)) for c, p, e, lv, s in chats] == [
            (-2, "standard", "classic", None, False), (-1, "quick", "feathers", 4, True)]
        seats = conn.execute(text("SELECT seat, lives, private_round FROM game_players "
                                  "ORDER BY seat")).all()
        assert [tuple(s) for s in seats] == [(0, 2, 4), (1, 0, 4), (2, 1, 4)]
    engine.dispose()
    upgrade(url)  # and up again to the head


def _check_posts_per_kind(url: str) -> None:
    """0012 keeps every claim as Coyote's (the only game rated before it), lets a second
    game claim the same chat and period, and on the way down keeps Coyote's claims."""
    from sqlalchemy import create_engine, text

    from league.store.db import sync_url, upgrade

    upgrade(url, "0011_game_options")
    engine = create_engine(sync_url(url))
    with engine.begin() as conn:
        conn.execute(text(
            "INSERT INTO league_posts (chat_id, kind, period_start, claimed_at, posted_at) "
            "VALUES (-1, 'week', '2026-11-23', '2026-11-30', '2026-11-30'), "
            "(-1, 'season', '2026-11-02', '2026-11-30', NULL)"))
    upgrade(url, "0012_posts_per_kind")
    with engine.begin() as conn:
        rows = conn.execute(text("SELECT chat_id, game_kind, kind FROM league_posts "
                                 "ORDER BY kind")).all()
        assert [tuple(r) for r in rows] == [(-1, "coyote", "season"), (-1, "coyote", "week")]
        conn.execute(text(
            "INSERT INTO league_posts (chat_id, game_kind, kind, period_start, claimed_at) "
            "VALUES (-1, 'koira', 'week', '2026-11-23', '2026-11-30')"))
    with engine.begin() as conn:  # the same game's claim twice is refused
        try:
            conn.execute(text(
                "INSERT INTO league_posts (chat_id, game_kind, kind, period_start, "
                "claimed_at) VALUES (-1, 'koira', 'week', '2026-11-23', '2026-11-30')"))
        except Exception:
            pass
        else:
            raise AssertionError("a second claim of one post was accepted")
    _downgrade(url, "0011_game_options")
    with engine.begin() as conn:
        rows = conn.execute(text("SELECT chat_id, kind, posted_at IS NOT NULL FROM "
                                 "league_posts ORDER BY kind")).all()
        assert [(c, k, bool(p)) for c, k, p in rows] == [(-1, "season", False),
                                                          (-1, "week", True)]
    engine.dispose()
    upgrade(url)  # and up again to the head


def _check_league_places(url: str) -> None:
    """0015 places a finished game's players as every page now shows them: the two who
    were removed share the last place, on their seats and their rating rows; a game nobody
    left keeps its places."""
    import json

    from sqlalchemy import create_engine, text

    from league.store.db import sync_url, upgrade

    upgrade(url, "0014_delivery_tables")
    engine = create_engine(sync_url(url))
    t = "2026-12-01"
    with engine.begin() as conn:
        conn.execute(text(
            "INSERT INTO users (id, first_name, can_message, created_at, updated_at) VALUES "
            "(1, 'Ann', false, :t, :t), (2, 'Bob', false, :t, :t), (3, 'Dan', false, :t, :t)"),
            {"t": t})
        conn.execute(text("INSERT INTO chats (id, title, created_at, game_options) VALUES "
                          "(-1, 'A', :t, :o)"), {"t": t, "o": "{}"})
        for game in (1, 2):
            conn.execute(text(
                "INSERT INTO games (id, chat_id, thread_id, kind, options, status, state, "
                "version, seed, creator_id, created_at, finished_at) VALUES (:g, -1, 0, "
                "'coyote', :o, 'finished', :s, 9, 7, 1, :t, :t)"),
                {"g": game, "o": "{}", "s": "{}", "t": t})
            for seat, user in enumerate((2, 1, 3)):  # Bob won; Ann, then Dan, 2nd and 3rd
                conn.execute(text(
                    "INSERT INTO game_players (game_id, user_id, name, is_ai, seat, playing, "
                    "placement, timeouts_in_row, joined_at) VALUES (:g, :u, 'P', false, "
                    ":seat, false, :place, 0, :t)"),
                    {"g": game, "u": user, "seat": seat, "place": seat + 1, "t": t})
                conn.execute(text(
                    "INSERT INTO rating_events (game_id, user_id, chat_id, kind, before, "
                    "after, k, score, expected, place, finished_at) VALUES (:g, :u, -1, "
                    "'coyote', 1500, 1500, 40, 1, 1, :place, :t)"),
                    {"g": game, "u": user, "place": seat + 1, "t": t})
        removals = [[{"type": "player_removed", "seat": 2}], [{"type": "bid_placed"}],
                    [{"type": "turn_timed_out", "seat": 1},
                     {"type": "player_removed", "seat": 1}]]
        for seq, events in enumerate(removals):
            conn.execute(text(
                "INSERT INTO game_events (game_id, seq, seat, events, version, created_at) "
                "VALUES (1, :seq, NULL, :e, :seq, :t)"),
                {"seq": seq, "e": json.dumps(events), "t": t})
    upgrade(url, "0015_league_places")
    with engine.begin() as conn:
        seats = conn.execute(text("SELECT game_id, placement, rated FROM game_players "
                                  "ORDER BY game_id, seat")).all()
        assert [tuple(s) for s in seats] == [(1, 1, None), (1, 2, None), (1, 2, None),
                                             (2, 1, None), (2, 2, None), (2, 3, None)]
        rows = conn.execute(text("SELECT game_id, user_id, place FROM rating_events "
                                 "ORDER BY game_id, user_id")).all()
        assert [tuple(r) for r in rows] == [(1, 1, 2), (1, 2, 1), (1, 3, 2),
                                            (2, 1, 2), (2, 2, 1), (2, 3, 3)]
    _downgrade(url, "0014_delivery_tables")
    engine.dispose()
    upgrade(url)  # and up again to the head


def _check_posts_by_period_end(url: str) -> None:
    """0024 keys each post by the moment its period ended, worked out in the chat's time
    zone and season length (a chat it does not know: UTC, 4 weeks); down again, by the
    first local day."""
    from datetime import UTC, datetime

    from sqlalchemy import DateTime, create_engine, text

    from league.store.db import sync_url, upgrade

    upgrade(url, "0023_confirm_ending")
    engine = create_engine(sync_url(url))
    with engine.begin() as conn:
        conn.execute(text("INSERT INTO chats (id, timezone, season_weeks, pace, game_options, "
                          "created_at) VALUES (-1, 'Asia/Seoul', 2, 'standard', '{}', "
                          "'2026-11-01')"))
        conn.execute(text(
            "INSERT INTO league_posts (chat_id, game_kind, kind, period_start, claimed_at) "
            "VALUES (-1, 'coyote', 'week', '2026-11-23', '2026-11-30'), "
            "(-1, 'coyote', 'season', '2026-11-16', '2026-11-30'), "
            "(-2, 'koira', 'week', '2026-11-23', '2026-11-30')"))
    upgrade(url, "0024_posts_by_period_end")
    end = text("SELECT chat_id, kind, period_end FROM league_posts ORDER BY chat_id, kind"
               ).columns(period_end=DateTime(timezone=True))
    seoul = datetime(2026, 11, 29, 15, tzinfo=UTC)  # Monday 30 November, 00:00 in Seoul
    with engine.begin() as conn:
        rows = [(c, k, e if e.tzinfo else e.replace(tzinfo=UTC)) for c, k, e in
                conn.execute(end).all()]
        assert rows == [(-2, "week", datetime(2026, 11, 30, tzinfo=UTC)),
                        (-1, "season", seoul), (-1, "week", seoul)], rows
    _downgrade(url, "0023_confirm_ending")
    start = text("SELECT chat_id, kind, period_start FROM league_posts ORDER BY chat_id, "
                 "kind").columns(period_start=DateTime(timezone=True))
    with engine.begin() as conn:
        rows = [(c, k, s.date()) for c, k, s in conn.execute(start).all()]
        assert [(c, k, str(d)) for c, k, d in rows] == [
            (-2, "week", "2026-11-23"), (-1, "season", "2026-11-16"),
            (-1, "week", "2026-11-23")], rows
    engine.dispose()
    upgrade(url)  # and up again to the head


def _check_tournament_final_elo(url: str) -> None:
    """0027 gives a finished tournament's players the Elo they had when it ended (the last
    rating event of its game by then; 1500 for one without and for a computer player) and
    leaves a running tournament's unset; down again, the column goes."""
    from sqlalchemy import create_engine, inspect, text

    from league.store.db import sync_url, upgrade

    upgrade(url, "0026_private_message_buttons")
    engine = create_engine(sync_url(url))
    t = {"t": "2026-12-01 10:00:00+00:00"}
    with engine.begin() as conn:
        conn.execute(text(
            "INSERT INTO users (id, first_name, can_message, created_at, updated_at) VALUES "
            "(1, 'Ann', false, :t, :t), (2, 'Bob', false, :t, :t), (3, 'Cat', false, :t, :t)"),
            t)
        conn.execute(text("INSERT INTO chats (id, title, created_at, game_options) VALUES "
                          "(-1, 'A', :t, :o)"), {**t, "o": "{}"})
        conn.execute(text(
            "INSERT INTO games (id, chat_id, thread_id, kind, options, status, state, version, "
            "seed, creator_id, created_at) VALUES (1, -1, 0, 'coyote', '{}', 'finished', '{}', "
            "1, 7, 1, :t), (2, -1, 0, 'coyote', '{}', 'finished', '{}', 1, 7, 1, :t), "
            "(3, -1, 0, 'koira', '{}', 'finished', '{}', 1, 7, 1, :t)"), t)
        for cup, status, end in ((1, "finished", "2026-12-05 12:00:00+00:00"),
                                 (2, "running", None)):
            conn.execute(text(
                "INSERT INTO tournaments (id, chat_id, thread_id, forum, kind, options, "
                "rounds, round_seconds, table_size, status, round, seed, creator_id, "
                "created_at, finished_at, version, told_round) VALUES (:id, -1, 0, false, "
                "'coyote', '{}', 3, 86400, 4, :status, 3, 5, 1, :t, :end, 1, 0)"),
                {**t, "id": cup, "status": status, "end": end})
        entries = [(1, 1, 1, "Ann"), (2, 1, 2, "Bob"), (3, 1, None, "Wile"), (4, 1, 3, "Cat"),
                   (5, 2, 1, "Ann")]
        for entry, cup, user, name in entries:
            conn.execute(text(
                "INSERT INTO tournament_entries (id, tournament_id, user_id, name, "
                "joined_round, active, no_shows, byes, joined_at) VALUES (:id, :cup, :user, "
                ":name, 0, true, 0, 0, :t)"),
                {**t, "id": entry, "cup": cup, "user": user, "name": name})
        # Ann: 1510 at the end, 1490 after a later game; Bob: 1480 at the end; Cat: only a
        # Koira rating (another game), so 1500.
        for event, (game, user, kind, after, at) in enumerate((
                (1, 1, "coyote", 1510.0, "2026-12-04 12:00:00+00:00"),
                (1, 2, "coyote", 1480.0, "2026-12-04 12:00:00+00:00"),
                (2, 1, "coyote", 1490.0, "2026-12-06 12:00:00+00:00"),
                (3, 3, "koira", 1530.0, "2026-12-04 12:00:00+00:00")), 1):
            conn.execute(text(
                "INSERT INTO rating_events (id, game_id, user_id, chat_id, kind, before, "
                "after, k, score, expected, place, finished_at) VALUES (:id, :g, :u, -1, "
                ":kind, 1500, :after, 40, 1, 1, 1, :at)"),
                {"id": event, "g": game, "u": user, "kind": kind, "after": after, "at": at})
    upgrade(url, "0027_tournament_final_elo")
    with engine.begin() as conn:
        rows = conn.execute(text("SELECT id, final_elo FROM tournament_entries ORDER BY id"))
        assert [tuple(r) for r in rows] == [(1, 1510.0), (2, 1480.0), (3, 1500.0),
                                            (4, 1500.0), (5, None)]
    _downgrade(url, "0026_private_message_buttons")
    columns = {c["name"] for c in inspect(engine).get_columns("tournament_entries")}
    assert "final_elo" not in columns and "byes" in columns
    engine.dispose()
    upgrade(url)  # and up again to the head


MIGRATION_CHECKS = [_check_game_options, _check_posts_per_kind, _check_league_places,
                    _check_posts_by_period_end, _check_tournament_final_elo]


@pytest.mark.postgres
@pytest.mark.parametrize("check", MIGRATION_CHECKS, ids=lambda c: c.__name__[7:])
def test_migration_on_postgresql(check: Callable[[str], None]) -> None:
    with _scratch_postgresql() as url:
        check(url)


@pytest.mark.parametrize("check", MIGRATION_CHECKS, ids=lambda c: c.__name__[7:])
def test_migration_on_sqlite(check: Callable[[str], None], tmp_path: Path) -> None:
    check(f"sqlite:///{tmp_path / 'league.sqlite3'}")
