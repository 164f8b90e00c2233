"""Inline button presses. Every callback query is answered exactly once: with nothing (or a
short note) on success, or with an alert that says why the press changed nothing."""

from __future__ import annotations

import logging

from telegram import CallbackQuery, InlineKeyboardMarkup, Update
from telegram.error import TelegramError
from telegram.ext import ContextTypes

from engine import GAMES, Action
from engine.coyote.editions import BID_SPECIALS, MAX_BID
from league.errors import ServiceError
from league.snapshots import GameSnapshot
from telegram_app.callbacks import (
    MOVE_VERBS,
    OPTION_NAMES,
    PACE_ORDER,
    SPECIAL_NAMES,
    Callback,
    parse,
    unmod,
)
from telegram_app.context import BotServices, services
from telegram_app.handlers import admin, language
from telegram_app.handlers.common import user_ref
from telegram_app.i18n import _
from telegram_app.keyboards import (
    Button,
    deep_link,
    guess_cards,
    guess_rows,
    move_rows,
    private_keyboard,
    table_keyboard,
    target_rows,
)
from telegram_app.render import coyote as render
from telegram_app.render.common import error_text
from telegram_app.render.language import for_chat, for_player

log = logging.getLogger(__name__)


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
        if data.verb in DIRECT and await _direct_move(query, data, bot):
            return
        game = await bot.service.get(data.game_id)
        _check_chat(query, data, game)
        handler = HANDLERS[data.verb]
        await handler(query, data, game, bot, context)
    except ServiceError as exc:
        await _answer(query, error_text(exc.code, exc.detail), alert=True)
        if exc.code in ("stale", "not_running", "not_in_lobby") and data is not None and \
                query.message:
            # The client shows an old picture: draw the pressed message as it is now.
            try:
                game = await bot.service.get(data.game_id)
            except ServiceError:
                return
            await bot.presenter.redraw(game, query.message.chat.id, query.message.message_id,
                                       context.bot.username)


DIRECT = frozenset({"b", "c", "x"})
"""Move verbs whose action the button alone says (a Guess needs the game's cards)."""


async def _direct_move(query: CallbackQuery, data: Callback, bot: BotServices) -> bool:
    """A bid, call or special straight to the service (one transaction a press: its checks
    of the chat and the player are made there); ``False`` when the button's data is wrong
    or the press is refused as stale or foreign, so the usual path finds the refusal that
    fits in its order (a non-player's forged bid is told they do not play, not that the
    bid is too high) and redraws the pressed message."""
    try:
        action = _action(data, None)
    except ServiceError:
        return False
    chat_id = query.message.chat.id if query.message else None
    if chat_id is None:
        return False
    try:
        await bot.service.act(data.game_id, query.from_user.id, data.version or 0, action,
                              in_chat=chat_id)
    except ServiceError as exc:
        if exc.code in ("stale", "not_running", "not_a_player", "bad_button"):
            return False  # the usual path's checks, in its order (a non-player first)
        raise
    await _answer(query)
    return True


def _check_chat(query: CallbackQuery, data: Callback, game: GameSnapshot) -> None:
    # Lobby and table buttons live in the game's group; only move buttons may also be pressed
    # in the player's private chat. Anything else is forged data aimed at another chat's game.
    chat_id = query.message.chat.id if query.message else None
    allowed = {game.chat_id, query.from_user.id} if data.verb in MOVE_VERBS else {game.chat_id}
    if chat_id not in allowed:
        raise ServiceError("bad_button")


async def _answer(query: CallbackQuery, text: str | None = None, *, alert: bool = False,
                  url: str | None = None) -> None:
    try:
        await query.answer(text, show_alert=alert, url=url)
    except TelegramError as exc:  # too old, or answered already: nothing left to do
        log.info("answerCallbackQuery failed: %s", exc)


# --- lobby ------------------------------------------------------------------------------------
async def _join(query: CallbackQuery, data: Callback, game: GameSnapshot, bot: BotServices,
                context: ContextTypes.DEFAULT_TYPE) -> None:
    game = await bot.service.join(game.id, user_ref(query.from_user))
    if await bot.service.reachable([query.from_user.id]):
        await _answer(query, _("You joined game #{id}.").format(id=game.id))
    elif context.bot.username:
        # Opens the private chat: pressing Start there lets the bot send the cards.
        await _answer(query, url=deep_link(context.bot.username, game.id))
    else:
        await _answer(query, _("You joined. Start a private chat with me to see the cards."),
                      alert=True)
    await bot.presenter.show_lobby(game, context.bot.username)


async def _leave(query: CallbackQuery, data: Callback, game: GameSnapshot, bot: BotServices,
                 context: ContextTypes.DEFAULT_TYPE) -> None:
    game = await bot.service.leave(game.id, query.from_user.id)
    await _answer(query, _("You left game #{id}.").format(id=game.id))
    if game.status == "cancelled":
        await bot.presenter.close_lobby(game)
    else:
        await bot.presenter.show_lobby(game, context.bot.username)


