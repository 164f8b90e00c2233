"""Turns committed league results into Telegram messages (always after the commit):
:mod:`.delivery` (when: one delivery per game at a time, in commit order), :mod:`.reports`
(what the group is told) and :mod:`.screens` (the lobby, table and private messages)."""

from telegram_app.presenter.delivery import DELIVERIES, Presenter

__all__ = ["DELIVERIES", "Presenter"]
