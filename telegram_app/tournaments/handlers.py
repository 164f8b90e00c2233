"""``/tournament`` and the tournament buttons: short functions that decode an update, call the
league's tournament service and answer. The sign-up message is drawn beside the handler
(``drawing.py``), the announcements by the tick's path (``announcements.py``).

Every press is answered exactly once: a toast where useful, or the refusal's alert (a forged
or stale button, a non-admin, a join after the cut-off), which changed nothing."""

from __future__ import annotations

from telegram import CallbackQuery, Message, Update
from telegram.ext import ContextTypes

from league.store.errors import ServiceError
from league.tournaments.pages import chat_tournaments
from league.tournaments.records import TournamentSnapshot
from telegram_app.callbacks import Callback
from telegram_app.games.registry import kinds, ui_for
from telegram_app.handlers.common import answer_later as _answer
from telegram_app.handlers.common import (
    in_group,
    is_admin,
    joined_answer,
    reply,
    thread_of,
    user_ref,
)
from telegram_app.i18n import _, join_list
from telegram_app.services import BotServices, services
from telegram_app.tournaments import announcements, drawing, keyboards, texts
from telegram_app.tournaments.memory import TournamentMemory, memory_of
from telegram_app.tournaments.words import refusal

REDRAWN = ("stale", "not_in_signup", "tournament_closed")
"""Refusals after which the pressed message is drawn as the tournament is now (it showed an
older picture)."""


def _memory(context: ContextTypes.DEFAULT_TYPE) -> TournamentMemory:
    return memory_of(context.application.bot_data)


