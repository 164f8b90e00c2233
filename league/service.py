"""The match service: every change to a game is one transaction here.

The bot calls these coroutines and renders what they return; each either commits a change and
returns a snapshot (with the engine's events for moves) or raises
:class:`~league.store.errors.ServiceError` having changed nothing. Moves are guarded by the game's
``version`` (optimistic concurrency: ``UPDATE … WHERE version = :seen``), so of two concurrent
or repeated presses on the same turn exactly one is applied, on PostgreSQL and SQLite alike.
Computer players answer in the same transaction as the move that gave them the turn.

:class:`MatchService` is the one object the bot holds: a facade over composed parts, each
built from one shared :class:`~league.store.context.Context` and the parts it needs (no part
reaches into another's private methods). Each public method is the part's, by :func:`via`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any, Concatenate, Generic, ParamSpec, TypeVar, overload

from engine import GAMES, Game
from league.delivery import Deliveries
from league.match.alerts import Alerts
from league.match.chats import Chats
from league.match.lobby import LobbyService
from league.match.moves import MAX_AI_STEPS, Moves
from league.match.names import Names
from league.match.outcome import Listeners, Outcome, Step
from league.match.people import People
from league.match.sweeper import Sweeper
from league.store.context import Context, _new_seed
from league.store.db import Database
from league.store.orm import utcnow
from league.store.reads import GameReads
from league.tables.posts import LeaguePosts
from league.tables.queries import LeagueQueries
from league.tournaments.rounds import Rounds
from league.tournaments.signup import Signup
from league.tournaments.telling import Telling

__all__ = ["MAX_AI_STEPS", "MatchService", "Outcome", "Step"]  # (from league.match.outcome)

P = ParamSpec("P")
R = TypeVar("R")


class via(Generic[P, R]):  # noqa: N801  (used like a function, in the class body)
    """A facade method that is ``method`` of the part held in attribute ``part``: typed as
    the part's method, so callers and mypy see its real signature."""

    def __init__(self, part: str, method: Callable[Concatenate[Any, P], R]) -> None:
        self.part = part
        self.name = method.__name__
        self.__doc__ = method.__doc__

    @overload
    def __get__(self, obj: None, owner: type) -> via[P, R]: ...
    @overload
    def __get__(self, obj: object, owner: type) -> Callable[P, R]: ...
    def __get__(self, obj: object | None, owner: type) -> Any:
        if obj is None:
            return self
        return getattr(getattr(obj, self.part), self.name)


