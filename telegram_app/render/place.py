"""Which group (and forum topic) a game is in, as the first line of every private message
about it: a player seated in games of several groups must tell at a glance which buttons act
where. Any game's private messages use it (:func:`with_place`)."""

from __future__ import annotations

from html import escape

from league.store.snapshots import GameSnapshot
from telegram_app.render.common import plain_name

PLACE_LINE = 34
"""Characters of the group's title (and topic name) that fit one line of a chat bubble on a
phone, next to the line's emoji; a longer name is cut with an ellipsis."""
MIN_TITLE = 12
"""Characters the group's title keeps at least when both names are long: the topic's name
keeps the rest, as it tells a forum's games apart ("Coyote table one", "… two")."""
SEPARATOR = " › "


def place_line(game: GameSnapshot) -> str | None:
    """``👥 <b>Group title</b> › Topic name``, escaped and cut to :data:`PLACE_LINE` (the
    topic only when the bot has seen its name); ``None`` when the group's title is not
    known."""
    title = game.chat_title
    if not title or not title.strip():
        return None
    topic = (game.topic_name or "").strip()
    room = PLACE_LINE
    if topic:
        room -= len(SEPARATOR)
        topic_room = min(len(topic), room - min(len(title.strip()), MIN_TITLE))
        line = (f"👥 <b>{_cut(title, room - topic_room)}</b>{SEPARATOR}"
                f"{_cut(topic, topic_room)}")
    else:
        line = f"👥 <b>{_cut(title, room)}</b>"
    return line


def with_place(game: GameSnapshot, text: str) -> str:
    """``text`` (a private message about ``game``) under its :func:`place_line`."""
    line = place_line(game)
    return text if line is None else f"{line}\n{text}"


def _cut(name: str, limit: int) -> str:
    return escape(plain_name(name, max(1, limit)), quote=False)