async def _lobby_change(query: CallbackQuery, data: Callback, game: GameSnapshot,
                        bot: BotServices, context: ContextTypes.DEFAULT_TYPE) -> None:
    user = query.from_user.id
    seen = data.args[0] if data.args else None  # the lobby's version when it was drawn
    if data.verb == "a":
        game = await bot.service.add_ai(game.id, user, version=seen)
    elif data.verb == "r":
        game = await bot.service.remove_ai(game.id, user, version=seen)
    else:
        key = OPTION_NAMES.get(data.args[0])
        if key is None:
            raise ServiceError("bad_button")
        if key == "pace":
            value: object = PACE_ORDER[data.args[1]] if data.args[1] < len(PACE_ORDER) else ""
        elif key == "after_elimination":
            order = GAMES[game.kind].option_choices(game.options).get(key, [])
            value = order[data.args[1]] if data.args[1] < len(order) else ""
        else:
            value = bool(data.args[1]) if key == "specials" else data.args[1]
        game = await bot.service.set_option(game.id, user, key, value)
    await _answer(query)
    await bot.presenter.show_lobby(game, context.bot.username)


async def _start(query: CallbackQuery, data: Callback, game: GameSnapshot, bot: BotServices,
                 context: ContextTypes.DEFAULT_TYPE) -> None:
    await bot.service.start(game.id, query.from_user.id)  # the presenter shows the deal
    await _answer(query)


async def _peek(query: CallbackQuery, data: Callback, game: GameSnapshot, bot: BotServices,
                context: ContextTypes.DEFAULT_TYPE) -> None:
    if game.status != "running":
        raise ServiceError("not_running")
    player = game.player(query.from_user.id)
    if player is None or player.seat is None:
        raise ServiceError("not_a_player")
    await _answer(query, render.peek_alert(game, player.seat), alert=True)


# --- moves ------------------------------------------------------------------------------------
def _action(data: Callback, game: GameSnapshot | None) -> Action:
    """The engine action a move button stands for (``game`` is needed for a Guess only);
    raises ``bad_button``."""
    try:
        if data.verb == "c":
            return Action("call")
        if data.verb == "b":
            special, target = unmod(data.args[2] if len(data.args) > 2 else None)
            if data.args[1] > MAX_BID:
                raise ServiceError("bid_too_high", max=MAX_BID)
            return Action("bid", data.args[1], special=special, target=target)
        if data.verb == "x":
            return Action("special", special=SPECIAL_NAMES[data.args[1]])
        if data.verb == "q" and game is not None:
            return Action("special", special="guess", guess=guess_cards(game)[data.args[1]])
    except (KeyError, IndexError):
        pass
    raise ServiceError("bad_button")


async def _move(query: CallbackQuery, data: Callback, game: GameSnapshot, bot: BotServices,
                context: ContextTypes.DEFAULT_TYPE) -> None:
    player = game.player(query.from_user.id)
    if player is None or player.seat is None:  # before reading the button's move
        raise ServiceError("not_a_player")
    # The presenter, the service's commit listener, shows the move.
    await bot.service.act(game.id, query.from_user.id, data.version or 0, _action(data, game))
    await _answer(query)


async def _keyboard(query: CallbackQuery, data: Callback, game: GameSnapshot, bot: BotServices,
                    context: ContextTypes.DEFAULT_TYPE) -> None:
    """Show another keyboard on the pressed message (more bids, targets, guesses); only the
    player to act may, and only while their buttons are current."""
    if game.status != "running":
        raise ServiceError("not_running")
    if game.version != data.version:
        raise ServiceError("stale")
    player = game.player(query.from_user.id)
    if player is None or player.seat is None:
        raise ServiceError("not_a_player")
    if (game.state or {}).get("turn") != player.seat:
        raise ServiceError("not_your_turn")
    message = query.message
    if message is None:
        raise ServiceError("stale")
    in_table = message.chat.id == game.chat_id
    try:
        # The buttons are drawn in the language of the message they go on.
        with for_chat(game) if in_table else for_player(player):
            rows = _more_rows(data, game)
    except KeyError:
        raise ServiceError("bad_button") from None
    markup: InlineKeyboardMarkup | None
    if in_table:
        markup = table_keyboard(game, rows)
    else:
        markup = private_keyboard(game, player.seat, rows)
    await _answer(query)
    await bot.messenger.edit_markup(message.chat.id, message.message_id, markup)


def _more_rows(data: Callback, game: GameSnapshot) -> list[list[Button]]:
    """The rows of the keyboard a ``m``/``k``/``g`` press asks for; raises ``KeyError``."""
    if data.verb == "m":
        mod = data.args[2] if len(data.args) > 2 else None
        if unmod(mod)[0] not in (None, *BID_SPECIALS):
            raise KeyError(mod)
        return move_rows(game, data.args[1], mod)
    if data.verb == "k":
        special = SPECIAL_NAMES[data.args[1]]
        if special not in BID_SPECIALS:
            raise KeyError(special)
        return target_rows(game, special)
    if "guess" not in (game.state or {}).get("coins", []):
        raise KeyError("guess")
    return guess_rows(game)


HANDLERS = {"j": _join, "l": _leave, "a": _lobby_change, "r": _lobby_change,
            "o": _lobby_change, "s": _start, "p": _peek, "b": _move, "c": _move, "x": _move,
            "q": _move, "m": _keyboard, "k": _keyboard, "g": _keyboard}
