"""Helpers shared by handlers: who sent an update, where, whether they are an admin, and how
a join is answered."""

from __future__ import annotations

import logging

from telegram import CallbackQuery, Chat, InlineKeyboardMarkup, Message, Update, User
from telegram.constants import ChatMemberStatus, ChatType
from telegram.error import TelegramError
from telegram.ext import ContextTypes
from typing_extensions import TypeIs

from league.store.snapshots import GameSnapshot, UserRef
from telegram_app.i18n import _
from telegram_app.services import BotServices, services
from telegram_app.transport.outage import is_outage

log = logging.getLogger(__name__)

GROUP_TYPES = (ChatType.GROUP, ChatType.SUPERGROUP)


def user_ref(user: User) -> UserRef:
    """The league's view of a Telegram user."""
    return UserRef(user.id, user.first_name or str(user.id), user.last_name, user.username,
                   user.language_code)


def thread_of(message: Message | None) -> int:
    """The forum topic a message belongs to (0 outside forum topics)."""
    if message is not None and message.is_topic_message and message.message_thread_id:
        return message.message_thread_id
    return 0


def in_group(chat: Chat | None) -> TypeIs[Chat]:
    """Whether a chat is a group or supergroup."""
    return chat is not None and chat.type in GROUP_TYPES


async def is_admin(update: Update, context: ContextTypes.DEFAULT_TYPE) -> bool:
    """Whether the sender administers the chat; an anonymous admin (a message sent as the
    group itself) counts. A failed lookup counts as no."""
    message, chat, user = update.effective_message, update.effective_chat, update.effective_user
    if chat is None:
        return False
    if message is not None and message.sender_chat is not None and \
            message.sender_chat.id == chat.id:
        return True
    if user is None:
        return False
    status = await services(context).messenger.member_status(chat.id, user.id)
    return status in (ChatMemberStatus.OWNER, ChatMemberStatus.ADMINISTRATOR)


async def reply(update: Update, context: ContextTypes.DEFAULT_TYPE, text: str, *,
                markup: InlineKeyboardMarkup | None = None) -> None:
    """Answer in the chat (and forum topic) of the update, as a reply to it."""
    message, chat = update.effective_message, update.effective_chat
    if chat is None:
        return
    await services(context).messenger.send(
        chat.id, text, thread_id=thread_of(message), markup=markup,
        reply_to=message.message_id if message else None)


def answer_later(bot: BotServices, query: CallbackQuery, text: str | None = None, *,
                 alert: bool = False, url: str | None = None) -> None:
    """Answer a press beside the handler: the handler, and the concurrency slot it holds,
    end right after its commit or refusal, not a Bot API round trip later (the presenter's
    tasks are waited for at a stop)."""
    bot.presenter.spawn(send_answer(query, text, alert, url))


async def send_answer(query: CallbackQuery, text: str | None, alert: bool,
                      url: str | None) -> None:
    """Answer a press now (a Bot API round trip): a failure is logged, never raised."""
    try:
        await query.answer(text, show_alert=alert, url=url)
    except TelegramError as exc:  # too old, or answered already: nothing left to do
        log.info("answerCallbackQuery failed: %s", exc)


async def joined_answer(bot: BotServices, user_id: int, joined: str) -> str:
    """The answer to a join of a game's lobby or a tournament (``joined``: "You joined …").
    A player the bot cannot message privately plays from the group (🎴 on the table), so
    they are not sent away to the private chat; they get a tip that it brings a message on
    their turn (a lobby's 🔕 line says the same, beside its 💬 Private chat link). After the
    join committed, an outage in asking must not leave the press unanswered: then no tip."""
    try:
        reachable = bool(await bot.service.reachable([user_id]))
    except Exception as exc:
        if not is_outage(exc):
            raise
        return joined
    if reachable:
        return joined
    return _("{joined} Tip: start a private chat with me, and I will tell you when it is "
             "your turn.").format(joined=joined)


async def topic_table(bot: BotServices, chat_id: int, thread_id: int) -> GameSnapshot | None:
    """A running tournament table of this chat's topic (in a forum, its own topic; else the
    tables run beside the topic's game, which ``open_game`` finds)."""
    return next((g for g in await bot.service.open_games_in(chat_id)
                 if g.tournament_id is not None and g.status == "running"
                 and g.thread_id == thread_id), None)


def table_on_its_own(table: GameSnapshot, *, cancelling: bool) -> str:
    """Why ``/cancel`` or ``/pause`` does not act on a tournament table alone."""
    if cancelling:
        return _("A tournament table cannot be cancelled on its own: an admin cancels the whole "
                 "tournament with /tournament cancel {id}.").format(id=table.tournament_id)
    return _("A tournament table's clock cannot be paused or resumed (each round has a "
             "deadline): an admin cancels the whole tournament with /tournament cancel {id}."
             ).format(id=table.tournament_id)
