"""Moves: a game's start, its players' actions (with the computer players' replies),
cancellation and the clock's pause. Each is one transaction; see :mod:`league.service`."""

from __future__ import annotations

import random
from typing import Any

from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm.exc import StaleDataError

from engine import Action, Game, RuleError, step_of
from league.match.chats import chat_policies
from league.match.lobby import lobby_row
from league.match.outcome import Listeners, Outcome, Step
from league.store.clock import arm_turn, pause, resume
from league.store.context import Context
from league.store.errors import ServiceError
from league.store.message_models import PrivateMessage
from league.store.models import OPEN_STATUSES, Chat, GameEvent, GamePlayer
from league.store.models import Game as GameRow
from league.store.reads import GameReads
from league.store.rows import attach_elo, load_game, store_state
from league.store.snapshots import GameSnapshot, snapshot
from league.tables.rated import rate_if_finished

MAX_AI_STEPS = 5000
"""A bound on computer moves in one transaction, which only an engine that never ends would
reach: a whole game of computers alone takes a few hundred, and eight easy Koira players'
(the longest) up to about 1,200."""


class Moves:
    """Start, moves, cancellation, pause (part of :class:`league.service.MatchService`).
    Every committed start and move is reported to ``listeners``; :meth:`record`,
    :meth:`advance` and :meth:`plan_replies` are the sweeper's too."""

    def __init__(self, ctx: Context, reads: GameReads, listeners: Listeners) -> None:
        self.ctx = ctx
        self.reads = reads
        self.listeners = listeners

    async def start(self, game_id: int, user_id: int) -> Outcome:
        """Seat the lobby in join order and deal. Only the creator may start. Raises
        ``not_in_lobby``, ``not_creator``, ``too_few_players`` (``min``), ``stale``."""
        try:
            outcome = await self._start(game_id, user_id)
        except (StaleDataError, IntegrityError):
            raise ServiceError("stale") from None
        self.listeners.reported([outcome])
        return outcome

    async def _start(self, game_id: int, user_id: int) -> Outcome:
        async with self.ctx.db.sessions.begin() as session:
            row = await lobby_row(session, game_id, host=user_id)
            game = self.ctx.game(row.kind)
            low, _ = game.player_limits(row.options)
            if len(row.players) < low:
                raise ServiceError("too_few_players", min=low)
            chat = await session.get(Chat, row.chat_id)
            if chat is not None:  # (/settings' policies as they are now: the lobby shows none)
                row.options = {**(row.options or {}), **chat_policies(chat)}
            steps = self.deal(session, row, game, user_id)
            await rate_if_finished(session, row, self.ctx.clock())
            await attach_elo(session, [row])  # (a finished game's Elo changes: one read)
            after = snapshot(row)  # the game right after these steps, whatever commits next
        return Outcome(after, steps, started=True)

    async def act(self, game_id: int, user_id: int, version: int, action: Action, *,
                  typed: int | None = None, in_chat: int | None = None) -> Outcome:
        """Apply ``user_id``'s action if the game is still at ``version``, then let computer
        players answer. ``typed``: the id of the private-chat message the action was typed in
        (a move typed rather than pressed, which carries no version).
        ``in_chat``: the chat the move was pressed in, which must be the game's group or
        the player's private chat (else ``bad_button``: forged data aimed at another game).

        Raises ``game_not_found``, ``not_running``, ``stale`` (the game moved on, or a
        concurrent action won), ``not_a_player``, ``already_handled`` (``typed``: that
        message, or a later one, was applied already), ``typed_too_early`` (``typed``: sent
        before this hand's first private message, so meant for an earlier hand),
        ``typed_before_timeout`` (``typed``: sent before the message of a turn that came after
        the computer played their last one), or a rule code
        from the engine.
        """
        try:
            async with self.ctx.db.sessions.begin() as session:
                row = await load_game(session, game_id)
                if in_chat is not None and in_chat not in (row.chat_id, user_id):
                    raise ServiceError("bad_button")
                if row.status != "running" or row.state is None:
                    raise ServiceError("not_running")
                if row.version != version:
                    raise ServiceError("stale")
                player = next((p for p in row.players if p.user_id == user_id), None)
                if player is None or player.seat is None:
                    raise ServiceError("not_a_player")
                game = self.ctx.game(row.kind)
                if typed is not None:
                    _check_typed(player, await session.get(PrivateMessage, (row.id, user_id)),
                                 game.hand_number(row.state), typed)
                to_act = game.current_seat(row.state)
                progress_before = game.progress(row.state)
                clock = (row.deadline_at, row.remind_at, row.due_at, row.paused_left)
                try:
                    state, events = game.apply(row.state, player.seat, action)
                except RuleError as exc:
                    raise ServiceError(exc.code, **exc.detail) from None
                timeouts = player.timeouts_in_row
                player.timeouts_in_row = 0
                if typed is not None:
                    player.last_typed_id = typed
                steps = [self.record(session, row, game, state, events, player.seat,
                                      user_id, action)]
                steps += self.advance(session, row, game)
                if _same_turn(game, row.state or {}, to_act, progress_before, player.seat,
                              steps):
                    row.deadline_at, row.remind_at, row.due_at, row.paused_left = clock
                    if player.seat == to_act:  # as the turn's reminder said it would count
                        player.timeouts_in_row = timeouts
                    if row.reminder_version == version:  # its reminder is still this turn's
                        row.reminder_version = row.version
                await rate_if_finished(session, row, self.ctx.clock())
                await attach_elo(session, [row])  # (a finished game's Elo changes: one read)
                after = snapshot(row)  # the game right after these steps, whatever commits next
        except (StaleDataError, IntegrityError):
            raise ServiceError("stale") from None
        outcome = Outcome(after, steps, to_act)
        self.listeners.reported([outcome])
        return outcome

    async def cancel(self, game_id: int, user_id: int, *, is_admin: bool) -> GameSnapshot:
        """Cancel an open game: a lobby by its creator or a chat admin; a running game by a
        chat admin, or by its creator once no other human is still playing (a cancelled game
        is not rated: a host about to lose must not be able to wipe it). Raises
        ``cancel_running`` (a running game others still play: admins only), ``not_allowed``
        (not the creator), ``not_running`` (already over), ``stale``."""
        try:
            async with self.ctx.db.sessions.begin() as session:
                row = await load_game(session, game_id)
                if row.status not in OPEN_STATUSES:
                    raise ServiceError("not_running")
                if row.status == "running" and not is_admin and any(
                        p.user_id not in (None, user_id) and p.seat is not None and p.playing
                        for p in row.players):  # ``playing`` mirrors Game.still_playing
                    raise ServiceError("cancel_running")
                if row.creator_id != user_id and not is_admin:
                    raise ServiceError("not_allowed")
                row.status = "cancelled"
                row.finished_at = self.ctx.clock()
                row.due_at = row.deadline_at = row.remind_at = None
                row.version += 1  # a move read before this must not land after it
        except StaleDataError:
            raise ServiceError("stale") from None
        return await self.reads.get(game_id)

    async def pause(self, game_id: int) -> GameSnapshot:
        """Stop a running game's clock (the bot checks that the sender is an admin). Raises
        ``not_running``, ``already_paused``."""
        return await self._clock_change(game_id, pause, "already_paused")

    async def resume(self, game_id: int) -> GameSnapshot:
        """Restart a paused game's clock with the time that was left. Raises ``not_running``,
        ``not_paused``."""
        return await self._clock_change(game_id, resume, "not_paused")

    async def _clock_change(self, game_id: int, change: Any, refusal: str) -> GameSnapshot:
        try:
            async with self.ctx.db.sessions.begin() as session:
                row = await load_game(session, game_id)
                if row.status != "running":
                    raise ServiceError("not_running")
                try:
                    change(row, self.ctx.clock())
                except ValueError:
                    raise ServiceError(refusal) from None
                if row.reminder_version == row.version:  # the turn and its reminder go on
                    row.reminder_version += 1
                row.version += 1  # a move read before this must not re-arm the old clock
        except StaleDataError:
            raise ServiceError("stale") from None
        return await self.reads.get(game_id)

    def deal(self, session: AsyncSession, row: GameRow, game: Game,
             user_id: int | None) -> list[Step]:
        """Seat ``row``'s players in their order, deal, and let computer players answer
        (a lobby's start, a tournament's table; same transaction). Raises the game's
        refusal of the options (``ServiceError`` with its ``RuleError`` code)."""
        try:
            state, events = game.new_game(len(row.players), row.seed, row.options)
        except RuleError as exc:
            raise ServiceError(exc.code, **exc.detail) from None
        for seat, player in enumerate(row.players):
            player.seat = seat
        row.status = "running"
        row.started_at = self.ctx.clock()
        row.paused_left = None
        steps = [self.record(session, row, game, state, events, None, user_id, None)]
        return steps + self.advance(session, row, game)

    # --- helpers ----------------------------------------------------------------------------
    def record(self, session: AsyncSession, row: GameRow, game: Game, state: dict[str, Any],
                events: list[Any], seat: int | None, user_id: int | None,
                action: Action | None) -> Step:
        """Put the new state on the row and append it to the event log (flushed, with the
        version check, when the transaction commits). ``seq`` is the engine's step number."""
        payload = [e.to_json() for e in events]
        store_state(row, state, game, self.ctx.clock())
        session.add(GameEvent(game_id=row.id, seq=step_of(state), seat=seat, user_id=user_id,
                              action=None if action is None else action.to_json(),
                              events=payload, version=row.version))
        return Step(seat, seat is not None and user_id is None, payload, state)

    def advance(self, session: AsyncSession, row: GameRow, game: Game,
                planned: list[Planned] | None = None) -> list[Step]:
        """Record ``planned`` moves (default: the computer players' replies, planned now),
        then start the clock of the human whose turn it is (same transaction)."""
        if planned is None:
            planned = self.plan_replies(row, game, row.state or {})
        steps = [self.record(session, row, game, state, events, seat, None, action)
                 for seat, action, state, events in planned]
        seat = game.current_seat(row.state or {})
        ai_seats = {p.seat for p in row.players if p.is_ai}
        arm_turn(row, self.ctx.clock(), human_turn=seat is not None and seat not in ai_seats)
        return steps

    def plan_replies(self, row: GameRow, game: Game, state: dict[str, Any],
                     first: tuple[int, Action | None] | None = None) -> list[Planned]:
        """The moves that follow from ``state`` without a human: ``first`` (a seat and its
        action, or ``None`` for the computer's choice), then computer players while it is
        their turn. When the computer plays for ``first``'s seat (a timed-out turn), it
        finishes that turn with ``Game.stand_in_action`` (a move after which the same
        player still acts is followed by their next action) until an event of
        ``Game.turn_ending_events`` or another seat's turn. Pure: nothing is stored, so
        an engine error changes nothing."""
        planned: list[Planned] = []
        levels = {p.seat: level_of(game, p.ai_level) for p in row.players if p.is_ai}
        ai_seats = set(levels)
        stand_in_level = level_of(game, (row.options or {}).get("stand_in_level"))
        queue = [first] if first is not None else []
        stand_in = first[0] if first is not None and first[1] is None else None
        for _ in range(MAX_AI_STEPS):
            action: Action | None
            if queue:
                seat, action = queue.pop()
            else:
                to_act = game.current_seat(state)
                if to_act != stand_in:
                    stand_in = None  # their turn is over: a later one is theirs again
                if to_act is None or (to_act not in ai_seats and to_act != stand_in):
                    break
                seat, action = to_act, None
            if action is None:
                rng = random.Random(f"ai:{row.seed}:{step_of(state)}")
                action = game.stand_in_action(state, seat, rng, stand_in_level) \
                    if seat == stand_in else \
                    game.ai_action(game.view(state, seat), rng, levels.get(seat, "normal"))
            state, events = game.apply(state, seat, action)
            planned.append((seat, action, state, events))
            if any(e.type in game.turn_ending_events for e in events):
                stand_in = None  # the timed-out turn ended (Game.turn_ending_events)
        return planned


