"""Chat admins' commands: /settings (the chat's defaults for new games), /pause, /resume."""

from __future__ import annotations

from html import escape
from typing import Any

from telegram import CallbackQuery, MaybeInaccessibleMessage, Update
from telegram.constants import ChatMemberStatus
from telegram.error import TelegramError
from telegram.ext import ContextTypes

from league.store.errors import ServiceError
from telegram_app.callbacks import Callback
from telegram_app.handlers import language
from telegram_app.handlers.common import (
    in_group,
    is_admin,
    reply,
    table_on_its_own,
    thread_of,
    topic_table,
)
from telegram_app.i18n import (
    SUPPORTED,
    _,
    current_language,
    normalize,
    set_language,
    use_language,
)
from telegram_app.render.chat_settings import pressed, settings_keyboard
from telegram_app.render.common import error_text
from telegram_app.services import BotServices, services


async def settings(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``/settings``: the chat's defaults as a keyboard (admins only)."""
    chat = update.effective_chat
    if not in_group(chat) or chat is None:
        await reply(update, context, _("Send /settings in a group you administer."))
        return
    if not await is_admin(update, context):
        await reply(update, context, _("Sorry, only the group's admins can change its "
                                        "settings."))
        return
    bot = services(context)
    args = context.args or []
    if args:
        key = {"timezone": "timezone", "season": "season_weeks",
               "language": "language"}.get(args[0].lower())
        value: object = args[1] if len(args) == 2 else None
        if key == "season_weeks" and isinstance(value, str):
            value = int(value) if value.isascii() and value.isdigit() else None
        if key == "language" and isinstance(value, str):
            value = value.lower() if value.lower() in SUPPORTED else None
        if key is None or value is None:
            # Two sentences: the first one's translations predate the language setting.
            await reply(update, context, _("Use /settings, /settings timezone Europe/Berlin "
                                            "or /settings season 4.") + "\n" + _(
                "/settings language {codes} sets the group's language.").format(
                    codes="|".join(SUPPORTED)))
            return
        try:
            await bot.service.set_chat_setting(chat.id, chat.title, key, value)
            language.forget_chat(context, chat.id)  # (remembered by every update)
        except ServiceError as exc:
            await reply(update, context, error_text(exc.code, exc.detail))
            return
    current = await bot.service.chat_settings(chat.id)
    if current["language"] is not None:  # (none yet: the sender's, as update_language set)
        set_language(current["language"])  # a new language answers in itself
    await reply(update, context, _settings_text(current),
                markup=settings_keyboard(_shown(current)))


def _settings_text(current: dict[str, Any]) -> str:
    return _("⚙️ <b>Defaults for new games in this group</b>\n"
             "League weeks in {tz}; seasons of {weeks} weeks (change "
             "with /settings timezone Area/City or /settings season "
             "N).\nTap a setting to change it.").format(
        tz=escape(current["timezone"]), weeks=current["season_weeks"])


async def on_setting(query: CallbackQuery, data: Callback,
                     context: ContextTypes.DEFAULT_TYPE) -> None:
    """A press on the /settings keyboard: the next value of that setting (admins only). The
    message is then redrawn, text and keyboard together, as the settings are now (another
    admin may have changed the time zone or the language meanwhile); a press its keyboard no
    longer offers (a game's option gone with another edition) sets nothing but the redraw."""
    message = query.message
    if message is None or not in_group(message.chat):  # (forged: a settings press is a group's)
        await _answer(query, error_text("bad_button"))
        return
    if not await _admin_pressed(query, context):
        return
    bot = services(context)
    settings_message = _settings_message(message)
    current = await bot.service.chat_settings(message.chat.id)
    chosen = pressed(current, data) if settings_message else None
    if chosen is None:
        if not settings_message:
            await _answer(query, error_text("bad_button"))
            return
        await _answer(query, _("That button was out of date: I have redrawn the message, "
                               "try again."))
        await _redraw(bot, message, current)
        return
    kind, key, value = chosen
    try:
        current = await bot.service.set_chat_setting(message.chat.id, message.chat.title, key,
                                                     value, kind=kind)
        language.forget_chat(context, message.chat.id)  # (remembered by every update)
    except ServiceError as exc:
        await _answer(query, error_text(exc.code, exc.detail))
        return
    await _answer(query, None)
    await _redraw(bot, message, current)


async def _admin_pressed(query: CallbackQuery, context: ContextTypes.DEFAULT_TYPE) -> bool:
    """Whether the presser administers the pressed message's group; answered if not. A
    keyboard left in a group that has since become a supergroup (Telegram refuses every
    look-up in the old group's id) is answered, for an admin of the supergroup, with the
    way on: a new /settings, whose message the bot can still edit."""
    message = query.message
    assert message is not None
    bot = services(context)
    chat_id = message.chat.id
    if bot.messenger.current_chat(chat_id) == chat_id and \
            await is_admin(Update(0, callback_query=query), context):
        return True
    moved = bot.messenger.current_chat(chat_id)  # (the look-up above may have learnt it)
    if moved != chat_id and await bot.messenger.member_status(moved, query.from_user.id) in (
            ChatMemberStatus.OWNER, ChatMemberStatus.ADMINISTRATOR):
        await _answer(query, _("The group became a supergroup after this message was sent: "
                               "send /settings again."))
    else:
        await _answer(query, _("Sorry, only the group's admins can change its settings."))
    return False


async def _redraw(bot: BotServices, message: MaybeInaccessibleMessage,
                  current: dict[str, Any]) -> None:
    """The pressed /settings message as the settings are now, its text and keyboard in one
    language: the group's (none yet: the presser's, as /settings answers). An unchanged
    message is not sent."""
    with use_language(current["language"] or current_language()):
        await bot.messenger.edit(message.chat.id, message.message_id, _settings_text(current),
                                 markup=settings_keyboard(_shown(current)))


def _shown(current: dict[str, Any]) -> dict[str, Any]:
    """The settings as the keyboard shows them (the chat's language as a supported one;
    ``None`` while none is set: each command is answered in its sender's language)."""
    chosen = current.get("language")
    return {**current, "language": normalize(chosen) if chosen else None}


async def pause(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``/pause``: stop this topic's game clock (admins only)."""
    await _clock(update, context, pausing=True)


async def resume(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``/resume``: restart the clock with the time that was left (admins only)."""
    await _clock(update, context, pausing=False)


async def _clock(update: Update, context: ContextTypes.DEFAULT_TYPE, *, pausing: bool) -> None:
    chat = update.effective_chat
    if not in_group(chat) or chat is None:
        await reply(update, context, _("Send this in the group where the game is."))
        return
    if not await is_admin(update, context):
        await reply(update, context, _("Sorry, only the group's admins can pause or resume a "
                                        "game."))
        return
    bot = services(context)
    thread = thread_of(update.effective_message)
    game = await bot.service.open_game(chat.id, thread)
    if game is None or game.status != "running":
        table = await topic_table(bot, chat.id, thread)
        await reply(update, context, _("There is no running game here.") if table is None
                    else table_on_its_own(table, cancelling=False))
        return
    try:
        game = await (bot.service.pause(game.id) if pausing else bot.service.resume(game.id))
    except ServiceError as exc:
        await reply(update, context, error_text(exc.code, exc.detail))
        return
    await bot.presenter.refresh(game)  # (before the answer: the players see the clock as said)
    await reply(update, context, _("⏸ The clock of game #{id} is paused.").format(id=game.id)
                 if pausing else _("▶️ The clock of game #{id} runs again.").format(id=game.id))


async def _answer(query: CallbackQuery, text: str | None) -> None:
    try:
        await query.answer(text, show_alert=text is not None)
    except TelegramError:
        pass


def _settings_message(message: object) -> bool:
    """Whether the pressed message is a /settings message (its keyboard sets chat defaults):
    forged ``z`` data on a lobby or table must not turn it into one."""
    markup = getattr(message, "reply_markup", None)
    return markup is not None and any(
        str(button.callback_data or "").startswith("z:")
        for row in markup.inline_keyboard for button in row)
