"""A player's own preferences, set in the private chat: ``/confirm on|off``, whether the
round-ending call of Coyote (🐺) asks them to confirm it first (on by default). Its texts are
the game's (``telegram_app.games.coyote.ui``).

The choice is stored on the player (``users.confirm_coyote``) and read with every game
(``PlayerInfo.confirm_coyote``): the next move keyboard drawn for them follows it. A 🐺
drawn before turning it off calls at once when pressed; one drawn before turning it on still
calls at once (its button is the call itself, as "Yes" is): the keyboards drawn after ask."""

from __future__ import annotations

from telegram import Update
from telegram.ext import ContextTypes

from telegram_app.games.coyote.ui import confirm_hint, confirm_setting_text
from telegram_app.handlers.common import reply, user_ref
from telegram_app.services import services

ON = ("on", "yes", "1")
OFF = ("off", "no", "0")


async def confirm_command(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``/confirm on|off`` in the private chat: set the preference; ``/confirm`` alone (or
    with anything else): say how it is set. In a group: where to send it."""
    chat, user = update.effective_chat, update.effective_user
    if chat is None or user is None:
        return
    if chat.type != "private":
        await reply(update, context, confirm_hint())
        return
    service = services(context).service
    choice = (context.args or [""])[0].lower()
    if choice in ON or choice in OFF:
        on = choice in ON
        await service.set_confirm_coyote(user_ref(user), on)
    else:
        on = await service.confirms_coyote(user.id)
    await reply(update, context, confirm_setting_text(on))
