"""Koira's chat interface: its texts, keyboards, callback data and notes
(``shared/rules/koira.md``; the engine is :mod:`engine.koira`).

Pure functions of a :class:`league.store.snapshots.GameSnapshot` and the engine's events; every
card shown comes from ``GAMES["koira"].view(state, seat)`` (the seat's own hand, the public
table), never from the state's hands. Modules: :mod:`.cards` (card and suit labels),
:mod:`.texts` (private message and group table), :mod:`.keyboard` (private keyboard and its
callback data), :mod:`.notes` (per-move group notes, the end, /replay), :mod:`.rules`
(/rules koira, refusals, lobby options).
"""

from telegram_app.games.koira.ui import KOIRA
from telegram_app.games.registry import register

register(KOIRA)

__all__ = ["KOIRA"]