def _same_turn(game: Game, state: dict[str, Any], to_act: int | None,
               progress_before: dict[str, Any], seat: int, steps: list[Step]) -> bool:
    """Whether the turn that was ``to_act``'s goes on after ``seat``'s move: the same seat
    acts at the same ``Game.progress`` and nobody else played meanwhile (an answer it was
    owed aside: ``Game.answer_events``). Then its clock keeps running: a leave by another
    player, or a move after which the same player still acts (one answered by a computer
    included), gives no extra time and no second reminder."""
    return (to_act is not None and game.current_seat(state) == to_act
            and game.progress(state) == progress_before
            and all(step.seat == seat or any(e["type"] in game.answer_events for e in step.events)
                    for step in steps))


def level_of(game: Game, level: object) -> str:
    """``level`` if ``game`` knows it (``Game.ai_levels``), else ``normal`` (a seat stored
    before levels, or a level the game dropped)."""
    return level if isinstance(level, str) and level in game.ai_levels else "normal"


Planned = tuple[int, Action, dict[str, Any], list[Any]]
"""A move worked out but not stored yet: seat, action, the state after it, its events."""


def _check_typed(player: GamePlayer, private: PrivateMessage | None, hand: int,
                 message_id: int) -> None:
    """Refuse a typed move that was applied already, or that was typed before this hand's
    first private message was sent (message ids in one private chat only grow; a turn's
    ping, a later message of the same hand, may arrive after the number was typed). While
    the hand's message is not recorded yet, the number counts: the record is written when
    the delivery ends, well after the message may have reached the chat, and a player the
    bot can no longer write to gets none. After a timeout, one typed before the message that
    began the turn that followed (``turn_first_id``; not its reminder, a newer message) is
    refused too."""
    if player.last_typed_id is not None and message_id <= player.last_typed_id:
        raise ServiceError("already_handled")
    if private is None or private.hand != hand:
        return
    shown = private.hand_first_id or private.message_id
    if shown and message_id < shown:
        raise ServiceError("typed_too_early")
    began = private.turn_first_id or private.message_id
    if player.timeouts_in_row and private.acting and began and message_id < began:
        # (meant for the turn the computer played for them, as a press on that turn's
        # buttons would be: this turn's message, sent after it, was not seen yet)
        raise ServiceError("typed_before_timeout")
