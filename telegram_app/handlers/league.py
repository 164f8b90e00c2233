"""League commands: /standings, /rating, /profile, /history, /replay, /top."""

from __future__ import annotations

import asyncio
from dataclasses import replace

from telegram import Update
from telegram.ext import ContextTypes

from engine import GAMES
from league.store.errors import ServiceError
from league.tables.charts import rating_chart_png
from league.tables.queries import RatingCard
from league.tournaments.pages import played_tournaments
from telegram_app.games.registry import default_kind
from telegram_app.handlers.common import in_group, reply, thread_of, user_ref
from telegram_app.i18n import DEFAULT_LANGUAGE, _, current_language, join_list
from telegram_app.render import league as render
from telegram_app.render.common import error_text
from telegram_app.services import BotServices, services

PERIOD_WORDS = {"week": "week", "last": "last", "season": "season"}
CARD_TOURNAMENTS = 5
"""The latest tournaments a rating card lists."""


def _kind_of(args: list[str]) -> tuple[str, list[str]]:
    """The game kind named first in ``args`` and the rest; without one, the default game
    (``games.registry.default_kind``: ``/top`` is its board, ``/top koira`` Koira's)."""
    if args and args[0].lower() in GAMES:
        return args[0].lower(), args[1:]
    return default_kind(), args


def _standings_args(args: list[str]) -> tuple[str, str] | None:
    """The game and period of ``/standings`` (else the default game's, this week), named in
    either order (``koira season``, ``season koira``); ``None`` for a word that is neither,
    or a second game or period."""
    kind: str | None = None
    period: str | None = None
    for word in (arg.lower() for arg in args):
        if word in GAMES and kind is None:
            kind = word
        elif word in PERIOD_WORDS and period is None:
            period = PERIOD_WORDS[word]
        else:
            return None
    return kind or default_kind(), period or "week"


def _games_line() -> str:
    """The games a league command can name (the registry's), as a line for a hint."""
    return _("Games: {games}.").format(games=join_list(sorted(GAMES)))


def _named_kind(context: ContextTypes.DEFAULT_TYPE) -> tuple[str, str | None]:
    """The game of ``/rating [game]`` or ``/profile [game]`` (else the default game's) and
    the kind to name on the card: only one the user named (``/rating`` alone reads as it
    always did)."""
    args = list(context.args or [])
    kind, _rest = _kind_of(args)
    return kind, kind if args and args[0].lower() in GAMES else None


