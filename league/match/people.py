"""People: users' names, languages, whether private messages reach them, and their own
preferences (whether a move that ends the round asks them to confirm it)."""

from __future__ import annotations

from sqlalchemy import select, update

from league.store.context import Context
from league.store.errors import ServiceError
from league.store.models import Chat, User
from league.store.rows import is_language_code, upsert_user, user_language
from league.store.snapshots import UserRef


class People:
    """The users the league knows (part of :class:`league.service.MatchService`)."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    async def touch_user(self, user: UserRef, *, can_message: bool | None = None) -> bool:
        """Create or refresh a user's names; optionally set ``can_message``. Returns whether
        private messages reached them before (``False`` for a new user)."""
        async with self.ctx.db.sessions.begin() as session:
            # (locked: of two processes handling a returning user's texts, one sees False)
            before = bool(await session.scalar(select(User.can_message).where(
                User.id == user.id).with_for_update()))
            row = await upsert_user(session, user)
            if can_message is not None:
                row.can_message = can_message
            return before

    async def chat_language(self, chat_id: int) -> str | None:
        """The language code a chat's messages are written in (``None``: not set yet)."""
        async with self.ctx.db.sessions() as session:
            chat = await session.get(Chat, chat_id)
            return None if chat is None else chat.language

    async def user_language(self, user_id: int) -> str | None:
        """The language code a user reads (chosen with /language, else their client's)."""
        async with self.ctx.db.sessions() as session:
            return user_language(await session.get(User, user_id))

    async def chosen_language(self, user_id: int) -> str | None:
        """The language a user chose with /language (``None``: they follow their client)."""
        async with self.ctx.db.sessions() as session:
            return await session.scalar(select(User.chosen_language).where(User.id == user_id))

    async def choose_language(self, user: UserRef, code: str | None) -> None:
        """Record the language ``user`` chose (``None``: follow their client again). Raises
        ``bad_option`` for something that is no language code."""
        if code is not None and not is_language_code(code):
            raise ServiceError("bad_option")
        async with self.ctx.db.sessions.begin() as session:
            row = await upsert_user(session, user)
            row.chosen_language = code

    async def confirms_ending(self, user_id: int) -> bool:
        """Whether a move of ``user_id``'s that ends the round asks them to confirm it (on
        unless they turned it off; a user the league does not know yet: on)."""
        async with self.ctx.db.sessions() as session:
            return await session.scalar(
                select(User.confirm_ending).where(User.id == user_id)) is not False

    async def set_confirm_ending(self, user: UserRef, on: bool) -> None:
        """Record whether ``user``'s moves that end the round ask them to confirm them (games
        read it with their players: the next keyboard drawn for them follows it)."""
        async with self.ctx.db.sessions.begin() as session:
            row = await upsert_user(session, user)
            row.confirm_ending = on

    async def set_can_message(self, user_id: int, value: bool) -> None:
        """Record whether private messages reach a user (a 403 from the platform: ``False``)."""
        async with self.ctx.db.sessions.begin() as session:
            await session.execute(update(User).where(User.id == user_id)
                                  .values(can_message=value))

    async def reachable(self, user_ids: list[int]) -> set[int]:
        """Those of ``user_ids`` whom private messages reach."""
        async with self.ctx.db.sessions() as session:
            rows = await session.scalars(select(User.id).where(User.id.in_(user_ids),
                                                               User.can_message.is_(True)))
            return set(rows)
