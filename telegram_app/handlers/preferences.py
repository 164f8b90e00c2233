"""A player's own preferences, set in the private chat: ``/confirm on|off``, whether a move
that ends the round asks them to confirm it first (on by default). Which move that is, and
the answer's words, are each game's (``GameUI.confirm_text``: Coyote's 🐺 Coyote!).

The choice is stored on the player (``users.confirm_ending``) and read with every game
(``PlayerInfo.confirms_ending``): the next move keyboard drawn for them follows it. A 🐺
drawn before turning it off calls at once when pressed; one drawn before turning it on still
calls at once (its button is the call itself, as "Yes" is): the keyboards drawn after ask."""

from __future__ import annotations

from telegram import Update
from telegram.ext import ContextTypes

from telegram_app.games.registry import UIS
from telegram_app.handlers.common import reply, user_ref
from telegram_app.services import services

ON = ("on", "yes", "1")
OFF = ("off", "no", "0")


def _answer(on: bool | None) -> str:
    """Each game's answer that has a move to confirm, one paragraph each."""
    return "\n\n".join(text for ui in UIS.values() if (text := ui.confirm_text(on)))


async def confirm_command(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``/confirm on|off`` in the private chat: set the preference; ``/confirm`` alone (or
    with anything else): say how it is set. In a group: where to send it."""
    chat, user = update.effective_chat, update.effective_user
    if chat is None or user is None:
        return
    if chat.type != "private":
        await reply(update, context, _answer(None))
        return
    service = services(context).service
    choice = (context.args or [""])[0].lower()
    if choice in ON or choice in OFF:
        on = choice in ON
        await service.set_confirm_ending(user_ref(user), on)
    else:
        on = await service.confirms_ending(user.id)
    await reply(update, context, _answer(on))
