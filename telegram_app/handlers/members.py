"""What the bot learns about people and groups from every update, and who leaves a group.

:func:`seen` runs before every other handler (group ``-1``): it keeps stored names current
(a person's first and last name and username, a group's title, a forum topic's name), from
messages, commands, callback queries, typed bids and chat-member updates alike. An
in-process memory of the last name seen per user, chat and topic means the database is
written only when a name changed (or on the first sighting after a start): a button press
from someone whose name is unchanged costs no query.

:func:`bot_added` (a ``my_chat_member`` update: the bot itself joined a group) posts one
welcome there, in the language of whoever added it. When a group becomes a supergroup,
Telegram shows the bot joining the supergroup too, and says so in no set order with the
service messages of the move (``migrate_to_chat_id``, ``migrate_from_chat_id``): so a
supergroup's welcome waits :data:`WELCOME_DELAY` seconds and is dropped if the move was
recorded meanwhile (``chats.migrated_from``).

:func:`left_chat` (a ``left_chat_member`` service message) and :func:`member_changed` (a
``chat_member`` update with status ``left`` or ``kicked``, which Telegram sends only to a bot
that administers the group) treat a player who leaves the group as one who sent ``/leave``:
out of the running game (placed last, the group told), off the lobby (redrawn).
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Hashable
from typing import cast

from telegram import Chat, ChatMember, Message, Update, User
from telegram.constants import ChatMemberStatus, ChatType
from telegram.ext import ContextTypes

from engine import Action
from league.store.errors import ServiceError
from league.store.inbox import CURRENT
from telegram_app.handlers.common import in_group, user_ref
from telegram_app.i18n import use_language
from telegram_app.render.texts import group_welcome_text
from telegram_app.services import BotServices, services
from telegram_app.tournaments.drawing import show_signup
from telegram_app.tournaments.memory import memory_of
from telegram_app.transport.scheduler import uncancelled

log = logging.getLogger(__name__)
NAMES_KEY = "seen_names"  # bot_data key of this process's :class:`SeenNames`
GONE = (ChatMemberStatus.LEFT, ChatMemberStatus.BANNED)  # "left", "kicked"
PRESENT = (ChatMemberStatus.MEMBER, ChatMemberStatus.ADMINISTRATOR)
WELCOME_DELAY = 5.0
"""Seconds a supergroup's welcome waits for the service messages of a group's move to it."""


class SeenNames:
    """The last name this process saw (or stored) per key, at most ``size`` keys (the least
    recently seen are forgotten; forgetting only costs one write when they come back)."""

    def __init__(self, size: int = 50_000) -> None:
        self.size = size
        self._last: OrderedDict[Hashable, Hashable] = OrderedDict()

    def changed(self, key: Hashable, value: Hashable) -> bool:
        """Whether ``value`` differs from what was last seen for ``key`` (or is the first)."""
        if key in self._last and self._last[key] == value:
            self._last.move_to_end(key)
            return False
        return True

    def knows(self, key: Hashable) -> bool:
        """Whether some value was seen for ``key``."""
        return key in self._last

    def remember(self, key: Hashable, value: Hashable) -> None:
        """Note ``value`` as stored for ``key``."""
        self._last[key] = value
        self._last.move_to_end(key)
        while len(self._last) > self.size:
            self._last.popitem(last=False)


def _names(context: ContextTypes.DEFAULT_TYPE) -> SeenNames:
    return context.application.bot_data.setdefault(NAMES_KEY, SeenNames())


async def seen(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Refresh the stored names an update carries, writing only what changed. A failure is
    logged and the update goes on to its handler."""
    try:
        await _refresh(update, context)
    except Exception:  # a database hiccup must not cost the player their move
        log.exception("refreshing names from update %s failed", update.update_id)


