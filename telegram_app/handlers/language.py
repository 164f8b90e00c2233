"""Which language an update is answered in, and ``/language`` (a user's choice).

:func:`update_language` runs before every other handler (group -1) and sets the language of
the update's context (``i18n.set_language``): a group's command is answered in the chat's
language (until the chat has one — its first lobby sets it, or ``/settings`` — in the
sender's); a private message, a button's alert and a typed bid in the sender's (chosen with
``/language``, else their client's ``language_code``). Group messages a press or a move
changes are drawn by the presenter in the chat's language whoever pressed
(``render.language``).

Both look-ups are remembered in the process for :data:`REMEMBER` seconds (a press would
otherwise cost a query for the presser's choice, on every press): a choice made here
(:func:`on_language`) or a group's ``/settings`` (:func:`forget_chat`) takes effect
at once in this process, and in the other workers of a webhook deployment within
:data:`REMEMBER` seconds.
"""

from __future__ import annotations

import logging
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable

from telegram import CallbackQuery, InlineKeyboardButton, InlineKeyboardMarkup, Update
from telegram.error import TelegramError
from telegram.ext import ContextTypes

from league.store.errors import ServiceError
from telegram_app.callbacks import Callback, is_move, parse
from telegram_app.handlers.common import in_group, reply, user_ref
from telegram_app.i18n import NATIVE_NAMES, SUPPORTED, _, normalize, set_language, use_language
from telegram_app.render.common import error_text
from telegram_app.services import BotServices, services

log = logging.getLogger(__name__)
REMEMBER = 60.0
"""Seconds a chat's language or a user's choice is remembered in the process."""
KEPT = 50_000
"""Chats and users remembered at most (the least recently looked up are forgotten first)."""
MEMORY = "languages"  # bot_data key of the application's LanguageMemory


class LanguageMemory:
    """The languages one application looked up lately: ``("chat", id)`` → the chat's
    setting, ``("user", id)`` → the user's choice (``None``: none), ``("game", id)`` → its
    group's (for a press in the private chat of a reader whose language is unknown), each for
    :data:`REMEMBER` seconds, at most :data:`KEPT` of them."""

    def __init__(self) -> None:
        self._values: OrderedDict[tuple[str, int], tuple[float, str | None]] = OrderedDict()

    async def get(self, key: tuple[str, int],
                  look_up: Callable[[], Awaitable[str | None]]) -> str | None:
        """The remembered value of ``key``, else ``await look_up()`` (then remembered,
        unless it is a chat's ``None``: a chat's first lobby sets its language)."""
        hit = self._values.get(key)
        if hit is not None and hit[0] > time.monotonic():
            self._values.move_to_end(key)
            return hit[1]
        value = await look_up()
        if value is not None or key[0] != "chat":
            self.set(key, value)
        return value

    def set(self, key: tuple[str, int], value: str | None) -> None:
        """Remember ``value`` for ``key`` (it was just stored)."""
        self._values[key] = (time.monotonic() + REMEMBER, value)
        self._values.move_to_end(key)
        while len(self._values) > KEPT:
            self._values.popitem(last=False)

    def forget(self, key: tuple[str, int]) -> None:
        """Look ``key`` up again next time."""
        self._values.pop(key, None)


def memory(context: ContextTypes.DEFAULT_TYPE) -> LanguageMemory:
    """The application's :class:`LanguageMemory`."""
    found = context.application.bot_data.get(MEMORY)
    if found is None:
        found = context.application.bot_data[MEMORY] = LanguageMemory()
    return found


def forget_chat(context: ContextTypes.DEFAULT_TYPE, chat_id: int) -> None:
    """The chat's language setting changed: look it up again next time."""
    memory(context).forget(("chat", chat_id))


async def reader_language(update: Update, context: ContextTypes.DEFAULT_TYPE) -> str:
    """The language the update's reader reads (a supported code): the chat's for a group's
    message, the sender's for anything private, for a button's answer and for a group's
    message while the group has no language yet (a new group: English only if the sender's
    is English or one we do not ship); a sender whose language is unknown (no /language,
    their app sends none) reads the group's in a group, and a press of a game's button in
    the private chat in that game's group's (the language their view of it is drawn in)."""
    chat, user = update.effective_chat, update.effective_user
    bot = services(context)
    group = chat if in_group(chat) and chat is not None else None
    if group is not None and update.callback_query is None:
        chosen = await _chat_language(context, bot, group.id)
        if chosen is not None:
            return normalize(chosen)
    own = None if user is None else await memory(context).get(
        ("user", user.id), lambda: bot.service.chosen_language(user.id)) or user.language_code
    if own:
        return normalize(own)
    # (a reader whose language is unknown, their app sending none: the group's, the best guess)
    if group is not None:
        return normalize(await _chat_language(context, bot, group.id))
    return normalize(await _pressed_game_language(context, bot, update.callback_query))


async def _chat_language(context: ContextTypes.DEFAULT_TYPE, bot: BotServices,
                         chat_id: int) -> str | None:
    """The group's language setting (``None``: not set)."""
    return await memory(context).get(("chat", chat_id), lambda: bot.service.chat_language(chat_id))


async def _pressed_game_language(context: ContextTypes.DEFAULT_TYPE, bot: BotServices,
                                 query: CallbackQuery | None) -> str | None:
    """The language of the group of the game whose move button was pressed in the private
    chat (its view there is drawn in it: ``render.language.for_player``); ``None`` for
    anything else."""
    data = parse(query.data) if query is not None else None
    if data is None or not is_move(data.verb):
        return None
    game_id = data.game_id

    async def look_up() -> str | None:
        try:
            return (await bot.service.get(game_id)).language
        except ServiceError:  # (a forged id: the press is refused anyway)
            return None
    return await memory(context).get(("game", game_id), look_up)


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
    memory(context).set(("user", query.from_user.id), code)
    with use_language(code):
        try:
            await query.answer(_("I will write to you in English."))
        except TelegramError as exc:
            log.info("answerCallbackQuery failed: %s", exc)
        await bot.messenger.edit(message.chat.id, message.message_id, _chooser_text(),
                                 markup=language_keyboard(code))
