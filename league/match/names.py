"""Names as the platform shows them now: people's names, group titles and forum topic names,
refreshed from whatever the bot sees. Each method is one short transaction that writes only
what changed; the bot calls them only when its own memory of the last seen name differs."""

from __future__ import annotations

from sqlalchemy import or_, select, update
from sqlalchemy.exc import IntegrityError

from league.store.context import Context
from league.store.inbox import NAMES_ONLY
from league.store.message_models import ForumTopic
from league.store.models import Chat, GamePlayer, User
from league.store.rows import rowcount
from league.store.snapshots import UserRef
from league.store.tournament_models import TournamentEntry

MAX_NAME = 256
"""The length of the name columns; a longer name is cut (Telegram's are far shorter)."""


class Names:
    """Name refreshes (part of :class:`league.service.MatchService`)."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    async def refresh_user(self, user: UserRef) -> bool:
        """Store ``user``'s first and last name, username and (when given) client language,
        which their private messages use unless they chose one with /language; show the new
        name in every game they sat in (lobby, table, history, replays) and every tournament
        they entered (its sign-up, standings and the tables it seats next). A person the
        league never stored is not created. Returns whether anything changed."""
        first = user.first_name[:MAX_NAME]
        last = user.last_name[:MAX_NAME] if user.last_name else None
        username = user.username[:64] if user.username else None
        shown = user.display_name[:MAX_NAME]
        language = user.language[:16] if user.language else None
        async with self.ctx.db.sessions.begin() as session:
            session.info[NAMES_ONLY] = True  # not the change the update asked for
            differs = [User.first_name != first, User.last_name.is_distinct_from(last),
                       User.username.is_distinct_from(username)]
            values = {"first_name": first, "last_name": last, "username": username}
            if language is not None:  # only the sender's own User object carries it
                differs.append(User.language.is_distinct_from(language))
                values["language"] = language
            changed = await session.execute(
                update(User).where(User.id == user.id, or_(*differs)).values(**values))
            renamed = await session.execute(
                update(GamePlayer).where(GamePlayer.user_id == user.id,
                                         GamePlayer.name != shown)
                .values(name=shown))
            entered = await session.execute(
                update(TournamentEntry).where(TournamentEntry.user_id == user.id,
                                              TournamentEntry.name != shown)
                .values(name=shown))
            return bool(rowcount(changed) or rowcount(renamed) or rowcount(entered))

    async def set_chat_title(self, chat_id: int, title: str) -> None:
        """Store a group's current title (a group the league never stored is not created:
        its first lobby stores it)."""
        async with self.ctx.db.sessions.begin() as session:
            session.info[NAMES_ONLY] = True  # not the change the update asked for
            await session.execute(update(Chat).where(
                Chat.id == chat_id, Chat.title.is_distinct_from(title[:MAX_NAME]))
                .values(title=title[:MAX_NAME]))

    async def set_topic_name(self, chat_id: int, thread_id: int, name: str, *,
                             replace: bool = True) -> None:
        """Store a forum topic's name (``replace=False``: only if none is stored yet, for a
        name read from an old creation message, which a later edit may have changed)."""
        name = name[:MAX_NAME]
        for _attempt in range(2):  # two first sightings at once: the second one updates
            try:
                async with self.ctx.db.sessions.begin() as session:
                    session.info[NAMES_ONLY] = True  # not the change asked for
                    row = await session.scalar(select(ForumTopic).where(
                        ForumTopic.chat_id == chat_id, ForumTopic.thread_id == thread_id))
                    if row is None:
                        session.add(ForumTopic(chat_id=chat_id, thread_id=thread_id,
                                               name=name))
                    elif replace and row.name != name:
                        row.name = name
                return
            except IntegrityError:
                continue