class MatchService:
    """Lobby, start, moves (with computer players' replies), sweeps, deliveries,
    chats, people and league queries. Every committed start, move and timeout is reported
    to the :meth:`on_commit` listeners."""

    def __init__(self, db: Database, *, games: Mapping[str, Game] = GAMES,
                 new_seed: Callable[[], int] = _new_seed,
                 clock: Callable[[], datetime] = utcnow) -> None:
        self.ctx = Context(db, games, new_seed, clock)
        self.listeners = Listeners()
        self.people = People(self.ctx)
        self.chats = Chats(self.ctx)
        self.names = Names(self.ctx)
        self.reads = GameReads(self.ctx)
        self.lobby = LobbyService(self.ctx, self.reads)
        self.moves = Moves(self.ctx, self.reads, self.listeners)
        self.sweeper = Sweeper(self.ctx, self.moves, self.listeners)
        self.deliveries = Deliveries(self.ctx, self.reads)
        self.queries = LeagueQueries(self.ctx)
        self.posts = LeaguePosts(self.ctx)
        self.alerts = Alerts(self.ctx)
        self.rounds = Rounds(self.ctx, self.moves, self.listeners)
        self.signup = Signup(self.ctx, self.rounds, self.listeners)
        self.telling = Telling(self.ctx)

    # the shared context, settable (a test fixes the seed of the next game)
    @property
    def db(self) -> Database:
        return self.ctx.db

    @property
    def games(self) -> Mapping[str, Game]:
        return self.ctx.games

    @property
    def new_seed(self) -> Callable[[], int]:
        return self.ctx.new_seed

    @new_seed.setter
    def new_seed(self, value: Callable[[], int]) -> None:
        self.ctx.new_seed = value

    @property
    def clock(self) -> Callable[[], datetime]:
        return self.ctx.clock

    @clock.setter
    def clock(self, value: Callable[[], datetime]) -> None:
        self.ctx.clock = value

    on_commit = via("listeners", Listeners.on_commit)

    # people and chats
    touch_user = via("people", People.touch_user)
    chat_language = via("people", People.chat_language)
    user_language = via("people", People.user_language)
    chosen_language = via("people", People.chosen_language)
    choose_language = via("people", People.choose_language)
    confirms_ending = via("people", People.confirms_ending)
    set_confirm_ending = via("people", People.set_confirm_ending)
    set_can_message = via("people", People.set_can_message)
    reachable = via("people", People.reachable)
    chat_settings = via("chats", Chats.chat_settings)
    set_chat_setting = via("chats", Chats.set_chat_setting)
    migrate_chat = via("chats", Chats.migrate_chat)
    migrated_from = via("chats", Chats.migrated_from)
    take_migration = via("chats", Chats.take_migration)
    set_bot_present = via("chats", Chats.set_bot_present)
    refresh_user = via("names", Names.refresh_user)
    set_chat_title = via("names", Names.set_chat_title)
    set_topic_name = via("names", Names.set_topic_name)

    # game reads
    open_game = via("reads", GameReads.open_game)
    get = via("reads", GameReads.get)
    running_games_of = via("reads", GameReads.running_games_of)
    lobbies_of = via("reads", GameReads.lobbies_of)
    open_games_in = via("reads", GameReads.open_games_in)
    games_on_turn = via("reads", GameReads.games_on_turn)
    game_of_private_message = via("reads", GameReads.game_of_private_message)
    private_message_after = via("reads", GameReads.private_message_after)
    keyboards_left_of = via("reads", GameReads.keyboards_left_of)
    log = via("reads", GameReads.log)
    moved_by = via("reads", GameReads.moved_by)

    # lobby
    open_lobby = via("lobby", LobbyService.open_lobby)
    join = via("lobby", LobbyService.join)
    leave = via("lobby", LobbyService.leave)
    set_option = via("lobby", LobbyService.set_option)
    add_ai = via("lobby", LobbyService.add_ai)
    remove_ai = via("lobby", LobbyService.remove_ai)
    set_ai_level = via("lobby", LobbyService.set_ai_level)
    rematch = via("lobby", LobbyService.rematch)

    # next-game alerts
    subscribe = via("alerts", Alerts.subscribe)
    unsubscribe = via("alerts", Alerts.unsubscribe)
    subscribed = via("alerts", Alerts.subscribed)
    subscriptions_of = via("alerts", Alerts.subscriptions_of)
    to_alert = via("alerts", Alerts.to_alert)

    # moves and the clock
    start = via("moves", Moves.start)
    act = via("moves", Moves.act)
    cancel = via("moves", Moves.cancel)
    pause = via("moves", Moves.pause)
    resume = via("moves", Moves.resume)
    sweep = via("sweeper", Sweeper.sweep)

    # delivery: what the groups and players were shown
    delivering = via("deliveries", Deliveries.delivering)
    reread = via("deliveries", Deliveries.reread)
    untold = via("deliveries", Deliveries.untold)
    behind = via("deliveries", Deliveries.behind)

    # tournaments
    open_tournament = via("signup", Signup.open_tournament)
    tournaments_in = via("signup", Signup.tournaments_in)
    join_tournament = via("signup", Signup.join)
    leave_tournament = via("signup", Signup.leave)
    set_tournament_setting = via("signup", Signup.set_setting)
    add_tournament_ai = via("signup", Signup.add_ai)
    remove_tournament_ai = via("signup", Signup.remove_ai)
    start_tournament = via("signup", Signup.start)
    cancel_tournament = via("signup", Signup.cancel)
    advance_tournaments = via("rounds", Rounds.tick)
    tournament = via("telling", Telling.tournament)
    untold_tournaments = via("telling", Telling.untold_tournaments)
    claim_tell = via("telling", Telling.claim_tell)
    told = via("telling", Telling.told)
    set_tournament_message = via("telling", Telling.set_tournament_message)
    move_table_to_topic = via("telling", Telling.move_table_to_topic)

    # league queries
    chat_zone = via("queries", LeagueQueries.chat_zone)
    standings = via("queries", LeagueQueries.standings)
    rating_card = via("queries", LeagueQueries.rating_card)
    rating_history = via("queries", LeagueQueries.rating_history)
    top = via("queries", LeagueQueries.top)
    history = via("queries", LeagueQueries.history)
    player_history = via("queries", LeagueQueries.player_history)
    replay = via("queries", LeagueQueries.replay)
    due_posts = via("posts", LeaguePosts.due_posts)
    claim_post = via("posts", LeaguePosts.claim_post)
    mark_posted = via("posts", LeaguePosts.mark_posted)
