"""Commands: /newgame, /cancel, /help, /rules, /start, and a text typed in the private chat
(a move of the game where it is the sender's turn, read by that game's UI)."""

from __future__ import annotations

from contextlib import AbstractContextManager, nullcontext

from telegram import Message, Update, User
from telegram.ext import ContextTypes

from engine import Action
from league.store.errors import ServiceError
from league.store.snapshots import GameSnapshot, PlayerInfo
from telegram_app.games.registry import default_kind, kinds, private_end_text, ui_for
from telegram_app.handlers import notify
from telegram_app.handlers.common import (
    in_group,
    is_admin,
    reply,
    table_on_its_own,
    thread_of,
    topic_table,
    user_ref,
)
from telegram_app.i18n import _, join_list
from telegram_app.render import texts
from telegram_app.render.common import error_text
from telegram_app.render.language import for_player
from telegram_app.render.league import escaped_name
from telegram_app.render.place import with_place
from telegram_app.services import BotServices, services
from telegram_app.tournaments.rules import rules_text as tournament_rules


async def newgame(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``/newgame [kind] [args]``: open a lobby of a game in this group (and topic); without
    a kind, of the default game, which reads the arguments (Coyote: an edition)."""
    chat, user, message = update.effective_chat, update.effective_user, update.effective_message
    if not in_group(chat) or user is None or message is None:
        await reply(update, context, _("Add me to a group and send /newgame there to play."))
        return
    if message.sender_chat is not None:
        await reply(update, context, _("Anonymous admins cannot play: please post as yourself "
                                       "to open a game."))
        return
    kind, args = _kind_and_args(context.args)
    options = ui_for(kind).new_game_options(args)
    if isinstance(options, str):
        others = [k for k in kinds() if k != kind]
        if context.args and _named_kind(context.args[0]) is None and others:  # (a game's
            # name mistyped, "koria"?)
            options += "\n" + _("Other games: {games}.").format(
                games=join_list(f"/newgame {k}" for k in others))
        await reply(update, context, options)
        return
    bot = services(context)
    try:
        game = await bot.service.open_lobby(chat.id, chat.title, thread_of(message),
                                            user_ref(user), kind, options)
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
    bot.presenter.later(bot.presenter.show_lobby(game, context.bot.username))
    await notify.alert_subscribers(bot, game, context.bot.username)


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
            table = await topic_table(bot, chat.id, thread_of(message))
            await reply(update, context, _("There is no open game here.") if table is None
                        else table_on_its_own(table, cancelling=True))
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
    bot.presenter.later(bot.presenter.cancelled(game))
    await reply(update, context, _("Game #{id} was cancelled.").format(id=game.id))


async def leave(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``/leave``: quit this topic's running game for good (placed last, below everyone who
    stays: ``league.tables.places``). In a lobby the 🚪 Leave button does it."""
    chat, user, message = update.effective_chat, update.effective_user, update.effective_message
    if not in_group(chat) or user is None or chat is None:
        await reply(update, context, _("Send /leave in the group where you are playing."))
        return
    bot = services(context)
    for _attempt in range(3):  # a move by someone else may land first: take the new version
        game = await _game_to_leave(bot, chat.id, thread_of(message), user.id)
        if game is None:
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


async def _game_to_leave(bot: BotServices, chat_id: int, thread_id: int,
                         user_id: int) -> GameSnapshot | None:
    """The topic's running game if ``user_id`` still plays in it, else their running
    tournament table in this chat (tables run beside the topic's game: a second /leave
    reaches it), else the topic's running game (the service then says they are not
    playing)."""
    game = await bot.service.open_game(chat_id, thread_id)
    running = game if game is not None and game.status == "running" else None
    if running is not None and _plays(running, user_id):
        return running
    tables = [g for g in await bot.service.open_games_in(chat_id)
              if g.status == "running" and g.tournament_id is not None and _plays(g, user_id)]
    return tables[0] if tables else running


def _plays(game: GameSnapshot, user_id: int) -> bool:
    player = game.player(user_id)
    return player is not None and player.seat is not None and player.playing


async def help_command(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``/help``: what the bot does and its commands."""
    await reply(update, context, texts.help_text())


async def rules(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``/rules [kind] [args]``: a game's rules, the arguments read by its UI (Coyote: an
    edition). A first word that names a game or one of its editions or options
    (:func:`_named_kind`: ``/rules feathers`` is Coyote's whatever game is open) picks that
    game; otherwise the open game's rules, told with its options, else the default game's.
    In a group with no game open, a game named alone is told with the group's defaults
    (``/settings``: what its next ``/newgame`` plays); ``/rules tournament``: how a
    tournament runs."""
    args = list(context.args or [])
    if args and args[0].lower() == "tournament":
        await reply(update, context, tournament_rules())
        return
    named = _named_kind(args[0]) if args else None
    kind, options = named or default_kind(), None
    chat = update.effective_chat
    if named is not None:
        args = args[1:] if args[0].lower() == named else args
    if in_group(chat) and chat is not None:
        bot, thread = services(context), thread_of(update.effective_message)
        game = None
        if named is None:
            game = await bot.service.open_game(chat.id, thread) or \
                await topic_table(bot, chat.id, thread)
        if game is not None:
            kind, options, args = game.kind, game.options, []
        elif not args:  # (the options the group's next /newgame would have: its /settings)
            options = (await bot.service.chat_settings(chat.id))["games"].get(kind)
    await reply(update, context, ui_for(kind).rules_text(args, options))


def _named_kind(word: str) -> str | None:
    """The game a word names: its kind, or a word its ``/newgame`` takes first (Coyote's
    editions, Koira's options); ``None`` for another word."""
    word = word.lower()
    if word in kinds():
        return word
    return next((kind for kind in kinds()
                 if isinstance(ui_for(kind).new_game_options([word]), dict)), None)


def _kind_and_args(args: list[str] | None) -> tuple[str, list[str]]:
    """A command's game kind (its first argument when that names one, else the default
    game) and the arguments left for that game's UI."""
    args = list(args or [])
    if args and args[0].lower() in kinds():
        return args[0].lower(), args[1:]
    return next(iter(kinds())), args


async def start(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``/start [g<id>|j<id>]`` in private: remember that we may message this user; with a
    game's deep link, send them their view of it at once (``j``: a next-game alert's link,
    which first seats them in that lobby)."""
    chat, user = update.effective_chat, update.effective_user
    if user is None or chat is None:
        return
    if chat.type != "private":
        await help_command(update, context)
        return
    bot = services(context)
    back = not await bot.service.touch_user(user_ref(user), can_message=True)
    payload = (context.args or [""])[0]
    game = None
    number = payload[1:]
    if payload[:1] in ("g", "j") and number.isascii() and number.isdigit() and \
            len(payload) <= 13:
        try:
            game = await bot.service.get(int(number))
            # A next-game alert's link: join. Alerts go to the group's subscribers only; anyone
            # else typing the link (a stranger guessing a number) is not seated in a group's
            # game they cannot see.
            if payload.startswith("j") and game.status == "lobby" and \
                    game.player(user.id) is None and \
                    await bot.service.subscribed(game.chat_id, user.id):
                game = await bot.service.join(game.id, user_ref(user))
        except ServiceError as exc:
            if payload.startswith("j") and exc.code in ("game_full", "stale"):
                await reply(update, context, error_text(exc.code, exc.detail))
                if back:
                    await _send_views(bot, user.id, context.bot.username)
                return
            game = None
    player = game.player(user.id) if game else None
    # A player back after blocking the bot, or new to the private chat mid-game: their
    # current views (the link's game's below), or the welcome if they play nowhere.
    running = await _send_views(bot, user.id, context.bot.username,
                                 but=game.id if game and player else None) \
        if game is None or player is None or back else []
    if game is None or player is None:
        if game is not None and payload.startswith("j") and game.status != "lobby" and \
                await bot.service.subscribed(game.chat_id, user.id):  # (an alert's, late)
            await reply(update, context, with_place(game, _(
                "Game #{id} has started, or closed, without you: I will tell you when the "
                "group's next game opens.").format(id=game.id)))
        elif payload == "n" and (groups := await bot.service.subscriptions_of(user.id)):
            # (/notify's link, for one it could not write to yet: it can now)
            await reply(update, context, _(
                "Done: I will tell you here when a new game opens in {groups}. /notify off "
                "stops it.").format(groups=join_list(
                    escaped_name(title) if title else _("a group") for title in groups)))
        elif not running:
            await reply(update, context, texts.welcome_text())
        return
    with _in_view_language(game, player):
        if game.status == "lobby":
            await reply(update, context, with_place(game, _(
                "You are all set for game #{id}: I will send your view of the cards here once "
                "it starts.").format(id=game.id)))
            bot.presenter.later(bot.presenter.show_lobby(game, context.bot.username))
        elif game.status == "running" and player.seat is not None and \
                ui_for(game).in_hand(game, player.seat):
            bot.presenter.later(bot.presenter.send_private(game, player))
        elif game.status == "running":
            await reply(update, context, with_place(game, _(
                "You are out of game #{id}; follow the rest in the group.").format(id=game.id)))
        else:  # (as their last private message of it says it)
            await reply(update, context, private_end_text(game, player))


async def _send_views(bot: BotServices, user_id: int, bot_username: str | None, *,
                      but: int | None = None) -> list[GameSnapshot]:
    """Send ``user_id`` their view of each running game they play (but game ``but``), close
    what is left of their turn in a game over for them (closed while the bot could not write
    to them, or they are out), and redraw the lobbies they joined (one marked them 🔕, with
    how to start this chat); the running games."""
    running = await bot.service.running_games_of(user_id)
    for game in running:
        if game.id != but:
            bot.presenter.later(bot.presenter.send_private(game, game.player(user_id)))  # type: ignore[arg-type]
    for game in await bot.service.keyboards_left_of(user_id):
        bot.presenter.later(bot.presenter.close_left(game, user_id))
    for game in await bot.service.lobbies_of(user_id):
        if game.id != but:
            bot.presenter.later(bot.presenter.show_lobby(game, bot_username))
    return running


FULL_WIDTH: dict[int, int] = {0x3000: 0x20, 0x3001: 0x2C,
                              **{c: c - 0xFEE0 for c in range(0xFF01, 0xFF5F)}}
"""A Japanese keyboard in full-width mode types digits, letters and spaces as their
full-width forms (``１５``, ``７Ｈ　８Ｈ``), and its comma key the ideographic comma
(``７Ｈ、８Ｈ``): a typed move reads them as ASCII (no other look-alike: ``²`` or ``٣`` is
no number)."""


async def typed_move(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """A text typed in the private chat is a move in the game where it is the sender's turn,
    or, when it replies to a game's message (its latest, or its hand's first), in that game
    only (a closed game's: nothing moves); if it is their turn in several games and it is
    not such a reply, they are asked to reply. A reply to another of the bot's messages is
    read as no reply while the sender is seated in one running game only and no game's
    latest message to them is newer (an answer of the bot, a new hand's message not yet
    recorded); else (an older view, whose game the bot no longer knows) they are asked to
    reply to the game's latest message. That game's UI reads it (``GameUI.typed``: Coyote's
    number is a bid); what it cannot read gets its hint, under the game's group. The same
    message delivered again is not applied again."""
    user, message = update.effective_user, update.effective_message
    if user is None or message is None or not message.text:
        return
    bot = services(context)
    back = not await bot.service.touch_user(user_ref(user), can_message=True)
    moved_in = await _typed(update, context, bot, user, message)
    if back:  # (back after blocking the bot: it may write again. After the move: a view sent
        # before it would be taken for this hand's first message, newer than what they typed;
        # the game moved in is shown by the move's delivery)
        await _send_views(bot, user.id, context.bot.username, but=moved_in)


async def _typed(update: Update, context: ContextTypes.DEFAULT_TYPE, bot: BotServices,
                 user: User, message: Message) -> int | None:
    """:func:`typed_move`'s reading of the text; the game it moved in, if any."""
    replied = message.reply_to_message
    by_bot = replied is not None and replied.from_user is not None and \
        replied.from_user.id == context.bot.id
    game = await bot.service.game_of_private_message(user.id, replied.message_id) \
        if by_bot and replied is not None else None
    if game is not None and game.status != "running":
        with _in_view_language(game, game.player(user.id)):
            await reply(update, context, with_place(game, error_text("not_running", None,
                                                                     game.kind)))
        return None
    if game is None and by_bot and replied is not None and (
            await bot.service.private_message_after(user.id, replied.message_id)
            or len(await bot.service.running_games_of(user.id, out_too=True)) > 1):
        await reply(update, context, _(
            "I cannot tell which game that message is from: reply to the game's latest "
            "message, or use its buttons."))
        return None
    if game is None:
        games = await bot.service.games_on_turn(user.id)
        if len({g.kind for g in games}) > 1:  # (each game's UI words its own moves)
            await reply(update, context, _(
                "It is your turn in games {ids}: reply to the message of the game you mean "
                "(or use its buttons).").format(ids=join_list(f"#{g.id}" for g in games)))
            return None
        if len(games) > 1:
            await reply(update, context, ui_for(games[0]).typed_choose_text(games))
            return None
        if not games:
            await reply(update, context, _("It is not your turn in any game right now. "
                                           "/help explains how to play."))
            return None
        game = games[0]
    player = game.player(user.id)
    seat = player.seat if player is not None else None
    text = (message.text or "").translate(FULL_WIDTH)
    with _in_view_language(game, player):
        action = ui_for(game).typed(game, seat if seat is not None else -1, text)
        if isinstance(action, str):
            await reply(update, context, with_place(game, action))
            return None
        try:  # the presenter, the service's commit listener, shows the move
            await bot.service.act(game.id, user.id, game.version, action,
                                  typed=message.message_id)
        except ServiceError as exc:
            if exc.code != "already_handled":  # a repeated update: answered the first time
                await reply(update, context, with_place(game, error_text(
                    exc.code, exc.detail, game.kind)))
            return None
    return game.id


def _in_view_language(game: GameSnapshot, player: PlayerInfo | None
                      ) -> AbstractContextManager[object]:
    """An answer about ``game`` in the language of ``player``'s private view of it: for a
    player whose language is unknown (their app sends none), the group's, not the update's
    English (``render.language.for_player``); no player: the update's."""
    return for_player(game, player) if player is not None else nullcontext()


async def migrated(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """A group became a supergroup: move its games to the new chat id. Telegram says so
    twice, in no set order: ``migrate_to_chat_id`` in the group and ``migrate_from_chat_id``
    in the supergroup. Either records the move (the second changes nothing), so that the
    bot's joining the supergroup, which Telegram shows too, is no new welcome
    (:func:`telegram_app.handlers.members.bot_added`); only the group's posts the games
    afresh, once."""
    message = update.effective_message
    if message is None:
        return
    bot = services(context)
    if message.migrate_from_chat_id:
        await bot.messenger.migrated(message.migrate_from_chat_id, message.chat.id)
        return
    if not message.migrate_to_chat_id:
        return
    # (the games move, and sends queued for the group go to the supergroup)
    await bot.messenger.migrated(message.chat.id, message.migrate_to_chat_id)
    # Buttons in the old group's history no longer match the game's chat: post afresh.
    for game in await bot.service.open_games_in(message.migrate_to_chat_id):
        bot.presenter.later(bot.presenter.reshow(game, context.bot.username))
