"""Commands: /newgame, /cancel, /help, /rules, /start, and a typed bid in the private chat."""

from __future__ import annotations

from telegram import Update
from telegram.ext import ContextTypes

from engine import Action
from engine.coyote import EDITIONS
from engine.coyote.editions import MAX_BID
from league.errors import ServiceError
from telegram_app.context import services
from telegram_app.handlers.common import in_group, is_admin, reply, thread_of, user_ref
from telegram_app.i18n import _
from telegram_app.render import texts
from telegram_app.render.common import error_text
from telegram_app.render.place import with_place


async def newgame(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``/newgame [classic|feathers|poker-deck]``: open a lobby in this group (and topic)."""
    chat, user, message = update.effective_chat, update.effective_user, update.effective_message
    if not in_group(chat) or user is None or message is None:
        await reply(update, context, _("Add me to a group and send /newgame there to play."))
        return
    if message.sender_chat is not None:
        await reply(update, context, _("Anonymous admins cannot play: please post as yourself "
                                       "to open a game."))
        return
    edition = (context.args or ["classic"])[0].lower()
    if edition not in EDITIONS:
        await reply(update, context, _("Unknown edition “{edition}”. Choose one of: {list}.")
                    .format(edition=texts.escape(edition[:32]), list=", ".join(EDITIONS)))
        return
    bot = services(context)
    try:
        game = await bot.service.open_lobby(chat.id, chat.title, thread_of(message),
                                            user_ref(user), "coyote", {"edition": edition})
    except ServiceError as exc:
        if exc.code != "game_open":
            raise
        existing = await bot.service.get(exc.detail["game_id"])
        # A lobby or table that never arrived or was deleted is posted again instead of
        # pointing at nothing.
        if not await bot.presenter.still_shown(existing, context.bot.username):
            return
        target = existing.lobby_message_id if existing.status == "lobby" else \
            existing.table_message_id
        await bot.messenger.send(chat.id, _("A game is already open here (game #{id}): join it "
                                            "or finish it first.").format(id=existing.id),
                                 thread_id=thread_of(message), reply_to=target)
        return
    await bot.presenter.show_lobby(game, context.bot.username)


async def cancel(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``/cancel``: end this topic's open game (a lobby: its opener or a chat admin; a
    running game: a chat admin, or its opener once no other human still plays)."""
    chat, user, message = update.effective_chat, update.effective_user, update.effective_message
    if not in_group(chat) or user is None:
        await reply(update, context, _("Send /cancel in the group where the game is."))
        return
    bot = services(context)
    admin: bool | None = None
    for _attempt in range(3):  # a move may land first: cancel the game as it is then
        game = await bot.service.open_game(chat.id, thread_of(message))
        if game is None:
            await reply(update, context, _("There is no open game here."))
            return
        if admin is None:  # asked of Telegram once, and only when there is a game
            admin = await is_admin(update, context)
        try:
            game = await bot.service.cancel(game.id, user.id, is_admin=admin)
            break
        except ServiceError as exc:
            if exc.code != "stale":
                await reply(update, context, error_text(exc.code, exc.detail))
                return
    else:
        await reply(update, context, error_text("stale"))
        return
    await bot.presenter.cancelled(game)
    await reply(update, context, _("Game #{id} was cancelled.").format(id=game.id))


async def leave(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``/leave``: quit this topic's running game for good (placed last among those still
    playing; for Elo, last). In a lobby the 🚪 Leave button does it."""
    chat, user, message = update.effective_chat, update.effective_user, update.effective_message
    if not in_group(chat) or user is None or chat is None:
        await reply(update, context, _("Send /leave in the group where you are playing."))
        return
    bot = services(context)
    for _attempt in range(3):  # a move by someone else may land first: take the new version
        game = await bot.service.open_game(chat.id, thread_of(message))
        if game is None or game.status != "running":
            await reply(update, context, _("There is no running game here (in a lobby, press "
                                           "🚪 Leave)."))
            return
        try:  # the presenter, the service's commit listener, shows the leave
            await bot.service.act(game.id, user.id, game.version, Action("resign"))
        except ServiceError as exc:
            if exc.code == "stale":
                continue
            await reply(update, context, error_text(exc.code, exc.detail))
        return
    await reply(update, context, error_text("stale"))


async def help_command(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``/help``: what the bot does and its commands."""
    await reply(update, context, texts.help_text())


async def rules(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``/rules [edition]``: the rules of an edition (default: the open game's, told with its
    lives and options; else classic)."""
    edition = (context.args or [""])[0].lower()
    options = None
    if edition not in EDITIONS:
        edition = "classic"
        chat = update.effective_chat
        if in_group(chat) and chat is not None:
            game = await services(context).service.open_game(
                chat.id, thread_of(update.effective_message))
            if game is not None:
                edition = game.options.get("edition", "classic")
                options = game.options
    await reply(update, context, texts.rules_text(edition, options))


async def start(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``/start [g<id>]`` in private: remember that we may message this user; with a game's deep
    link, send them their view of it at once."""
    chat, user = update.effective_chat, update.effective_user
    if user is None or chat is None:
        return
    if chat.type != "private":
        await help_command(update, context)
        return
    bot = services(context)
    await bot.service.touch_user(user_ref(user), can_message=True)
    payload = (context.args or [""])[0]
    game = None
    number = payload[1:]
    if payload.startswith("g") and number.isascii() and number.isdigit() and len(payload) <= 13:
        try:
            game = await bot.service.get(int(number))
        except ServiceError:
            game = None
    player = game.player(user.id) if game else None
    if game is None or player is None:
        # A player back after blocking the bot, or new to the private chat mid-game: send
        # their current views, or the welcome if they play nowhere.
        running = await bot.service.running_games_of(user.id)
        for current in running:
            await bot.presenter.send_private(current, current.player(user.id),  # type: ignore[arg-type]
                                             again=True)
        if not running:
            await reply(update, context, texts.welcome_text())
        return
    if game.status == "lobby":
        await reply(update, context, with_place(game, _(
            "You are all set for game #{id}: I will send your view of the cards here once it "
            "starts.").format(id=game.id)))
        await bot.presenter.show_lobby(game, context.bot.username)
    elif game.status == "running" and (game.state or {}).get("lives", [1] * 99)[
            player.seat or 0] > 0:
        await bot.presenter.send_private(game, player, again=True)
    elif game.status == "running":
        await reply(update, context, with_place(game, _(
            "You are out of game #{id}; follow the rest in the group.").format(id=game.id)))
    else:
        await reply(update, context, texts.welcome_text())


async def typed_bid(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """A number typed in the private chat is a bid in the game where it is the sender's turn
    (the game of the message it replies to, when it is a reply; if it is their turn in several
    games and it is not, they are asked to reply); any other text there gets a hint. The same
    message delivered again is not applied again."""
    user, message = update.effective_user, update.effective_message
    if user is None or message is None or not message.text:
        return
    bot = services(context)
    replied = message.reply_to_message
    game = None if replied is None else await bot.service.game_of_private_message(
        user.id, replied.message_id)
    if game is None:
        games = await bot.service.games_on_turn(user.id)
        if len(games) > 1:
            await reply(update, context, _(
                "It is your turn in games {ids}: to bid, reply to that game's message with "
                "the number (or use its buttons).").format(
                    ids=", ".join(f"#{g.id}" for g in games)))
            return
        game = games[0] if games else None
    if game is None:
        await reply(update, context, _("It is not your turn in any game right now. /help "
                                       "explains how to play."))
        return
    text = message.text.strip()
    if not text.isascii() or not text.isdigit() or not 0 < len(text) <= 12 or \
            int(text) > MAX_BID:
        await reply(update, context, _("To bid, type a whole number from 1 to {max} (or use "
                                       "the buttons).").format(max=MAX_BID))
        return
    try:  # the presenter, the service's commit listener, shows the bid
        await bot.service.act(game.id, user.id, game.version, Action("bid", int(text)),
                              typed=message.message_id)
    except ServiceError as exc:
        if exc.code != "already_handled":  # a repeated update: answered the first time
            await reply(update, context, error_text(exc.code, exc.detail))


async def migrated(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """A group became a supergroup: move its games to the new chat id."""
    message = update.effective_message
    if message is None or not message.migrate_to_chat_id:
        return
    bot = services(context)
    await bot.service.migrate_chat(message.chat.id, message.migrate_to_chat_id)
    # Buttons in the old group's history no longer match the game's chat: post afresh.
    for game in await bot.service.open_games_in(message.migrate_to_chat_id):
        await bot.presenter.reshow(game, context.bot.username)