async def tournament_command(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``/tournament``: the chat's tournaments; ``/tournament <game> [options]`` (admins):
    open a sign-up; ``/tournament cancel ID`` (admins): cancel one."""
    chat, user, message = update.effective_chat, update.effective_user, update.effective_message
    if not in_group(chat) or user is None or message is None:
        await reply(update, context, _("Add me to a group and send /tournament there to play "
                                       "a tournament."))
        return
    args = list(context.args or [])
    if not args:
        await _show_state(update, context, chat.id)
        return
    if not await is_admin(update, context):
        await reply(update, context, _("Sorry, only the group's admins can open or cancel a "
                                       "tournament. Send /tournament to see the ones here."))
        return
    if args[0].lower() == "cancel":  # (an anonymous admin may: /cancel takes them too)
        await _cancel_command(update, context, args[1:])
        return
    if message.sender_chat is not None:
        await reply(update, context, _("Anonymous admins cannot play: please post as yourself "
                                       "to open a tournament."))
        return
    kind, rest = (args[0].lower(), args[1:]) if args[0].lower() in kinds() else \
        (next(iter(kinds())), args)
    options = ui_for(kind).new_game_options(rest)
    if isinstance(options, str):
        if kind == args[0].lower():  # (the game's own refusal of its options)
            await reply(update, context, options)
        else:
            await reply(update, context, _open_hint())
        return
    bot = services(context)
    try:
        cup = await bot.service.open_tournament(
            chat.id, chat.title, thread_of(message), user_ref(user), kind,
            forum=bool(chat.is_forum), options=options)
    except ServiceError as exc:
        await reply(update, context, refusal(exc.code, exc.detail))
        return
    bot.presenter.later(drawing.show_signup(bot, _memory(context), cup.id))


def _open_hint() -> str:
    return _("Open a tournament with {commands}.").format(
        commands=join_list(f"/tournament {kind}" for kind in kinds()))


async def _show_state(update: Update, context: ContextTypes.DEFAULT_TYPE, chat_id: int) -> None:
    """The chat's tournaments in sign-up or running; with none, the last one's final
    standings (if it finished) and how to open one (an admin gets a button per game)."""
    bot = services(context)
    cups = await bot.service.tournaments_in(chat_id)
    if not cups:
        admin = await is_admin(update, context)
        hint = _("No tournament is on here. A chat admin opens one with {commands}; /rules "
                 "tournament explains how they work.").format(
            commands=join_list(f"/tournament {kind}" for kind in kinds()))
        # (the last one's final standings, which its sign-up message said /tournament shows)
        last = await chat_tournaments(bot.db, chat_id, limit=1)
        if last and last[0].status == "finished":
            hint = texts.status_text(last) + "\n\n" + hint
        await reply(update, context, hint, markup=keyboards.open_keyboard() if admin else None)
        return
    await reply(update, context, texts.status_text(cups))
    for cup in cups:  # (a sign-up message a kill kept from being sent)
        if cup.status == "signup" and cup.message_id is None:
            bot.presenter.later(drawing.show_signup(bot, _memory(context), cup.id))


async def _cancel_command(update: Update, context: ContextTypes.DEFAULT_TYPE,
                          args: list[str]) -> None:
    """``/tournament cancel ID`` (an admin, who was checked): cancel this chat's tournament
    ``ID``, its open tables with it."""
    chat = update.effective_chat
    assert chat is not None and update.effective_user is not None
    number = args[0] if len(args) == 1 else ""
    if not (number.isascii() and number.isdigit() and len(number) <= 9):
        await reply(update, context, _("Use /tournament cancel ID (the number after # in its "
                                       "name)."))
        return
    bot = services(context)
    try:
        cup = await bot.service.tournament(int(number))
        if cup.chat_id != chat.id:
            raise ServiceError("tournament_not_found")
        cup = await bot.service.cancel_tournament(cup.id, update.effective_user.id,
                                                  is_admin=True)
    except ServiceError as exc:
        await reply(update, context, refusal(exc.code, exc.detail))
        return
    _cancelled(bot, context, cup)
    await reply(update, context, _("Tournament #{id} was cancelled.").format(id=cup.id))


def _cancelled(bot: BotServices, context: ContextTypes.DEFAULT_TYPE,
               cup: TournamentSnapshot) -> None:
    """Close the cancelled tournament's tables (their messages and the players' private
    ones) and its sign-up message."""
    for table in cup.tables:
        if table.status == "cancelled":
            bot.presenter.later(_close_table(bot, table.game_id))
    bot.presenter.later(drawing.show_signup(bot, _memory(context), cup.id))


async def _close_table(bot: BotServices, game_id: int) -> None:
    await bot.presenter.cancelled(await bot.service.get(game_id))


# --- buttons ----------------------------------------------------------------------------------
async def on_press(query: CallbackQuery, data: Callback,
                   context: ContextTypes.DEFAULT_TYPE) -> None:
    """A press of a tournament button (``keyboards.VERBS``)."""
    bot = services(context)
    try:
        if data.verb == "tn":
            await _open_pressed(query, data, context, bot)
            return
        cup = await bot.service.tournament(data.game_id)
        if query.message is None or query.message.chat.id != cup.chat_id:
            raise ServiceError("bad_button")  # (forged: another chat's tournament)
        if data.verb in keyboards.ADMIN_VERBS:
            await _admin_press(query, data, context, bot, cup)
        elif data.verb == "tj":
            cup = await bot.service.join_tournament(cup.id, user_ref(query.from_user))
            _answer(bot, query, await joined_answer(bot, query.from_user.id,
                                                    _joined_text(cup, query.from_user.id)))
        else:
            cup = await bot.service.leave_tournament(cup.id, query.from_user.id)
            _answer(bot, query, _("You left tournament #{id}.").format(id=cup.id))
        bot.presenter.later(drawing.show_signup(bot, _memory(context), cup.id))
    except ServiceError as exc:
        _answer(bot, query, refusal(exc.code, exc.detail), alert=True)
        message = query.message
        if exc.code in REDRAWN and message is not None and data.game_id > 0:
            bot.presenter.later(drawing.show_signup(
                bot, _memory(context), data.game_id,
                pressed=(message.chat.id, message.message_id)))


def _joined_text(cup: TournamentSnapshot, user_id: int) -> str:
    if cup.status == "signup":
        return _("You joined tournament #{id}.").format(id=cup.id)
    entry = cup.entry_of(user_id)
    if entry is None or entry.joined_round == cup.round:  # (new: a bye for each round seated)
        return _("You joined tournament #{id}: you play from round {round}; each round you "
                 "missed counts as a bye (½ point).").format(id=cup.id, round=cup.round + 1)
    return _("You are back in tournament #{id}: you play from round {round}.").format(
        id=cup.id, round=cup.round + 1)


async def _admin_press(query: CallbackQuery, data: Callback,
                       context: ContextTypes.DEFAULT_TYPE, bot: BotServices,
                       cup: TournamentSnapshot) -> None:
    """Settings, computer players, ▶️ Start and ✖️ Cancel: whoever opened the tournament or
    a chat admin, on the message's latest version."""
    user = query.from_user.id
    version = data.args[-1]
    # (Telegram is asked only when the presser did not open it; cancelling a running
    # tournament takes an admin)
    admin = user != cup.creator_id or (data.verb == "tx" and cup.status != "signup")
    admin = admin and await is_admin(Update(0, callback_query=query), context)
    if data.verb == "ts":
        cup = await bot.service.start_tournament(cup.id, user, is_admin=admin,
                                                 version=version)
        _answer(bot, query)
        bot.presenter.later(_started(bot, _memory(context), cup.id))
        return
    if data.verb == "tx":
        if cup.version != version:  # (an old sign-up message's: not a running tournament)
            raise ServiceError("stale" if cup.status == "signup" else "not_in_signup")
        cup = await bot.service.cancel_tournament(cup.id, user, is_admin=admin)
        _answer(bot, query, _("Tournament #{id} was cancelled.").format(id=cup.id))
        _cancelled(bot, context, cup)
        return
    if data.verb == "ta":
        cup = await bot.service.add_tournament_ai(cup.id, user, is_admin=admin,
                                                  version=version)
    elif data.verb == "tr":
        cup = await bot.service.remove_tournament_ai(cup.id, user, is_admin=admin,
                                                     version=version)
    else:
        setting, value = keyboards.setting_of(cup, data.args[0], data.args[1])
        cup = await bot.service.set_tournament_setting(cup.id, user, setting, value,
                                                       is_admin=admin, version=version)
    _answer(bot, query)
    bot.presenter.later(drawing.show_signup(bot, _memory(context), cup.id))


