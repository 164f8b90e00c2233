"""A tournament table's forum topic: in a forum, each table of a round is played in
a topic of its own, which the bot opens before the table's first message when it may manage
topics; otherwise the tables run side by side in the tournament's topic.

The topic is opened under the game's delivery (one per game at a time, across processes), only
while the table has no table message yet and the league recorded no answer for it
(``MatchService.move_table_to_topic`` records the topic, or that the bot may not open one,
on the game): so a refusal is asked once per table, not at every move, and a restart that
delivers the start again finds the table in its topic. A topic opened but not yet recorded
(the database failed in between) is kept here and recorded by the next delivery, not opened
twice.
"""

from __future__ import annotations

from league.delivery import Delivery
from league.service import MatchService
from league.store.snapshots import GameSnapshot
from league.tournaments.telling import TABLE_TOPIC
from telegram_app.render.language import for_chat
from telegram_app.render.tournament_table import topic_name
from telegram_app.transport.messenger import Messenger


class TableTopics:
    """Opens each tournament table's forum topic, once, before the table is first shown."""

    def __init__(self, messenger: Messenger, service: MatchService) -> None:
        self.messenger = messenger
        self.service = service
        self._opened: dict[int, int] = {}  # game -> the topic opened for it, not yet recorded

    async def place(self, delivery: Delivery) -> None:
        """Move the delivery's table into a topic of its own if it wants one (and read the
        game again, so every message of this delivery goes there); else leave it be."""
        game = delivery.game
        if not wants_topic(game):
            return
        thread = self._opened.get(game.id)
        if thread is None:
            with for_chat(game):
                name = topic_name(game)
            thread = await self.messenger.create_topic(game.chat_id, name)
            if thread is not None:
                self._opened[game.id] = thread
                # (the bot gets no update of its own topic: its players' private
                # messages name the topic from this record)
                await self.service.set_topic_name(game.chat_id, thread, name)
        moved = await self.service.move_table_to_topic(game.id, thread or 0)
        self._opened.pop(game.id, None)
        if moved:
            await self.service.reread(delivery)


def wants_topic(game: GameSnapshot) -> bool:
    """A running tournament table of a forum (``topic_per_table``) before its first table
    message, for which no topic (nor a refusal) was recorded yet."""
    options = game.options or {}
    return (game.tournament_id is not None and game.status == "running"
            and bool(options.get("topic_per_table")) and TABLE_TOPIC not in options
            and game.table_message_id is None)
