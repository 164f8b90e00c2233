"""A fake Telegram Bot API server on loopback for end-to-end tests of PTB bots.

Point PTB at it with ``ApplicationBuilder().token(api.token).base_url(api.base_url)``.
Bot-method behaviour lives in :mod:`tests.fakebot.methods` (ephemeral messages in
:mod:`tests.fakebot.ephemeral`, chats and members in :mod:`tests.fakebot.chats`, forum topics
in :mod:`tests.fakebot.topics`), the update queue in :mod:`tests.fakebot.updates`, the
sync/query helpers in :mod:`tests.fakebot.inspection`, scripted users in
:mod:`tests.fakebot.clients`; this module holds the HTTP layer, the state and error injection.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

from aiohttp import web

from .chats import ChatsMixin
from .clients import FakeUser, UserActionsMixin
from .ephemeral import EphemeralMixin
from .inspection import InspectionMixin
from .methods import MethodsMixin
from .models import ApiError, FakeChat, LogEntry, RecordedRequest
from .topics import TopicsMixin
from .updates import UpdatesMixin

_JSON_KEYS = frozenset({
    "reply_markup", "entities", "caption_entities", "allowed_updates", "link_preview_options",
    "reply_parameters", "commands", "scope", "media", "results", "permissions", "menu_button",
})
_INT_KEYS = frozenset({
    "chat_id", "message_id", "offset", "limit", "timeout", "message_thread_id", "user_id",
    "cache_time", "reply_to_message_id", "from_chat_id", "until_date", "receiver_user_id",
    "ephemeral_message_id", "icon_color",
})
_TEXT_KEYS = frozenset({
    "text", "caption", "callback_query_id", "title", "description", "url", "parse_mode",
    "inline_message_id", "language_code", "name", "short_description", "action",
    "icon_custom_emoji_id",
})


def _decode_value(key: str, value: Any) -> Any:
    """Turn a form-encoded string back into what PTB JSON-encoded."""
    if not isinstance(value, str):
        return value
    if key in _JSON_KEYS:
        try:
            return json.loads(value)
        except ValueError:
            return value
    if key in _INT_KEYS:
        try:
            return int(value)
        except ValueError:
            return value
    if key not in _TEXT_KEYS and value in ("true", "false"):
        return value == "true"
    return value


# (UpdatesMixin comes before MethodsMixin: its _drop_pending overrides MethodsMixin's stub.)
class FakeBotAPI(UpdatesMixin, InspectionMixin, MethodsMixin, EphemeralMixin, ChatsMixin,
                 TopicsMixin, UserActionsMixin):
    """Fake Telegram Bot API server (aiohttp, 127.0.0.1, random port).

    Use ``async with FakeBotAPI(token="123:ABC") as api`` or ``await api.start()`` /
    ``await api.stop()``. ``strict_html_amp`` rejects a bare ``&`` in HTML text (Telegram
    tolerates it). ``delay``: seconds each call but ``getUpdates`` takes (as the real API's
    round trip; for benchmarks). Recorded state: ``counts`` (calls per method),
    ``requests`` (every bot call, with its arrival time: an ``answerCallbackQuery``'s
    ``callback_query_id`` and ``time`` say when a press was answered), ``fetched_at`` (when
    ``getUpdates`` handed out each update), ``log`` (visible events),
    ``chats``, ``users``, ``commands``, ``unknown_methods`` (methods the fake does not
    implement: Telegram answers 404 and PTB raises ``InvalidToken`` for them).
    """

    def __init__(
        self,
        token: str = "123:ABC",
        *,
        bot_username: str = "coyote_league_bot",
        bot_name: str = "Coyote League",
        strict_html_amp: bool = True,
        delay: float = 0.0,
    ):
        self.token = token
        self.delay = delay
        """Seconds every call but ``getUpdates`` takes (a round trip to the real API)."""
        self.counts: Counter[str] = Counter()
        """Calls per method (lower-cased), ``getUpdates`` included."""
        self.bot_id = int(token.split(":", 1)[0])
        self.bot_username = bot_username
        self.bot_name = bot_name
        self.strict_html_amp = strict_html_amp
        self.requests: list[RecordedRequest] = []
        self.log: list[LogEntry] = []
        self.chats: dict[int, FakeChat] = {}
        self.users: dict[int, FakeUser] = {}
        self.commands: dict[tuple[str, str], list[dict]] = {}
        self.webhook_url = ""
        self.unknown_methods: list[str] = []
        self.port: int | None = None
        self._runner: web.AppRunner | None = None
        self._updates: list[dict] = []
        self._next_update_id = 1
        self.fetched_at: dict[int, float] = {}
        """Update id -> monotonic time a ``getUpdates`` call first returned it (how long a
        press waited to reach the bot, for benchmarks)."""
        self._delivered_upto = 0
        self._allowed_updates: list[str] | None = None
        self._updates_event = asyncio.Event()
        # Webhook delivery (deliver_by_webhook): the URLs taken in turn, the secret token sent,
        # the updates not yet answered with a 200, the client session and its tasks.
        self.webhook_targets: list[str] = []
        self.webhook_secret = ""
        self.webhook_posts: list[tuple[str, int, int]] = []  # (url, update_id, status or 0)
        self._webhook_pending: set[int] = set()
        self.webhook_updates: dict[int, dict] = {}  # every update delivered so, by id
        self._webhook_turn = 0
        self._webhook_session: Any = None
        self._webhook_tasks: set[asyncio.Task] = set()
        self._poll_generation = 0
        self._closing = False
        self._inflight = 0
        self._last_activity = time.monotonic()
        self._activity = asyncio.Event()
        # In-process bots register a check here that is true while they still hold fetched
        # updates: a handler busy with the database makes no request, so quiet alone is not
        # enough to know the bot is done.
        self.busy_checks: list[Callable[[], bool]] = []
        self._failures: list[dict] = []
        self._queries: dict[str, dict] = {}
        self._answers: dict[str, dict] = {}
        self._query_counter = 0
        self._handlers = {
            name[3:]: getattr(self, name) for name in dir(self) if name.startswith("_m_")
        }

    # ------------------------------------------------------------------ lifecycle
    @property
    def base_url(self) -> str:
        """Value for ``ApplicationBuilder().base_url(...)`` / ``Bot(base_url=...)``."""
        if self.port is None:
            raise RuntimeError("FakeBotAPI is not started")
        return f"http://127.0.0.1:{self.port}/bot"

    async def start(self) -> FakeBotAPI:
        """Start listening on 127.0.0.1 (random port)."""
        app = web.Application()
        app.router.add_route("*", "/bot{token}/{method}", self._handle)
        self._closing = False
        self._runner = web.AppRunner(app, handler_cancellation=True, shutdown_timeout=0.5)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = self._runner.addresses[0][1]
        return self

    async def stop(self) -> None:
        """Wake pending long polls and shut the server down."""
        self._closing = True
        self._updates_event.set()
        for task in list(self._webhook_tasks):
            task.cancel()
        if self._webhook_session is not None:
            await self._webhook_session.close()
            self._webhook_session = None
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> FakeBotAPI:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    # ------------------------------------------------------------------ HTTP layer
    async def _read_params(self, request: web.Request) -> dict[str, Any]:
        raw: dict[str, Any] = dict(request.query)
        ctype = request.content_type
        if ctype in ("application/x-www-form-urlencoded", "multipart/form-data"):
            form = await request.post()
            for key, value in form.items():
                raw[key] = value.file.read() if isinstance(value, web.FileField) else value
        elif request.can_read_body:
            body = await request.read()
            if body:
                try:
                    data = json.loads(body)
                except ValueError as exc:
                    raise ApiError(400, "Bad Request: can't parse JSON object") from exc
                raw.update(data if isinstance(data, dict) else {})
        params = {key: _decode_value(key, value) for key, value in raw.items()}
        for key, value in list(params.items()):  # resolve attach://<name> uploads
            if isinstance(value, str) and value.startswith("attach://"):
                part = value[len("attach://"):]
                if part in params:
                    params[key] = params.pop(part)
        return params

    async def _handle(self, request: web.Request) -> web.Response:
        if request.match_info["token"] != self.token:
            return web.json_response(ApiError(401, "Unauthorized").to_json(), status=401)
        method = request.match_info["method"]
        name = method.lower()
        is_poll = name == "getupdates"
        if not is_poll:
            self._inflight += 1
            self._touch()
        try:
            params = await self._read_params(request)
            self.requests.append(RecordedRequest(method, params))
            self.counts[name] += 1
            if self.delay and not is_poll:
                await asyncio.sleep(self.delay)
            handler = self._handlers.get(name)
            if handler is None and not is_poll:
                self.unknown_methods.append(method)  # PTB turns this 404 into InvalidToken
                raise ApiError(404, "Not Found")
            self._check_injected(name, params)
            self._check_migrated(params)
            if is_poll:
                result = await self._get_updates(params, request)
            else:
                result = handler(params)  # type: ignore[misc]
                if asyncio.iscoroutine(result):
                    result = await result
            body, status = {"ok": True, "result": result}, 200
        except ApiError as err:
            body, status = err.to_json(), err.error_code
        finally:
            if not is_poll:
                self._inflight -= 1
                self._touch()
        return web.json_response(body, status=status)

    def _touch(self) -> None:
        self._last_activity = time.monotonic()
        activity, self._activity = self._activity, asyncio.Event()
        activity.set()

    async def next_activity(self, timeout: float) -> None:  # noqa: ASYNC109
        """Wait until a request starts or ends (or ``timeout`` seconds pass): for a caller
        that waits for a state of the fake without polling it."""
        # (asyncio.timeout, not wait_for: no task for each wait of each waiter)
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(timeout):
                await self._activity.wait()

    # ------------------------------------------------------------------ error injection
    def fail_next(
        self,
        method: str,
        error_code: int = 429,
        description: str = "Too Many Requests: retry after 1",
        parameters: dict | None = None,
        count: int = 1,
        chat_id: int | None = None,
        when: Callable[[dict], bool] | None = None,
    ) -> None:
        """Make the next ``count`` calls of ``method`` (optionally only for ``chat_id``, or
        only those whose parameters satisfy ``when``) fail with the given error.
        ``parameters`` defaults to ``{"retry_after": 1}`` for a 429."""
        if parameters is None and error_code == 429:
            parameters = {"retry_after": 1}
        self._failures.append({
            "method": method.lower(), "error": ApiError(error_code, description, parameters),
            "count": count, "chat_id": chat_id, "when": when,
        })

    def _check_injected(self, name: str, params: dict) -> None:
        for failure in self._failures:
            if failure["method"] != name or failure["count"] <= 0:
                continue
            if failure["chat_id"] is not None and params.get("chat_id") != failure["chat_id"]:
                continue
            if failure["when"] is not None and not failure["when"](params):
                continue
            failure["count"] -= 1
            raise failure["error"]

    def _check_migrated(self, params: dict) -> None:
        chat = self.chats.get(params.get("chat_id"))  # type: ignore[arg-type]
        if chat is not None and chat.migrated_to is not None:
            raise ApiError(
                400, "Bad Request: group chat was upgraded to a supergroup chat",
                {"migrate_to_chat_id": chat.migrated_to},
            )
