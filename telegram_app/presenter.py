"""Turns committed league results into Telegram messages (always after the commit).

Per round the group has one table message, edited in place, and each player one private
message, edited in place. A move adds at most one short group note (what happened, then a
mention of the next player); a showdown adds the reveal and the next round's table.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
from collections.abc import AsyncIterator, Coroutine
from contextlib import asynccontextmanager
from dataclasses import replace
from typing import Any

from engine import GAMES
from league.delivery import Delivery
from league.outcome import Outcome
from league.rows import SENDING
from league.service import MatchService
from league.snapshots import GameSnapshot, PlayerInfo
from telegram_app.keyboards import lobby_keyboard, private_keyboard, table_keyboard
from telegram_app.messenger import Messenger
from telegram_app.outage import OutageLog, is_outage
from telegram_app.render import coyote as render
from telegram_app.render import coyote_events as events_text
from telegram_app.render.common import fit_lines
from telegram_app.render.report import (
    Report,
    keeps_turn,
    report,
    still_acting,
    untold_lines,
)

DELIVERIES = 8
"""Games delivered at once by one process: each holds a database connection for its lock
(PostgreSQL) while it sends, so this stays well below the connection pool's size."""
log = logging.getLogger(__name__)


class Presenter:
    """Shows lobbies and games in their group and in each player's private chat.

    It is the service's commit listener (:meth:`committed`): every committed start, move and
    timeout is delivered by :meth:`deliver`, the one path from a commit to the messages,
    which the sweeper also runs for games whose last change was not shown."""

    def __init__(self, messenger: Messenger, service: MatchService,
                 outage: OutageLog | None = None) -> None:
        self.messenger = messenger
        self.service = service
        # the bot's one log of database outages (the intake's): a delivery that meets one
        # adds no traceback to its one warning
        self.outage = outage or OutageLog()
        # game id -> (its lock: one delivery at a time, the number holding or waiting for it)
        self._locks: dict[int, tuple[asyncio.Lock, int]] = {}
        # game id -> version -> committed change not delivered yet (see committed)
        self._pending: dict[int, dict[int, Outcome]] = {}
        self._tasks: set[asyncio.Task] = set()
        self._slots = asyncio.Semaphore(DELIVERIES)
        service.on_commit(self.committed)

    def committed(self, outcome: Outcome) -> None:
        """The service's listener: note a committed change and start delivering its game
        (right after the commit, before anything else is awaited, so the changes of one game
        are delivered in commit order: the next delivery takes all that are noted)."""
        self._pending.setdefault(outcome.game.id, {})[outcome.game.version] = outcome
        self.spawn(self.deliver(outcome.game.id))

    def spawn(self, work: Coroutine[Any, Any, None]) -> None:
        """Run ``work`` beside the update handlers; :meth:`drain` waits for it. In a fresh
        context: a delivery must inherit neither the language of the update whose commit
        started it (each message picks its reader's) nor its inbox item."""
        task = asyncio.get_running_loop().create_task(work, context=contextvars.Context())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def busy(self) -> bool:
        """Whether a delivery is running or waiting."""
        return bool(self._tasks)

    async def drain(self, timeout: float) -> None:  # noqa: ASYNC109
        """Wait up to ``timeout`` seconds for the deliveries under way (a stop)."""
        if self._tasks:
            await asyncio.wait(set(self._tasks), timeout=timeout)

    def represent(self, game_ids: list[int]) -> None:
        """Start delivering each of ``game_ids`` (the sweep's games not shown) that this
        process is not delivering already (the sweep does not wait for them: a slow game
        must not hold up the next sweep)."""
        for game_id in game_ids:
            if game_id not in self._locks:
                self.spawn(self.deliver(game_id))

    async def deliver(self, game_id: int) -> None:
        """Show what changed in the game since the group was last told: the changes this
        process committed (coalesced: each run of consecutive versions is one report), or,
        with none, what the log holds beyond ``told_version`` and any private message of
        this round that was never delivered (:meth:`_represent`). One delivery per game at a
        time: a lock here, and the service's across processes. Errors are logged (a database
        outage as the outage's one warning); what was not told is found again by a sweep."""
        try:
            async with self._lock(game_id), self._slots, \
                    self.service.delivering(game_id) as delivery:
                runs = _runs(self._pending.pop(game_id, {}))
                for n, outcome in enumerate(runs):
                    if outcome.started:
                        await self.close_lobby(outcome.game)
                    # (a later run reads the game again: the first may have posted a table)
                    fresh = delivery.game if n == 0 else await self.service.get(game_id)
                    await self._moved(outcome, fresh, delivery)
                if not runs:
                    await self._represent(delivery)
        except Exception as exc:
            if is_outage(exc):  # shown again by a sweep once the database is back
                self.outage.failed(exc)
            else:
                log.exception("showing game %s failed", game_id)

    async def show_lobby(self, game: GameSnapshot, bot_username: str | None) -> None:
        """Post the lobby (first time) or edit it in place."""
        reachable = await self.service.reachable([p.user_id for p in game.players if p.user_id])
        text = render.lobby_text(game, reachable)
        markup = lobby_keyboard(game, bot_username)
        if game.lobby_message_id is None:
            message_id = await self.messenger.send(game.chat_id, text, thread_id=game.thread_id,
                                                   markup=markup)
            if message_id is not None:
                await self.service.set_messages(game.id, lobby=message_id)
        else:
            await self.messenger.edit(game.chat_id, game.lobby_message_id, text, markup=markup)

    async def close_lobby(self, game: GameSnapshot) -> None:
        """Replace the lobby by a line saying the game started or was cancelled."""
        await self.messenger.edit(game.chat_id, game.lobby_message_id,
                                  render.lobby_closed_text(game))

    async def cancelled(self, game: GameSnapshot) -> None:
        """After cancel: close the lobby or the table and the players' private messages."""
        async with self._lock(game.id):  # after any report being shown: close what it drew
            await self._cancelled(await self.service.get(game.id))

    async def _cancelled(self, game: GameSnapshot) -> None:
        if game.table_message_id is None:
            await self.close_lobby(game)
            return
        # (the table's text holds the report that opened the round: only its 👀 goes)
        await self.messenger.edit_markup(game.chat_id, game.table_message_id, None)
        await asyncio.gather(*(
            self.messenger.edit(p.user_id, p.private_message_id,
                                render.private_cancelled_text(game, reader=p))
            for p in game.seated if p.user_id is not None and p.private_message_id))

    async def _represent(self, delivery: Delivery) -> None:
        """Show a game nobody here is delivering, as it is now: the moves the log holds
        beyond ``told_version`` (a report a kill or a failed send left untold, or another
        process's change it did not show) in one note, ending with the
        player to act or the end of the game; then the table and the private messages are
        drawn as they are now (a private message of this round that never arrived is
        sent); then ``told_version`` is raised. A game already shown costs a read."""
        fresh = delivery.game
        game_id = fresh.id
        state = fresh.state or {}
        if fresh.status not in ("running", "finished") or not state:
            return
        if fresh.status == "running" and any(p.private_message_id == SENDING
                                             for p in fresh.seated) \
                and await self.service.release_stale_claims(game_id):
            # (a send a kill cut short: sent again below, as a message that never arrived)
            fresh = await self.service.get(game_id)
        told, arrived = fresh.told_version, False
        if told is not None and told < fresh.version:
            logged = await self.service.untold(game_id, told, fresh.version)
            if not still_acting(fresh, logged):  # (a Reverse: told with their next move)
                arrived = await self._tell_logged(fresh, logged)
        if state.get("over"):
            await self._close_round(fresh, state.get("round") or 0)
        else:
            await self._refresh(fresh)
        if arrived:
            delivery.told(fresh.version)

    async def _tell_logged(self, fresh: GameSnapshot, logged: list[list[dict[str, Any]]]
                           ) -> bool:
        """Send the note of ``logged`` moves (``fresh``: the game now), heading the new
        round's table if a round was dealt meanwhile; whether it is told (see
        :meth:`_tell`)."""
        state = fresh.state or {}
        lines = untold_lines(fresh, logged)
        if not state.get("over") and any(e["type"] == "round_dealt"
                                         for events in logged for e in events):
            return await self._new_round(fresh, lines)
        if lines and state.get("over"):
            lines += ["", events_text.game_over_text(fresh)]
        elif lines and (turn := events_text.turn_line(fresh)):
            lines.append(turn)
        return not lines or await self.messenger.send_result(
            fresh.chat_id, fit_lines(lines), thread_id=fresh.thread_id) != "lost"

    async def _moved(self, outcome: Outcome, fresh: GameSnapshot, delivery: Delivery) -> None:
        """Show a committed change: one group report, then the new round's table, or the
        current state drawn in place.

        The report is :func:`telegram_app.render.report.report`. A special after which the
        same player still acts (Reverse, Extra feather, Swap) is told with their next move,
        so that a turn never mentions the player who is still acting; a report that could
        not be sent (or never ran) is told with the next one
        (:func:`~telegram_app.render.report.untold_lines`). Both come from the log: the
        range of moves a report tells is claimed in the database (``told_version``) before
        it is sent, so a restart loses neither, and two reports running at once (the
        sweeper's and a player's, or two processes') never tell a move twice. Messages are
        drawn from the game as it is now (``fresh``, read under the delivery's lock), never
        from an older picture; ``delivery`` records how far the group was told."""
        game = outcome.game  # as committed right after the steps
        if fresh.status == "cancelled":
            return  # cancelled since: its messages say so
        if keeps_turn(game, outcome.steps):
            await self._refresh(fresh, _targets(outcome))
            return
        told = delivery.told_version(fresh)
        if told is not None and told >= game.version:
            # A later delivery went first (another process's, or a sweep's after a kill) and
            # told these moves; the round they ended is still to be closed.
            # (its delivery posted the new round's table with them)
            shown = report(game, outcome.steps, mention=False)
            if shown.closed is not None:
                await self._close_round(fresh, shown.closed, set())
            if not (fresh.state or {}).get("over"):
                await self._refresh(fresh, _targets(outcome))
            return
        over = bool((fresh.state or {}).get("over"))
        if not over and not any(e["type"] == "round_dealt" for e in outcome.events):
            # The note and the player to act's keyboard: independent, sent at once.
            (shown, arrived), _ = await asyncio.gather(
                self._tell(game, fresh, outcome, told), self._refresh(fresh, _targets(outcome)))
        else:
            shown, arrived = await self._tell(game, fresh, outcome, told)
            if not over and shown.new_round:  # the report opens the new round's table
                arrived = await self._new_round(fresh, shown.lines)
            elif not over:
                await self._refresh(fresh, _targets(outcome))
        if arrived:  # sent, then told: a kill before this shows it again (at least once)
            delivery.told(game.version)

    async def _tell(self, game: GameSnapshot, fresh: GameSnapshot, outcome: Outcome,
                    told: int | None) -> tuple[Report, bool]:
        """Send the report of ``outcome`` (moves after ``told`` not yet told first) and close
        the round it ends; ``fresh``: the game now. Returns the report and whether it is
        told: a note that surely did not arrive is not (the next delivery tells it); one
        Telegram refused (or that may have arrived) is not repeated. A report that deals a
        new round is not sent here: it heads that round's table (:meth:`_new_round`), so
        a showdown costs the group one new message."""
        before = game.version - len(outcome.steps)  # each step raised the version by one
        held = [] if told is None or told >= before else untold_lines(
            game, await self.service.untold(game.id, told, before))
        # If another player is to act by now, a later report names them.
        state, now = game.state or {}, fresh.state or {}
        mention = (state.get("turn"), state.get("round")) == (now.get("turn"), now.get("round"))
        shown = report(game, outcome.steps, held, mention=mention)
        if shown.closed is not None:  # the round on screen ends: close its messages
            await self._close_round(fresh, shown.closed, set())
        if shown.lines and not (shown.new_round and not (fresh.state or {}).get("over")):
            if await self.messenger.send_result(
                    fresh.chat_id, fit_lines(shown.lines), thread_id=fresh.thread_id) == "lost":
                return shown, False
        return shown, True

    @asynccontextmanager
    async def _lock(self, game_id: int) -> AsyncIterator[asyncio.Lock]:
        """Hold the game's lock (in this process); it is forgotten once nobody holds or
        waits for it."""
        turn, users = self._locks.get(game_id, (asyncio.Lock(), 0))
        self._locks[game_id] = (turn, users + 1)
        try:
            async with turn:
                yield turn
        finally:
            turn, users = self._locks[game_id]
            if users == 1:
                del self._locks[game_id]
            else:
                self._locks[game_id] = (turn, users - 1)

    async def refresh(self, game: GameSnapshot) -> None:
        """Edit the table and every private message to the game's current state (read
        again, after any report of it being shown): see :meth:`_refresh`."""
        async with self._lock(game.id):
            await self._refresh(await self.service.get(game.id))

    async def _refresh(self, game: GameSnapshot, seats: set[int] | None = None) -> None:
        """Draw the private messages of ``seats`` (default: every seat) as ``game`` is now;
        a table never sent is posted, and so is a private message of this round that never
        arrived; a passing failure is left for the next delivery (the old message keeps
        working: its presses are redrawn). The table is not edited: it shows the round as
        dealt, under the report that opened it (see ``render.coyote.table_text``).

        The player to act is always drawn (their keyboard). After a move ``seats`` holds
        only a player a special was aimed at (Draw 1 gave them a card): the others' private
        messages, the mover's included, are drawn again at their turn or with the next
        round (the mover's old keyboard answers "out of date" and is redrawn if pressed),
        so a bid costs its group note and one private edit."""
        if game.table_message_id is None:
            await self._post_table(game)
        round_no = (game.state or {}).get("round")
        missing = [p for p in game.seated if p.user_id is not None and _in_round(game, p)
                   and (p.private_message_id is None or p.private_hand != round_no)]
        if missing:
            reachable = await self.service.reachable([p.user_id for p in missing if p.user_id])
            await asyncio.gather(*(self.send_private(game, p) for p in missing
                                   if p.user_id in reachable))
        if seats is not None:
            seats = seats | {(game.state or {}).get("turn")}
        await asyncio.gather(*(self._edit_private(game, p) for p in game.seated
                               if p not in missing and (seats is None or p.seat in seats)))

    async def redraw(self, game: GameSnapshot, chat_id: int, message_id: int,
                     bot_username: str | None) -> None:
        """Draw one of the game's messages as it is now (after a press on an old picture).
        A message the game no longer tracks (an old round's table or private message whose
        closing edit failed, a send that timed out but arrived) loses its dead keyboard."""
        in_group = chat_id == game.chat_id
        if in_group and message_id == game.lobby_message_id:
            if game.status == "lobby":
                await self.show_lobby(game, bot_username)
            else:
                await self.close_lobby(game)
        elif in_group and message_id == game.table_message_id:
            if game.status == "running":
                await self.refresh(game)
            else:  # (its text holds the report that opened the round: kept)
                await self.messenger.edit_markup(chat_id, message_id, None)
        elif game.status == "running" and (player := game.player(chat_id)) is not None and \
                player.private_message_id == message_id:
            await self._edit_private(game, player)
        elif chat_id > 0 and game.status == "cancelled":
            await self.messenger.edit(chat_id, message_id, render.private_cancelled_text(
                game, reader=game.player(chat_id)))
        elif chat_id > 0 and game.status != "running":
            await self.messenger.edit(chat_id, message_id, render.private_closed_text(
                game, (game.state or {}).get("round", 0), reader=game.player(chat_id)))
        else:
            await self.messenger.edit_markup(chat_id, message_id, None)

    async def reshow(self, game: GameSnapshot, bot_username: str | None) -> None:
        """Post the lobby or the table again (after a migration, or when it went missing)."""
        if game.status == "lobby":
            await self.show_lobby(replace(game, lobby_message_id=None), bot_username)
        elif game.status == "running":
            await self._post_table(game)

    async def still_shown(self, game: GameSnapshot, bot_username: str | None) -> bool:
        """Whether the open game's lobby or table message still exists in the group (asked
        of Telegram by re-setting its keyboard: an admin may have deleted it). If it does
        not, it is posted again and the answer is ``False``."""
        if game.status == "lobby":
            message_id, markup = game.lobby_message_id, lobby_keyboard(game, bot_username)
        else:
            message_id, markup = game.table_message_id, table_keyboard(game)
        if message_id is None or \
                not await self.messenger.edit_markup(game.chat_id, message_id, markup):
            await self.reshow(game, bot_username)
            return False
        fresh = await self.service.get(game.id)
        if (fresh.status, fresh.version) != (game.status, game.version):
            # A Start or a move landed meanwhile: the keyboard just set may be an old one.
            if fresh.status == "lobby":
                await self.show_lobby(fresh, bot_username)
            elif game.status == "lobby":
                await self.close_lobby(fresh)
            elif fresh.status == "running":
                await self.refresh(fresh)
        return True

    async def send_private(self, game: GameSnapshot, player: PlayerInfo, *,
                           again: bool = False) -> None:
        """Send a player this round's private message and remember its id. Once per round
        (claimed in the database: a deal and a refresh, or two processes, may both try),
        unless ``again`` (the player asked for it with /start)."""
        if player.user_id is None or player.seat is None or not _in_round(game, player):
            return
        round_no = (game.state or {}).get("round") or 0
        if not again and not await self.service.claim_private(game.id, player.user_id,
                                                              round_no):
            return
        message_id = await self.messenger.send(
            player.user_id, render.private_text(game, player.seat),
            markup=private_keyboard(game, player.seat))
        if message_id is not None or not again:  # a failed claimed send may be tried again
            await self.service.set_private_message(game.id, player.user_id, message_id,
                                                   round_no)

    async def _post_table(self, game: GameSnapshot, report_lines: list[str] | None = None
                          ) -> bool:
        """Post the round's table (a new message: it mentions who opens the round), headed
        by ``report_lines`` (the report that dealt the round). Whether the report is told
        (see :meth:`_tell`)."""
        table = render.table_text(game, mention=True)
        text = fit_lines([*report_lines, "", table]) if report_lines else table
        table_id = await self.messenger.send_result(game.chat_id, text,
                                                    thread_id=game.thread_id,
                                                    markup=table_keyboard(game))
        if isinstance(table_id, int):
            await self.service.set_messages(game.id, table=table_id)
        return table_id != "lost"

    async def _new_round(self, game: GameSnapshot, report_lines: list[str] | None = None
                         ) -> bool:
        """Post the new round's table (headed by ``report_lines``) and every player's private
        message of the round; whether the report is told."""
        humans = [p for p in game.seated if p.user_id is not None]
        reachable = await self.service.reachable([p.user_id for p in humans if p.user_id])
        told, *_ = await asyncio.gather(  # all at once: their order does not matter
            self._post_table(game, report_lines),
            *(self.send_private(game, p) for p in humans if p.user_id in reachable))
        return told

    async def _close_round(self, game: GameSnapshot, round_no: int,
                           seats: set[int] | None = None) -> None:
        """Close round ``round_no``'s private messages of ``seats`` (default: all; after a
        move none: the new round's private messages follow at once). The old table is
        left as it is (it shows that round under the report that opened it; the new round's
        table follows), unless the game is over: then its 👀 goes and every private message
        is closed (once a game)."""
        if (game.state or {}).get("over"):
            seats = None
            await self.messenger.edit_markup(game.chat_id, game.table_message_id, None)
        await asyncio.gather(*(
            self.messenger.edit(p.user_id, p.private_message_id,
                                render.private_closed_text(game, round_no, reader=p))
            for p in game.seated
            if p.user_id is not None and p.private_message_id and p.private_hand == round_no
            and (seats is None or p.seat in seats)))

    async def _edit_private(self, game: GameSnapshot, player: PlayerInfo) -> None:
        state = game.state or {}
        if (player.user_id is None or player.seat is None or not player.private_message_id
                or player.private_hand != state.get("round")):
            return
        await self.messenger.edit(player.user_id, player.private_message_id,
                                  render.private_text(game, player.seat),
                                  markup=private_keyboard(game, player.seat))


def _in_round(game: GameSnapshot, player: PlayerInfo) -> bool:
    if not game.state or player.seat is None:
        return False
    return bool(GAMES[game.kind].view(game.state, None)["in_play"][player.seat])


def _runs(pending: dict[int, Outcome]) -> list[Outcome]:
    """``pending`` changes in version order, each run of consecutive ones (a change whose
    first step follows the previous change's last) coalesced into one outcome: one report,
    one edit of each message. A gap (a pause, a change of another process) starts a run."""
    runs: list[Outcome] = []
    for version in sorted(pending):
        outcome = pending[version]
        last = runs[-1] if runs else None
        if last is not None and not outcome.started and \
                version - len(outcome.steps) == last.game.version:
            runs[-1] = Outcome(outcome.game, last.steps + outcome.steps, last.turn_before,
                               last.started)
        else:
            runs.append(outcome)
    return runs


def _targets(outcome: Outcome) -> set[int]:
    """Seats a special of ``outcome`` was aimed at (their own hand changed)."""
    return {e["target"] for e in outcome.events
            if isinstance(e.get("target"), int) and not isinstance(e.get("target"), bool)}