async def standings(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``/standings [game] [last|season]``: this chat's table of a game (else the default
    game's); the game and the period may come in either order."""
    chat = update.effective_chat
    if not in_group(chat) or chat is None:
        await reply(update, context, _("Send /standings in a group: every group is a league."))
        return
    named = _standings_args(list(context.args or []))
    if named is None:
        await reply(update, context, _("Use /standings, /standings last or /standings "
                                       "season.") + "\n" + _games_line())
        return
    kind, period = named
    table = await services(context).service.standings(chat.id, period, kind=kind)
    await reply(update, context, render.standings_text(table))


async def _target(update: Update, context: ContextTypes.DEFAULT_TYPE) -> tuple[int, str] | None:
    """The replied-to person, else the sender: (user id, name). ``None`` (after a polite
    reply) for a message sent as a chat, such as an anonymous admin's.

    In a forum topic, clients mark every message as a reply to the topic's first message;
    that is not a reply to a person, so it is ignored."""
    message = update.effective_message
    if message is None:
        return None
    replied = message.reply_to_message
    if replied is not None and (replied.forum_topic_created is not None or (
            message.is_topic_message and replied.message_id == message.message_thread_id)):
        replied = None
    if replied is not None and replied.from_user is not None and not replied.from_user.is_bot \
            and replied.sender_chat is None:
        who = replied.from_user
        return who.id, user_ref(who).display_name
    if message.sender_chat is not None or update.effective_user is None:
        await reply(update, context, _("Messages sent as the group or a channel have no "
                                       "rating: send it as yourself."))
        return None
    return update.effective_user.id, user_ref(update.effective_user).display_name


async def _card(update: Update, context: ContextTypes.DEFAULT_TYPE,
                chat_id: int | None, kind: str) -> RatingCard | None:
    """The rating card of :func:`_target` in game ``kind``, named as Telegram names them
    now."""
    target = await _target(update, context)
    if target is None:
        return None
    card = await services(context).service.rating_card(target[0], chat_id, kind=kind)
    return replace(card, name=target[1])


async def _other_cards(context: ContextTypes.DEFAULT_TYPE, card: RatingCard,
                       chat_id: int | None, shown: str) -> list[tuple[str, RatingCard]]:
    """The player's cards in the games other than ``shown`` (``card``'s), those they
    played rated games of."""
    cards = [(kind, await services(context).service.rating_card(card.user_id, chat_id,
                                                                 kind=kind))
             for kind in sorted(GAMES) if kind != shown]
    return [(kind, replace(c, name=card.name)) for kind, c in cards if c.games]


async def _card_tournaments(context: ContextTypes.DEFAULT_TYPE, card: RatingCard,
                            chat_id: int | None) -> str:
    """The card's player's latest tournaments as a section of the card (empty for none):
    in a group, that group's alone (which other groups someone plays in is not the
    group's business); in the private chat, every group's, named."""
    cups = await played_tournaments(services(context).db, card.user_id, chat_id,
                                    limit=CARD_TOURNAMENTS)
    return render.tournaments_text(cups, card.user_id, _("🏆 <b>Tournaments</b>"),
                                   group=chat_id is None)


def _with_section(text: str, section: str) -> str:
    return f"{text}\n\n{section}" if section else text


async def rating(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``/rating [game]``: yours, or the replied-to player's, in a game (else the default
    game), then the other games they played rated games of and their latest tournaments."""
    chat = update.effective_chat
    chat_id = chat.id if in_group(chat) and chat else None
    kind, named = _named_kind(context)
    card = await _card(update, context, chat_id, kind)
    if card is not None:
        others = await _other_cards(context, card, chat_id, kind)
        await reply(update, context, _with_section(
            render.rating_text(card, named, in_group=chat_id is not None)
            + render.other_games_text(others),
            await _card_tournaments(context, card, chat_id)))


async def profile(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``/profile [game]``: the rating card in a game (else the default game) and a PNG
    chart of its Elo over time."""
    chat = update.effective_chat
    if chat is None:
        return
    chat_id = chat.id if in_group(chat) else None
    kind, named = _named_kind(context)
    card = await _card(update, context, chat_id, kind)
    if card is None:
        return
    bot = services(context)
    others = await _other_cards(context, card, chat_id, kind)
    cups = await _card_tournaments(context, card, chat_id)
    history = await bot.service.rating_history(card.user_id, kind=kind)
    title = _("Elo of {name}").format(name=card.name)
    # (in a group, its days, as /history and the standings show them)
    tz = (await bot.service.chat_zone(chat_id))[0] if chat_id is not None else None
    png = await asyncio.to_thread(rating_chart_png, history, title,
                                  empty_text=_("No rated game yet"), tz=tz,
                                  numeric_dates=current_language() != DEFAULT_LANGUAGE)
    message = update.effective_message
    caption = render.profile_caption(card, others, named, cups, in_group=chat_id is not None)
    if await bot.messenger.send_photo(chat.id, png, caption,
                                      thread_id=thread_of(message)) is None:
        await reply(update, context, _with_section(  # without the chart
            render.rating_text(card, named, in_group=chat_id is not None)
            + render.other_games_text(others), cups))


async def history(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``/history``: the last 10 games of this chat, of every game, and the sender's latest
    tournaments in it; in the private chat, the sender's own last games and tournaments of
    every group (:func:`_my_history`)."""
    chat, user, message = update.effective_chat, update.effective_user, \
        update.effective_message
    if chat is None:
        return
    bot = services(context)
    # (a message sent as the group or a channel has no player behind it)
    sender = user if user is not None and (message is None or message.sender_chat is None) \
        else None
    if not in_group(chat):
        await reply(update, context, await _my_history(bot, sender.id) if sender is not None
                    else _("Send /history in a group."))
        return
    section = ""
    if sender is not None:
        section = render.tournaments_text(
            await played_tournaments(bot.db, sender.id, chat.id), sender.id,
            _("🏆 <b>Tournaments of {name}</b>").format(
                name=render.escaped_name(user_ref(sender).display_name)), group=False)
    await reply(update, context, render.history_text(
        await bot.service.history(chat.id, kind=None), section))


async def _my_history(bot: BotServices, user_id: int) -> str:
    """``/history`` in the private chat: the sender's last games and tournaments of every
    group."""
    cups = render.tournaments_text(await played_tournaments(bot.db, user_id), user_id,
                                   _("🏆 <b>Your tournaments</b>"), group=True)
    return render.my_history_text(await bot.service.player_history(user_id), cups)


async def replay(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``/replay ID``: a game of this chat, step by step."""
    chat = update.effective_chat
    arg = (context.args or [""])[0].lstrip("#")
    if not in_group(chat) or chat is None or not arg.isascii() or not arg.isdigit() or \
            len(arg) > 12:
        await reply(update, context, _("Use /replay followed by a game number from /history, "
                                       "in the group where it was played."))
        return
    try:
        game, log = await services(context).service.replay(int(arg), chat.id)
    except ServiceError as exc:  # (a number no game has was not played here either)
        code = "game_of_another_chat" if exc.code == "game_not_found" else exc.code
        await reply(update, context, error_text(code, {"game_id": int(arg), **exc.detail}))
        return
    await reply(update, context, render.replay_text(game, log))


async def top(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``/top [game]``: the overall leaderboard of a game (else the default game's)."""
    kind, rest = _kind_of(list(context.args or []))
    if rest:  # a word that names no game: not the default game's board under its name
        await reply(update, context, _("Use /top or /top followed by a game.") + "\n"
                    + _games_line())
        return
    await reply(update, context, render.top_text(await services(context).service.top(
        kind=kind), kind))
