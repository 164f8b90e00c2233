"""Inline button presses. Every callback query is answered exactly once: with nothing (or a
short note) on success, or with an alert that says why the press changed nothing."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from telegram import CallbackQuery, InlineKeyboardMarkup, Update
from telegram.ext import ContextTypes

from engine import GAMES, Action
from league.store.errors import ServiceError
from league.store.snapshots import GameSnapshot
from telegram_app.callbacks import Callback, is_move, parse
from telegram_app.games.registry import kind_of_verb, ui_for
from telegram_app.handlers import admin, language, notify
from telegram_app.handlers.common import answer_later as _answer
from telegram_app.handlers.common import joined_answer, send_answer, user_ref
from telegram_app.i18n import _
from telegram_app.keyboards import lobby_option, private_keyboard, table_keyboard
from telegram_app.presenter import ephemeral
from telegram_app.render.common import error_text
from telegram_app.render.language import for_chat, for_player
from telegram_app.services import BotServices, services
from telegram_app.tournaments import handlers as tournaments
from telegram_app.tournaments.keyboards import VERBS as tournament_verbs

log = logging.getLogger(__name__)
PEEK_ANSWER_WITHIN = 5.0
"""Seconds a 🎴 press waits for its ephemeral message before it is answered anyway (the
game's delivery busy, the group's budget spent): Telegram's client spins until then."""
AS_MEANT = frozenset({"already_joined"})
"""Refusals that leave things as the presser meant (a double tap on ✋ Join): a toast, not
an alert to dismiss."""


def ephemeral_id_of(message: Any) -> int | None:
    """The ``ephemeral_message_id`` of a pressed message (a ``telegram.Message``), or
    ``None`` for an ordinary message. PTB 22.8 does not know the field: it is in
    ``api_kwargs``; an ephemeral message's ``message_id`` is 0."""
    if message is None or getattr(message, "message_id", None) != 0:
        return None
    found = (getattr(message, "api_kwargs", None) or {}).get("ephemeral_message_id")
    return found if isinstance(found, int) and not isinstance(found, bool) and found > 0 \
        else None


