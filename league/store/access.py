"""Who may read a chat's pages outside the chat (the Mini App): a person who took a seat in
one of its games. (In the chat itself, being there is enough; a web page cannot see the chat,
and asking Telegram for membership on every page would cost a call each time.) A game's table
follows the same rule: its players, or anyone who sat in a game of its chat."""

from __future__ import annotations

from sqlalchemy import exists, select
from sqlalchemy.orm import aliased

from league.store.db import Database
from league.store.models import Chat, Game, GamePlayer
from league.store.rows import MAX_INTEGER


async def played_in(db: Database, chat_id: int, user_id: int) -> bool:
    """Whether ``user_id`` joined any game of ``chat_id`` (lobby, running or over)."""
    async with db.sessions() as session:
        found = await session.scalar(
            select(GamePlayer.game_id).join(Game, Game.id == GamePlayer.game_id)
            .where(Game.chat_id == chat_id, GamePlayer.user_id == user_id).limit(1))
    return found is not None


async def may_see_game(db: Database, game_id: int, user_id: int) -> bool | None:
    """Whether ``user_id`` may see game ``game_id`` (as :func:`played_in` its chat: this
    game's players sat in one of its games), ``None`` if there is no such game. One query."""
    if not 0 < game_id <= MAX_INTEGER:
        return None  # (forged: no such game)
    other = aliased(Game)
    member = exists().where(GamePlayer.game_id == other.id, other.chat_id == Game.chat_id,
                            GamePlayer.user_id == user_id)
    async with db.sessions() as session:
        row = (await session.execute(select(Game.id, member).where(Game.id == game_id))).first()
    return None if row is None else bool(row[1])


async def chats_of(db: Database, user_id: int) -> list[int]:
    """The chats whose games ``user_id`` joined, most recent game first."""
    async with db.sessions() as session:
        rows = await session.execute(
            select(Game.chat_id, Game.id).join(GamePlayer, Game.id == GamePlayer.game_id)
            .where(GamePlayer.user_id == user_id).order_by(Game.id.desc()).limit(200))
    seen: list[int] = []
    for chat_id, _game_id in rows:
        if chat_id not in seen:
            seen.append(chat_id)
    return seen


async def version_of(db: Database, game_id: int) -> int | None:
    """A game's version alone (the Mini App's event stream polls it), ``None`` if unknown."""
    async with db.sessions() as session:
        return await session.scalar(select(Game.version).where(Game.id == game_id))


async def chat_title(db: Database, chat_id: int) -> str | None:
    """The chat's title as last seen, ``None`` if unknown."""
    async with db.sessions() as session:
        return await session.scalar(select(Chat.title).where(Chat.id == chat_id))
