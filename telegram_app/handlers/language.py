"""Which language an update is answered in, and ``/language`` (a user's choice).

:func:`update_language` runs before every other handler (group -1) and sets the language of
the update's context (``i18n.set_language``): a group's command is answered in the chat's
language; a private message, a button's alert and a typed bid in the sender's (chosen with
``/language``, else their client's ``language_code``). Group messages a press or a move
changes are drawn by the presenter in the chat's language whoever pressed
(``render.language``).
"""

from __future__ import annotations

import logging

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, Update
from telegram.error import TelegramError
from telegram.ext import ContextTypes

from telegram_app.callbacks import Callback
from telegram_app.context import services
from telegram_app.handlers.common import in_group, reply, user_ref
from telegram_app.i18n import NATIVE_NAMES, SUPPORTED, _, normalize, set_language, use_language
from telegram_app.render.common import error_text

log = logging.getLogger(__name__)


async def reader_language(update: Update, context: ContextTypes.DEFAULT_TYPE) -> str:
    """The language the update's reader reads (a supported code): the chat's for a group's
    message, the sender's for anything private and for a button's answer."""
    chat, user = update.effective_chat, update.effective_user
    bot = services(context)
    if in_group(chat) and chat is not None and update.callback_query is None:
        return normalize(await bot.service.chat_language(chat.id))
    if user is None:
        return normalize(None)
    return normalize(await bot.service.chosen_language(user.id) or user.language_code)


async def update_language(update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Set the language the rest of this update's handling renders in (see the module)."""
    if isinstance(update, Update):
        set_language(await reader_language(update, context))


def language_keyboard(current: str) -> InlineKeyboardMarkup:
    """The four languages, each named in itself; the current one marked."""
    return InlineKeyboardMarkup([[InlineKeyboardButton(
        ("✅ " if code == current else "") + NATIVE_NAMES[code],
        callback_data=Callback("u", 0, (index,)).encode())]
        for index, code in enumerate(SUPPORTED)])


def _chooser_text() -> str:
    return _("🌐 Choose the language I write to you in (private messages, buttons, alerts). "
             "A group's messages follow the group's setting (/settings).")


async def language_command(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``/language``: in the private chat, a keyboard of the languages; elsewhere, a hint."""
    chat, user = update.effective_chat, update.effective_user
    if chat is None or user is None:
        return
    if chat.type != "private":
        await reply(update, context, _("Send /language to me in a private chat; a group's "
                                       "admins set the group's language with /settings."))
        return
    await reply(update, context, _chooser_text(), markup=language_keyboard(
        normalize(await services(context).service.chosen_language(user.id)
                  or user.language_code)))


async def on_language(update: Update, context: ContextTypes.DEFAULT_TYPE, data: Callback
                      ) -> None:
    """A press on the /language keyboard: store the choice, answer and redraw in it."""
    query = update.callback_query
    if query is None:
        return
    message = query.message
    if not data.args or data.args[0] >= len(SUPPORTED) or message is None or \
            message.chat.id != query.from_user.id:
        try:
            await query.answer(error_text("bad_button"), show_alert=True)
        except TelegramError:
            pass
        return
    code = SUPPORTED[data.args[0]]
    bot = services(context)
    await bot.service.choose_language(user_ref(query.from_user), code)
    with use_language(code):
        try:
            await query.answer(_("I will write to you in English."))
        except TelegramError as exc:
            log.info("answerCallbackQuery failed: %s", exc)
        await bot.messenger.edit(message.chat.id, message.message_id, _chooser_text(),
                                 markup=language_keyboard(code))
