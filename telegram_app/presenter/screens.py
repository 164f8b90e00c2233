"""The game's messages as they are now: the lobby, the table and the players' private
messages, posted, edited in place, redrawn after a press on an old picture, and closed.

Per hand (``GameUI``: Coyote's round, Koira's phase) each player has one private message,
edited in place; the group has one table message at a time (a new one when the game's report
asks for it). What each message says is the game's UI's.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from engine import GAMES
from league.delivery import Delivery
from league.service import MatchService
from league.snapshots import GameSnapshot, PlayerInfo
from telegram_app.games.base import hand_number, is_over, private_hand, ui_for
from telegram_app.keyboards import lobby_keyboard, private_keyboard, table_keyboard
from telegram_app.messenger import Messenger
from telegram_app.render.common import fit_lines


class Screens:
    """Draws one game's messages; the delivery (:class:`telegram_app.presenter.Presenter`)
    decides when. Every entry point holds the game's delivery (:meth:`delivering`), so two
    draws of one game never interleave, and each draws the game as read under it."""

    messenger: Messenger
    service: MatchService
    # game id -> (its lock: one delivery at a time, the number holding or waiting for it)
    _locks: dict[int, tuple[asyncio.Lock, int]]
    _slots: asyncio.Semaphore

    @asynccontextmanager
    async def delivering(self, game_id: int) -> AsyncIterator[Delivery]:
        """Hold the game's delivery: this process's lock, a slot (a delivery holds a
        database connection), and the league's (``MatchService.delivering``: the lock across
        processes, the game read under it, and what was sent recorded at the end)."""
        async with self._lock(game_id), self._slots, \
                self.service.delivering(game_id) as delivery:
            yield delivery

    async def show_lobby(self, game: GameSnapshot, bot_username: str | None, *,
                         new: bool = False) -> None:
        """Post the lobby (first time, or ``new``: again) or edit it in place, as it is now
        (``game`` only names it). A lobby that is no longer one is left to its start's or
        cancel's own messages. See :meth:`_draw_lobby`."""
        async with self.delivering(game.id) as delivery:
            if delivery.game.status == "lobby":
                await self._draw_lobby(delivery, bot_username, new=new)

    async def _draw_lobby(self, delivery: Delivery, bot_username: str | None, *,
                          new: bool = False) -> None:
        """Draw the lobby (posted when it has no message or ``new``, else edited), then
        record that the group has been shown it at its version (``told_version``), unless
        Telegram had a passing fault: a lobby change a kill (or that fault) left undrawn is
        then drawn by a sweep (``Deliveries.behind``, :meth:`Reports._represent`). A message
        Telegram refuses or that is gone counts as shown: it would be refused again
        (``/newgame`` posts a lobby that went missing)."""
        game = delivery.game
        reachable = await self._reachable([p for p in game.players if p.user_id])
        text = ui_for(game).lobby_text(game, reachable)
        markup = lobby_keyboard(game, bot_username)
        if new or game.lobby_message_id is None:
            sent = await self.messenger.send_result(game.chat_id, text,
                                                    thread_id=game.thread_id, markup=markup)
            if isinstance(sent, int):
                delivery.set_messages(lobby=sent,
                                      chat=self.messenger.current_chat(game.chat_id))
            shown = sent != "lost"
        else:
            shown = await self.messenger.edit_result(game.chat_id, game.lobby_message_id,
                                                     text, markup=markup) != "failed"
        if shown:
            delivery.told(game.version)

    async def close_lobby(self, game: GameSnapshot) -> None:
        """Replace the lobby by a line saying the game started or was cancelled."""
        async with self.delivering(game.id) as delivery:
            await self._close_lobby(delivery.game)

    async def _close_lobby(self, game: GameSnapshot) -> None:
        await self.messenger.edit(game.chat_id, game.lobby_message_id,
                                  ui_for(game).lobby_closed_text(game))

    async def cancelled(self, game: GameSnapshot) -> None:
        """After cancel: close the lobby or the table and the players' private messages."""
        async with self.delivering(game.id) as delivery:
            game = delivery.game
            if game.table_message_id is None:
                await self._close_lobby(game)
                return
            # (the table's text holds the report that opened the table: only its 👀 goes)
            await self.messenger.edit_markup(game.chat_id, game.table_message_id, None)
            await asyncio.gather(*(
                self.messenger.edit(p.user_id, p.private_message_id,
                                    ui_for(game).private_cancelled_text(game, reader=p))
                for p in game.seated if p.user_id is not None and p.private_message_id))

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
        """Draw every private message as the game is now (read under its delivery, after
        any report of it being shown): see :meth:`_refresh`."""
        async with self.delivering(game.id) as delivery:
            if delivery.game.status == "running":
                await self._refresh(delivery)

    async def _refresh(self, delivery: Delivery, seats: set[int] | None = None) -> None:
        """Draw the private messages of ``seats`` (default: every seat) as the delivery's
        game is now; a table never sent is posted, and so is a private message of this hand
        that never arrived; a passing failure is left for the next delivery (the old message
        keeps working: its presses are redrawn). The table is not edited here: it shows the
        game under the report that opened it, and is edited only when a report asks for it
        (``Report.edit_table``).

        The player to act is always drawn (their keyboard). After a move ``seats`` holds
        what the game's UI asks for (``GameUI.redraw_seats``; Coyote: only a player a special
        was aimed at, whom Draw 1 gave a card): the others' private messages, the mover's
        included, are drawn again at their turn or with the next hand (the mover's old
        keyboard answers "out of date" and is redrawn if pressed), so a Coyote bid costs its
        group note and one private edit."""
        game = delivery.game
        if game.table_message_id is None:
            await self._post_table(delivery)
        hand = hand_number(game)
        missing = [p for p in game.seated if p.user_id is not None and _in_hand(game, p)
                   and (p.private_message_id is None or private_hand(p) != hand)]
        if missing:
            reachable = await self._reachable(missing)
            await asyncio.gather(*(self._send_private(delivery, p) for p in missing
                                   if p.user_id in reachable))
        turn = GAMES[game.kind].current_seat(game.state) if game.state else None
        if seats is not None and turn is not None:
            seats = seats | {turn}
        await asyncio.gather(*(self._edit_private(game, p) for p in game.seated
                               if p not in missing and (seats is None or p.seat in seats)))

    async def redraw(self, game: GameSnapshot, chat_id: int, message_id: int,
                     bot_username: str | None) -> None:
        """Draw one of the game's messages as it is now (after a press on an old picture).
        A message the game no longer tracks (an old table or private message whose
        closing edit failed, a send that timed out but arrived) loses its dead keyboard."""
        async with self.delivering(game.id) as delivery:
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
                await self._edit_private(game, player)
            elif chat_id > 0 and game.status == "cancelled":
                await self.messenger.edit(chat_id, message_id,
                                          ui_for(game).private_cancelled_text(
                                              game, reader=game.player(chat_id)))
            elif chat_id > 0 and game.status != "running":
                await self.messenger.edit(chat_id, message_id, ui_for(game).private_closed_text(
                    game, hand_number(game), reader=game.player(chat_id)))
            else:
                await self.messenger.edit_markup(chat_id, message_id, None)

    async def reshow(self, game: GameSnapshot, bot_username: str | None) -> None:
        """After the group became a supergroup: post the lobby or the table again there
        (its buttons in the old group's history no longer match the game's chat), unless it
        was posted there already (a send queued for the group when it migrated)."""
        async with self.delivering(game.id) as delivery:
            if delivery.game.messages_chat_id != delivery.game.chat_id:
                await self._reshow(delivery, bot_username)

    async def _reshow(self, delivery: Delivery, bot_username: str | None) -> None:
        if delivery.game.status == "lobby":
            await self._draw_lobby(delivery, bot_username, new=True)
        elif delivery.game.status == "running":
            await self._post_table(delivery)

    async def still_shown(self, game: GameSnapshot, bot_username: str | None) -> bool:
        """Whether the open game's lobby or table message still exists in the group (asked
        of Telegram by re-setting its keyboard, as the game is now: an admin may have
        deleted it). If it does not, it is posted again and the answer is ``False``."""
        async with self.delivering(game.id) as delivery:
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

    async def send_private(self, game: GameSnapshot, player: PlayerInfo) -> None:
        """Send a player this hand's private message again (they asked for it with /start)."""
        async with self.delivering(game.id) as delivery:
            current = delivery.game.player(player.user_id) if player.user_id else None
            if delivery.game.status == "running" and current is not None:
                await self._send_private(delivery, current)

    async def _send_private(self, delivery: Delivery, player: PlayerInfo) -> None:
        """Send a player this hand's private message and record its id."""
        game = delivery.game
        if player.user_id is None or player.seat is None or not _in_hand(game, player):
            return
        hand = hand_number(game)
        message_id = await self.messenger.send(
            player.user_id, ui_for(game).private_text(game, player.seat),
            markup=private_keyboard(game, player.seat))
        if message_id is not None:
            delivery.set_private(player.user_id, message_id, hand)

    async def _post_table(self, delivery: Delivery, report_lines: list[str] | None = None
                          ) -> bool:
        """Post the table (a new message: it mentions who opens it), headed
        by ``report_lines`` (the report that opened it). Whether the report is told
        (see :meth:`Reports._tell`)."""
        game = delivery.game
        table = ui_for(game).table_text(game, mention=True)
        text = fit_lines([*report_lines, "", table]) if report_lines else table
        table_id = await self.messenger.send_result(game.chat_id, text,
                                                    thread_id=game.thread_id,
                                                    markup=table_keyboard(game))
        if isinstance(table_id, int):
            delivery.set_messages(table=table_id,
                                  chat=self.messenger.current_chat(game.chat_id))
        return table_id != "lost"

    async def _new_table(self, delivery: Delivery, report_lines: list[str] | None = None,
                         seats: set[int] | None = None) -> bool:
        """Post the new table (headed by ``report_lines``) and the players' private
        messages of the hand: a new hand's are sent; in the same hand (Koira's next trick)
        those already sent are edited for ``seats`` and the player to act (``None``: every
        seat; after a move, ``GameUI.redraw_seats``: the others' hands did not change).
        Whether the report is told."""
        game = delivery.game
        hand = hand_number(game)
        humans = [p for p in game.seated if p.user_id is not None]
        kept = [p for p in humans if p.private_message_id and private_hand(p) == hand]
        turn = GAMES[game.kind].current_seat(game.state) if game.state else None
        redrawn = [p for p in kept if seats is None or p.seat in seats or p.seat == turn]
        reachable = await self._reachable(humans)
        told = await asyncio.gather(  # all at once: their order does not matter
            self._post_table(delivery, report_lines),
            *(self._send_private(delivery, p) for p in humans
              if p.user_id in reachable and p not in kept),
            *(self._edit_private(game, p) for p in redrawn))
        return bool(told[0])

    async def _reachable(self, players: list[PlayerInfo]) -> set[int]:
        """The user ids of ``players`` whom private messages reach: as read with the game
        (``PlayerInfo.reachable``), asked of the league only for a snapshot made without it."""
        if all(p.reachable is not None for p in players):
            return {p.user_id for p in players if p.reachable and p.user_id is not None}
        return await self.service.reachable([p.user_id for p in players if p.user_id])

    async def _close_hand(self, game: GameSnapshot, hand: int,
                          seats: set[int] | None = None) -> None:
        """Close hand ``hand``'s private messages of ``seats`` (default: all; after a
        move none: the new hand's private messages follow at once). The old table is
        left as it is (it shows that hand under the report that opened it; the new
        table follows), unless the game is over: then its 👀 goes and every private message
        is closed (once a game), an earlier hand's too: a player knocked out gets no message
        of the later hands, and the one they last had may still say it is their turn."""
        over = is_over(game)
        if over:
            seats = None
            await self.messenger.edit_markup(game.chat_id, game.table_message_id, None)
        await asyncio.gather(*(
            self.messenger.edit(p.user_id, p.private_message_id,
                                ui_for(game).private_closed_text(
                                    game, private_hand(p) or hand, reader=p))
            for p in game.seated
            if p.user_id is not None and p.private_message_id
            and (private_hand(p) == hand or over) and (seats is None or p.seat in seats)))

    async def _edit_private(self, game: GameSnapshot, player: PlayerInfo) -> None:
        if (player.user_id is None or player.seat is None or not player.private_message_id
                or private_hand(player) != hand_number(game)):
            return
        await self.messenger.edit(player.user_id, player.private_message_id,
                                  ui_for(game).private_text(game, player.seat),
                                  markup=private_keyboard(game, player.seat))

    async def _edit_table(self, game: GameSnapshot) -> None:
        """Edit the table message in place to the game as it is now (a game whose report
        asks for it: ``Report.edit_table``)."""
        if game.table_message_id is not None:
            await self.messenger.edit(game.chat_id, game.table_message_id,
                                      ui_for(game).table_text(game),
                                      markup=table_keyboard(game))


def _in_hand(game: GameSnapshot, player: PlayerInfo) -> bool:
    if not game.state or player.seat is None:
        return False
    return ui_for(game).in_hand(game, player.seat)