async def _refresh(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    bot, memory = services(context), _names(context)
    people: dict[int, User] = {}
    message = update.effective_message
    for user in (update.effective_user, *_people_of(update, message)):
        if user is not None and not user.is_bot:
            people.setdefault(user.id, user)  # the sender's own object is the full one
    for user in people.values():
        ref = user_ref(user)
        key, value = ("user", user.id), (ref.first_name, ref.last_name, ref.username)
        # The client's language, when the update carries it (only the sender's does).
        language = ("language", user.id), ref.language
        if memory.changed(key, value) or \
                (ref.language is not None and memory.changed(*language)):
            await bot.service.refresh_user(ref)
            memory.remember(key, value)
            if ref.language is not None:
                memory.remember(*language)
    chat = update.effective_chat
    if in_group(chat) and chat is not None and chat.title:
        if memory.changed(("chat", chat.id), chat.title):
            await bot.service.set_chat_title(chat.id, chat.title)
            memory.remember(("chat", chat.id), chat.title)
    if message is not None and chat is not None and in_group(chat):
        await _topic(bot, memory, chat, message)


def _people_of(update: Update, message: Message | None) -> list[User | None]:
    """The other people an update shows with their current names: a member change's, and
    the author of a replied-to message (``/rating`` by reply shows the name Telegram sends
    for them now; not one sent as the group or a channel, whose ``from_user`` stands in)."""
    found: list[User | None] = []
    member = update.chat_member or update.my_chat_member
    if member is not None:
        found += [member.from_user, member.new_chat_member.user]
    if message is not None:
        found += [message.left_chat_member, *(message.new_chat_members or ())]
        replied = message.reply_to_message
        if replied is not None and replied.sender_chat is None:
            found.append(replied.from_user)
    return found


async def _topic(bot: BotServices, memory: SeenNames, chat: Chat, message: Message) -> None:
    """A forum topic's name from its creation or an edit (the name it has now), or from the
    creation message a topic message replies to (the name it was created with: stored only
    when none is known)."""
    created, edited = message.forum_topic_created, message.forum_topic_edited
    thread = message.message_thread_id or 0
    if not thread:
        return
    key = ("topic", chat.id, thread)
    if created is not None or (edited is not None and edited.name):
        name = created.name if created is not None else edited.name  # type: ignore[union-attr]
        if name and memory.changed(key, name):
            await bot.service.set_topic_name(chat.id, thread, name)
            memory.remember(key, name)
        return
    replied = message.reply_to_message
    if replied is not None and replied.forum_topic_created is not None and \
            replied.message_id == thread and not memory.knows(key):
        await bot.service.set_topic_name(chat.id, thread, replied.forum_topic_created.name,
                                         replace=False)
        memory.remember(key, replied.forum_topic_created.name)


async def bot_added(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """A ``my_chat_member`` update in which the bot joins a group (its status goes from
    ``left`` or ``kicked`` to ``member`` or ``administrator``): one welcome, in the General
    topic of a forum, in the group's language, or while it has none in the language of who
    added it (their client's, English for one we do not ship). A promotion or restriction
    of the bot already there, and anything in a private chat (a user blocking or restarting
    the bot), say nothing. Back in a group whose league post Telegram refused while it was
    out, its posts owed go out again (``Chats.set_bot_present``). A repeated update is
    dropped by the intake (its ``update_id``); a failed send (the bot was removed again at
    once) is the messenger's to log.

    A supergroup may be a group that just became one, which Telegram also shows as the bot
    joining it: no welcome if the move is recorded already, else the welcome waits
    :data:`WELCOME_DELAY` seconds (:func:`_welcome_later`) for the move's service messages
    or a send's ``ChatMigrated`` to record it. A basic group is welcomed at once."""
    change = update.my_chat_member
    if change is None or not in_group(change.chat):
        return
    if _gone(change.new_chat_member):
        _drop_welcome(context, change.chat.id)  # (removed again within the wait)
    if change.new_chat_member.status not in PRESENT or not _gone(change.old_chat_member):
        return
    # (its league posts refused while it was out go out now: ``chats.bot_left_at``)
    await services(context).service.set_bot_present(change.chat.id, True)
    adder = change.from_user  # (an anonymous admin is the "Group" bot: no name to thank)
    language = None if adder.is_bot else adder.language_code
    name = None if adder.is_bot else adder.full_name
    chat_id, jobs = change.chat.id, context.job_queue
    if change.chat.type != ChatType.SUPERGROUP or jobs is None:
        await _welcome(context, chat_id, language, name)
        return
    if await services(context).service.take_migration(chat_id):
        return  # the group, welcomed when the bot joined it, moved here
    # The JobQueue holds the wait in memory: a restart meanwhile loses the welcome, an
    # acceptable loss for a courtesy. One pending welcome per chat: added, removed and
    # added again within the wait says it once.
    _drop_welcome(context, chat_id)
    jobs.run_once(_welcome_later, when=WELCOME_DELAY, name=f"welcome:{chat_id}",
                  chat_id=chat_id, data=(language, name))


def _drop_welcome(context: ContextTypes.DEFAULT_TYPE, chat_id: int) -> None:
    """Forget a supergroup's pending welcome, if any."""
    if context.job_queue is not None:
        for job in context.job_queue.get_jobs_by_name(f"welcome:{chat_id}"):
            job.schedule_removal()


@uncancelled
async def _welcome_later(context: ContextTypes.DEFAULT_TYPE) -> None:
    """A supergroup's welcome, after the wait: dropped if a group's move to it was recorded
    meanwhile (or cannot be read: better none than a second one)."""
    job = context.job
    if job is None or job.chat_id is None:
        return
    language, name = cast(tuple[str | None, str | None], job.data)
    try:
        if await services(context).service.take_migration(job.chat_id):
            return
    except Exception:
        log.exception("chat %s: no welcome, its migration could not be read", job.chat_id)
        return
    await _welcome(context, job.chat_id, language, name)


async def _welcome(context: ContextTypes.DEFAULT_TYPE, chat_id: int, language: str | None,
                   name: str | None) -> None:
    """The welcome, in the group's language, or ``language`` (the adder's) while it has
    none, thanking ``name`` (``None``: nobody by name)."""
    with use_language(await services(context).service.chat_language(chat_id) or language):
        text = group_welcome_text(name)
    await services(context).messenger.send(chat_id, text)


async def left_chat(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """A ``left_chat_member`` service message: that person leaves this group's games."""
    message = update.effective_message
    if message is None or message.left_chat_member is None or \
            message.left_chat_member.is_bot:
        return
    await leave_games(context, message.chat.id, message.left_chat_member.id)


async def member_changed(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """A ``chat_member`` update: someone who left or was removed (status ``left`` or
    ``kicked``) leaves this group's games. Other changes (promotions, restrictions) do
    nothing."""
    change = update.chat_member
    if change is None or change.new_chat_member.user.is_bot or \
            not _gone(change.new_chat_member) or _gone(change.old_chat_member):
        return
    await leave_games(context, change.chat.id, change.new_chat_member.user.id)


def _gone(member: ChatMember) -> bool:
    """Whether a chat member is not in the chat (left, removed, or restricted and out)."""
    if member.status == ChatMemberStatus.RESTRICTED:
        return not getattr(member, "is_member", True)
    return member.status in GONE


async def leave_games(context: ContextTypes.DEFAULT_TYPE, chat_id: int, user_id: int) -> None:
    """Take ``user_id`` out of every open game of the chat (all topics), as ``/leave`` and
    the lobby's 🚪 Leave would: a running game goes on without them (placed last, the
    group is told), a lobby loses their seat and is redrawn (cancelled if nobody is left);
    they leave the chat's tournaments (withdrawn: no later round seats them); their /notify
    subscription to the chat ends. Done already (both a service message and a
    ``chat_member`` update came, or they were out anyway): nothing happens.

    Each game's leave is its own transaction, so the update is marked done only once every
    game was left (:attr:`league.store.inbox.Work.several`): a kill between two games has the update
    handled again after the restart, and the games left already are skipped."""
    bot = services(context)
    games = [g for g in await bot.service.open_games_in(chat_id) if g.player(user_id) is not None]
    cups = [c for c in await bot.service.tournaments_in(chat_id)
            if (entry := c.entry_of(user_id)) is not None and entry.active]
    work = CURRENT.get()
    if work is not None and (games or cups):  # (the subscription's end is a transaction too)
        work.several = True
    # Nor is anyone out of the group told of its next games (whose alert's link would seat
    # them in a lobby of a group that removed them).
    await bot.service.unsubscribe(chat_id, user_id)
    for cup in cups:
        try:
            await bot.service.leave_tournament(cup.id, user_id)
        except ServiceError:  # (left already: a repeated update)
            continue
        bot.presenter.later(show_signup(bot, memory_of(context.application.bot_data), cup.id))
    for game in sorted(games, key=lambda g: g.id):
        await _leave_one(bot, context, game.id, user_id)


async def _leave_one(bot: BotServices, context: ContextTypes.DEFAULT_TYPE, game_id: int,
                     user_id: int) -> None:
    for _attempt in range(3):  # a move or a Start may land first: take the game as it is then
        game = await bot.service.get(game_id)
        try:
            if game.status == "lobby":
                game = await bot.service.leave(game.id, user_id)
                if game.status == "cancelled":
                    bot.presenter.later(bot.presenter.close_lobby(game))
                else:
                    bot.presenter.later(bot.presenter.show_lobby(game, context.bot.username))
            elif game.status == "running":
                # (the presenter, the service's commit listener, shows the leave)
                await bot.service.act(game.id, user_id, game.version, Action("resign"))
            return
        except ServiceError as exc:
            if exc.code not in ("stale", "not_in_lobby", "not_running"):
                log.info("game %s: %s left the group; nothing to do (%s)", game_id, user_id,
                         exc.code)
                return
    log.warning("game %s: could not take out %s, who left the group", game_id, user_id)

