"""Committed changes into Telegram messages: when, what the group is told, and the screens."""

from telegram_app.presenter.presenter import DELIVERIES, Presenter

__all__ = ["DELIVERIES", "Presenter"]
