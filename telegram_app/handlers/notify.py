"""Next-game alerts: ``/notify`` (and ``/notify off``) in a group, the lobby's 🔔, and the
private message each subscriber gets once when a lobby opens in their group."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, Update
from telegram.ext import ContextTypes

from league.store.snapshots import GameSnapshot, UserRef
from telegram_app.handlers.common import in_group, reply, user_ref
from telegram_app.i18n import _, use_language
from telegram_app.keyboards import deep_link
from telegram_app.render.chat_settings import game_name, game_title
from telegram_app.render.place import with_place
from telegram_app.services import BotServices, services

log = logging.getLogger(__name__)

ON = ("", "on", "yes", "start")
OFF = ("off", "stop", "no")
"""The words after ``/notify`` that ask for the alerts, and those that stop them; any other
word changes nothing (it is answered with the two forms)."""

Answer = Callable[[str | None, str | None], Awaitable[None]]
"""Tells the user a result: ``(text, None)``, or ``(None, url)`` to open the private chat."""


async def notify_command(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``/notify`` in a group: tell me privately when the next lobby opens here;
    ``/notify off``: stop (in the private chat, where the alerts arrive: every group's)."""
    chat, user, message = update.effective_chat, update.effective_user, update.effective_message
    if user is None or chat is None:
        return
    bot = services(context)
    word = (context.args or [""])[0].lower()
    off = word in OFF
    if not in_group(chat) and off:  # (where the alerts arrive: all of them stop)
        if await bot.service.unsubscribe(None, user.id):
            await reply(update, context, _("OK: no more messages about new games."))
        else:
            await reply(update, context, _("You were not getting messages about new games."))
        return
    if not in_group(chat):
        await reply(update, context, _("Send /notify in a group: I will tell you here when a "
                                       "new game opens there."))
        return
    if message is not None and message.sender_chat is not None:
        await reply(update, context, _("Anonymous admins cannot be told of new games: please "
                                       "post as yourself."))
        return
    if off:
        if await bot.service.unsubscribe(chat.id, user.id):
            await reply(update, context, _("OK: no more messages about new games here."))
        else:
            await reply(update, context, _("You were not getting messages about new games "
                                           "here."))
        return
    if word not in ON:  # (a typo of off, or off in the reader's words: change nothing)
        await reply(update, context, _("Send /notify to be told privately when a new game "
                                       "opens here, or /notify off to stop it."))
        return

    async def answer(text: str | None, url: str | None) -> None:
        await reply(update, context, text or _("Open a private chat with me and press Start, "
                                               "so that I can write to you: {url}").format(
            url=url))
    await subscribe_answer(bot, chat.id, chat.title, user_ref(user), context.bot.username,
                           answer)


async def subscribe_answer(bot: BotServices, chat_id: int, chat_title: str | None,
                           user: UserRef, bot_username: str | None, answer: Answer) -> None:
    """Subscribe ``user`` to the alerts of ``chat_id`` and say so through ``answer``: done,
    already done, or (when private messages cannot reach them yet) how to let them."""
    new = await bot.service.subscribe(chat_id, chat_title, user)
    if not await bot.service.reachable([user.id]):
        if bot_username:
            await answer(None, f"https://t.me/{bot_username}?start=n")
        else:
            await answer(_("Start a private chat with me so that I can tell you of new "
                           "games."), None)
        return
    if new:
        await answer(_("I will tell you in our private chat when the next game opens here. "
                       "/notify off stops it."), None)
    else:
        await answer(_("You will already be told of the next game here. /notify off stops "
                       "it."), None)


async def alert_subscribers(bot: BotServices, game: GameSnapshot,
                            bot_username: str | None) -> None:
    """A lobby opened: one private message to each subscriber of its group, with a link
    that joins it (``/start j<id>``). Claimed in the database first, so each lobby alerts
    each subscriber once; a send Telegram refuses marks the user unreachable (the
    messenger), who is then skipped, not retried."""
    if not bot_username:
        return
    for user_id, language in await bot.service.to_alert(game.id):
        with use_language(language or game.language):  # (none known: the group's, README)
            text = with_place(game, _("🔔 A new game of {game} is open: tap below to "
                                      "join it. /notify off stops these messages.").format(
                game=_named(game)))
            markup = InlineKeyboardMarkup([[InlineKeyboardButton(
                _("✋ Join game #{id}").format(id=game.id),
                url=deep_link(bot_username, game.id, join=True))]])
        await bot.messenger.send(user_id, text, markup=markup)


def _named(game: GameSnapshot) -> str:
    """The game an alert tells of: its name, with its title when that says more ("Coyote
    (feathers)"; a title alone may name no game)."""
    name, title = game_name(game.kind), game_title(game.kind, game.options)
    return name if title == name else _("{game} ({title})").format(game=name, title=title)
