"""A game's private messages, one a player: sent, redrawn, retired (a chat never holds two
live keyboards of a game), and Telegram's refusal learned once a delivery."""

from __future__ import annotations

import asyncio
from collections.abc import Set as AbstractSet

from telegram import InlineKeyboardMarkup

from league.delivery import Delivery
from league.store.snapshots import GameSnapshot, PlayerInfo
from telegram_app.games.base import current_seat, hand_number, is_over, private_hand
from telegram_app.games.registry import private_end_text, ui_for
from telegram_app.i18n import _
from telegram_app.keyboards import private_keyboard
from telegram_app.presenter.lobby import Lobbies
from telegram_app.render.common import fit_lines
from telegram_app.render.language import for_player
from telegram_app.render.place import place_line, with_place
from telegram_app.transport.messenger import EditResult


class PrivateViews(Lobbies):
    """Draws the players' private messages of a game, under its delivery."""

    async def send_private(self, game: GameSnapshot, player: PlayerInfo) -> None:
        """Send a player this hand's private message again (``/start``), in place of the one
        before (an earlier hand's is closed)."""
        async with self.delivering(game.id, game.chat_id) as delivery:
            current = delivery.game.player(player.user_id) if player.user_id else None
            if delivery.game.status == "running" and current is not None:
                await self._send_private(delivery, current, close_earlier=True, replace=True)

    async def close_left(self, game: GameSnapshot, user_id: int) -> None:
        """Close ``user_id``'s latest private message of a game over for them that still
        carries the buttons of their turn (the cancel, the end or their removal skipped them:
        the bot could not write to them), as that would have closed it: back, they are told."""
        async with self.delivering(game.id, game.chat_id) as delivery:
            game = delivery.game
            player = game.player(user_id)
            if player is None or player.seat is None or not player.private_message_id or \
                    not player.private_acting or not may_write(player):
                return
            if game.status == "running":
                if not player.playing:
                    await self._close_removed(delivery, {player.seat})
            else:
                await self._close_private(delivery, player, private_end_text(
                    game, player, private_hand(player) or None))

    async def remind(self, delivery: Delivery, player: PlayerInfo, heading: str) -> None:
        """The clock's reminder to the player to act, in their private chat: a new private
        message (it notifies) with ``heading`` over their view and moves, in place of the
        one before; the turn's end redraws it without the heading, so no reminder outlives
        its turn."""
        if player.user_id is not None and may_write(player) and in_hand(delivery.game, player):
            await self._send_private(delivery, player, heading=heading, replace=True)

    async def _send_private(self, delivery: Delivery, player: PlayerInfo, *,
                            heading: str | None = None, close_earlier: bool = False,
                            replace: bool = False) -> bool:
        """Send ``player`` the hand's private message (under ``heading``, if any); ``False``
        if it failed. Their message before (``player`` as read) is taken out of play once
        the new one is sent: one of an earlier hand is closed if ``close_earlier`` (as the
        end of that hand would have closed it had the bot been able to write to them then);
        else it is retired (:meth:`retire`) if ``replace``, or if it was drawn with the
        buttons of their turn (a turn that came back to them, a view sent again just as
        their turn began): a chat never holds two live keyboards of a game."""
        game = delivery.game
        if player.user_id is None or player.seat is None or not in_hand(game, player):
            return True
        text = headed(game, player, ui_for(game).private_text(game, player.seat), heading,
                      delivery.timed_out)
        message_id = await self.messenger.send(
            player.user_id, text, markup=private_keyboard(game, player.seat))
        if message_id is None:
            await self._learn_refusal(delivery, player.user_id)
            return False
        live = acting(game, player.seat)
        delivery.set_private(player.user_id, message_id, hand_number(game), live,
                             turn_began=live and heading is None and not replace)
        if close_earlier and player.private_message_id and \
                private_hand(player) != hand_number(game):
            await self._edit_in_private(delivery, player, ui_for(game).private_closed_text(
                game, private_hand(player) or 0, reader=player))
        elif replace or player.private_acting:
            await self.retire(delivery, player)
        return True

    async def _edit_in_private(self, delivery: Delivery, player: PlayerInfo, text: str,
                               markup: InlineKeyboardMarkup | None = None) -> EditResult:
        """Edit ``player``'s latest private message of the game to show ``text``."""
        assert player.user_id is not None
        edited = await self.messenger.edit(player.user_id, player.private_message_id, text,
                                           markup=markup)
        if edited == "gone":
            await self._learn_refusal(delivery, player.user_id)
        return edited

    async def _learn_refusal(self, delivery: Delivery, user_id: int) -> None:
        """After a private message to ``user_id`` failed: if Telegram refused it (they
        blocked the bot; the messenger noted it in the league), nothing private is tried
        again in this delivery (a refusal a delivery, not one a call)."""
        if user_id not in await self.service.reachable([user_id]):
            delivery.refused.add(user_id)

    async def _private_in_place(self, delivery: Delivery, player: PlayerInfo) -> None:
        """Draw the new hand on ``player``'s latest private message of the game (a new one
        if that is gone, unless Telegram refused the edit: they blocked the bot)."""
        game = delivery.game
        assert player.user_id is not None and player.seat is not None  # (redrawn_in_place)
        edited = await self._edit_in_private(
            delivery, player, headed(game, player, ui_for(game).private_text(game, player.seat),
                                     None, delivery.timed_out),
            markup=private_keyboard(game, player.seat))
        if edited == "ok":
            delivery.set_private(player.user_id, player.private_message_id, hand_number(game),
                                 acting(game, player.seat))
        elif player.user_id not in delivery.refused:
            await self._send_private(delivery, player)

    async def retire(self, delivery: Delivery, player: PlayerInfo) -> None:
        """Take ``player``'s private message (as read: it may still carry buttons) out of
        play once this delivery sent them a new one (unsent, the old one stays, their only
        one): deleted, or where Telegram refuses (older than 48 hours) its buttons go."""
        if player.user_id is None or not player.private_message_id or not may_write(player):
            return
        now = delivery.game.player(player.user_id)
        if now is None or now.private_message_id in (None, player.private_message_id):
            return
        if not await self.messenger.delete(player.user_id, player.private_message_id):
            await self.messenger.edit_markup(player.user_id, player.private_message_id, None)

    async def _close_removed(self, delivery: Delivery, seats: set[int]) -> None:
        """``seats`` left or were removed while the others play on (not the end of a hand:
        :meth:`_close_hand`): their latest private message of the game says so, without
        buttons, and is drawn no more (no hand: only the game's end edits it, with the
        place)."""
        game = delivery.game

        def text(player: PlayerInfo) -> str:
            with for_player(game, player):
                return with_place(game, (_(
                    "⏰ Your time ran out, so you are out of game #{id}: the others play on "
                    "in the group, and your place comes with the end.")
                    if player.seat in delivery.timed_out else _(
                    "🚪 You are out of game #{id}: the others play on in the group, and your "
                    "place comes with the end.")).format(id=game.id))

        closed = {p.user_id: p for p in game.seated if p.seat in seats and p.user_id is not None
                  and p.private_message_id and may_write(p)}
        await asyncio.gather(*(self._edit_in_private(delivery, p, text(p))
                               for p in closed.values()))
        for user, p in closed.items():
            delivery.set_private(user, p.private_message_id, None)

    async def _edit_private(self, delivery: Delivery, player: PlayerInfo) -> bool:
        """Redraw ``player``'s private message of this hand; ``False`` if Telegram failed
        (not for a message that is gone: redrawing it again would not help)."""
        game = delivery.game
        if (player.user_id is None or player.seat is None or not player.private_message_id
                or private_hand(player) != hand_number(game) or not may_write(player)):
            return True
        text = ui_for(game).private_text(game, player.seat)
        edited = await self._edit_in_private(
            delivery, player, headed(game, player, text, None, delivery.timed_out),
            markup=private_keyboard(game, player.seat))
        if edited == "ok" and acting(game, player.seat) != player.private_acting:
            delivery.set_private(player.user_id, player.private_message_id, private_hand(player),
                                 acting(game, player.seat))
        return edited != "failed"

    async def _close_private(self, delivery: Delivery, player: PlayerInfo, text: str) -> None:
        """Show ``text`` on ``player``'s latest private message of the game, without buttons
        (the end of its hand, or of the game)."""
        edited = await self._edit_in_private(delivery, player, text)
        # (a message gone, deleted with the chat say, carries no buttons either)
        if edited in ("ok", "gone") and player.private_acting and player.user_id is not None:
            delivery.set_private(player.user_id, player.private_message_id,
                                 private_hand(player))


