"""A game's table and its players' messages, drawn as the game is now (its lobby: lobby.py;
the private messages alone: private.py)."""

from __future__ import annotations

import asyncio
from typing import Any

from league.delivery import Delivery
from league.store.snapshots import GameSnapshot
from telegram_app.games.base import current_seat, hand_number, is_over, private_hand
from telegram_app.games.registry import private_end_text, ui_for
from telegram_app.i18n import _
from telegram_app.keyboards import lobby_keyboard, table_keyboard
from telegram_app.presenter import ephemeral
from telegram_app.presenter.private import PrivateViews, in_hand, may_write, redrawn_in_place
from telegram_app.render.common import fit_lines, mention_html
from telegram_app.render.language import for_chat


class Screens(PrivateViews):
    """Draws a game's group messages and, through :class:`PrivateViews`, its private ones;
    each public method holds the game's delivery."""

    async def cancelled(self, game: GameSnapshot) -> None:
        """After cancel: close the lobby or the table and the players' private messages."""
        async with self.delivering(game.id, game.chat_id) as delivery:
            game = delivery.game
            if game.table_message_id is None:
                await self._close_lobby(game)
                return
            moves = await _moves(delivery)
            if moves is not None:  # a quiet group's table: its hand, closed
                await self._close_table(delivery, game, moves)
            else:  # (its text holds the report that opened the table: only its 👀 goes)
                await self.messenger.edit_markup(game.chat_id, game.table_message_id, None)
            await self._drop_reminder(delivery)
            await asyncio.gather(*(
                self._close_private(delivery, p, ui_for(game).private_cancelled_text(
                    game, reader=p))
                for p in game.seated
                if p.user_id is not None and p.private_message_id and may_write(p)))
            await ephemeral.close_hand(self, delivery, None)

    async def refresh(self, game: GameSnapshot) -> None:
        """Draw every private message, and a quiet group's table, as ``game`` is now (its
        clock paused or going again). That change is no move: once drawn, the game is told
        up to it, if it was told up to the version before (else a sweep tells what is
        untold), so no sweep takes it for a move and pings the player to act again."""
        async with self.delivering(game.id, game.chat_id) as delivery:
            fresh = delivery.game
            if fresh.status != "running":
                return
            drawn = await self._refresh(delivery)
            if quiet(fresh):
                drawn = await self._edit_table(delivery) != "failed" and drawn
            if fresh.reminder_version == fresh.version:  # (the turn's reminder was sent:
                # it names the deadline before, so it goes; a player pinged in the group is
                # pinged again, without a time, once the clock goes again)
                await self._group_ping(delivery, None if fresh.paused else current_seat(fresh),
                                       moved=True)
            told = delivery.told_version(fresh)
            if drawn and fresh.version == game.version and told is not None and \
                    told >= game.version - 1:
                delivery.told(game.version)

    async def _refresh(self, delivery: Delivery, seats: set[int] | None = None, *,
                       ping: int | None = None) -> bool:
        """Draw ``seats``' private messages (default: all) and the player to act's; post any
        missing (the others wait: a press on an old keyboard redraws it). The player in seat
        ``ping`` (whose turn just began) gets a new private message instead of an edit: a new
        message notifies, an edit does not. Whether no call failed (a sweep would retry)."""
        game = delivery.game
        if game.table_message_id is None:
            await self._post_table(delivery)
        hand = hand_number(game)
        missing = [p for p in game.seated if p.user_id is not None and in_hand(game, p)
                   and (p.private_message_id is None or private_hand(p) != hand)]
        shown: list[bool] = []
        if missing:
            reachable = await self._reachable(missing)
            shown += await asyncio.gather(*(self._send_private(delivery, p, close_earlier=True)
                                            for p in missing if p.user_id in reachable))
        turn = current_seat(game)
        if seats is not None and turn is not None:
            seats = seats | {turn}
        pinged = [p for p in game.seated if p.seat == ping and p not in missing
                  and p.user_id is not None and may_write(p) and in_hand(game, p)]
        shown += await asyncio.gather(
            *(self._send_private(delivery, p) for p in pinged),
            *(self._edit_private(delivery, p) for p in game.seated
              if p not in missing and p not in pinged and (seats is None or p.seat in seats)))
        await ephemeral.refresh(self, delivery, seats)
        return all(shown)

    async def redraw(self, game: GameSnapshot, chat_id: int, message_id: int,
                     bot_username: str | None) -> None:
        """Draw a message of the game as it is now (a press on an old picture)."""
        async with self.delivering(game.id, game.chat_id) as delivery:
            game = delivery.game
            in_group = chat_id == game.chat_id
            if in_group and message_id == game.lobby_message_id:
                if game.status == "lobby":
                    await self._draw_lobby(delivery, bot_username)
                else:
                    await self._close_lobby(game)
            elif in_group and message_id == game.table_message_id:
                if game.status == "running":
                    await self._refresh(delivery)
                else:  # (its text holds the report that opened the table: kept)
                    await self.messenger.edit_markup(chat_id, message_id, None)
            elif game.status == "running" and (player := game.player(chat_id)) is not None \
                    and player.private_message_id == message_id:
                await self._edit_private(delivery, player)
            elif chat_id > 0 and game.status != "running" and \
                    (reader := game.player(chat_id)) is not None:  # (a stranger's: no title)
                await self.messenger.edit(chat_id, message_id, private_end_text(game, reader))
            else:  # (a message the game no longer tracks: its dead keyboard goes)
                await self.messenger.edit_markup(chat_id, message_id, None)

    async def reshow(self, game: GameSnapshot, bot_username: str | None) -> None:
        """Post the lobby or table in the supergroup the group became (unless already)."""
        async with self.delivering(game.id, game.chat_id) as delivery:
            if delivery.game.messages_chat_id != delivery.game.chat_id:
                await self._reshow(delivery, bot_username)

    async def _reshow(self, delivery: Delivery, bot_username: str | None) -> None:
        """Post the lobby or table in the game's chat (its group became a supergroup, or the
        message is gone); where Telegram refuses for good, none is kept (a sweep would ask
        again and again; a move posts the table again)."""
        game = delivery.game
        if game.status == "lobby":
            shown = await self._draw_lobby(delivery, bot_username, new=True)
        elif game.status == "running":
            shown = await self._post_table(delivery)
        else:
            return
        current = self.messenger.current_chat(game.chat_id)
        if shown and delivery.game.messages_chat_id != current:  # (refused, not lost)
            delivery.none_in(current)

    async def still_shown(self, game: GameSnapshot, bot_username: str | None) -> bool:
        """Whether the lobby or table still exists (an admin may delete it); else repost."""
        async with self.delivering(game.id, game.chat_id) as delivery:
            game = delivery.game
            if game.status == "lobby":
                message_id, markup = game.lobby_message_id, lobby_keyboard(game, bot_username)
            elif game.status == "running":
                message_id, markup = game.table_message_id, table_keyboard(game)
            else:
                return True
            if message_id is None or \
                    not await self.messenger.edit_markup(game.chat_id, message_id, markup):
                await self._reshow(delivery, bot_username)
                return False
            return True

    async def _post_table(self, delivery: Delivery, report_lines: list[str] | None = None,
                          moves: list[list[dict[str, Any]]] | None = None) -> bool:
        game = delivery.game
        moves = moves if moves is not None else await _moves(delivery)
        table = ui_for(game).table_text(game, mention=True, moves=moves)
        # (with a note per move, the table opens with what ended the hand before: the
        # report's lines; a quiet group's table draws its opening from the moves)
        text = fit_lines([*report_lines, "", table]) if report_lines and moves is None \
            else fit_lines(table.split("\n"))
        table_id = await self.messenger.send_result(game.chat_id, text,
                                                    thread_id=game.thread_id,
                                                    markup=table_keyboard(game))
        if isinstance(table_id, int):
            delivery.set_messages(table=table_id, chat=self.messenger.current_chat(game.chat_id))
        else:  # (the table before is closed, or gone: it must not be edited as this one)
            delivery.forget_table()
        return table_id != "lost"

    async def _new_table(self, delivery: Delivery, report_lines: list[str] | None = None,
                         seats: set[int] | None = None, *, ping: int | None = None,
                         version: int | None = None) -> bool:
        """Post the new table and the hand's private messages; whether the report is told
        (once the table is posted, the game is recorded told up to ``version`` at once: a
        kill during the other calls must not post it again).
        In a quiet group the table before is closed (it must not look live). Only the
        player to act gets a new private message (it notifies): at a new hand, or in seat
        ``ping`` when their turn began within the hand (a Koira trick's table with a note per
        move); the others' latest message of the game shows the new hand in place (an edit
        makes no sound)."""
        game = delivery.game
        hand = hand_number(game)
        humans = [p for p in game.seated if p.user_id is not None]
        kept = [p for p in humans if p.private_message_id and private_hand(p) == hand]
        turn = current_seat(game)
        redrawn = [p for p in kept if seats is None or p.seat in seats or p.seat == turn]
        pinged = [p for p in redrawn if p.seat == ping and may_write(p)]
        reachable = await self._reachable(humans)
        dealt = [p for p in humans if p.user_id in reachable and p not in kept]
        in_place = [p for p in dealt if redrawn_in_place(game, p)]
        moves = await _moves(delivery)

        async def posted() -> bool:
            told = await self._post_table(delivery, report_lines, moves)
            if told and version is not None:
                delivery.told(version)
                await delivery.flush()
            return told

        told = await asyncio.gather(  # all at once: their order does not matter
            posted(),
            *(self._send_private(delivery, p) for p in dealt if p not in in_place),
            *(self._private_in_place(delivery, p) for p in in_place),
            *(self._send_private(delivery, p) for p in pinged),
            *(self._edit_private(delivery, p) for p in redrawn if p not in pinged),
            self._close_table(delivery, game, moves))
        await ephemeral.refresh(self, delivery, seats)
        return bool(told[0])

    async def _close_table(self, delivery: Delivery, game: GameSnapshot,
                           moves: list[list[dict[str, Any]]] | None) -> None:
        """A quiet group's table on screen (``game``: as read before any next table was
        posted) shows the hand it showed, closed: no turn, clock or 🎴 (one edit)."""
        if moves is None or game.table_message_id is None:
            return
        text = ui_for(game).closed_table_text(game, moves, delivery.unseen(moves))
        await self.messenger.edit(game.chat_id, game.table_message_id,
                                  fit_lines(text.split("\n")))

    async def _close_hand(self, delivery: Delivery, game: GameSnapshot, hand: int,
                          seats: set[int] | None = None) -> None:
        """Close ``hand``'s private messages of ``seats`` (default: all); at the end every
        one, an earlier hand's too (a knocked-out player's may still say it is their turn)."""
        over = is_over(game)
        if over:
            seats = None
            moves = await _moves(delivery)
            if moves is not None:  # (a quiet group's table)
                await self._close_table(delivery, game, moves)
            else:
                await self.messenger.edit_markup(game.chat_id, game.table_message_id, None)
        await asyncio.gather(*(
            self._close_private(delivery, p, ui_for(game).private_closed_text(
                game, private_hand(p) or hand, reader=p))
            for p in game.seated
            if p.user_id is not None and p.private_message_id and may_write(p)
            and (private_hand(p) == hand or over) and (seats is None or p.seat in seats)))
        await ephemeral.close_hand(self, delivery, None if over else hand)

    async def _group_ping(self, delivery: Delivery, ping: int | None, *,
                          moved: bool = False, refused: bool = False) -> None:
        """Ping seat ``ping`` in the group when private messages do not reach them (or one
        was just ``refused``: asked again); the reminder or ping before goes when the turn
        ``moved`` on (or ``ping`` began)."""
        game = delivery.game
        if moved or ping is not None:
            await self._drop_reminder(delivery)
        if ping is None:
            return
        player = game.at_seat(ping)
        if player.user_id is None or player.reachable is not False and not (
                refused and player.user_id not in await self.service.reachable(
                    [player.user_id])):
            return
        with for_chat(game):
            text = _("{name}, your turn: 🎴 on the table shows your cards and moves.").format(
                name=mention_html(player))
        sent = await self.messenger.send(game.chat_id, text, thread_id=game.thread_id)
        if sent is not None:
            delivery.set_messages(reminder=sent)

    async def _drop_reminder(self, delivery: Delivery) -> None:
        """Delete the group's reminder or ping of a turn (its turn is over); where Telegram
        keeps it (older than 48 hours), it says so instead of naming a player to act."""
        game = delivery.game
        if game.reminder_message_id is None:
            return
        if not await self.messenger.delete(game.chat_id, game.reminder_message_id):
            with for_chat(game):
                over = _("⏹ This turn is over.")
            if await self.messenger.edit(game.chat_id, game.reminder_message_id,
                                         over) == "failed":
                return  # (the next delivery tries again)
        delivery.forget_reminder()

    async def _edit_table(self, delivery: Delivery) -> str:
        """Draw the table as the game is now: ``"ok"``, ``"gone"`` or ``"failed"``."""
        game = delivery.game
        if game.table_message_id is None:
            return "gone"
        text = fit_lines(ui_for(game).table_text(game, moves=await _moves(delivery)).split("\n"))
        edited = await self.messenger.edit(game.chat_id, game.table_message_id, text,
                                           markup=table_keyboard(game))
        if edited == "gone" and self.messenger.current_chat(game.chat_id) == game.chat_id:
            # (deleted, by an admin say: the group needs its table; a group that became a
            # supergroup is posted its games afresh, once, by the migration)
            return "ok" if await self._post_table(delivery) else "failed"
        return edited


def quiet(game: GameSnapshot) -> bool:
    """Whether the group's table is edited as moves happen (the chat's ``group_notes``,
    copied into the game's options; games opened before it: quiet), not a note per move."""
    return (game.options or {}).get("group_notes") != "every_move"


async def _moves(delivery: Delivery) -> list[list[dict[str, Any]]] | None:
    """The latest moves for a quiet group's live table; ``None``: notes tell them."""
    return await delivery.recent_moves() if quiet(delivery.game) else None
