"""A game's delivery, held while its messages are drawn, and its lobby."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, nullcontext

from league.delivery import Delivery
from league.service import MatchService
from league.store.snapshots import GameSnapshot, PlayerInfo
from telegram_app.games.registry import ui_for
from telegram_app.keyboards import lobby_keyboard
from telegram_app.tournaments.table_topics import TableTopics
from telegram_app.transport.keylocks import KeyLocks
from telegram_app.transport.messenger import Messenger


class Lobbies:
    """A game's delivery (:meth:`delivering`) and its lobby; :class:`drawing.Screens`
    draws the rest."""

    messenger: Messenger
    service: MatchService
    topics: TableTopics
    _locks: KeyLocks  # one delivery of a game at a time in this process
    _chats: KeyLocks  # a few deliveries of a chat at a time (CHAT_DELIVERIES)
    _slots: asyncio.Semaphore

    @asynccontextmanager
    async def delivering(self, game_id: int, chat_id: int | None = None
                         ) -> AsyncIterator[Delivery]:
        """The game's lock here, its chat's turn (a group whose 20-a-minute budget is spent
        makes its deliveries wait there, not in the slots every group shares), a slot (a
        database connection), the league's delivery; a tournament table gets its forum topic
        here, before anything of it is shown."""
        turn = nullcontext() if chat_id is None else self._chats.hold(chat_id)
        async with self._locks.hold(game_id), turn, self._slots, \
                self.service.delivering(game_id) as delivery:
            await self.topics.place(delivery)
            yield delivery

    async def show_lobby(self, game: GameSnapshot, bot_username: str | None, *,
                         new: bool = False) -> None:
        """Post the lobby (again if ``new``) or edit it, while it is one."""
        async with self.delivering(game.id, game.chat_id) as delivery:
            if delivery.game.status == "lobby":
                await self._draw_lobby(delivery, bot_username, new=new)

    async def _draw_lobby(self, delivery: Delivery, bot_username: str | None, *,
                          new: bool = False) -> bool:
        """Post (``new``) or edit the lobby: whether that is done (or refused for good)."""
        game = delivery.game
        reachable = await self._reachable([p for p in game.players if p.user_id])
        text = ui_for(game).lobby_text(game, reachable)
        markup = lobby_keyboard(game, bot_username)
        # Not told after a passing fault (a sweep redraws it); a refusal would only repeat.
        if new or game.lobby_message_id is None:
            sent = await self.messenger.send_result(game.chat_id, text,
                                                    thread_id=game.thread_id, markup=markup)
            if isinstance(sent, int):
                delivery.set_messages(lobby=sent, chat=self.messenger.current_chat(game.chat_id))
            shown = sent != "lost"
        else:
            shown = await self.messenger.edit(game.chat_id, game.lobby_message_id,
                                                     text, markup=markup) != "failed"
        if shown:
            delivery.told(game.version)
        return shown

    async def close_lobby(self, game: GameSnapshot) -> None:
        """Replace the lobby by a line saying the game started or was cancelled."""
        async with self.delivering(game.id, game.chat_id) as delivery:
            await self._close_lobby(delivery.game)

    async def _close_lobby(self, game: GameSnapshot) -> None:
        if game.lobby_message_id is None:  # (a tournament's table is dealt without a lobby)
            return
        await self.messenger.edit(game.chat_id, game.lobby_message_id,
                                  ui_for(game).lobby_closed_text(game))

    async def _reachable(self, players: list[PlayerInfo]) -> set[int]:
        if all(p.reachable is not None for p in players):
            return {p.user_id for p in players if p.reachable and p.user_id is not None}
        return await self.service.reachable([p.user_id for p in players if p.user_id])
