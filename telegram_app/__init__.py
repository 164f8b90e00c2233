"""The python-telegram-bot adapter: handlers, keyboards, rendering, translations.

This is the only package that knows Telegram exists; it turns updates into league calls and
league events into messages.
"""
