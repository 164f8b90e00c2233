"""Reports: a change (or moves never told) as one group note, heading a new table if any."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from engine.core import GAME_OVER, PLAYER_REMOVED
from league.delivery import Delivery
from league.match.outcome import Outcome
from league.store.snapshots import GameSnapshot
from telegram_app.games.base import (
    Report,
    current_seat,
    hand_number,
    is_over,
    turn_marker,
)
from telegram_app.games.registry import ui_for
from telegram_app.keyboards import rematch_keyboard
from telegram_app.presenter.drawing import Screens, quiet
from telegram_app.presenter.private import redrawn_in_place
from telegram_app.render.common import fit_lines
from telegram_app.render.language import for_chat
from telegram_app.render.tournament_table import note_lines

TIMED_OUT = "turn_timed_out"  # (the sweeper's event: the computer played the turn)
NOTABLE = frozenset({PLAYER_REMOVED, TIMED_OUT, GAME_OVER})
"""Events the whole group should notice: a new group message tells them; other moves of a
hand are told by the table, edited in place (README, "Message economy")."""


class Reports(Screens):
    async def _represent(self, delivery: Delivery, bot_username: str | None) -> None:
        """Show a game with no change noted here: the logged untold moves, then its messages
        (a timed-out or removed player's as ``_moved`` draws them: read from the log)."""
        fresh = delivery.game
        if fresh.messages_chat_id not in (None, fresh.chat_id) and \
                fresh.status in ("lobby", "running"):  # (its group became a supergroup)
            await self._reshow(delivery, bot_username)
            fresh = delivery.game
        if fresh.status == "lobby":
            if fresh.told_version is None or fresh.told_version < fresh.version:
                await self._draw_lobby(delivery, bot_username)
            return
        if fresh.status not in ("running", "finished") or not fresh.state:
            return
        told, arrived, held = fresh.told_version or 0, False, False
        ping, seats, removed = None, None, set()
        if told < fresh.version:
            logged = await self.service.untold(fresh.id, told, fresh.version)
            # (a timeout or removal its committer never showed, a stopped process's: read
            # from the log, so the private messages say it as the committer's would)
            events = [e for step in logged for e in step]
            delivery.timed_out = _timed_out_seats(events)
            removed = {e["seat"] for e in events if e.get("type") == PLAYER_REMOVED}
            if removed:  # (their message is closed below, not redrawn first)
                seats = {p.seat for p in fresh.seated if p.seat is not None} - removed
            held = ui_for(fresh).still_acting(fresh, logged)  # (a Reverse: told later)
            if not held and not is_over(fresh) and any(_opens_table(fresh, e) for e in logged):
                arrived = await self._new_table(delivery, ui_for(fresh).untold_lines(
                    fresh, logged), seats, version=fresh.version)  # (it pings the player to act)
            elif not held:
                arrived = await self._tell_logged(delivery, logged)
                # (the moves may have passed the turn and no one told its player: a ping
                # twice beats none; once told, no sweep comes back to ping again. No move
                # logged: a clock's change, which passes no turn)
                ping = current_seat(fresh) if arrived and logged else None
        elif fresh.version:  # (shown: a redraw keeps what the last change says, a timeout)
            last = await self.service.untold(fresh.id, fresh.version - 1, fresh.version)
            delivery.timed_out = _timed_out_seats(e for step in last for e in step)
        drawn = True
        if is_over(fresh):
            await self._close_hand(delivery, fresh, hand_number(fresh))
        else:
            drawn = await self._refresh_and_ping(delivery, seats, ping, mention=quiet(fresh))
            # (the table as the game is now: its turn, clock and moves; once told, the
            # delivery that told it drew it, and an edit would only take its mention away)
            if quiet(fresh) and told < fresh.version:
                drawn = await self._edit_table(delivery) != "failed" and drawn
            if removed:
                await self._close_removed(delivery, removed)
        if arrived:
            delivery.told(fresh.version)
        elif held and drawn:
            delivery.drawn(fresh.version)

    async def _tell_logged(self, delivery: Delivery, logged: list[list[dict[str, Any]]]) -> bool:
        """Tell moves no delivery told, none of which opens a table, as one note (none in a
        quiet group for moves within its hand with nothing the whole group should notice:
        the table, edited next, shows them, at best effort as after a move): whether it
        arrived. A quiet group's note names no turn (the player to act is pinged)."""
        fresh = delivery.game
        ui = ui_for(fresh)
        if quiet(fresh) and not is_over(fresh) and not any(
                e.get("type") in NOTABLE for events in logged for e in events):
            return True
        with for_chat(fresh):  # (every line of it: a game's own texts may not set it)
            lines = ui.untold_lines(fresh, logged)
            over_text = ui.game_over_text(fresh) if is_over(fresh) else None
            if lines and over_text:
                lines += ["", over_text]
            elif lines and not quiet(fresh) and (turn := ui.turn_line(fresh)):
                lines.append(turn)
            lines = note_lines(fresh, lines, [e for events in logged for e in events],
                               over_text)
        return not lines or await self.messenger.send_result(
            fresh.chat_id, fit_lines(lines), thread_id=fresh.thread_id,
            markup=rematch_keyboard(fresh) if is_over(fresh) else None) != "lost"

    async def _moved(self, outcome: Outcome, delivery: Delivery) -> None:
        """Show a committed change: one report, then the messages as they are now."""
        game = outcome.game  # as committed right after the steps
        fresh = delivery.game
        if fresh.status == "cancelled":
            return  # cancelled since: its messages say so
        ui = ui_for(game)
        seats = ui.redraw_seats(fresh, outcome.events)
        if ui.keeps_turn(game, outcome.steps):
            if await self._refresh(delivery, seats):  # (its note waits for their next move)
                delivery.drawn(game.version)
            return
        told = delivery.told_version(fresh)
        if told is not None and told >= game.version:
            # A later delivery told these moves (and any new table); their hand is to close.
            shown = ui.report(game, outcome.steps, mention=False)
            if shown.closed is not None:
                await self._close_hand(delivery, fresh, shown.closed, set())
            if not is_over(fresh):
                await self._refresh(delivery, seats)
            return
        over = is_over(fresh)
        ping = None
        removed = {e["seat"] for e in outcome.events if e.get("type") == PLAYER_REMOVED}
        delivery.timed_out = _timed_out_seats(outcome.events)
        if not over:  # the mover's buttons go; the next player is pinged
            seats, ping = _turn_passed(fresh, outcome, seats)
            if removed:  # (their message is closed below, not redrawn first)
                seats = (seats if seats is not None else
                         {p.seat for p in fresh.seated if p.seat is not None}) - removed
        if not over and _told_by_table(game, outcome):
            await self._live_move(delivery, outcome, seats, ping)
            return
        if not over and not _opens_table(fresh, outcome.events):
            (shown, arrived), _ = await asyncio.gather(  # (independent: sent at once; a
                self._tell(delivery, game, fresh, outcome, told),  # note per move names the turn)
                self._refresh_and_ping(delivery, seats, ping, mention=quiet(fresh),
                                       moved=True))
        else:
            await self._group_ping(delivery, None, moved=True)  # (a new table names it)
            shown, arrived = await self._tell(delivery, game, fresh, outcome, told)
            if not over and shown.new_table:  # the report opens the new table
                arrived = await self._new_table(delivery, shown.lines, seats, ping=ping,
                                                version=game.version)
            elif not over:
                await self._refresh(delivery, seats, ping=ping)
        if quiet(fresh) and not over and not shown.new_table:
            await self._edit_table(delivery)  # (quiet: the note told it; the table shows it)
        if removed and not over:  # (at the end every message is closed: _close_hand)
            await self._close_removed(delivery, removed)
        if arrived:  # sent, then told: a kill before this shows it again (at least once)
            delivery.told(game.version)

    async def _live_move(self, delivery: Delivery, outcome: Outcome,
                         seats: set[int] | None, ping: int | None) -> None:
        """A move the table tells: the table edited in place; the mover's private message
        redrawn (its buttons go); the player to act pinged by a new private message, or by a
        short mention in the group when private messages do not reach them (deleted, as a
        reminder is, once the turn moved on)."""
        edited, _ = await asyncio.gather(
            self._edit_table(delivery), self._refresh_and_ping(delivery, seats, ping))
        if edited != "failed":
            delivery.told(outcome.game.version)

    async def _refresh_and_ping(self, delivery: Delivery, seats: set[int] | None,
                                ping: int | None, *, mention: bool = True,
                                moved: bool = False) -> bool:
        """:meth:`_refresh` with its private ping of seat ``ping``, then (``mention``) the
        group's ping when private messages do not reach them: known before, or learnt now
        (Telegram refused the new private message: they blocked the bot)."""
        before = delivery.game.at_seat(ping).private_message_id if ping is not None else None
        shown = await self._refresh(delivery, seats, ping=ping)
        refused = ping is not None and delivery.game.at_seat(ping).private_message_id == before
        await self._group_ping(delivery, ping if mention else None, moved=moved,
                               refused=refused)
        return shown

    async def _tell(self, delivery: Delivery, game: GameSnapshot, fresh: GameSnapshot,
                    outcome: Outcome, told: int | None) -> tuple[Report, bool]:
        """Send the report unless it heads a new table; close its hand; told unless lost."""
        before = game.version - len(outcome.steps)  # each step raised the version by one
        ui = ui_for(game)
        held = [] if told is None or told >= before else ui.untold_lines(
            game, await self.service.untold(game.id, told, before))
        # A note names the player to act unless a later report does, or the group is quiet:
        # there the table shows the turn and the player is pinged (privately, or by a
        # mention that goes once they moved), so a note's "your turn" would soon be stale.
        mention = turn_marker(game) == turn_marker(fresh) and not quiet(fresh)
        shown = ui.report(game, outcome.steps, held, mention=mention)
        if quiet(fresh):  # (a quiet group's table lasts a hand; a new Koira trick is a note)
            shown = replace(shown, new_table=not is_over(game)
                            and _opens_table(fresh, outcome.events))
        if shown.closed is not None:  # the hand on screen ends: the mover's message (the
            # one with buttons) is closed, the others' carry none, unless the new table
            # draws the next hand on it
            mover = set() if outcome.turn_before is None or (
                shown.new_table and not is_over(fresh)
                and redrawn_in_place(fresh, fresh.at_seat(outcome.turn_before))) \
                else {outcome.turn_before}
            await self._close_hand(delivery, fresh, shown.closed, mover)
        if shown.lines and not (shown.new_table and not is_over(fresh)):
            with for_chat(game):
                lines = note_lines(game, shown.lines, outcome.events, ui.game_over_text(game)
                                   if is_over(game) and game.tournament_id else None)
            if await self.messenger.send_result(  # (the game's last note carries 🔁 Rematch)
                    fresh.chat_id, fit_lines(lines), thread_id=fresh.thread_id,
                    markup=rematch_keyboard(fresh) if is_over(fresh) else None) == "lost":
                return shown, False
        return shown, True


def _timed_out_seats(events: Iterable[dict[str, Any]]) -> set[int]:
    """The seats whose time ran out in ``events`` (the computer played their turn, or they
    were removed): their private messages say so (``Delivery.timed_out``)."""
    return {e["seat"] for e in events if e.get("type") == TIMED_OUT}


def _told_by_table(game: GameSnapshot, outcome: Outcome) -> bool:
    """Whether the table, edited in place, tells this change (``game`` as committed after
    it): a move within the hand on screen, with nothing the whole group should notice (the
    game's start, a removal, a timeout, the end of a hand or of the game)."""
    if not quiet(game) or outcome.started or is_over(game) or \
            any(e.get("type") in NOTABLE for e in outcome.events):
        return False
    return ui_for(game).report(game, outcome.steps, mention=False).closed is None


def _opens_table(game: GameSnapshot, events: list[dict[str, Any]]) -> bool:
    """Whether a move with ``events`` posts a new table: in a quiet group when it deals a new
    hand, else as the game tells its notes (Koira: at each trick)."""
    ui = ui_for(game)
    return ui.deals_hand(events) if quiet(game) else ui.opens_table(events)


def _turn_passed(game: GameSnapshot, outcome: Outcome, seats: set[int] | None
                 ) -> tuple[set[int] | None, int | None]:
    """The seats to redraw, the mover's among them (their buttons go), and the seat whose
    turn began with this change (``None``: the mover acts again, or nobody does). A turn
    that comes back to the mover is a new one when others moved in between (computer
    players' replies, or moves told together) or the computer stood in for them (a
    timeout: they were away): they are pinged again."""
    turn = current_seat(game)
    mover = outcome.turn_before
    if seats is not None and mover is not None:
        seats = seats | {mover}
    again = any(e.get("type") == TIMED_OUT for e in outcome.events) or any(
        step.seat is not None and step.seat != mover for step in outcome.steps)
    return seats, (turn if turn is not None and (turn != mover or again) else None)