async def _started(bot: BotServices, memory: TournamentMemory, tournament_id: int) -> None:
    """After ▶️ Start: the sign-up message says it started, then round 1's announcement (by
    the tick's claimed path: a kill before it leaves it to the next tick)."""
    await drawing.show_signup(bot, memory, tournament_id)
    await announcements.tell(bot, memory, tournament_id)


async def _open_pressed(query: CallbackQuery, data: Callback,
                        context: ContextTypes.DEFAULT_TYPE, bot: BotServices) -> None:
    """``tn``: a game's button under "No tournament is on here" (admins): open one in the
    pressed message's topic, unless one was opened meanwhile (a second tap)."""
    message = query.message
    games = list(kinds())
    if not isinstance(message, Message) or not in_group(message.chat) or \
            data.game_id != 0 or data.args[0] >= len(games):
        raise ServiceError("bad_button")
    if not await is_admin(Update(0, callback_query=query), context):
        _answer(bot, query, _("Sorry, only the group's admins can open or cancel a "
                              "tournament. Send /tournament to see the ones here."),
                alert=True)
        return
    if await bot.service.tournaments_in(message.chat.id):
        raise ServiceError("already_handled")
    chat = message.chat
    cup = await bot.service.open_tournament(
        chat.id, chat.title, thread_of(message), user_ref(query.from_user),
        games[data.args[0]], forum=bool(chat.is_forum))
    _answer(bot, query)
    await bot.messenger.edit_markup(chat.id, message.message_id, None)
    bot.presenter.later(drawing.show_signup(bot, _memory(context), cup.id))