async def on_button(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Dispatch a callback query by its verb; refusals become alerts."""
    query = update.callback_query
    if query is None:
        return
    data = parse(query.data)
    bot = services(context)
    try:
        if data is None:
            raise ServiceError("bad_button")
        if data.verb == "z":
            await admin.on_setting(query, data, context)
            return
        if data.verb == "u":
            await language.on_language(update, context, data)
            return
        if data.verb in tournament_verbs:  # (a tournament's id is no game's id)
            await tournaments.on_press(query, data, context)
            return
        if is_move(data.verb) and await _direct_move(query, data, bot):
            return
        game = await bot.service.get(data.game_id)
        _check_chat(query, data, game)
        handler = HANDLERS.get(data.verb, _game_press)
        await handler(query, data, game, bot, context)
    except ServiceError as exc:
        if await _double_tap(bot, query, data, exc):
            # (a double tap, or an old keyboard of a turn they played: a toast, no alert)
            _answer(bot, query, _("You already moved this turn."))
        else:
            _answer(bot, query, error_text(exc.code, exc.detail, kind_of_verb(data.verb)
                                            if data is not None else None),
                    alert=exc.code not in AS_MEANT)
        if exc.code in ("stale", "not_running", "not_in_lobby") and data is not None and \
                query.message:
            # The client shows an old picture: draw the pressed message as it is now.
            try:
                game = await bot.service.get(data.game_id)
            except ServiceError:
                return
            ephemeral_id = ephemeral_id_of(query.message)
            if ephemeral_id is not None:  # (its message_id is 0: not a group message's)
                bot.presenter.later(ephemeral.redraw_pressed(
                    bot.presenter, game.id, query.from_user.id, query.message.chat.id,
                    ephemeral_id))
                return
            bot.presenter.later(bot.presenter.redraw(
                game, query.message.chat.id, query.message.message_id, context.bot.username))


async def _direct_move(query: CallbackQuery, data: Callback, bot: BotServices) -> bool:
    """A move the button alone says (``GameUI.direct_action``: Coyote's bid, call or
    special) straight to the service (one transaction a press: its checks
    of the chat and the player are made there); ``False`` when the button's data is wrong
    or the press is refused as stale or foreign, so the usual path finds the refusal that
    fits in its order (a non-player's forged bid is told they do not play, not that the
    bid is too high) and redraws the pressed message."""
    kind = kind_of_verb(data.verb)
    action = None if kind is None else ui_for(kind).direct_action(data)
    if action is None:
        return False
    chat_id = query.message.chat.id if query.message else None
    if chat_id is None:
        return False
    try:
        outcome = await bot.service.act(data.game_id, query.from_user.id, data.version or 0,
                                        action, in_chat=chat_id)
    except ServiceError as exc:
        # (bad_action: maybe another game's button, which the usual path tells apart)
        if exc.code in ("stale", "not_running", "not_a_player", "bad_button", "bad_action"):
            return False  # the usual path's checks, in its order (a non-player first)
        raise
    _answer(bot, query)
    _close_untracked(query, outcome.game, bot)
    return True


def _close_untracked(query: CallbackQuery, game: GameSnapshot, bot: BotServices) -> None:
    """A move pressed on a private message the game does not record (its send's answer was
    lost: the bot never learnt its id) leaves that message's buttons live; they go."""
    message = query.message
    player = game.player(query.from_user.id)
    if message is None or message.chat.id <= 0 or player is None or \
            message.message_id == player.private_message_id:
        return
    bot.presenter.later(bot.presenter.redraw(game, message.chat.id, message.message_id, None))


def _check_chat(query: CallbackQuery, data: Callback, game: GameSnapshot) -> None:
    # Lobby and table buttons live in the game's group; only move buttons may also be pressed
    # in the player's private chat. Anything else is forged data aimed at another chat's game.
    chat_id = query.message.chat.id if query.message else None
    allowed = {game.chat_id, query.from_user.id} if is_move(data.verb) else {game.chat_id}
    if chat_id not in allowed:
        raise ServiceError("bad_button")


async def _double_tap(bot: BotServices, query: CallbackQuery, data: Callback | None,
                      exc: ServiceError) -> bool:
    """Whether a move refused as stale is the second tap of one the presser just made: the
    game's very next step (the version after the button's) is the presser's own move."""
    if exc.code != "stale" or data is None or not is_move(data.verb) or not data.args:
        return False
    try:
        return await bot.service.moved_by(data.game_id, data.args[0] + 1) == query.from_user.id
    except ServiceError:
        return False


# --- lobby ------------------------------------------------------------------------------------
async def _join(query: CallbackQuery, data: Callback, game: GameSnapshot, bot: BotServices,
                context: ContextTypes.DEFAULT_TYPE) -> None:
    game = await bot.service.join(game.id, user_ref(query.from_user))
    _answer(bot, query, await _joined(bot, query, game.id))
    bot.presenter.later(bot.presenter.show_lobby(game, context.bot.username))


async def _joined(bot: BotServices, query: CallbackQuery, game_id: int) -> str:
    """The answer to a join, with a tip for a player the bot cannot message privately
    (:func:`~telegram_app.handlers.common.joined_answer`)."""
    return await joined_answer(bot, query.from_user.id,
                               _("You joined game #{id}.").format(id=game_id))


async def _leave(query: CallbackQuery, data: Callback, game: GameSnapshot, bot: BotServices,
                 context: ContextTypes.DEFAULT_TYPE) -> None:
    game = await bot.service.leave(game.id, query.from_user.id)
    _answer(bot, query, _("You left game #{id}.").format(id=game.id))
    if game.status == "cancelled":
        bot.presenter.later(bot.presenter.close_lobby(game))
    else:
        bot.presenter.later(bot.presenter.show_lobby(game, context.bot.username))


async def _lobby_change(query: CallbackQuery, data: Callback, game: GameSnapshot,
                        bot: BotServices, context: ContextTypes.DEFAULT_TYPE) -> None:
    user = query.from_user.id
    seen = data.args[0] if data.args else None  # the lobby's version when it was drawn
    if data.verb == "a":
        game = await bot.service.add_ai(game.id, user, version=seen)
    elif data.verb == "r":
        game = await bot.service.remove_ai(game.id, user, version=seen)
    else:  # o:<game>:<option index>:<value index> (0: the pace; 1…: the game's options)
        chosen = lobby_option(game, data.args[0], data.args[1])
        if chosen is None:
            raise ServiceError("bad_option" if game.status == "lobby" else "not_in_lobby")
        key, value = chosen
        game = await bot.service.set_option(game.id, user, key, value)
    _answer(bot, query)
    bot.presenter.later(bot.presenter.show_lobby(game, context.bot.username))


async def _start(query: CallbackQuery, data: Callback, game: GameSnapshot, bot: BotServices,
                 context: ContextTypes.DEFAULT_TYPE) -> None:
    await bot.service.start(game.id, query.from_user.id)  # the presenter shows the deal
    _answer(bot, query)


async def _peek(query: CallbackQuery, data: Callback, game: GameSnapshot, bot: BotServices,
                context: ContextTypes.DEFAULT_TYPE) -> None:
    """🎴 on the table: the presser's view and moves as an ephemeral message in the group
    (``presenter/ephemeral.py``), or the 👀 alert where Telegram refuses one."""
    if game.status != "running":
        raise ServiceError("not_running")
    player = game.player(query.from_user.id)
    if player is None or player.seat is None:
        raise ServiceError("not_a_player")
    if not ui_for(game).in_hand(game, player.seat):  # (left, removed, knocked out: the alert
        said = ui_for(game).out_text(game, player.seat)  # would show them the cards in play)
        if said is None:
            raise ServiceError("out_of_game")
        _answer(bot, query, said, alert=True)
        return
    alert = ui_for(game).peek_alert(game, player.seat)  # (in the presser's language: here)
    bot.presenter.later(_show_cards(bot, query, game.id, alert))


async def _show_cards(bot: BotServices, query: CallbackQuery, game_id: int,
                      alert: str | None) -> None:
    """Send the ephemeral message, then answer the press: with nothing, or with ``alert``
    if it could not be sent. A send still waiting after :data:`PEEK_ANSWER_WITHIN` seconds
    gets the press answered with nothing first (a refusal after that is only logged)."""
    shown = asyncio.ensure_future(ephemeral.show_cards(
        bot.presenter, game_id, query.from_user.id, query.id))
    try:
        sent = await asyncio.wait_for(asyncio.shield(shown), PEEK_ANSWER_WITHIN)
    except TimeoutError:
        await send_answer(query, None, False, None)
        await shown
        return
    except BaseException:
        await send_answer(query, alert, alert is not None, None)
        raise
    await send_answer(query, None if sent else alert, not sent and alert is not None, None)


# --- a game's own verbs ------------------------------------------------------------------
async def _game_press(query: CallbackQuery, data: Callback, game: GameSnapshot,
                      bot: BotServices, context: ContextTypes.DEFAULT_TYPE) -> None:
    """A press of a game's verb, handed to that game's UI (``GameUI.press``): a move goes to
    the service (the presenter, its commit listener, shows it); another keyboard is drawn on
    the pressed message. A verb of another kind than the game's is a button drawn before the
    game changed."""
    if kind_of_verb(data.verb) != game.kind:
        raise ServiceError("game_changed")
    ui = ui_for(game)
    player = game.player(query.from_user.id)
    seat = None if player is None else player.seat
    message = query.message
    ephemeral_id = ephemeral_id_of(message)  # (a player's own view, in the group)
    in_table = message is not None and message.chat.id == game.chat_id and ephemeral_id is None
    try:
        # Keyboards are drawn in the language of the message they go on.
        with for_chat(game) if in_table or player is None else for_player(game, player):
            result = ui.press(game, data, seat, in_table)
    except (KeyError, IndexError):
        raise ServiceError("bad_button") from None
    if isinstance(result, Action):
        outcome = await bot.service.act(game.id, query.from_user.id, data.version or 0, result)
        _answer(bot, query)
        _close_untracked(query, outcome.game, bot)
        return
    if message is None or seat is None:
        raise ServiceError("stale")
    markup: InlineKeyboardMarkup | None
    if in_table:
        markup = table_keyboard(game, result)
    else:
        markup = private_keyboard(game, seat, result)
    _answer(bot, query)
    if ephemeral_id is not None:
        await bot.messenger.edit_ephemeral_markup(message.chat.id, query.from_user.id,
                                                  ephemeral_id, markup)
        return
    await bot.messenger.edit_markup(message.chat.id, message.message_id, markup)


async def _ai_level(query: CallbackQuery, data: Callback, game: GameSnapshot,
                    bot: BotServices, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``v:<game>:<computer index>:<level index>:<version>``: a computer seat's level."""
    index, level, seen = data.args
    levels = GAMES[game.kind].ai_levels
    if level >= len(levels):
        raise ServiceError("bad_option" if game.status == "lobby" else "not_in_lobby")
    game = await bot.service.set_ai_level(game.id, query.from_user.id, index, levels[level],
                                          version=seen)
    _answer(bot, query)
    bot.presenter.later(bot.presenter.show_lobby(game, context.bot.username))


async def _notify(query: CallbackQuery, data: Callback, game: GameSnapshot,
                  bot: BotServices, context: ContextTypes.DEFAULT_TYPE) -> None:
    """🔔 on a lobby: tell the presser privately of the group's next lobbies."""
    async def answer(text: str | None, url: str | None) -> None:
        _answer(bot, query, text, alert=url is None, url=url)

    await notify.subscribe_answer(
        bot, game.chat_id, query.message.chat.title if query.message else None,
        user_ref(query.from_user), context.bot.username, answer)


async def _rematch(query: CallbackQuery, data: Callback, game: GameSnapshot,
                   bot: BotServices, context: ContextTypes.DEFAULT_TYPE) -> None:
    """🔁 on a finished game's last message: the first tap by one of its players opens a
    lobby like it (kind, options, computer seats), later taps join it."""
    for _attempt in range(3):  # a concurrent join won: join the lobby as it is now
        try:
            lobby, opened = await bot.service.rematch(game.id, user_ref(query.from_user))
            break
        except ServiceError as exc:
            if exc.code != "stale":
                raise
    else:
        # (not "stale": that would redraw the report, whose 🔁 must stay)
        raise ServiceError("try_again")
    if opened:
        _answer(bot, query, _("Rematch! Game #{id} is open: the others join with 🔁 "
                               "Rematch or ✋ Join.").format(id=lobby.id))
    else:  # (as ✋ Join)
        _answer(bot, query, await _joined(bot, query, lobby.id))
    bot.presenter.later(bot.presenter.show_lobby(lobby, context.bot.username))
    if opened:
        await notify.alert_subscribers(bot, lobby, context.bot.username)


HANDLERS = {"j": _join, "l": _leave, "a": _lobby_change, "r": _lobby_change,
            "o": _lobby_change, "s": _start, "p": _peek, "v": _ai_level, "n": _notify,
            "rm": _rematch}
"""The bot's own verbs; any other (a game's) goes to :func:`_game_press`."""
