"""Committed changes into Telegram messages: when, what the group is told, and the screens."""

from telegram_app.presenter.delivery import DELIVERIES, Presenter

__all__ = ["DELIVERIES", "Presenter"]
