"""Next-game alerts: who asked (``/notify`` in a group, or the lobby's 🔔) to be told in
private when the group's next lobby opens, and which of them to tell for a given lobby."""

from __future__ import annotations

from sqlalchemy import delete, or_, select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from league.store.context import Context
from league.store.models import Chat, GamePlayer, NotifySubscription, User
from league.store.models import Game as GameRow
from league.store.rows import insert_missing, upsert_user, user_language
from league.store.snapshots import UserRef


class Alerts:
    """Next-game subscriptions (part of :class:`league.service.MatchService`)."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    async def subscribe(self, chat_id: int, chat_title: str | None, user: UserRef) -> bool:
        """Ask for a private message when the next lobby opens in ``chat_id``. Returns
        ``False`` if ``user`` had asked already (nothing changes)."""
        async with self.ctx.db.sessions.begin() as session:
            await upsert_user(session, user)
            if await session.get(Chat, chat_id) is None:
                await insert_missing(session, Chat, id=chat_id, title=chat_title)
            await session.flush()
            insert = pg_insert if session.get_bind().dialect.name == "postgresql" \
                else sqlite_insert
            result = await session.execute(
                insert(NotifySubscription).values(chat_id=chat_id, user_id=user.id,
                                                  created_at=self.ctx.clock())
                .on_conflict_do_nothing(index_elements=["chat_id", "user_id"])
                .returning(NotifySubscription.user_id))
            return result.first() is not None

    async def unsubscribe(self, chat_id: int | None, user_id: int) -> bool:
        """Stop the alerts of ``chat_id`` (``None``: of every chat) for ``user_id``; ``False``
        if there were none."""
        async with self.ctx.db.sessions.begin() as session:
            chosen = delete(NotifySubscription).where(NotifySubscription.user_id == user_id)
            if chat_id is not None:
                chosen = chosen.where(NotifySubscription.chat_id == chat_id)
            result = await session.execute(chosen.returning(NotifySubscription.user_id))
            return result.first() is not None

    async def subscribed(self, chat_id: int, user_id: int) -> bool:
        """Whether ``user_id`` asked for the alerts of ``chat_id``."""
        async with self.ctx.db.sessions() as session:
            return await session.get(NotifySubscription, (chat_id, user_id)) is not None

    async def subscriptions_of(self, user_id: int) -> list[str | None]:
        """The titles of the chats whose alerts ``user_id`` asked for (``None``: unknown)."""
        async with self.ctx.db.sessions() as session:
            return list(await session.scalars(
                select(Chat.title).join(NotifySubscription,
                                        NotifySubscription.chat_id == Chat.id)
                .where(NotifySubscription.user_id == user_id).order_by(Chat.id)))

    async def to_alert(self, game_id: int) -> list[tuple[int, str | None]]:
        """Claim the alerts of lobby ``game_id``: every subscriber of its chat not yet told
        of it (nor of a later lobby) and not seated in it is marked told, in one
        transaction, so each lobby alerts each subscriber at most once (a repeat, another
        process or a restart claims nobody). Returns ``(user id, language)`` of those whom
        private messages reach; the others (never started the bot, or blocked it) are
        skipped for this lobby, not retried."""
        async with self.ctx.db.sessions.begin() as session:
            game = await session.get(GameRow, game_id)
            if game is None or game.status != "lobby":
                return []
            seated = set(await session.scalars(
                select(GamePlayer.user_id).where(GamePlayer.game_id == game_id)))
            rows = list(await session.scalars(
                select(NotifySubscription).where(
                    NotifySubscription.chat_id == game.chat_id,
                    or_(NotifySubscription.told_game_id.is_(None),
                        NotifySubscription.told_game_id < game_id))
                .with_for_update()))
            told = []
            for row in rows:
                row.told_game_id = game_id
                if row.user_id in seated:
                    continue
                user = await session.get(User, row.user_id)
                if user is not None and user.can_message:
                    told.append((row.user_id, user_language(user)))
            return told
