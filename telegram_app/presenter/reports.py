"""Reports: a committed change (or moves the group was never told) as one group note, then
the messages drawn as the game is now. A move adds at most one short group note (what
happened, then a mention of the next player); a new table (Coyote's round, Koira's trick)
is posted headed by its report."""

from __future__ import annotations

import asyncio
from typing import Any

from league.delivery import Delivery
from league.outcome import Outcome
from league.snapshots import GameSnapshot
from telegram_app.games.base import Report, hand_number, is_over, turn_marker, ui_for
from telegram_app.keyboards import rematch_keyboard
from telegram_app.presenter.screens import Screens
from telegram_app.render.common import fit_lines


class Reports(Screens):
    """Tells the group what changed (see :meth:`_moved` and :meth:`_represent`)."""

    async def _represent(self, delivery: Delivery, bot_username: str | None) -> None:
        """Show a game nobody here is delivering, as it is now: the moves the log holds
        beyond ``told_version`` (a report a kill or a failed send left untold, or another
        process's change it did not show) in one note, ending with the
        player to act or the end of the game; then the table and the private messages are
        drawn as they are now (a private message of this hand that never arrived is
        sent); then ``told_version`` is raised. A game already shown costs a read. A lobby
        is drawn as it is now (a lobby change whose draw a kill cut short)."""
        fresh = delivery.game
        if fresh.status == "lobby":
            if fresh.told_version is None or fresh.told_version < fresh.version:
                await self._draw_lobby(delivery, bot_username)
            return
        if fresh.status not in ("running", "finished") or not fresh.state:
            return
        told, arrived = fresh.told_version or 0, False
        if told < fresh.version:
            logged = await self.service.untold(fresh.id, told, fresh.version)
            # (a Reverse: told with their next move)
            if not ui_for(fresh).still_acting(fresh, logged):
                arrived = await self._tell_logged(delivery, logged)
        if is_over(fresh):
            await self._close_hand(fresh, hand_number(fresh))
        else:
            await self._refresh(delivery)
        if arrived:
            delivery.told(fresh.version)

    async def _tell_logged(self, delivery: Delivery, logged: list[list[dict[str, Any]]]
                           ) -> bool:
        """Send the note of ``logged`` moves (``fresh``: the game now), heading the new
        table if a table was opened meanwhile; whether it is told (see
        :meth:`_tell`)."""
        fresh = delivery.game
        ui = ui_for(fresh)
        lines = ui.untold_lines(fresh, logged)
        if not is_over(fresh) and any(ui.opens_table(events) for events in logged):
            return await self._new_table(delivery, lines)
        if lines and is_over(fresh):
            lines += ["", ui.game_over_text(fresh)]
        elif lines and (turn := ui.turn_line(fresh)):
            lines.append(turn)
        return not lines or await self.messenger.send_result(
            fresh.chat_id, fit_lines(lines), thread_id=fresh.thread_id,
            markup=rematch_keyboard(fresh) if is_over(fresh) else None) != "lost"

    async def _moved(self, outcome: Outcome, delivery: Delivery) -> None:
        """Show a committed change: one group report, then the new table, or the
        current state drawn in place.

        The report is the game's (``GameUI.report``). A move after which the same player
        still acts (``GameUI.keeps_turn``: Coyote's Reverse, Extra feather, Swap) is told with
        their next move, so that a turn never mentions the player who is still acting; a
        report that could not be sent (or never ran) is told with the next one
        (``GameUI.untold_lines``). Both come from the log: how far the group was told
        (``told_version``) is recorded after the send, under the game's delivery lock, so a
        restart loses neither, and two deliveries (the sweeper's and a player's, or two
        processes') never tell a move twice. Messages are drawn from the game as it is now
        (``delivery.game``, read under the lock), never from an older picture."""
        game = outcome.game  # as committed right after the steps
        fresh = delivery.game
        if fresh.status == "cancelled":
            return  # cancelled since: its messages say so
        ui = ui_for(game)
        seats = ui.redraw_seats(fresh, outcome.events)
        if ui.keeps_turn(game, outcome.steps):
            await self._refresh(delivery, seats)
            return
        told = delivery.told_version(fresh)
        if told is not None and told >= game.version:
            # A later delivery went first (another process's, or a sweep's after a kill) and
            # told these moves; the hand they ended is still to be closed.
            # (its delivery posted the new table with them)
            shown = ui.report(game, outcome.steps, mention=False)
            if shown.closed is not None:
                await self._close_hand(fresh, shown.closed, set())
            if not is_over(fresh):
                await self._refresh(delivery, seats)
            return
        over = is_over(fresh)
        if not over and not ui.opens_table(outcome.events):
            # The note and the player to act's keyboard: independent, sent at once.
            (shown, arrived), _ = await asyncio.gather(
                self._tell(game, fresh, outcome, told), self._refresh(delivery, seats))
        else:
            shown, arrived = await self._tell(game, fresh, outcome, told)
            if not over and shown.new_table:  # the report opens the new table
                arrived = await self._new_table(delivery, shown.lines, seats)
            elif not over:
                await self._refresh(delivery, seats)
        if shown.edit_table and not over and not shown.new_table:
            await self._edit_table(fresh)
        if arrived:  # sent, then told: a kill before this shows it again (at least once)
            delivery.told(game.version)

    async def _tell(self, game: GameSnapshot, fresh: GameSnapshot, outcome: Outcome,
                    told: int | None) -> tuple[Report, bool]:
        """Send the report of ``outcome`` (moves after ``told`` not yet told first) and close
        the hand it ends; ``fresh``: the game now. Returns the report and whether it is
        told: a note that surely did not arrive is not (the next delivery tells it); one
        Telegram refused (or that may have arrived) is not repeated. A report that deals a
        new table is not sent here: it heads that table (:meth:`_new_table`), so
        a new table costs the group one new message."""
        before = game.version - len(outcome.steps)  # each step raised the version by one
        ui = ui_for(game)
        held = [] if told is None or told >= before else ui.untold_lines(
            game, await self.service.untold(game.id, told, before))
        # If another player is to act by now, a later report names them.
        mention = turn_marker(game) == turn_marker(fresh)
        shown = ui.report(game, outcome.steps, held, mention=mention)
        if shown.closed is not None:  # the hand on screen ends: close its messages
            await self._close_hand(fresh, shown.closed, set())
        if shown.lines and not (shown.new_table and not is_over(fresh)):
            # (the game's last message carries 🔁 Rematch)
            if await self.messenger.send_result(
                    fresh.chat_id, fit_lines(shown.lines), thread_id=fresh.thread_id,
                    markup=rematch_keyboard(fresh) if is_over(fresh) else None) == "lost":
                return shown, False
        return shown, True

