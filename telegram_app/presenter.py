"""Turns committed league results into Telegram messages (always after the commit).

Per round the group has one table message, edited in place, and each player one private
message, edited in place; each turn adds one short group note that mentions the next player.
"""

from __future__ import annotations

import asyncio
from typing import Any

from engine import GAMES
from league.service import MatchService, Outcome
from league.snapshots import GameSnapshot, PlayerInfo
from telegram_app.keyboards import lobby_keyboard, private_keyboard, table_keyboard
from telegram_app.messenger import Messenger
from telegram_app.render import coyote as render


class Presenter:
    """Shows lobbies and games in their group and in each player's private chat."""

    def __init__(self, messenger: Messenger, service: MatchService) -> None:
        self.messenger = messenger
        self.service = service

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

    async def started(self, outcome: Outcome) -> None:
        """After start: close the lobby and deal round 1 on screen."""
        await self.close_lobby(outcome.game)
        await self._new_round(outcome.game)

    async def cancelled(self, game: GameSnapshot) -> None:
        """After cancel: close the lobby or the table."""
        if game.table_message_id is None:
            await self.close_lobby(game)
        else:
            await self.messenger.edit(game.chat_id, game.table_message_id,
                                      render.lobby_closed_text(game))

    async def moved(self, outcome: Outcome) -> None:
        """After a move: update the round, or reveal the showdown and deal the next round."""
        game, events = outcome.game, outcome.events
        showdown = _first(events, "showdown")
        if showdown is None:
            await self.refresh(game)
            note = render.announce_text(game, events)
            if note:
                await self.messenger.send(game.chat_id, note, thread_id=game.thread_id)
            return
        dealt = _first(events, "round_dealt")
        closed_round = dealt["round"] - 1 if dealt else (game.state or {}).get("round", 0)
        await self._close_round(game, closed_round)
        await self.messenger.send(game.chat_id, render.showdown_text(game, showdown),
                                  thread_id=game.thread_id)
        if game.status == "finished":
            await self.messenger.send(game.chat_id, render.game_over_text(game),
                                      thread_id=game.thread_id)
        elif dealt:
            await self._new_round(game)

    async def refresh(self, game: GameSnapshot) -> None:
        """Edit the table and every private message to the current state."""
        await self.messenger.edit(game.chat_id, game.table_message_id, render.table_text(game),
                                  markup=table_keyboard(game))
        await asyncio.gather(*(self._edit_private(game, p) for p in game.seated))

    async def send_private(self, game: GameSnapshot, player: PlayerInfo) -> None:
        """Send a player this round's private message and remember its id."""
        if player.user_id is None or player.seat is None or not _in_round(game, player):
            return
        message_id = await self.messenger.send(
            player.user_id, render.private_text(game, player.seat),
            markup=private_keyboard(game, player.seat))
        if message_id is not None:
            await self.service.set_private_message(game.id, player.user_id, message_id,
                                                   (game.state or {}).get("round"))

    async def _new_round(self, game: GameSnapshot) -> None:
        await self.messenger.send(game.chat_id, render.round_start_text(game),
                                  thread_id=game.thread_id)
        table_id = await self.messenger.send(game.chat_id, render.table_text(game),
                                             thread_id=game.thread_id,
                                             markup=table_keyboard(game))
        if table_id is not None:
            await self.service.set_messages(game.id, table=table_id)
        reachable = await self.service.reachable([p.user_id for p in game.seated if p.user_id])
        await asyncio.gather(*(self.send_private(game, p) for p in game.seated
                               if p.user_id in reachable))

    async def _close_round(self, game: GameSnapshot, round_no: int) -> None:
        await self.messenger.edit(game.chat_id, game.table_message_id,
                                  render.table_closed_text(game, round_no))
        await asyncio.gather(*(
            self.messenger.edit(p.user_id, p.private_message_id,
                                render.private_closed_text(game, round_no))
            for p in game.seated
            if p.user_id is not None and p.private_message_id and p.private_round == round_no))

    async def _edit_private(self, game: GameSnapshot, player: PlayerInfo) -> None:
        state = game.state or {}
        if (player.user_id is None or player.seat is None or not player.private_message_id
                or player.private_round != state.get("round")):
            return
        await self.messenger.edit(player.user_id, player.private_message_id,
                                  render.private_text(game, player.seat),
                                  markup=private_keyboard(game, player.seat))


def _first(events: list[dict[str, Any]], kind: str) -> dict[str, Any] | None:
    return next((e for e in events if e["type"] == kind), None)


def _in_round(game: GameSnapshot, player: PlayerInfo) -> bool:
    if not game.state or player.seat is None:
        return False
    return bool(GAMES[game.kind].view(game.state, None)["in_play"][player.seat])
