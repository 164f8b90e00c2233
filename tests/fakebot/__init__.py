"""Fake Telegram Bot API server and scripted users for end-to-end tests.

Usage::

    async with FakeBotAPI(token="123:ABC") as api:
        app = ApplicationBuilder().token(api.token).base_url(api.base_url).build()
        alice = api.add_user(1001, "Alice")
        await alice.start_bot()
        ...
        await api.settle()
        print(render_transcript(api, alice.id))
"""

from .clients import FakeUser
from .html_check import HtmlParseError, parse_html
from .models import FakeChat, LogEntry, RecordedRequest, StoredMessage
from .server import FakeBotAPI
from .transcript import render_transcript

__all__ = [
    "FakeBotAPI",
    "FakeChat",
    "FakeUser",
    "HtmlParseError",
    "LogEntry",
    "RecordedRequest",
    "StoredMessage",
    "parse_html",
    "render_transcript",
]