def headed(game: GameSnapshot, player: PlayerInfo, text: str, heading: str | None,
           timed_out: AbstractSet[int] = frozenset()) -> str:
    """``player``'s private ``text`` under ``heading`` (below the group's name, the first
    line of every one); with none, a player whose time just ran out (in ``timed_out``)
    reads that the computer played their last turn for them (their view shows a move they
    never made; a new turn of theirs may be drawn below it)."""
    if heading is None and player.seat in timed_out:
        with for_player(game, player):
            heading = _("⏰ Your time ran out: the computer played your last turn for you.")
    if heading is None:
        return text
    place = place_line(game)
    lines = text.split("\n")
    head, lines = (lines[:1], lines[1:]) if place and lines[0] == place else ([], lines)
    return fit_lines([*head, heading, "", *lines], keep="first")


def redrawn_in_place(game: GameSnapshot, player: PlayerInfo) -> bool:
    """Whether a new hand is drawn on ``player``'s latest private message of the game rather
    than a new one (which notifies): for one who is not to act and has such a message."""
    turn = current_seat(game)
    return player.seat != turn and bool(player.private_message_id) and \
        may_write(player) and in_hand(game, player)


def acting(game: GameSnapshot, seat: int) -> bool:
    """Whether ``seat``'s private message drawn now carries the buttons of their turn."""
    return bool(ui_for(game).private_rows(game, seat)) and not is_over(game)


def may_write(player: PlayerInfo) -> bool:
    """Not to whom Telegram refused the last message (until they /start the bot again)."""
    return player.reachable is not False


def in_hand(game: GameSnapshot, player: PlayerInfo) -> bool:
    """Whether ``player`` holds cards in the game's current hand (not out of it)."""
    seat = player.seat
    return bool(game.state) and seat is not None and ui_for(game).in_hand(game, seat)
