"""Play from the group: a player's view of a game as an ephemeral message (Bot API 10.2), a
message in the game's group that only that player sees.

🎴 on the table sends the presser their private view (``GameUI.private_text``: Coyote's
everyone's card but their own, Koira's hand) with, on their turn, their move buttons
(``keyboards.private_keyboard``: the same callback data as in the private chat, so a move
goes through the same service and version check). Where Telegram refuses it the press gets
the old 👀 alert instead (``handlers/buttons.py``). A player needs no private chat with the
bot to play so.

Each player's current ephemeral message of a game is recorded
(``league.delivery.Delivery.ephemeral``; the ``ephemeral_messages`` table), so that whichever
process delivers the game keeps it current: it is edited when that player's turn begins or
ends and when a move changes what it shows (``GameUI.redraw_seats``; off-turn it shows only
the player's cards, not the bids, trick or turn, which the table just above keeps current,
so it is never stale under the table), and deleted when the
hand it shows ends, at the game's end and on a cancel. Telegram does not promise an offline
player those edits: 🎴 always sends a new one (and deletes the one before), and a press on an
old keyboard of one redraws the pressed message (:func:`redraw_pressed`).

Functions of this module take the presenter (``drawing.Screens``) and are called from its
drawing code (``_refresh``, ``_new_table``, ``_close_hand``, ``cancelled``) with the game's
delivery held, or take that delivery themselves (:func:`show_cards`, :func:`redraw_pressed`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable
from typing import TYPE_CHECKING

from league.delivery import Delivery, EphemeralNote
from league.store.snapshots import GameSnapshot, PlayerInfo
from telegram_app.games.base import current_seat, hand_number, is_over
from telegram_app.games.registry import ui_for
from telegram_app.keyboards import private_keyboard

if TYPE_CHECKING:
    from telegram_app.presenter.drawing import Screens

log = logging.getLogger(__name__)


def _shown_to(game: GameSnapshot, player: PlayerInfo | None) -> bool:
    """Whether ``player`` may have an ephemeral view of ``game`` now: it runs and they are
    in its current hand."""
    return (player is not None and player.seat is not None and game.status == "running"
            and bool(game.state) and not is_over(game)
            and ui_for(game).in_hand(game, player.seat))


def _note(game: GameSnapshot, player: PlayerInfo, chat_id: int,
          ephemeral_id: int) -> EphemeralNote:
    return EphemeralNote(chat_id, ephemeral_id, hand_number(game),
                         player.seat == current_seat(game))


async def show_cards(screens: Screens, game_id: int, user_id: int, query_id: str | None) -> bool:
    """🎴: send ``user_id`` their view of the game as a new ephemeral message in its group
    (in its forum topic), answering the press ``query_id``, and delete the one they had.
    ``False``: nothing was sent (not in the current hand, or Telegram refused: the caller
    shows the 👀 alert)."""
    async with screens.delivering(game_id) as delivery:
        game = delivery.game
        player = game.player(user_id)
        if not _shown_to(game, player):
            return False
        assert player is not None and player.seat is not None
        old = (await delivery.ephemeral()).get(user_id)
        sent = await screens.messenger.send_ephemeral(
            game.chat_id, user_id, ui_for(game).private_text(game, player.seat, in_group=True),
            thread_id=game.thread_id, markup=private_keyboard(game, player.seat),
            query_id=query_id)
        if sent is None:
            return False
        chat_id, ephemeral_id = sent
        delivery.set_ephemeral(user_id, _note(game, player, chat_id, ephemeral_id))
        # (the new one has its id already: an id Telegram reuses is not the old one's now)
        if old is not None and (old.chat_id, old.message_id) != sent:
            await screens.messenger.delete_ephemeral(old.chat_id, user_id, old.message_id)
        return True


async def refresh(screens: Screens, delivery: Delivery, seats: set[int] | None = None) -> None:
    """Keep the game's ephemeral messages current (``_refresh``, ``_new_table``): delete
    those of a hand that ended or of a player out of it; of the others, edit the player to
    act's, ``seats``' (``None``: all) and those drawn for a turn that has since ended (their
    buttons go)."""
    notes = await delivery.ephemeral()
    if not notes:
        return
    game = delivery.game
    turn, hand = current_seat(game), hand_number(game)
    work: list[Awaitable[None]] = []
    for user_id, note in notes.items():
        player = game.player(user_id)
        if not _shown_to(game, player) or note.hand != hand:
            work.append(_delete(screens, delivery, user_id, note))
        elif player is not None and (seats is None or player.seat in seats
                                     or player.seat == turn
                                     or note.acting != (player.seat == turn)):
            work.append(_edit(screens, delivery, player, note))
    await asyncio.gather(*work)


async def close_hand(screens: Screens, delivery: Delivery, hand: int | None) -> None:
    """Delete the ephemeral messages of hand ``hand`` (``None``: every one, at the game's end
    or cancel)."""
    notes = await delivery.ephemeral()
    await asyncio.gather(*(_delete(screens, delivery, user_id, note) for user_id, note
                           in notes.items() if hand is None or note.hand == hand))


async def redraw_pressed(screens: Screens, game_id: int, user_id: int, chat_id: int,
                         ephemeral_id: int) -> None:
    """A press on an ephemeral message showed an old picture (a stale or refused move):
    draw that message as the game is now, and keep it as the presser's (the one recorded
    before goes), or delete it once the game or its hand is over for them."""
    async with screens.delivering(game_id) as delivery:
        game = delivery.game
        player = game.player(user_id)
        recorded = (await delivery.ephemeral()).get(user_id)
        pressed = (chat_id, ephemeral_id)
        if not _shown_to(game, player):
            if await screens.messenger.delete_ephemeral(chat_id, user_id, ephemeral_id) and \
                    recorded is not None and (recorded.chat_id, recorded.message_id) == pressed:
                delivery.set_ephemeral(user_id, None)
            return
        assert player is not None and player.seat is not None
        # (forced: the receiver's copy is older than what was last sent, or was never seen)
        shown = await screens.messenger.edit_ephemeral(
            chat_id, user_id, ephemeral_id,
            ui_for(game).private_text(game, player.seat, in_group=True),
            markup=private_keyboard(game, player.seat), force=True)
        if shown != "ok":
            if recorded is not None and (recorded.chat_id, recorded.message_id) == pressed \
                    and shown == "gone":
                delivery.set_ephemeral(user_id, None)
            return
        delivery.set_ephemeral(user_id, _note(game, player, chat_id, ephemeral_id))
        if recorded is not None and (recorded.chat_id, recorded.message_id) != pressed:
            await screens.messenger.delete_ephemeral(recorded.chat_id, user_id,
                                                     recorded.message_id)


async def _edit(screens: Screens, delivery: Delivery, player: PlayerInfo,
                note: EphemeralNote) -> None:
    game = delivery.game
    assert player.user_id is not None and player.seat is not None
    shown = await screens.messenger.edit_ephemeral(
        note.chat_id, player.user_id, note.message_id,
        ui_for(game).private_text(game, player.seat, in_group=True),
        markup=private_keyboard(game, player.seat))
    if (await delivery.ephemeral()).get(player.user_id) != note:
        return  # (replaced meanwhile)
    if shown == "gone":  # (deleted, expired, or the group is gone: 🎴 sends another)
        delivery.set_ephemeral(player.user_id, None)
    elif shown == "ok":
        drawn = _note(game, player, note.chat_id, note.message_id)
        if drawn != note:
            delivery.set_ephemeral(player.user_id, drawn)


async def _delete(screens: Screens, delivery: Delivery, user_id: int,
                  note: EphemeralNote) -> None:
    if (await delivery.ephemeral()).get(user_id) != note:
        return  # (another part of this delivery deletes or replaced it)
    delivery.set_ephemeral(user_id, None)  # (before the call: deleted once)
    if not await screens.messenger.delete_ephemeral(note.chat_id, user_id, note.message_id) \
            and user_id not in await delivery.ephemeral():
        delivery.set_ephemeral(user_id, note)  # still there: a later delivery tries again
