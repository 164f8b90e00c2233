"""The fake Bot API's refusals of the bot's calls, recorded as they happen, and a check that
every call kept within the limits the Bot API documents (texts, answers, keyboards)."""

from __future__ import annotations

import asyncio
import json

from tests.fakebot.html_check import parse_html
from tests.fakebot.models import ApiError
from tests.fakebot.server import FakeBotAPI


class Audit:
    """The fake's refusals, recorded as the bot's calls arrive."""

    def __init__(self, api: FakeBotAPI) -> None:
        self.api, self.refused = api, []
        for name, handler in list(api._handlers.items()):
            api._handlers[name] = self._wrap(name, handler)

    def _wrap(self, name, handler):
        def wrapped(params):
            try:
                result = handler(params)
            except ApiError as exc:
                self.refused.append(f"{name}: {exc.description}")
                raise
            if asyncio.iscoroutine(result):
                async def waited(coro=result):
                    try:
                        return await coro
                    except ApiError as exc:
                        self.refused.append(f"{name}: {exc.description}")
                        raise
                return waited()
            return result
        return wrapped

    def check(self) -> None:
        """No refusal but the ordinary ones, and every call within the documented limits."""
        ordinary = ("not modified", "not found", "query is too old")
        assert [r for r in self.refused if not any(o in r for o in ordinary)] == []
        for request in self.api.requests:
            p, method = request.params, request.method.lower()
            if method == "answercallbackquery":
                assert len(str(p.get("text") or "")) <= 200, p
            for key, limit in (("text", 4096), ("caption", 1024)):
                if p.get(key) and method != "answercallbackquery":
                    assert len(parse_html(str(p[key]), strict_amp=False)[0]) <= limit
            markup = p.get("reply_markup")
            markup = json.loads(markup) if isinstance(markup, str) else markup
            rows = (markup or {}).get("inline_keyboard") or []
            assert sum(map(len, rows)) <= 100 and all(len(r) <= 8 for r in rows)
            for button in (b for r in rows for b in r if "callback_data" in b):
                assert len(button["callback_data"].encode()) <= 64
